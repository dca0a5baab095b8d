// What scale-out reads from outside: a --shard argument, a shard ledger's "shard" record, and
// what sbatch, sacct and squeue print (core/ledger/Shard.h, core/scaleout/ScaleOut.h).
#include "FuzzSupport.h"
#include "ledger/Shard.h"
#include "scaleout/ScaleOut.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string input = kosmos::fuzz::text(data, size);
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        const kosmos::ShardSpec spec = kosmos::ShardSpec::parse(input, "--shard");
        if (spec.index < 0 || spec.index >= spec.count || spec.count > kosmos::kMaxShards)
            __builtin_trap();
        if (kosmos::ShardSpec::fromMetaJson(spec.metaJson()) != spec)
            __builtin_trap();
    });
    if (const auto meta = kosmos::ShardSpec::fromMetaJson(input))
        if (meta->index < 0 || meta->index >= meta->count)
            __builtin_trap();
    kosmos::fuzz::expectNamedErrorsOnly([&] { kosmos::parseSbatchJobId(input); });
    for (const auto &[id, state] : kosmos::parseSacctStates(input))
        if (id.empty() || state.empty() || id.find('.') != std::string::npos)
            __builtin_trap();
    for (const auto &[id, state] : kosmos::parseSqueueStates(input))
        if (id.empty() || state.empty())
            __builtin_trap();
    return 0;
}
