#!/usr/bin/env bash
# The LeRobot test datasets in tests/fixtures/lerobot/, made by LeRobot's own writer from real
# gym-pusht rollouts, with LeRobot's own reading of each beside it (tools/lerobot/make_fixtures.py;
# tests/fixtures/lerobot/README.md). Run once by hand when the fixtures must change; CI only reads
# the committed files and installs none of this.
#
#   tools/lerobot/make-fixtures.sh [OUT_DIR]     default: tests/fixtures/lerobot
#
# Installs the pinned versions into .lerobot/venv (project-local, about 5 GB with torch and its
# CUDA libraries from Python's package index; nothing is downloaded when they are there).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$here/tests/fixtures/lerobot}"
venv="$here/.lerobot/venv"
pins=("lerobot==0.4.4" "gym-pusht==0.1.8" "pyarrow==26.0.1")
if ! "$venv/bin/python" -c 'import lerobot, gym_pusht' > /dev/null 2>&1; then
    [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
    echo "make-fixtures: installing ${pins[*]} into $venv"
    "$venv/bin/pip" install --disable-pip-version-check -q "${pins[@]}"
fi
MUJOCO_GL=egl "$venv/bin/python" "$here/tools/lerobot/make_fixtures.py" "$out"
