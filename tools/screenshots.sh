#!/usr/bin/env bash
# Renders the workstation on the demo ledger to PNG (offscreen Qt platform; no display needed).
# Output: docs/screenshot-workstation.png
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/build.sh
demo="build/demo.kosmos"
build/bin/kosmos-cli demo --ledger "$demo" --workers 2 > /dev/null
QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp}" \
    build/bin/kosmos "$demo" --run 35 --screenshot docs/screenshot-workstation.png
echo "wrote docs/screenshot-workstation.png"
