#!/usr/bin/env bash
# Renders every workspace of the workstation (Review, Compare, Evaluate, Run) on the demo ledger
# at 1280x720 and 1920x1080 under Xvfb, as PNG files in OUT (default docs/screenshots):
#   tools/screenshots.sh [OUT]
# Uses the real-window check of the test suite (tests/ui/tst_workstation.cpp), which builds the
# demo ledger with the synthetic backends, so it needs the default build (scripts/build.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="$(realpath -m "${1:-docs/screenshots}")"
build="${KOSMOS_BUILD_DIR:-build}"
cmake --build "$build" --target tst_workstation kosmos-cli > /dev/null
mkdir -p "$out"
for size in 1280x720 1920x1080; do
    KOSMOS_SCREENSHOTS_DIR="$out" tests/ui/real-window.sh "$size" "$build/tests/tst_workstation" \
        realWindowFitsTheScreenInEveryWorkspace > "$out/.log-$size" 2>&1 ||
        { cat "$out/.log-$size"; exit 1; }
    rm -f "$out/.log-$size"
done
ls -1 "$out"/*.png
