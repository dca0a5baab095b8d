#!/usr/bin/env bash
# GPU check of the libtorch adapters (issue [torch-adapters]; never part of CI).
#
#   tools/gpu-check.sh [cuda|cpu]        (default cuda)
#   KOSMOS_BUILD_DIR=build tools/gpu-check.sh cpu   (an existing build, no rebuild)
#
# Builds Kosmos against the libtorch it finds (TORCH_DIR, else the one inside python3's torch,
# e.g. an official CUDA wheel; Debian's libtorch-dev is CPU-only), writes a large random-weight
# stand-in package per family with tools/export/kosmos_export.py (--size large: the real
# signatures, wider layers), and runs each adapter on the device: one warm-up (excluded), then
# a timed step through `kosmos-cli plugins --test`, printing time per step and peak memory.
# Record the figures in docs/benchmarks.md with the exact command and the machine.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
device="${1:-cuda}"
python="${PYTHON:-python3}"
if [ -z "${TORCH_DIR:-}" ]; then
    TORCH_DIR="$("$python" -c 'import torch, os; print(os.path.join(torch.utils.cmake_prefix_path, "Torch"))' 2> /dev/null || true)"
fi
echo "device: $device; libtorch: ${TORCH_DIR:-system}"
"$python" -c 'import torch; print("python torch", torch.__version__, "cuda", torch.cuda.is_available())' || true
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader || true

# KOSMOS_BUILD_DIR=build: use an existing build (e.g. the CPU figures on a workstation).
build="${KOSMOS_BUILD_DIR:-build-gpu-check}"
[ -n "${KOSMOS_BUILD_DIR:-}" ] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DKOSMOS_BUILD_TESTS=OFF \
    ${TORCH_DIR:+-DTorch_DIR="$TORCH_DIR"} > "$build.configure.log" 2>&1 || {
    tail -20 "$build.configure.log"; exit 1; }
[ -n "${KOSMOS_BUILD_DIR:-}" ] || cmake --build "$build" --target kosmos-cli kosmos_torch_openvla kosmos_torch_minivla \
    kosmos_torch_octo kosmos_torch_openpizero kosmos_torch_susie kosmos_torch_susie_ll \
    kosmos_torch_cosmos kosmos_torch_irasim > "$build.build.log" 2>&1 || {
    tail -30 "$build.build.log"; exit 1; }

packages="$build/packages"
mkdir -p "$packages"
instruction="put the red block in the green square"
printf '%-12s %-6s %10s %10s %12s  %s\n' family device create_ms step_ms peak_rss_mib output
for family in openvla minivla octo openpizero susie susie_ll cosmos irasim; do
    "$python" tools/export/kosmos_export.py stand-in --family "$family" --size large \
        --out "$packages/$family" --instruction "$instruction" > /dev/null
    settings="{\"package\": \"$PWD/$packages/$family\", \"device\": \"$device\", \"warmup\": 1"
    [ "$family" = susie_ll ] && {
        "$python" - "$packages/goal.png" << 'PY'
import sys, zlib, struct
w = h = 256
raw = b"".join(b"\x00" + bytes([40, 200, 40]) * w for _ in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
        settings="$settings, \"goal_image\": \"$PWD/$packages/goal.png\""
    }
    settings="$settings}"
    result="$("$build/bin/kosmos-cli" plugins --test "torch.$family" --settings "$settings" --json || true)"
    "$python" - "$family" "$device" "$result" << 'PY'
import json, sys
family, device, text = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    r = json.loads(text)
except ValueError:
    print("%-12s %-6s %s" % (family, device, text.strip()[:200])); sys.exit()
if not r.get("ok"):
    print("%-12s %-6s FAILED: %s" % (family, device, r.get("error"))); sys.exit()
print("%-12s %-6s %10.1f %10.1f %12s  %s" % (family, device, r.get("create_ms", 0),
      r.get("step_ms", 0), r.get("peak_rss_mib"), r.get("output", "")))
PY
done
echo "These are random-weight stand-ins with the real signatures: timings of the adapters and"
echo "the runtime, not of the published models, and never evidence of task success."
