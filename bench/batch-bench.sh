#!/bin/sh
# Batched episodes (--batch N, [fast-rollouts]): imagined rollouts of the shipped learned world
# model (models/world) driven by the five shipped behaviour-cloning policies, with the shipped
# judge, at N = 1, 4, 16 on the same machine in one run; prints a Markdown table of wall time,
# rollouts/s, frames/s, and from the runs' timings the mean batch of the world model's and
# policies' calls and the lockstep wait. The starts are the fidelity workflow's: with
# PHYSICS_LEDGER (a ledger holding the physics half, docs/fidelity.md) the imagined protocol is
# prepared from it (500 runs); without, every task starts from models/golden-input.png (EPISODES
# per task); --protocol runs a given protocol instead. --device D places every torch component
# on D (`kosmos-cli run --device`); on a device other than the CPU, with nvidia-smi present,
# the GPU's utilisation and memory are sampled every 250 ms during each run (NVML through
# nvidia-smi) and reported per N. --cli: another kosmos-cli (tools/gpu-check.sh's CUDA build).
# --threads T gives the world model T intra-op threads (its settings.threads; libtorch's count is
# process-wide, so the policies and the judge use them too); the table's threads column says.
# --optimize sets settings.optimize on every torch component (modules frozen and optimized for
# inference at load; CPU fp32); the table's threads column then ends in " opt".
#   bench/batch-bench.sh WORKDIR [--episodes E] [--workers W] [--batches "1 4 16"]
#       [--physics-ledger L | --protocol P] [--device D] [--cli PATH] [--threads T] [--optimize]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/build/bin"
work=$1
shift
episodes=10
workers=1
batches="1 4 16"
physics=""
protocol=""
device=""
threads=""
optimize=""
cli="$bin/kosmos-cli"
while [ $# -gt 0 ]; do
    case "$1" in
    --protocol) protocol=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --device) device=$2; shift 2 ;;
    --cli) cli=$2; shift 2 ;;
    --episodes) episodes=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --optimize) optimize=1; shift ;;
    --physics-ledger) physics=$2; shift 2 ;;
    *) echo "batch-bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$work"
cd "$here"
if [ -n "$protocol" ]; then
    :
elif [ -n "$physics" ]; then
    rm -rf "$work/imagined"
    "$cli" fidelity prepare "$physics" --protocol fidelity-physics \
        --world-model examples/fidelity-world-model.json --judge examples/fidelity-judge.json \
        --to "$work/imagined" >/dev/null
    protocol="$work/imagined/imagined.json"
else
    protocol="$work/batch-protocol.json"
    /usr/bin/python3 - "$protocol" "$episodes" <<'EOF'
import hashlib, json, sys
out, episodes = sys.argv[1], int(sys.argv[2])
p = json.load(open("examples/fidelity-physics.json"))
frame = "models/golden-input.png"
sha = hashlib.sha256(open(frame, "rb").read()).hexdigest()
p["name"] = "batch-bench"
p["episodes_per_task"] = episodes
for t in p["tasks"]:
    t["start_state"] = {"frame": frame, "frame_sha256": sha}
p["world_model"] = json.load(open("examples/fidelity-world-model.json"))
judge = json.load(open("examples/fidelity-judge.json"))
p["judge"] = {"plugin": judge["plugin"], "settings": judge["settings"]}
p["quorum"] = judge["quorum"]
json.dump(p, open(out, "w"), indent=1)
EOF
fi
if [ -n "$threads" ] || [ -n "$optimize" ]; then
    tuned="$work/protocol-threads-${threads:-default}${optimize:+-opt}.json"
    /usr/bin/python3 - "$protocol" "${threads:-0}" "${optimize:-0}" "$tuned" <<'EOF'
import json, sys
source, threads, optimize, out = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1", sys.argv[4]
p = json.load(open(source))
if threads:
    p["world_model"].setdefault("settings", {})["threads"] = threads
if optimize:
    for c in [p["world_model"], p.get("judge") or {}] + p["policies"]:
        if c.get("plugin", "").startswith("torch."):
            c.setdefault("settings", {})["optimize"] = True
json.dump(p, open(out, "w"), indent=1)
EOF
    protocol="$tuned"
fi
sample=""
if [ -n "$device" ] && [ "$device" != cpu ] && command -v nvidia-smi >/dev/null; then
    sample=1
fi
echo "| N (--batch) | workers | device | threads | runs | wall s | rollouts/s | frames/s | speed-up vs N=1 | world-model calls: mean batch | policy calls: mean batch | lockstep wait ms/run | world model ms/run | policy ms/run | peak RSS MiB | GPU utilisation mean / max % | GPU memory max MiB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
base=""
for n in $batches; do
    ledger="$work/batch-$n.kosmos"
    rm -rf "$ledger"
    "$cli" init "$ledger" >/dev/null
    rm -f "$work/nvml-$n.csv"
    sampler=""
    if [ -n "$sample" ]; then
        nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits \
            -lms 250 >"$work/nvml-$n.csv" 2>/dev/null &
        sampler=$!
    fi
    start=$(date +%s.%N)
    "$cli" run "$protocol" --ledger "$ledger" --workers "$workers" --batch "$n" \
        ${device:+--device "$device"} >"$work/batch-$n.log" 2>&1 || {
        [ -z "$sampler" ] || kill "$sampler" 2>/dev/null
        echo "batch-bench.sh: --batch $n failed (see $work/batch-$n.log)" >&2
        exit 1
    }
    end=$(date +%s.%N)
    [ -z "$sampler" ] || { kill "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true; }
    /usr/bin/python3 - "$ledger" "$n" "$workers" "$start" "$end" "$base" "${device:-settings}" \
        "$work/nvml-$n.csv" "${threads:-default}${optimize:+ opt}" <<'EOF'
import json, os, sqlite3, sys
ledger, n, workers, start, end, base, device, nvml, threads = sys.argv[1:10]
wall = float(end) - float(start)
db = sqlite3.connect(f"file:{ledger}/ledger.sqlite?mode=ro", uri=True)
runs = db.execute("SELECT count(*) FROM runs WHERE status = 'completed'").fetchone()[0]
wb, pb, cw, cp = [], [], 0, 0
wait = world = policy = rss = 0.0
for (payload,) in db.execute("SELECT payload_json FROM events WHERE type = 'step'"):
    e = json.loads(payload)
    w = e.get("world_call")
    if w is not None:
        wb.append(w.get("batch", 1))
    for c in e.get("policy_calls", []):
        pb.append(c.get("batch", 1))
for (payload,) in db.execute("SELECT payload_json FROM events WHERE type = 'timings'"):
    t = json.loads(payload)
    wait += t["critical_path"].get("lockstep_wait_ms", 0)
    world += t["stage_ms"]["world_model"]
    policy += t["stage_ms"]["policy"]
    rss = max(rss, t.get("peak_rss_kib", 0) / 1024)
frames = db.execute("SELECT count(*) FROM attempt_artifacts WHERE role = 'frame'").fetchone()[0]
rate = runs / wall
speed = "1.00" if not base else f"{rate / float(base):.2f}"
mean = lambda xs: sum(xs) / len(xs) if xs else 0
util, memory = [], []
if os.path.exists(nvml):
    for line in open(nvml):
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
            util.append(int(parts[0]))
            memory.append(int(parts[1]))
gpu = f"{mean(util):.0f} / {max(util)}" if util else "-"
gpu_memory = f"{max(memory)}" if memory else "-"
print(f"| {n} | {workers} | {device} | {threads} | {runs} | {wall:.1f} | {rate:.2f} | {frames / wall:.0f} | {speed} | {mean(wb):.2f} | {mean(pb):.2f} | {wait / max(runs, 1):.0f} | {world / max(runs, 1):.0f} | {policy / max(runs, 1):.0f} | {rss:.0f} | {gpu} | {gpu_memory} |")
open(f"{ledger}.rate", "w").write(str(rate))
EOF
    if [ -z "$base" ]; then base=$(cat "$ledger.rate"); fi
done
