#!/usr/bin/env bash
# The second demo ([learned-models], docs/fidelity.md): the shipped trained policies in the
# physics world from held-out starts, the same policies from the same start frames in the
# shipped learned world model, judged by the shipped success classifier, and the fidelity
# report; then the workstation opens on the Evaluation view's Fidelity tab (no display: the
# report in the command-line twin). Installs and builds first, as scripts/demo.sh does.
# KOSMOS_FIDELITY_EPISODES (default 10) episodes per task; the figures in docs/fidelity.md use 50
# (examples/fidelity-physics.json as is).
# --benchmark aloha: the same in ALOHA sim (gym-aloha's scenes in the MuJoCo world; needs
# scripts/setup-worlds.sh, which it runs): three of the shipped ALOHA policies (models/aloha) and
# the scripted expert x the two tasks x KOSMOS_FIDELITY_EPISODES (default 3) starts, the ALOHA
# world model and judge; about 2 minutes on two cores once built.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
benchmark=tabletop
if [ "${1:-}" = "--benchmark" ]; then
    case "${2:-}" in
    tabletop | aloha) benchmark="$2"; shift 2 ;;
    *) echo "demo-fidelity: --benchmark takes tabletop or aloha, not '${2:-}'" >&2; exit 2 ;;
    esac
fi
scripts/setup-debian.sh
scripts/build.sh
if [ "$benchmark" = aloha ]; then
    scripts/setup-worlds.sh
    episodes="${KOSMOS_FIDELITY_EPISODES:-3}"
    work="build/fidelity-demo-aloha"
    name="fidelity-aloha-$episodes"
    world=examples/fidelity-aloha-world-model.json
    judge=examples/fidelity-aloha-judge.json
else
    episodes="${KOSMOS_FIDELITY_EPISODES:-10}"
    work="build/fidelity-demo"
    name="fidelity-physics-$episodes"
    world=examples/fidelity-world-model.json
    judge=examples/fidelity-judge.json
fi
ledger="$work/fidelity.kosmos"
mkdir -p "$work"
python3 - "$benchmark" "$episodes" "$work/physics.json" "$name" <<'PY'
import json, sys
benchmark, episodes, target, name = sys.argv[1:]
if benchmark == "aloha":
    # The study's protocol on demonstration starts (not the study's held-out seeds): its weakest,
    # a middle and its strongest learned policy.
    p = json.load(open("examples/fidelity-aloha-study.json"))
    # And the scripted expert (ACT's waypoints; it reads the simulator's state, so in the world
    # model its physics actions are replayed open loop: fidelity prepare's twin).
    p["policies"] = [p["policies"][0], p["policies"][len(p["policies"]) // 2], p["policies"][-1],
                     {"plugin": "mjcf.aloha_expert",
                      "settings": {"python": ".worlds/venv/bin/python"}}]
    p["seed"] = 20261207
else:
    p = json.load(open("examples/fidelity-physics.json"))
p["episodes_per_task"] = int(episodes)
p["name"] = name
json.dump(p, open(target, "w"), indent=2)
PY
[ -d "$ledger" ] || build/bin/kosmos-cli init "$ledger"
build/bin/kosmos-cli run "$work/physics.json" --ledger "$ledger" --workers 2
# The imagined protocol is prepared from this physics protocol; one prepared from an earlier
# version of it (another policy list) is prepared again (its runs stay in the ledger).
sum=$(sha256sum "$work/physics.json" | cut -d' ' -f1)
if [ -f "$work/imagined/imagined.json" ] &&
    [ "$(cat "$work/imagined/prepared-from.sha256" 2>/dev/null)" != "$sum" ]; then
    rm -rf "$work/imagined"
fi
if [ ! -f "$work/imagined/imagined.json" ]; then
    build/bin/kosmos-cli fidelity prepare "$ledger" --protocol "$name" \
        --world-model "$world" --judge "$judge" --to "$work/imagined"
    echo "$sum" >"$work/imagined/prepared-from.sha256"
fi
build/bin/kosmos-cli run "$work/imagined/imagined.json" --ledger "$ledger" --workers 2
build/bin/kosmos-cli fidelity "$ledger" --physics "$name" --imagined "$name-imagined" --replays 20
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/bin/kosmos "$ledger" --raise evaluation --evaluation-tab 3
fi
echo "demo-fidelity: no display found; the report above is the command-line twin's."
echo "      (on a desktop: build/bin/kosmos $ledger --raise evaluation --evaluation-tab 3)"
