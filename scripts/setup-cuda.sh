#!/usr/bin/env bash
# The CUDA build's libtorch (issue [gpu-runtime]; docs/gpu.md), idempotently:
#
#   scripts/setup-cuda.sh            install the pinned torch wheel into .cuda/venv (project-local,
#                                    never the system Python), then check it
#   scripts/setup-cuda.sh --print    print the CMake prefix of its libtorch (for -DTorch_DIR)
#
# The official `torch` wheel for Linux x86-64 on Python's package index is a CUDA build that
# carries libtorch (C++ headers, shared libraries, share/cmake/Torch) built with the C++11 ABI,
# so it links with Debian's Qt; its CUDA libraries come as nvidia-* wheels beside it. Building
# against it needs the CUDA toolkit of the same major version (nvcc; NVIDIA's apt repository),
# which CMake's CUDA support in libtorch's config looks for; running needs only the driver.
# Nothing is downloaded when the pinned version is already installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${KOSMOS_TORCH_VERSION:-2.15.0}" # pinned: docs/gpu.md says what was checked with it
venv="${KOSMOS_CUDA_VENV:-$here/.cuda/venv}"
python="$venv/bin/python"

installed() {
    [ -x "$python" ] && [ "$("$python" -c 'import numpy, torch; print(torch.__version__.split("+")[0])' 2> /dev/null)" = "$version" ]
}

if ! installed; then
    [ "${1:-}" = --print ] && {
        echo "setup-cuda: torch $version is not installed in $venv; run scripts/setup-cuda.sh" >&2
        exit 1
    }
    if ! /usr/bin/python3 -c 'import ensurepip, venv' > /dev/null 2>&1; then
        sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv
    fi
    [ -x "$python" ] || /usr/bin/python3 -m venv "$venv"
    echo "setup-cuda: installing torch==$version into $venv (about 4 GB with its CUDA libraries)"
    start=$(date +%s)
    "$venv/bin/pip" install --no-cache-dir --disable-pip-version-check -q "torch==$version" numpy
    echo "setup-cuda: installed in $(($(date +%s) - start)) s"
fi

if [ "${1:-}" = --print ]; then
    "$python" -c 'import torch; print(torch.utils.cmake_prefix_path)'
    exit 0
fi

# What the build relies on, checked rather than assumed.
"$python" - << 'PY'
import torch
abi = torch._C._GLIBCXX_USE_CXX11_ABI
print(f"setup-cuda: torch {torch.__version__}, CUDA {torch.version.cuda}, C++11 ABI {abi}, "
      f"libtorch at {torch.utils.cmake_prefix_path}")
if not abi:
    raise SystemExit("setup-cuda: this torch was built with the pre-C++11 ABI; it cannot link "
                     "with Debian's Qt (pick a torch >= 2.7)")
if torch.version.cuda is None:
    raise SystemExit("setup-cuda: this torch is a CPU build; the CUDA build needs the default "
                     "Linux x86-64 wheel")
PY
if ! command -v nvcc > /dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
    echo "setup-cuda: warning: no nvcc (the CUDA toolkit); libtorch's CMake config needs it to" \
        "build the plugins (docs/gpu.md)" >&2
fi
