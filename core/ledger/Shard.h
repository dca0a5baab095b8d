#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kosmos {

// One of N deterministic shards of a protocol's runs (docs/scale-out.md). A run belongs to
// shard (first 16 hex digits of its run key as an unsigned 64-bit number) mod N: it depends on
// nothing but the run key and N, so every process, host and order of execution agrees, and a
// shard re-run after its job died picks exactly the same runs.
struct ShardSpec
{
    int index = 0; // 0-based, as SLURM_ARRAY_TASK_ID of an array 0-(N-1)
    int count = 1;

    // "i/N", 0 <= i < N <= kMaxShards. Throws Error(InvalidInput) naming the text and `what`
    // (e.g. "--shard").
    static ShardSpec parse(std::string_view text, std::string_view what = "shard");
    std::string text() const; // "i/N"
    // The canonical JSON recorded in a shard ledger's meta ("shard").
    std::string metaJson() const;
    static std::optional<ShardSpec> fromMetaJson(std::string_view json);

    bool contains(std::string_view runKey) const;
    friend bool operator==(const ShardSpec &, const ShardSpec &) = default;
};

constexpr int kMaxShards = 10000;

// The shard (0-based) of a run key among `count`; throws Error(InvalidInput) for a key that is
// not 64 hex digits.
int shardOf(std::string_view runKey, int count);

} // namespace kosmos
