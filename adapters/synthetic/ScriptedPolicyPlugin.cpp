#include "synthetic/ScriptedPolicy.h"
#include "synthetic/SyntheticPlugins.h"
#include "util/Error.h"

namespace kosmos::synthetic {

Availability ScriptedPolicyPlugin::availability(const nlohmann::json &settings) const
{
    try {
        PolicySkill::byName(settings.value("skill", std::string("expert")));
        return Availability::yes();
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
}

std::unique_ptr<Policy> ScriptedPolicyPlugin::createPolicy(const nlohmann::json &settings)
{
    return std::make_unique<ScriptedPolicy>(
        PolicySkill::byName(settings.value("skill", std::string("expert"))));
}

} // namespace kosmos::synthetic
