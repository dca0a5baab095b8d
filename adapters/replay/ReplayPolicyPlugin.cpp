#include "replay/ReplayPolicyPlugin.h"

#include "replay/ReplayPolicy.h"
#include "util/Error.h"

namespace kosmos::replay {
namespace {

std::unique_ptr<ReplayPolicy> make(const nlohmann::json &settings)
{
    if (!settings.is_object() || !settings.contains("file") || !settings["file"].is_string())
        throw Error(ErrorCode::InvalidInput,
                    "replay.actions needs settings.file: a run's actions.json");
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

} // namespace kosmos::replay
