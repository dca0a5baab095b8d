#!/usr/bin/env bash
# The second demo ([learned-models], docs/fidelity.md): the shipped trained policies in the
# physics world from held-out starts, the same policies from the same start frames in the
# shipped learned world model, judged by the shipped success classifier, and the fidelity
# report; then the workstation opens on the Evaluation view's Fidelity tab (no display: the
# report in the command-line twin). Installs and builds first, as scripts/demo.sh does.
# KOSMOS_FIDELITY_EPISODES (default 10) episodes per task; the figures in docs/fidelity.md use 50
# (examples/fidelity-physics.json as is).
# --benchmark tabletop (the default) is this; --benchmark aloha is refused with the reason until
# [benchmark-fidelity]'s ALOHA half exists (docs/fidelity.md, "What is missing").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ "${1:-}" = "--benchmark" ]; then
    case "${2:-}" in
    tabletop) shift 2 ;;
    aloha)
        echo "demo-fidelity: no ALOHA fidelity demo yet: it needs learned ALOHA policies and an" \
            "ALOHA world model and judge, which [benchmark-fidelity] has not built (docs/fidelity.md," \
            "\"What is missing\"); the ALOHA world itself runs: examples/aloha-experts.json" >&2
        exit 2 ;;
    *) echo "demo-fidelity: --benchmark takes tabletop or aloha, not '${2:-}'" >&2; exit 2 ;;
    esac
fi
scripts/setup-debian.sh
scripts/build.sh
episodes="${KOSMOS_FIDELITY_EPISODES:-10}"
work="build/fidelity-demo"
ledger="$work/fidelity.kosmos"
mkdir -p "$work"
python3 - "$episodes" "$work/physics.json" <<'PY'
import json, sys
p = json.load(open("examples/fidelity-physics.json"))
p["episodes_per_task"] = int(sys.argv[1])
p["name"] = "fidelity-physics-%s" % sys.argv[1]
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
[ -d "$ledger" ] || build/bin/kosmos-cli init "$ledger"
build/bin/kosmos-cli run "$work/physics.json" --ledger "$ledger" --workers 2
if [ ! -f "$work/imagined/imagined.json" ]; then
    build/bin/kosmos-cli fidelity prepare "$ledger" --protocol "fidelity-physics-$episodes" \
        --world-model examples/fidelity-world-model.json --judge examples/fidelity-judge.json \
        --to "$work/imagined"
fi
build/bin/kosmos-cli run "$work/imagined/imagined.json" --ledger "$ledger" --workers 2
build/bin/kosmos-cli fidelity "$ledger" --physics "fidelity-physics-$episodes" \
    --imagined "fidelity-physics-$episodes-imagined" --replays 20
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
    exec build/bin/kosmos "$ledger" --raise evaluation --evaluation-tab 3
fi
echo "demo-fidelity: no display found; the report above is the command-line twin's."
echo "      (on a desktop: build/bin/kosmos $ledger --raise evaluation --evaluation-tab 3)"
