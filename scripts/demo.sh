#!/usr/bin/env bash
# Installs what is needed, builds, and opens a demo ledger. The desktop workstation and the
# synthetic backends are not built yet (issues [review-gui] and [engine]); until then this
# creates a demo ledger and shows it with the command-line twin, kosmos-cli.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup-debian.sh
scripts/build.sh
demo="build/demo.kosmos"
if [ ! -d "$demo" ]; then
    build/bin/kosmos-cli init "$demo"
fi
if [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    echo "demo: no display found; showing the demo ledger in the command-line twin."
else
    echo "demo: the desktop GUI is not built yet; showing the demo ledger in the command-line twin."
fi
build/bin/kosmos-cli info "$demo"
build/bin/kosmos-cli verify "$demo"
