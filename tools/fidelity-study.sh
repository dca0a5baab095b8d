#!/usr/bin/env bash
# [benchmark-fidelity]'s study (docs/fidelity.md, "The study on two seeds"): the study protocol's
# policies in the physics world from held-out starts of two independent seeds, the same policies
# from the same start frames in the learned world model, judged; a fidelity report per seed with
# every goal decided, and the two side by side with their difference. Not run in CI (a study:
# about 20 minutes on two cores at 50 starts per task).
#
#   tools/fidelity-study.sh [--benchmark tabletop|aloha] [--work DIR] [--episodes N]
#                           [--seeds "SEED SEED"] [--protocol FILE] [--replays N] [--workers N]
#                           [--judge JUDGE.json] [--world-model WORLD.json] [--add FILE]...
#                           [--rejudge JUDGE.json] [--open-loop] [--in-physics]
#
# --add FILE: policies evaluated later on the same starts, without running the study's again
# ({"name": N, "description": "... {seed} ...", "policies": [...]}): the study's protocol with
# these policies, named <benchmark>-study-N-SEED, run and prepared beside it; the reports join
# them (kosmos-cli fidelity --physics/--imagined given again). E.g. the ALOHA study's scripted
# experts: --add examples/fidelity-aloha-add-expert.json --add examples/fidelity-aloha-add-expert-act.json
#
# --rejudge JUDGE.json: every rollout of the ledger judged again by this judge (kosmos-cli judge
# --all: recorded beside the runs' own judgments, nothing altered; runs it judged before are
# skipped), and the reports count its verdicts on both sides (kosmos-cli fidelity --config). On a
# finished study's --work this is the study with that judge, without running anything again.
#
# --open-loop: also every policy's physics actions replayed in the world model from the same starts
# (kosmos-cli fidelity prepare --open-loop: <benchmark>-study-SEED-open-loop), judged, and reported
# beside the study (DIR/open-loop-report-SEED.txt and .json, DIR/open-loop-compare.md): the world
# model's and judge's errors alone, apart from how the policies act on imagined frames. A diagnosis
# for the study's reports, not one of them (docs/fidelity.md, "The workflow": "Every policy open
# loop").
#
# --in-physics: also each policy's actions in the world model replayed in physics from the same
# starts (kosmos-cli fidelity prepare --in-physics: <benchmark>-study-SEED-imagined-in-physics),
# given to the reports, which then say where each disagreement comes from: the policy acting
# otherwise on imagined frames, or the world model and judge erring on the very actions
# (docs/fidelity.md, "The workflow"). On a finished study's --work it runs only the replays.
#
# tabletop (default): examples/fidelity-tabletop-study.json (eight learned policies and the
# scripted expert, whose imagined twin replays its physics actions open loop), seeds 20261303
# 20261304 (the first run, without the expert, used 20261301 20261302), judge-2.
# aloha: examples/fidelity-aloha-study.json in ALOHA sim (scripts/setup-worlds.sh first), seeds
# 20261501 20261502, models/aloha's world model and judge (about 8 s an episode a worker).
# Writes DIR/study.kosmos (the ledger), DIR/report-SEED.txt and .json, DIR/compare.md. Running it
# again resumes: completed runs are not run twice (their run keys are in the ledger).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${KOSMOS_CLI:-$root/build/bin/kosmos-cli}"
benchmark=tabletop
work=""
episodes=50
seeds=""
protocol=""
replays=20
workers=2
judge=""
world=""
rejudge=""
open_loop=0
in_physics=0
adds=()
while [ $# -gt 0 ]; do
    case "$1" in
    --benchmark) benchmark="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --episodes) episodes="$2"; shift 2 ;;
    --seeds) seeds="$2"; shift 2 ;;
    --protocol) protocol="$2"; shift 2 ;;
    --replays) replays="$2"; shift 2 ;;
    --workers) workers="$2"; shift 2 ;;
    --judge) judge="$2"; shift 2 ;;
    --world-model) world="$2"; shift 2 ;;
    --rejudge) [ -f "$2" ] || { echo "fidelity-study: no file $2 (--rejudge)" >&2; exit 2; }
        rejudge="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    --add) [ -f "$2" ] || { echo "fidelity-study: no file $2 (--add)" >&2; exit 2; }
        adds+=("$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
    --open-loop) open_loop=1; shift ;;
    --in-physics) in_physics=1; shift ;;
    -h | --help) sed -n '2,42p' "$0"; exit 0 ;;
    *) echo "fidelity-study: unknown argument '$1' (--help)" >&2; exit 2 ;;
    esac
done
case "$benchmark" in
tabletop)
    defaults=("$root/build/fidelity-study" "20261303 20261304"
        "$root/examples/fidelity-tabletop-study.json" "$root/examples/fidelity-judge-2.json"
        "$root/examples/fidelity-world-model.json") ;;
aloha)
    defaults=("$root/build/fidelity-study-aloha" "20261501 20261502"
        "$root/examples/fidelity-aloha-study.json" "$root/examples/fidelity-aloha-judge.json"
        "$root/examples/fidelity-aloha-world-model.json") ;;
*) echo "fidelity-study: --benchmark must be tabletop or aloha, not '$benchmark'" >&2; exit 2 ;;
esac
work="${work:-${defaults[0]}}"
seeds="${seeds:-${defaults[1]}}"
protocol="${protocol:-${defaults[2]}}"
judge="${judge:-${defaults[3]}}"
world="${world:-${defaults[4]}}"
[ -x "$cli" ] || { echo "fidelity-study: no kosmos-cli at $cli (scripts/build.sh)" >&2; exit 2; }
[ -f "$protocol" ] || { echo "fidelity-study: no protocol $protocol" >&2; exit 2; }
set -- $seeds
[ $# -eq 2 ] || { echo "fidelity-study: --seeds takes two seeds, got '$seeds'" >&2; exit 2; }
mkdir -p "$work"
ledger="$work/study.kosmos"
[ -d "$ledger" ] || "$cli" init "$ledger"
cd "$root" # the protocols name the model packages relative to the repository
# prepare PHYSICS_NAME DIR [--open-loop]: the imagined protocol of a physics protocol
# (DIR/imagined.json), once.
# One prepared from another version of the physics protocol (another policy list) is refused, not
# run: its runs are in the ledger; prepare into another --work.
prepare() {
    local sum
    sum=$(sha256sum "$work/$1.json" | cut -d' ' -f1)
    if [ -f "$2/imagined.json" ]; then
        if [ -f "$2/prepared-from.sha256" ] && [ "$(cat "$2/prepared-from.sha256")" != "$sum" ]; then
            echo "fidelity-study: $2 was prepared from another version of $1 (its policies or" \
                "settings changed); use another --work" >&2
            exit 2
        fi
        return 0
    fi
    "$cli" fidelity prepare "$ledger" --protocol "$1" --world-model "$world" --judge "$judge" \
        --to "$2" "${@:3}"
    echo "$sum" >"$2/prepared-from.sha256"
}
for seed in $seeds; do
    name="$benchmark-study-$seed"
    python3 - "$protocol" "$work/$name.json" "$seed" "$episodes" "$name" <<'PY'
import json, sys
source, target, seed, episodes, name = sys.argv[1:]
p = json.load(open(source))
p["seed"], p["episodes_per_task"], p["name"] = int(seed), int(episodes), name
json.dump(p, open(target, "w"), indent=2)
PY
    echo "== $name: physics" >&2
    "$cli" run "$work/$name.json" --ledger "$ledger" --workers "$workers" >"$work/$name.run.txt"
    prepare "$name" "$work/imagined-$seed"
    echo "== $name: the world model" >&2
    "$cli" run "$work/imagined-$seed/imagined.json" --ledger "$ledger" --workers "$workers" \
        >"$work/$name-imagined.run.txt"
    joined=(--physics "$name" --imagined "$name-imagined")
    names=("$name")
    for add in "${adds[@]}"; do
        part=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$add")
        added="$benchmark-study-$part-$seed"
        python3 - "$work/$name.json" "$add" "$work/$added.json" "$seed" "$added" <<'PY'
import json, sys
study, add, target, seed, name = sys.argv[1:]
p, a = json.load(open(study)), json.load(open(add))
p["name"], p["policies"] = name, a["policies"]
p["description"] = a["description"].replace("{seed}", seed)
json.dump(p, open(target, "w"), indent=2)
PY
        echo "== $added: physics" >&2
        "$cli" run "$work/$added.json" --ledger "$ledger" --workers "$workers" \
            >"$work/$added.run.txt"
        prepare "$added" "$work/imagined-$part-$seed"
        echo "== $added: the world model" >&2
        # Exit 5: some runs failed (e.g. an action outside what the world model accepts); their
        # reasons are in the log, and the report counts them as without a verdict.
        status=0
        "$cli" run "$work/imagined-$part-$seed/imagined.json" --ledger "$ledger" \
            --workers "$workers" >"$work/$added-imagined.run.txt" || status=$?
        [ "$status" -eq 0 ] || [ "$status" -eq 5 ] || exit "$status"
        [ "$status" -eq 0 ] || echo "fidelity-study: some runs of $added-imagined failed" \
            "(see $work/$added-imagined.run.txt)" >&2
        joined+=(--physics "$added" --imagined "$added-imagined")
        names+=("$added")
    done
    open=()
    if [ "$open_loop" -eq 1 ]; then
        # The same physics protocols, each policy's physics actions replayed (exit 5: some
        # replays failed, e.g. a start without a complete recording; counted without a verdict).
        # Run before --rejudge, so that its judge reads these rollouts too.
        for physics in "${names[@]}"; do
            part="${physics#"$benchmark-study-"}"
            prepare "$physics" "$work/open-loop-$part" --open-loop
            echo "== $physics: open loop" >&2
            status=0
            "$cli" run "$work/open-loop-$part/imagined.json" --ledger "$ledger" \
                --workers "$workers" >"$work/$physics-open-loop.run.txt" || status=$?
            [ "$status" -eq 0 ] || [ "$status" -eq 5 ] || exit "$status"
            open+=(--physics "$physics" --imagined "$physics-open-loop")
        done
    fi
    if [ "$in_physics" -eq 1 ]; then
        # Before --rejudge, so that its judge reads these rollouts too (the report's split says
        # of each error on the very actions whether the judge repeats it on the physics frames).
        for physics in "${names[@]}"; do
            part="${physics#"$benchmark-study-"}"
            [ -f "$work/in-physics-$part/in-physics.json" ] ||
                "$cli" fidelity prepare "$ledger" --protocol "$physics" \
                    --in-physics "$physics-imagined" --to "$work/in-physics-$part"
            echo "== $physics: the imagined actions in physics" >&2
            status=0
            "$cli" run "$work/in-physics-$part/in-physics.json" --ledger "$ledger" \
                --workers "$workers" >"$work/$physics-in-physics.run.txt" || status=$?
            [ "$status" -eq 0 ] || [ "$status" -eq 5 ] || exit "$status"
            joined+=(--in-physics "$physics-imagined-in-physics")
        done
    fi
    config=()
    if [ -n "$rejudge" ]; then
        echo "== $name: judged again by $rejudge" >&2
        "$cli" judge --all --ledger "$ledger" --judge "$rejudge" >"$work/rejudge-$seed.txt"
        # The configuration it recorded: its plugin and settings (and quorum, where the file
        # gives one), by its key in kosmos-cli audit's list.
        key=$("$cli" audit "$ledger" --json | python3 -c '
import json, sys
judge = json.load(open(sys.argv[1]))
found = []
for c in json.load(sys.stdin):
    # "<plugin> <version> <configuration>"; a judgment of an unknown component has no version
    adapter, _, rest = c["key"].partition(" ")
    try:
        config = json.loads(rest.partition(" ")[2])
    except ValueError:
        continue
    if (adapter == judge["plugin"] and isinstance(config, dict)
            and config.get("settings") == judge.get("settings", {})
            and ("quorum" not in judge or all(config.get("quorum", {}).get(k) == v
                                              for k, v in judge["quorum"].items()))):
        found.append(c)
if not found:
    sys.exit(f"fidelity-study: no judgment of this ledger has the configuration of {sys.argv[1]}")
print(max(found, key=lambda c: c["judgments"])["key"])' "$rejudge")
        config=(--config "$key")
    fi
    "$cli" fidelity "$ledger" "${joined[@]}" "${config[@]}" --replays "$replays" \
        >"$work/report-$seed.txt"
    "$cli" fidelity "$ledger" "${joined[@]}" "${config[@]}" --replays "$replays" --json \
        >"$work/report-$seed.json"
    if [ "$open_loop" -eq 1 ]; then
        "$cli" fidelity "$ledger" "${open[@]}" "${config[@]}" --replays 0 \
            >"$work/open-loop-report-$seed.txt"
        "$cli" fidelity "$ledger" "${open[@]}" "${config[@]}" --replays 0 --json \
            >"$work/open-loop-report-$seed.json"
    fi
done
if [ "$open_loop" -eq 1 ]; then
    python3 "$root/tools/fidelity_compare.py" "$work/open-loop-report-$1.json" \
        "$work/open-loop-report-$2.json" >"$work/open-loop-compare.md"
    echo "fidelity-study: open loop (a diagnosis, not the study's report): $work/open-loop-compare.md"
fi
python3 "$root/tools/fidelity_compare.py" "$work/report-$1.json" "$work/report-$2.json" \
    >"$work/compare.md"
cat "$work/compare.md"
echo "fidelity-study: reports in $work (report-$1.txt, report-$2.txt, compare.md);" \
    "the workstation: build/bin/kosmos $ledger --raise evaluation --evaluation-tab 3"
