#!/usr/bin/env bash
# Training data for a world model on the closed loop's own actions (docs/training.md, "world-5"):
# the study's policies in physics from training starts, the same policies closed loop in the
# world model being trained on from the same start frames (kosmos-cli fidelity prepare), and the
# actions each took there replayed in physics from the same starts (fidelity prepare
# --in-physics). The replays show the world model what physics does with the actions the policies
# take inside it, which its training data (the policies' physics actions) does not hold; as DAgger
# labels a learner's own states with the expert, this labels the world model's own closed loop
# with physics. Writes DIR/train.kosmos (the ledger), DIR/export-physics and
# DIR/export-in-physics (the two exports), DIR/dataset (one dataset listing both: what the trainer reads), and DIR/split.txt (the
# fidelity report with its split, on training starts: for the record, nothing is chosen on it).
# Not run in CI (about 12 minutes on two cores).
#
#   tools/train/world-dagger.sh --work DIR [--world-model WORLD.json] [--judge JUDGE.json]
#                               [--protocol PHYSICS.json] [--workers N]
#
# Defaults: examples/fidelity-world-model-3.json (the study's world model), examples/
# fidelity-judge-4.json, tools/train/physics-train-study-policies.json (the study's nine policies
# from the training starts of seed 20261261). Running it again resumes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cli="${KOSMOS_CLI:-$root/build/bin/kosmos-cli}"
work=""
world="$root/examples/fidelity-world-model-3.json"
judge="$root/examples/fidelity-judge-4.json"
protocol="$root/tools/train/physics-train-study-policies.json"
workers=2
while [ $# -gt 0 ]; do
    case "$1" in
    --work) work="$2"; shift 2 ;;
    --world-model) world="$2"; shift 2 ;;
    --judge) judge="$2"; shift 2 ;;
    --protocol) protocol="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "world-dagger: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
[ -n "$work" ] || { echo "world-dagger: --work DIR is required" >&2; exit 2; }
for f in "$world" "$judge" "$protocol"; do
    [ -f "$f" ] || { echo "world-dagger: no file $f" >&2; exit 2; }
done
[ -x "$cli" ] || { echo "world-dagger: no $cli (build first: scripts/build.sh)" >&2; exit 2; }
mkdir -p "$work"
work="$(cd "$work" && pwd)"
ledger="$work/train.kosmos"
name="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$protocol")"
[ -e "$ledger" ] || "$cli" init "$ledger"
# A run that fails is recorded in the ledger (exit 5); the exports take the completed ones.
run() { "$cli" run "$1" --ledger "$ledger" --workers "$workers" || [ $? -eq 5 ]; }

echo "== $name: the policies in physics from training starts"
run "$protocol"
echo "== $name-imagined: the same policies closed loop in $(basename "$world")"
[ -f "$work/imagined/imagined.json" ] ||
    "$cli" fidelity prepare "$ledger" --protocol "$name" --world-model "$world" --judge "$judge" \
        --to "$work/imagined"
run "$work/imagined/imagined.json"
echo "== $name-imagined-in-physics: their actions in the world model, replayed in physics"
[ -f "$work/in-physics/in-physics.json" ] ||
    "$cli" fidelity prepare "$ledger" --protocol "$name" --in-physics "$name-imagined" \
        --to "$work/in-physics"
run "$work/in-physics/in-physics.json"
"$cli" fidelity "$ledger" --physics "$name" --imagined "$name-imagined" \
    --in-physics "$name-imagined-in-physics" --replays 0 > "$work/split.txt"

echo "== the dataset: both physics protocols' runs"
# The two physics protocols' SHA-256 (dataset export takes a SHA-256 or a prefix), from the report.
"$cli" fidelity "$ledger" --physics "$name" --imagined "$name-imagined" \
    --in-physics "$name-imagined-in-physics" --replays 0 --json > "$work/split.json"
sha() {
    python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print(r["physics_protocol"]["sha256"] if sys.argv[2] == "physics"
      else r["closed_loop_split"]["protocols"]["sha256"][0])' "$work/split.json" "$1"
}
for part in physics in-physics; do
    [ -f "$work/export-$part/dataset.json" ] && continue
    rm -rf "$work/export-$part"
    protocol_sha="$(sha "$part")"
    [ -n "$protocol_sha" ] || { echo "world-dagger: no $part protocol in $work/split.json" >&2; exit 1; }
    "$cli" dataset export "$ledger" --to "$work/export-$part" --protocol "$protocol_sha"
done
python3 - "$work" <<'PY'
import json, os, sys
work = sys.argv[1]
out = os.path.join(work, "dataset")
os.makedirs(out, exist_ok=True)
episodes = []
for part in ("export-physics", "export-in-physics"):
    with open(os.path.join(work, part, "dataset.json")) as f:
        index = json.load(f)
    for e in index["episodes"]:
        e = dict(e, dir=os.path.join("..", part, e["dir"]))
        episodes.append(e)
doc = {"schema": "kosmos.dataset/1", "ledger": os.path.join(work, "train.kosmos"),
       "filter": {"parts": ["physics", "in-physics"]}, "episodes": episodes,
       "note": "tools/train/world-dagger.sh: the physics runs of the policies and of their "
               "world-model actions replayed in physics, from training starts"}
with open(os.path.join(out, "dataset.json"), "w") as f:
    json.dump(doc, f, indent=1)
print(f"{len(episodes)} episodes in {out}")
PY
echo "world-dagger: $work/dataset (train: docs/training.md, \"world-5\"); the split on training starts: $work/split.txt"
