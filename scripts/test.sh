#!/usr/bin/env bash
# Installs what is needed, builds, and runs the whole test suite: the default build's suite, the
# same suite under ASan + UBSan with every fuzz target's seeds and seeded mutations of them for a
# few seconds (built with a replay driver: tools/fuzz.sh is the coverage-guided fuzzing), the
# threaded engine and ledger tests under TSan (docs/reliability.md), after checking that every C++
# file is formatted;
# clang-tidy runs over the C++ files the last 20 commits changed; the Debian packages are built
# and installed into a clean Debian 12 root (tests/packaging/install-test.sh).
# Fails on an unformatted file, on any failed test and on any test that was
# skipped or not run. This is README's test command and what CI runs.
# KOSMOS_SKIP_SANITIZERS=1 runs the default suite only (a quick local check, not CI).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
started=$(date +%s)
# Each stage's time, printed as it ends and again at the end, so that a CI log shows where the
# 90 minutes went (docs/reliability.md has the figures).
stage_start=$started
stages=()
stage_done() {
    local now
    now=$(date +%s)
    stages+=("$(printf '%-34s %5d s  (%5d s in all)' "$1" $((now - stage_start)) $((now - started)))")
    echo "test.sh: stage done: ${stages[-1]}"
    stage_start=$now
}
scripts/setup-debian.sh
# Arrow/Parquet C++ from the pinned pyarrow wheel (LeRobot datasets): ~15 s. Without it (no access
# to Python's package index) the build has no Parquet module, and the dataset tests check that
# the feature says why instead.
scripts/setup-arrow.sh || echo "test.sh: no Arrow C++: LeRobot datasets are tested for saying why they are unavailable" >&2
# gym-pusht and gym-aloha for the remote.world tests against real simulators: 20-40 s and about
# 930 MB when not installed. Without them those three tests are not registered (the toy-world
# tests and the recorded exchanges still run).
scripts/setup-worlds.sh || echo "test.sh: no gym venv: remote.world is tested against the toy Python world and recorded exchanges only" >&2
stage_done "setup (packages, Arrow, gym venv)"
scripts/check-format.sh # .clang-format applied to every tracked C++ file
scripts/build.sh
stage_done "format check, default build"
mkdir -p build
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
stage_done "default suite"
# clang-tidy over what the last 20 commits touched (the whole tree when the checkout has no history)
scripts/tidy.sh --recent 20
stage_done "clang-tidy"
# The Debian packages (lintian: no errors), installed into a clean Debian 12 root by debootstrap,
# and used there: about 2 min (docs/packaging.md). Needs root and the Debian mirror apt uses.
if [ "${KOSMOS_SKIP_INSTALL_TEST:-0}" = 1 ]; then
    echo "test.sh: install test skipped (KOSMOS_SKIP_INSTALL_TEST=1)"
else
    scripts/package.sh build build/packages
    as_root=()
    [ "$(id -u)" = 0 ] || as_root=(sudo)
    "${as_root[@]}" tests/packaging/install-test.sh build/packages
    stage_done "packages, install test"
fi
logs=("$log")
ran=("default suite")
skipped=()
# CI stops the whole run at 90 min. A later stage starts only when the time it needs on the slowest
# CI machine seen (docs/reliability.md, "CI's time") still fits before then with 5 min to spare;
# otherwise it is skipped with the reason, here and in the last lines, and the command that runs
# it alone is named. KOSMOS_CI_LIMIT_S=0 runs every stage whatever the time.
ci_limit=${KOSMOS_CI_LIMIT_S:-5400}
fits() { # fits NAME SECONDS_NEEDED COMMAND_ALONE
    local elapsed=$(($(date +%s) - started))
    if [ "$ci_limit" -gt 0 ] && [ $((elapsed + $2 + 300)) -gt "$ci_limit" ]; then
        skipped+=("$1 (${elapsed} s had passed and it needs up to $2 s; run $3 alone)")
        echo "test.sh: $1 stage skipped: ${elapsed} s have passed, it needs up to $2 s and CI" \
            "stops at ${ci_limit} s (run $3 alone)" >&2
        return 1
    fi
}
declare -A need=([asan]=2100 [tsan]=750)
declare -A title=([asan]="ASan + UBSan with the fuzz replays" [tsan]="TSan")
if [ "${KOSMOS_SKIP_SANITIZERS:-0}" != 1 ]; then
    for kind in asan tsan; do
        fits "${title[$kind]}" "${need[$kind]}" "scripts/sanitize.sh $kind" || continue
        sanlog="build/ctest-$kind.log"
        set +e
        scripts/sanitize.sh "$kind" 2>&1 | tee "$sanlog"
        status=${PIPESTATUS[0]}
        set -e
        if [ "$status" -ne 0 ] || grep -Eq '\*\*\*Skipped|Not Run' "$sanlog"; then
            echo "test.sh: the $kind run failed (exit $status); see $sanlog" >&2
            exit 1
        fi
        logs+=("$sanlog")
        ran+=("${title[$kind]}")
        stage_done "$kind build and suite"
    done
    # The CUDA build (the torch wheel's libtorch) and its suite on the CPU: about 30 min from a
    # clean checkout on the faster machines (docs/gpu.md), so it starts only when the CUDA toolkit
    # is here and 45 min still fit.
    if [ "${KOSMOS_SKIP_CUDA:-0}" = 1 ]; then
        echo "test.sh: CUDA build stage skipped (KOSMOS_SKIP_CUDA=1)"
    elif ! command -v nvcc > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
        echo "test.sh: CUDA build stage skipped: no CUDA toolkit (nvcc) on this machine"
    elif fits "the CUDA build" 2700 scripts/test-cuda.sh; then
        [ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"
        scripts/test-cuda.sh
        logs+=("build-cuda/ctest-cuda.log")
        ran+=("the CUDA build")
        stage_done "CUDA build and suite"
    fi
fi
passed=0
for l in "${logs[@]}"; do
    n=$(grep -Eo '[0-9]+ tests failed out of [0-9]+' "$l" | tail -1 | grep -Eo '[0-9]+$')
    passed=$((passed + n))
done
printf 'test.sh: %s\n' "${stages[@]}"
for k in "${skipped[@]}"; do echo "test.sh: skipped for time: $k"; done
echo "test.sh: all tests passed ($(IFS=,; echo "${ran[*]}" | sed 's/,/, /g'))"
echo "${passed} passed, 0 failed"
