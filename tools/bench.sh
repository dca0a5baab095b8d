#!/bin/sh
# Every throughput benchmark of docs/benchmarks.md with its anchor in the same run, printed as
# Markdown tables: the engine (critical-path overhead per step), kosmos-cli start-up against
# `sqlite3 --version`, batched durable event appends against the sqlite3 shell, ingest against
# `sha256sum`, MP4 export against the `ffmpeg` CLI, the workstation's 100k-run ledger.
#   tools/bench.sh [WORKDIR] [--quick]
# WORKDIR (default /tmp/kosmos-bench) must be on the disk to measure. Needs a build
# (cmake --preset default && cmake --build build), sqlite3, ffmpeg and sha256sum.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/build/bin"
work=${1:-/tmp/kosmos-bench}
quick=""
[ "${2:-}" = "--quick" ] && quick=1
mkdir -p "$work"
cmake --build "$here/build" --target kosmos-bench-ledger kosmos-bench-engine kosmos-bench-export \
    kosmos-bench-startup kosmos-bench-gui kosmos-cli >/dev/null
for tool in sqlite3 ffmpeg sha256sum; do
    command -v "$tool" >/dev/null || { echo "bench.sh: $tool is needed (an anchor)" >&2; exit 2; }
done
echo "# Kosmos benchmarks, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -r)"
echo
echo "## Rollout engine"
if [ -n "$quick" ]; then "$bin/kosmos-bench-engine" "$work" --episodes 3
else "$bin/kosmos-bench-engine" "$work" --episodes 20; fi
echo
echo "## Ledger: event appends (sqlite3 shell), ingest (sha256sum), open"
if [ -n "$quick" ]; then "$bin/kosmos-bench-ledger" "$work" --quick
else "$bin/kosmos-bench-ledger" "$work"; fi
echo
echo "## Process start-up"
"$bin/kosmos-cli" demo --ledger "$work/startup.kosmos" --workers 2 >/dev/null 2>&1 || true
"$bin/kosmos-bench-startup" "$work/startup.kosmos" --runs "$([ -n "$quick" ] && echo 21 || echo 101)"
echo
echo "## Export"
"$bin/kosmos-bench-export" "$work" --frames "$([ -n "$quick" ] && echo 200 || echo 1000)"
echo
echo "## Frame codecs and validation's optical flow ([fast-rollouts])"
cmake --build "$here/build" --target kosmos-bench-frame-codecs kosmos-bench-validation-flow \
    >/dev/null 2>&1 || true
if [ -x "$bin/kosmos-bench-frame-codecs" ]; then
    "$bin/kosmos-bench-frame-codecs" --frames "$([ -n "$quick" ] && echo 40 || echo 120)"
    "$bin/kosmos-bench-validation-flow" --episodes "$([ -n "$quick" ] && echo 6 || echo 24)" --threads 1
else
    echo "(skipped: the physics world is not built here)"
fi
echo
echo "## Batched episodes (--batch N, the shipped world model and policies)"
if [ -d "$here/models/world" ]; then
    # At libtorch's default intra-op threads, then at two (the model's call may use both cores).
    "$here/bench/batch-bench.sh" "$work/batch" --episodes "$([ -n "$quick" ] && echo 2 || echo 10)" \
        --batches "1 4 16" || echo "(batch bench failed: see $work/batch)"
    "$here/bench/batch-bench.sh" "$work/batch-t2" --episodes "$([ -n "$quick" ] && echo 2 || echo 10)" \
        --batches "1 4 16" --threads 2 | tail -n 3 || echo "(batch bench failed: see $work/batch-t2)"
    # The modules frozen and optimized for inference (settings.optimize), at two threads.
    "$here/bench/batch-bench.sh" "$work/batch-t2-opt" \
        --episodes "$([ -n "$quick" ] && echo 2 || echo 10)" \
        --batches "1 4 16" --threads 2 --optimize | tail -n 3 ||
        echo "(batch bench failed: see $work/batch-t2-opt)"
    # The ceiling: the shipped models' own forward pass at batch N, nothing of the engine around.
    if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
        for m in world bc-expert-full; do
            for opt in "" --optimize; do
                /usr/bin/python3 "$here/bench/model-batch-scaling.py" "$here/models/$m" $opt \
                    --batches 1 4 16 --seconds "$([ -n "$quick" ] && echo 1 || echo 3)" 2>&1 |
                    grep -v Warning
            done
        done
    fi
fi
echo
echo "## Workstation"
large=$(find "$work" -maxdepth 2 -name 'large.kosmos' | head -1)
if [ -n "$large" ] && [ -z "$quick" ]; then
    QT_QPA_PLATFORM=offscreen "$bin/kosmos-bench-gui" --scroll "$large"
else
    echo "(skipped: the 100k-run ledger is made by the full kosmos-bench-ledger run)"
fi
