#!/usr/bin/env bash
# GPU check of the libtorch adapters (issue [gpu-runtime]; never part of CI): one prepared script
# for a machine with an NVIDIA GPU, ending within 8 minutes on a warm build.
#
#   tools/gpu-check.sh [cuda|cpu]                      (default cuda)
#   KOSMOS_BUILD_DIR=build-cuda tools/gpu-check.sh     an existing (e.g. carried) build, no rebuild
#   KOSMOS_BUILD_DIR=build PYTHON=/usr/bin/python3 tools/gpu-check.sh cpu   the default build (CPU)
#
# 1. the torch wheel of scripts/setup-cuda.sh (.cuda/venv; installed if missing) and the cuda
#    preset's kosmos-cli and torch plugins (in build-gpu-check; skipped with KOSMOS_BUILD_DIR);
# 2. `kosmos-cli gpus` (NVML: name, memory, utilisation);
# 3. per torch family, a large random-weight stand-in with the real signature
#    (tools/export/kosmos_export.py stand-in --size large), KOSMOS_GPU_CHECK_WARMUP warm-up calls
#    (default 5, excluded), then a timed step through `kosmos-cli plugins --test`: wall ms per
#    step, device ms (CUDA events), frames/s for world models, peak CUDA memory (the caching
#    allocator's peak) and peak RSS; then the same for the shipped
#    learned world model and judge;
# 4. bf16 (and fp16 on CUDA) for two families;
# 5. a rollout of the shipped trained models (models/: five generic policies, the learned world
#    model, the learned judge) through `kosmos-cli run`, every torch component on the device and
#    then on the CPU, into one ledger that is then verified: from an imagined protocol of
#    `kosmos-cli fidelity prepare` given as KOSMOS_GPU_CHECK_PROTOCOL, or prepared here from a
#    short physics run when the physics world is built. KOSMOS_GPU_CHECK_OUT (a folder): the
#    ledger's database is copied there (tar.xz; the frames stay behind);
#    Then the batch sweep (bench/batch-bench.sh --device): the same protocol with one worker at
#    --batch 1, 4, 16 (KOSMOS_GPU_CHECK_BATCHES): rollouts/s, frames/s, NVML utilisation and
#    memory per N;
# 6. one AOTInductor package compiled for the device (needs the GPU at export time) through the
#    same adapter.
# A build made elsewhere can be carried to a GPU machine without Qt (tools/gpu-bundle.sh).
# Record the figures in docs/benchmarks.md with the exact command and the machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
device="${1:-cuda}"
start=$(date +%s)
# PYTHON: another exporter Python (e.g. /usr/bin/python3 with Debian's torch for the default build).
if [ -z "${PYTHON:-}" ]; then
    scripts/setup-cuda.sh > /dev/null
fi
python="${PYTHON:-$PWD/.cuda/venv/bin/python}"
"$python" -c 'import torch; print("torch", torch.__version__, "CUDA", torch.version.cuda, "available", torch.cuda.is_available())'
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

build="${KOSMOS_BUILD_DIR:-build-gpu-check}"
if [ -z "${KOSMOS_BUILD_DIR:-}" ]; then
    cmake --preset cuda -B "$build" -DKOSMOS_BUILD_TESTS=OFF -DKOSMOS_BUILD_BENCH=OFF > "$build.configure.log" 2>&1 || {
        tail -20 "$build.configure.log"; exit 1; }
    cmake --build "$build" --target kosmos-cli kosmos_torch_openvla kosmos_torch_minivla \
        kosmos_torch_octo kosmos_torch_openpizero kosmos_torch_susie kosmos_torch_susie_ll \
        kosmos_torch_cosmos kosmos_torch_irasim kosmos_torch_generic_policy \
        kosmos_torch_generic_world_model kosmos_torch_generic_judge kosmos_physics_world \
        > "$build.build.log" 2>&1 || {
        tail -30 "$build.build.log"; exit 1; }
fi
build="$(cd "$build" && pwd)"
cli="$build/bin/kosmos-cli"
"$cli" gpus
echo "setup and build: $(($(date +%s) - start)) s"

packages="$build/gpu-check-packages"
mkdir -p "$packages"
instruction="put the red block in the green square"
# Warm-up calls before the timed one (excluded): TorchScript's profiling executor optimises a
# graph after its first calls, and CUDA loads kernels lazily on first use.
warmup="${KOSMOS_GPU_CHECK_WARMUP:-5}"
"$python" - "$packages/goal.png" << 'PY'
import sys, zlib, struct
w = h = 256
raw = b"".join(b"\x00" + bytes([40, 200, 40]) * w for _ in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
report() {
    "$python" - "$1" "$2" "$3" << 'PY'
import json, sys
family, device, text = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    r = json.loads(text)
except ValueError:
    print("%-18s %-6s %s" % (family, device, text.strip()[:200])); sys.exit()
if not r.get("ok"):
    print("%-18s %-6s FAILED: %s" % (family, device, r.get("error"))); sys.exit()
stats = r.get("call_stats") or {}
step = r.get("step_ms", 0)
fps = "%.1f" % (1000.0 * r["frames"] / step) if r.get("frames") and step else "-"
peak = stats.get("cuda_peak_allocated_bytes")
print("%-18s %-6s %10.1f %10.1f %10s %8s %12s %10s  %s" % (
    family, device, r.get("create_ms", 0), step,
    "%.1f" % stats["device_ms"] if "device_ms" in stats else "-", fps,
    "%.0f" % (peak / 2**20) if peak is not None else "-", "%.0f" % r.get("peak_rss_mib", 0),
    r.get("output", "")))
PY
}
printf '%-18s %-6s %10s %10s %10s %8s %12s %10s  %s\n' family device create_ms step_ms device_ms frames/s cuda_peak_mib rss_mib output
for family in openvla minivla octo openpizero susie susie_ll cosmos irasim; do
    "$python" -W ignore::FutureWarning tools/export/kosmos_export.py stand-in --family "$family" \
        --size large --out "$packages/$family" --instruction "$instruction" > /dev/null
    settings="{\"package\": \"$packages/$family\", \"device\": \"$device\", \"warmup\": $warmup"
    [ "$family" = susie_ll ] && settings="$settings, \"goal_image\": \"$packages/goal.png\""
    settings="$settings}"
    report "$family" "$device" "$("$cli" plugins --test "torch.$family" --settings "$settings" --json || true)"
done
# The shipped trained models (models/, docs/fidelity.md): the learned world model and judge (the
# policies take the physics world's 7-D proprio, which a smoke test has no world to give).
for pair in generic_world_model:world generic_judge:judge; do
    report "${pair%%:*}" "$device" "$("$cli" plugins --test "torch.${pair%%:*}" --settings \
        "{\"package\": \"$PWD/models/${pair#*:}\", \"device\": \"$device\", \"warmup\": $warmup}" --json || true)"
done

# Lower precisions: bf16 on CPU and CUDA, fp16 on CUDA only.
dtypes="bf16"
[ "$device" = cpu ] || dtypes="bf16 fp16"
for family in openvla cosmos; do
    for dtype in $dtypes; do
        report "$family" "$device/$dtype" "$("$cli" plugins --test "torch.$family" --settings \
            "{\"package\": \"$packages/$family\", \"device\": \"$device\", \"dtype\": \"$dtype\", \"warmup\": $warmup}" \
            --json || true)"
    done
done

# The shipped trained models on the device: a rollout recorded in a ledger, then verified.
rollout="$build/gpu-check-rollout"
rm -rf "$rollout"
mkdir -p "$rollout"
protocol="${KOSMOS_GPU_CHECK_PROTOCOL:-}"
if [ -z "$protocol" ] && "$cli" plugins | grep -q '^available *physics.tabletop '; then
    "$python" - "$rollout/physics.json" << 'PY'
import json, sys
p = json.load(open("examples/fidelity-physics.json"))
p["episodes_per_task"] = 4
p["name"] = "gpu-check-physics"
json.dump(p, open(sys.argv[1], "w"), indent=2)
PY
    "$cli" init "$rollout/physics.kosmos" > /dev/null
    "$cli" run "$rollout/physics.json" --ledger "$rollout/physics.kosmos" --workers 2 > /dev/null
    "$cli" fidelity prepare "$rollout/physics.kosmos" --protocol gpu-check-physics \
        --world-model examples/fidelity-world-model.json --judge examples/fidelity-judge.json \
        --to "$rollout/imagined" > /dev/null
    protocol="$rollout/imagined/imagined.json"
fi
if [ -n "$protocol" ]; then
    ledger="$rollout/gpu-rollout.kosmos"
    "$cli" init "$ledger" > /dev/null
    run_devices="$device"
    [ "$device" = cpu ] || run_devices="$device cpu"
    for run_device in $run_devices; do
        # Every torch component on run_device (run --device); the protocol's name says which.
        "$python" - "$protocol" "$rollout/protocol-$run_device.json" "$run_device" << 'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["name"] = "%s-%s" % (p["name"], sys.argv[3])
json.dump(p, open(sys.argv[2], "w"), indent=2)
PY
        started=$(date +%s%N)
        "$cli" run "$rollout/protocol-$run_device.json" --ledger "$ledger" --workers 2 \
            --device "$run_device" > "$rollout/run-$run_device.log" 2>&1 || {
            tail -20 "$rollout/run-$run_device.log"
            exit 1
        }
        echo "rollout on $run_device: $(grep -m1 '^completed ' "$rollout/run-$run_device.log" |
            sed 's/^ *//'), $((($(date +%s%N) - started) / 1000000)) ms wall"
    done
    "$cli" verify "$ledger" | tail -1
    "$cli" info "$ledger" | head -12
    # The batch sweep ([fast-rollouts]): the same imagined protocol on the device with one worker
    # at N = 1, 4, 16 episodes in lockstep: rollouts/s, frames/s, the mean batch of the calls,
    # and NVML's utilisation (mean / max) and memory per N, sampled by nvidia-smi every 250 ms.
    bench/batch-bench.sh "$rollout/batch-sweep" --protocol "$protocol" --device "$device" \
        --cli "$cli" --workers 1 --batches "${KOSMOS_GPU_CHECK_BATCHES:-1 4 16}" ||
        echo "batch sweep failed: see $rollout/batch-sweep"
    if [ -n "${KOSMOS_GPU_CHECK_OUT:-}" ]; then
        mkdir -p "$KOSMOS_GPU_CHECK_OUT"
        # The ledger's database (events, timings, NVML snapshots); the frames stay behind.
        tar -cJf "$KOSMOS_GPU_CHECK_OUT/gpu-rollout-ledger.tar.xz" -C "$rollout" \
            gpu-rollout.kosmos/ledger.sqlite
    fi
else
    echo "rollout: skipped (no physics world for start frames; set KOSMOS_GPU_CHECK_PROTOCOL)"
fi

# AOTInductor: compiled here for this device (a CUDA .pt2 needs the GPU at export time).
if "$python" tools/export/kosmos_export.py stand-in --family openpizero --size large --runtime aoti \
    --device "$device" --out "$packages/openpizero-aoti" --instruction "$instruction" > "$packages/aoti.log" 2>&1; then
    report "openpizero (aoti)" "$device" "$("$cli" plugins --test torch.openpizero --settings \
        "{\"package\": \"$packages/openpizero-aoti\", \"warmup\": $warmup}" --json || true)"
else
    echo "openpizero (aoti): export failed: $(tail -3 "$packages/aoti.log")"
fi
echo "total: $(($(date +%s) - start)) s"
echo "These are random-weight stand-ins with the real signatures: timings of the adapters and"
echo "the runtime, not of the published models, and never evidence of task success."
