#!/usr/bin/env bash
# The CUDA build's stage of the test suite (issue [gpu-runtime]; docs/gpu.md): installs the
# pinned torch wheel (scripts/setup-cuda.sh), builds the cuda preset against its libtorch and runs
# the whole test suite against it. Without a GPU the CUDA libtorch runs on the CPU, so this is
# the CPU suite on the CUDA build (plus the AOTInductor twin test, which needs torch >= 2.6).
# Fails on any failed, skipped or not-run test. scripts/test.sh runs it when the CUDA toolkit is
# present and the time allows (CI's 90 minutes); run it alone as it is.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
start=$(date +%s)
[ -x /usr/local/cuda/bin/nvcc ] && export PATH="$PATH:/usr/local/cuda/bin"
scripts/setup-cuda.sh
echo "test-cuda: wheel ready after $(($(date +%s) - start)) s"
# The default build's objects are reused where the flags match (same sources, another folder).
export CCACHE_NOHASHDIR=1
cmake --preset cuda > build-cuda.configure.log 2>&1 || {
    tail -30 build-cuda.configure.log
    exit 1
}
cmake --build --preset cuda
echo "test-cuda: built after $(($(date +%s) - start)) s"
log="build-cuda/ctest-cuda.log"
set +e
ctest --preset cuda 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
if [ "$status" -ne 0 ] || grep -Eq '\*\*\*Skipped|Not Run|No tests were found' "$log"; then
    echo "test-cuda: the CUDA build's suite failed (exit $status); see $log" >&2
    exit 1
fi
echo "test-cuda: passed in $(($(date +%s) - start)) s"
