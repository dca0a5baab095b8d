#!/usr/bin/env bash
# The gymnasium environments the remote.world tests run against (issue [world-servers];
# docs/remote-worlds.md), idempotently: gym-pusht and gym-aloha (ALOHA sim in MuJoCo) and what
# they need, pinned, with the reference
# server's websockets and msgpack, in a project-local venv (.worlds/venv; never the system
# Python). Nothing is downloaded when the pinned versions are installed already (about 930 MB on
# disk, most of it gym-aloha's dm_control, scipy, MuJoCo and imageio's FFmpeg, and 20-40 s when
# they are not). Without it (no access to Python's package index) the build registers
# no gym test, and the remote.world tests against the toy Python world still run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${KOSMOS_WORLDS_VENV:-$here/.worlds/venv}"
python="$venv/bin/python"
pins=("gym-pusht==0.1.8" "gymnasium==1.4.0" "pymunk==6.11.1" "pygame==2.6.1" "shapely==2.2.0"
    "opencv-python==4.14.0.94" "numpy==2.2.6" "websockets==15.0.1" "msgpack==1.1.0"
    "gym-aloha==0.1.3" "dm-control==1.0.52" "mujoco==4.0.1" "imageio==2.38.2")

installed() {
    [ -x "$python" ] && "$python" - "${pins[@]}" << 'PY' > /dev/null 2>&1
import sys
from importlib.metadata import version
for pin in sys.argv[1:]:
    name, want = pin.split("==")
    assert version(name) == want, pin
import gym_pusht, gym_aloha, websockets, msgpack  # noqa: F401
PY
}

if ! installed; then
    if ! /usr/bin/python3 -c 'import ensurepip, venv' > /dev/null 2>&1; then
        sudo=""
        [ "$(id -u)" -ne 0 ] && sudo="sudo"
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv
    fi
    [ -x "$python" ] || /usr/bin/python3 -m venv "$venv"
    echo "setup-worlds: installing ${pins[*]} into $venv"
    start=$(date +%s)
    "$venv/bin/pip" install --no-cache-dir --disable-pip-version-check -q "${pins[@]}"
    echo "setup-worlds: installed in $(($(date +%s) - start)) s"
fi
installed || {
    echo "setup-worlds: $venv does not hold the pinned packages" >&2
    exit 1
}
echo "setup-worlds: gym-pusht 0.1.8 and gym-aloha 0.1.3 in $venv"
