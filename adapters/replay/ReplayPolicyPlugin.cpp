#include "replay/ReplayPolicyPlugin.h"

#include "replay/ReplayPolicy.h"
#include "util/Error.h"
#include "util/Sha256.h"

namespace kosmos::replay {
namespace {

bool bySeed(const nlohmann::json &settings)
{
    return settings.is_object() && settings.contains("by_seed");
}

std::unique_ptr<Policy> make(const nlohmann::json &settings)
{
    if (bySeed(settings)) {
        if (!settings["by_seed"].is_string() || !settings.contains("replays") ||
            !settings["replays"].is_string() || settings.contains("file"))
            throw Error(ErrorCode::InvalidInput,
                        "replay.actions by seed needs settings.by_seed (a " +
                            std::string(kReplayBySeedFormat) +
                            " file) and settings.replays (the policy it replays), and no file");
        const auto from = settings.value("actions_from", nlohmann::json("physics"));
        if (from != "physics" && from != "imagined")
            throw Error(ErrorCode::InvalidInput,
                        "replay.actions settings.actions_from is \"physics\" (a policy's physics "
                        "actions, in a world model) or \"imagined\" (its actions in a world "
                        "model, in physics), not " +
                            from.dump());
        return std::make_unique<SeededReplayPolicy>(settings["by_seed"].get<std::string>(),
                                                    settings["replays"].get<std::string>(),
                                                    from.get<std::string>());
    }
    if (!settings.is_object() || !settings.contains("file") || !settings["file"].is_string())
        throw Error(ErrorCode::InvalidInput,
                    "replay.actions needs settings.file: a run's actions.json (or by_seed)");
    const auto which = settings.value("which", nlohmann::json("policy_actions"));
    if (!which.is_string())
        throw Error(ErrorCode::InvalidInput, "replay.actions settings.which must be a string");
    return std::make_unique<ReplayPolicy>(settings["file"].get<std::string>(),
                                          which.get<std::string>());
}

} // namespace

Availability ReplayPolicyPlugin::availability(const nlohmann::json &settings) const
{
    try {
        make(settings);
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
    return Availability::yes();
}

std::unique_ptr<Policy> ReplayPolicyPlugin::createPolicy(const nlohmann::json &settings)
{
    return make(settings);
}

nlohmann::json ReplayPolicyPlugin::componentIdentity(const nlohmann::json &settings) const
{
    if (!bySeed(settings) || !settings["by_seed"].is_string())
        return nullptr;
    try {
        return {{"weights_sha256", Sha256::fileHex(settings["by_seed"].get<std::string>())}};
    } catch (const std::exception &e) {
        throw Error(ErrorCode::NotFound, "replay.actions: cannot read " +
                                             settings["by_seed"].get<std::string>() + ": " +
                                             e.what());
    }
}

} // namespace kosmos::replay
