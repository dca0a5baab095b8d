#!/usr/bin/env bash
# Configures (once) and builds Kosmos with the default CMake preset (ninja, ccache when present).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ ! -f build/build.ninja ]; then
    cmake --preset default
fi
cmake --build --preset default
