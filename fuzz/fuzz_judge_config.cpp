// A judge configuration (`kosmos-cli judge --judge CONFIG`): plugin, settings, quorum.
#include "FuzzSupport.h"
#include "judge/JudgeSchema.h"
#include "util/BoundedJson.h"
#include "util/JsonFields.h"
#include "util/Secrets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        kosmos::json::Limits limits;
        limits.maxBytes = 1u << 20;
        limits.maxDepth = 32;
        limits.rejectDuplicateKeys = true;
        const auto config =
            kosmos::json::parseBounded(kosmos::fuzz::text(data, size), "config.json", limits);
        kosmos::refuseSecrets(config, "config.json");
        (void)kosmos::json::requireString(config, "plugin", "config.json");
        if (config.contains("settings"))
            (void)kosmos::json::requireObject(config, "settings", "config.json");
        const auto quorum = kosmos::QuorumSettings::fromJson(
            config.contains("quorum") ? config["quorum"] : nlohmann::json::object(),
            "config.json.quorum");
        (void)quorum.toJson().dump();
    });
    return 0;
}
