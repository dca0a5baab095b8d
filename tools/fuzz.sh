#!/usr/bin/env bash
# Builds the libFuzzer targets (cmake --preset fuzz: clang-16, ASan + UBSan) and runs each one.
#   tools/fuzz.sh                 every target for 60 s in all (CI's short run)
#   tools/fuzz.sh --runs 1000000  every target for 1e6 executions (docs/reliability.md)
#   tools/fuzz.sh --seconds 600 [TARGET...]
# Seeds come from fuzz/corpus/<target>/ (inputs of the unit tests); the working corpus grows in
# build-fuzz/corpus/<target>/. A finding (crash, leak, timeout, UB) stops with exit 1 and leaves
# the input in build-fuzz/findings/. Prints one line per target: executions, time, corpus size.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mode=seconds
total=60
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) mode=runs; total="$2"; shift 2 ;;
        --seconds) mode=seconds; total="$2"; shift 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
if ! command -v clang++-16 >/dev/null || [ ! -d /usr/lib/llvm-16/lib/clang/16/lib/linux ]; then
    echo "fuzz.sh: clang-16 and libclang-rt-16-dev are needed (scripts/setup-debian.sh)" >&2
    exit 2
fi
if [ ! -f build-fuzz/build.ninja ]; then
    cmake --preset fuzz >/dev/null
fi
cmake --build --preset fuzz
all=(judge_answer protocol judge_config model_manifest msgpack_numpy json_numpy actions
     annotation_answers judge_request scaleout lerobot_info remote_world lerobot_wire
     replay_by_seed)
# physics.mjcf's task files, where the build has the MJCF world (the mujoco wheel).
[ -x build-fuzz/fuzz/fuzz_mjcf_task ] && all+=(mjcf_task)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
per=$total
if [ "$mode" = seconds ]; then
    per=$(( total / ${#targets[@]} ))
    [ "$per" -ge 1 ] || per=1
fi
mkdir -p build-fuzz/findings
status=0
for t in "${targets[@]}"; do
    work="build-fuzz/corpus/$t"
    mkdir -p "$work"
    limit=(-max_total_time="$per")
    [ "$mode" = runs ] && limit=(-runs="$per")
    log="build-fuzz/fuzz-$t.log"
    start=$(date +%s%N)
    set +e
    # intercept_tls_get_addr=0: as in scripts/sanitize.sh (docs/reliability.md, the exit scan's
    # misread of a dynamic TLS block).
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:intercept_tls_get_addr=0 \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "build-fuzz/fuzz/fuzz_$t" "${limit[@]}" -max_len=65536 -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="build-fuzz/findings/$t-" \
        "$work" "fuzz/corpus/$t" >"$log" 2>&1
    rc=$?
    set -e
    end=$(date +%s%N)
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    corpus=$(find "$work" -type f | wc -l)
    ms=$(( (end - start) / 1000000 ))
    printf 'fuzz %-20s %10s execs in %4d.%01d s, corpus %5d: %s\n' "$t" "$runs" \
        $(( ms / 1000 )) $(( ms % 1000 / 100 )) "$corpus" \
        "$([ $rc -eq 0 ] && echo ok || echo "FINDING (see $log)")"
    [ $rc -eq 0 ] || status=1
done
exit $status
