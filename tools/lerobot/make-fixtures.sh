#!/usr/bin/env bash
# The LeRobot test datasets in tests/fixtures/lerobot/, made by LeRobot's own writer from real
# gym-pusht rollouts, with LeRobot's own reading of each beside it (tools/lerobot/make_fixtures.py;
# tests/fixtures/lerobot/README.md). Run once by hand when the fixtures must change; CI only reads
# the committed files and installs none of this.
#
#   tools/lerobot/make-fixtures.sh [OUT_DIR]     default: tests/fixtures/lerobot
#
# Installs the pinned versions into .lerobot/venv (LeRobot 0.4.4: the v3.0 datasets) and
# .lerobot/venv-v21 (LeRobot 0.3.3, which writes codebase v2.1), project-local, about 5 GB each
# with torch and its CUDA libraries from Python's package index; nothing is downloaded when they
# are there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$here/tests/fixtures/lerobot}"
make() {
    local venv="$1"
    shift
    if ! "$venv/bin/python" -c 'import lerobot, gym_pusht' > /dev/null 2>&1 ||
        { [ "$venv" = "$here/.lerobot/venv" ] && ! "$venv/bin/python" -c 'import gym_aloha' > /dev/null 2>&1; }; then
        [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
        echo "make-fixtures: installing $* into $venv"
        "$venv/bin/pip" install --disable-pip-version-check -q "$@"
    fi
    MUJOCO_GL=egl "$venv/bin/python" -W ignore "$here/tools/lerobot/make_fixtures.py" "$out" ${KOSMOS_FIXTURES:-}
}
make "$here/.lerobot/venv" "lerobot==0.4.4" "gym-pusht==0.1.8" "gym-aloha==0.1.3" "pyarrow==26.0.1" \
    "msgpack==1.1.0" "websockets==15.0.1" # the last two: the LeRobot policy bridge check
# LeRobot 0.3.3 with numpy 2.3 fails to store shape-(1,) features ("only 0-dimensional arrays can
# be converted to Python scalars"): numpy 2.2 still converts them.
make "$here/.lerobot/venv-v21" "lerobot==0.3.3" "gym-pusht==0.1.8" "numpy==2.2.6"
