#!/bin/bash
# Scale-out figures (docs/benchmarks.md): merge throughput against `cp -r` (kosmos-bench-merge),
# and the overhead of `kosmos-cli submit --slurm` and `status` on a 100-task array, against a
# single-node Slurm started for the purpose (tests/scaleout/slurm-cluster.sh) and stopped after.
#   bench/scaleout-bench.sh [BUILD_DIR]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(realpath "${1:-$here/build}")"
work="$(mktemp -d /tmp/kosmos-scaleout-bench.XXXXXX)"
trap '"$here/tests/scaleout/slurm-cluster.sh" stop "$work/slurm" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

echo "== merge: 100 shards x 100 runs"
"$build/bin/kosmos-bench-merge" "$work/merge"

echo "== submit / status on a 100-task array"
eval "$("$here/tests/scaleout/slurm-cluster.sh" start "$work/slurm")"
cli="$build/bin/kosmos-cli"
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
echo "submit --slurm --shards 100 (checks the protocol, creates 100 shard ledgers, writes and submits two scripts): $(ms "$cli" submit "$here/examples/tabletop-demo.json" --ledger "$work/out.kosmos" --shards 100 --slurm) ms"
for i in 1 2 3; do
    echo "status (100 shard ledgers read, squeue + sacct asked): $(ms "$cli" status "$work/out.kosmos") ms"
done
echo "status --json: $(ms "$cli" status "$work/out.kosmos" --json) ms"
echo "cancel: $(ms "$cli" cancel "$work/out.kosmos") ms"
