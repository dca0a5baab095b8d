#include "ledger/Shard.h"

#include "util/Error.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace kosmos {

namespace {

// -1: not a non-negative decimal number.
int parseCount(std::string_view text)
{
    int value = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return -1;
    return value;
}

} // namespace

ShardSpec ShardSpec::parse(std::string_view text, std::string_view what)
{
    const auto slash = text.find('/');
    const int index = slash == std::string_view::npos ? -1 : parseCount(text.substr(0, slash));
    const int count = slash == std::string_view::npos ? -1 : parseCount(text.substr(slash + 1));
    const std::string where = std::string(what) + " '" + std::string(text) + "'";
    if (index < 0 || count < 0)
        throw Error(ErrorCode::InvalidInput,
                    where + ": expected INDEX/COUNT, e.g. 0/4 (shards are numbered from 0, as "
                            "SLURM_ARRAY_TASK_ID)");
    if (count < 1 || count > kMaxShards)
        throw Error(ErrorCode::InvalidInput,
                    where + ": the shard count must be 1-" + std::to_string(kMaxShards));
    if (index >= count)
        throw Error(ErrorCode::InvalidInput, where + ": the index must be 0-" +
                                                 std::to_string(count - 1) +
                                                 " (shards are numbered from 0)");
    return {index, count};
}

std::string ShardSpec::text() const
{
    return std::to_string(index) + "/" + std::to_string(count);
}

std::string ShardSpec::metaJson() const
{
    return nlohmann::json{{"count", count}, {"index", index}}.dump();
}

std::optional<ShardSpec> ShardSpec::fromMetaJson(std::string_view json)
{
    if (json.size() > 256) // {"count":N,"index":I}: anything longer is not a shard record
        return std::nullopt;
    const auto doc = nlohmann::json::parse(json, nullptr, false);
    if (!doc.is_object() || !doc.contains("index") || !doc.contains("count") ||
        !doc["index"].is_number_integer() || !doc["count"].is_number_integer())
        return std::nullopt;
    const ShardSpec spec{doc["index"].get<int>(), doc["count"].get<int>()};
    if (spec.count < 1 || spec.count > kMaxShards || spec.index < 0 || spec.index >= spec.count)
        return std::nullopt;
    return spec;
}

bool ShardSpec::contains(std::string_view runKey) const
{
    return shardOf(runKey, count) == index;
}

int shardOf(std::string_view runKey, int count)
{
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(
        runKey.data(), runKey.data() + std::min<std::size_t>(16, runKey.size()), value, 16);
    if (runKey.size() != 64 || ec != std::errc() || end != runKey.data() + 16)
        throw Error(ErrorCode::InvalidInput,
                    "not a run key (64 hex digits): '" + std::string(runKey) + "'");
    return static_cast<int>(value % static_cast<std::uint64_t>(count));
}

} // namespace kosmos
