#!/usr/bin/env bash
# Arrow and Parquet C++ for reading LeRobot datasets (issue [lerobot-datasets]; docs/datasets.md,
# docs/dependencies.md), idempotently:
#
#   scripts/setup-arrow.sh            install the pinned pyarrow wheel into .arrow/venv
#                                     (project-local, never the system Python), then check it
#   scripts/setup-arrow.sh --print    print the folder of its headers and libraries (for
#                                     -DKOSMOS_ARROW_ROOT; CMake finds .arrow/venv by itself)
#
# Debian 12 has no Arrow package. The pyarrow wheel on Python's package index carries Arrow's and
# Parquet's C++ headers (include/arrow, include/parquet) and shared libraries (libarrow.so.N,
# libparquet.so.N), built for manylinux_2_28 with the C++11 string ABI, so they link with
# Debian's GCC 12 and Qt, as the torch wheel's libtorch does for the cuda preset. Nothing is
# downloaded when the pinned version is installed already (about 55 MB and 15 s when it is not).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="${KOSMOS_PYARROW_VERSION:-26.0.1}" # pinned: docs/dependencies.md says what was checked
venv="${KOSMOS_ARROW_VENV:-$here/.arrow/venv}"
python="$venv/bin/python"

installed() {
    [ -x "$python" ] && [ "$("$python" -c 'import pyarrow; print(pyarrow.__version__)' 2> /dev/null)" = "$version" ]
}

if ! installed; then
    [ "${1:-}" = --print ] && {
        echo "setup-arrow: pyarrow $version is not installed in $venv; run scripts/setup-arrow.sh" >&2
        exit 1
    }
    if ! /usr/bin/python3 -c 'import ensurepip, venv' > /dev/null 2>&1; then
        sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv
    fi
    [ -x "$python" ] || /usr/bin/python3 -m venv "$venv"
    echo "setup-arrow: installing pyarrow==$version into $venv"
    start=$(date +%s)
    "$venv/bin/pip" install --no-cache-dir --disable-pip-version-check -q "pyarrow==$version"
    echo "setup-arrow: installed in $(($(date +%s) - start)) s"
fi

root="$("$python" -c 'import os, pyarrow; print(os.path.dirname(pyarrow.__file__))')"
if [ "${1:-}" = --print ]; then
    echo "$root"
    exit 0
fi

# The unversioned names a linker looks for (libarrow.so -> libarrow.so.2600), and what the build
# relies on, checked rather than assumed.
"$python" -c 'import pyarrow; pyarrow.create_library_symlinks()'
for f in include/arrow/api.h include/parquet/arrow/reader.h libarrow.so libparquet.so; do
    [ -e "$root/$f" ] || {
        echo "setup-arrow: $root/$f is missing; this pyarrow wheel does not carry the C++ library" >&2
        exit 1
    }
done
if [ "$(nm -D --defined-only "$root/libarrow.so" | grep -c __cxx11)" -eq 0 ]; then
    echo "setup-arrow: $root/libarrow.so was built with the pre-C++11 string ABI; it cannot link" \
        "with Debian's GCC and Qt (pick a pyarrow built for manylinux_2_28)" >&2
    exit 1
fi
echo "setup-arrow: pyarrow $version, Arrow C++ at $root"
