#!/usr/bin/env bash
# Installs what is needed, builds, and builds a demo ledger with the synthetic backends
# (3 scripted policies x 2 tasks x 10 episodes, judged by the synthetic frame judge), then opens
# it in the workstation; on a machine without a display it shows it with kosmos-cli instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup-debian.sh
scripts/build.sh
demo="build/demo.kosmos"
# Synthetic backends only: no model weights needed. Running it again resumes (finished runs
# are skipped), so this is cheap after the first time.
build/bin/kosmos-cli demo --ledger "$demo" --workers 2
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/bin/kosmos "$demo"
fi
echo "demo: no display found; the demo ledger is shown in the command-line twin."
echo "      (on a desktop, this command opens it in the workstation: build/bin/kosmos $demo)"
build/bin/kosmos-cli info "$demo"
build/bin/kosmos-cli verify "$demo"
