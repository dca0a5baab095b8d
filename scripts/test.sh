#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite. Fails on any failed test and
# on any test that was skipped or not run. This is README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/setup-debian.sh
scripts/build.sh
log="build/ctest-last.log"
set +e
ctest --preset default 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ]; then
    echo "test.sh: ctest failed (exit $status)" >&2
    exit "$status"
fi
if grep -Eq '\*\*\*Skipped|Not Run|No tests were found' "$log"; then
    echo "test.sh: some tests were skipped or not run; see $log" >&2
    exit 1
fi
echo "test.sh: all tests passed"
