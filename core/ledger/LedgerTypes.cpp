#include "ledger/LedgerTypes.h"

#include "util/CanonicalJson.h"

namespace kosmos {

std::string familyName(ComponentFamily family)
{
    switch (family) {
    case ComponentFamily::Policy:
        return "policy";
    case ComponentFamily::WorldModel:
        return "world_model";
    case ComponentFamily::Judge:
        return "judge";
    }
    return "unknown";
}

std::string ComponentIdentity::configSha256() const
{
    return canonicalHash(config);
}

nlohmann::json ComponentIdentity::toJson() const
{
    return {
        {"family", familyName(family)},
        {"adapter_id", adapterId},
        {"adapter_version", adapterVersion},
        {"config", config},
        {"config_sha256", configSha256()},
        {"weights_sha256", weightsSha256 ? nlohmann::json(*weightsSha256) : nlohmann::json()},
    };
}

std::string ComponentIdentity::identitySha256() const
{
    return canonicalHash(toJson());
}

nlohmann::json RunSpec::keyJson() const
{
    auto identity = [](const std::optional<ComponentIdentity> &component) {
        return component ? nlohmann::json(component->identitySha256()) : nlohmann::json();
    };
    return {
        {"kosmos_run_key", 1},
        {"protocol_sha256", protocolSha256},
        {"episode_index", episodeIndex},
        {"policy", identity(policy)},
        {"world_model", identity(worldModel)},
        {"judge", identity(judge)},
        {"seeds", seeds},
    };
}

std::string RunSpec::runKey() const
{
    return canonicalHash(keyJson());
}

std::string JudgeSampleRecord::rowSha256(std::int64_t judgmentId) const
{
    auto opt = [](const auto &value) { return value ? nlohmann::json(*value) : nlohmann::json(); };
    nlohmann::json row = {
        {"judgment_id", judgmentId},
        {"sample_index", sampleIndex},
        {"try_index", tryIndex},
        {"seed", opt(seed)},
        {"raw_text", opt(rawText)},
        {"format_class", formatClass},
        {"parse_error", opt(parseError)},
        {"parsed", parsed},
        {"generated_tokens", opt(generatedTokens)},
        {"decode_ms", opt(decodeMs)},
    };
    // Fields added in later schema versions enter the hash only when set, so rows written
    // before them keep their hash.
    if (finishReason)
        row["finish_reason"] = *finishReason;
    if (answerForm)
        row["answer_form"] = *answerForm;
    if (requestSha256)
        row["request_sha256"] = *requestSha256;
    if (serverModel)
        row["server_model"] = *serverModel;
    if (systemFingerprint)
        row["system_fingerprint"] = *systemFingerprint;
    return canonicalHash(row);
}

} // namespace kosmos
