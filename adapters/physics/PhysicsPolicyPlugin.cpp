#include "physics/PhysicsPolicyPlugin.h"

#include "physics/ScriptedPhysicsPolicy.h"
#include "util/Error.h"

namespace kosmos::physics {
namespace {

PhysicsSkill skillOf(const nlohmann::json &settings)
{
    if (settings.is_null())
        return PhysicsSkill::Expert;
    if (!settings.is_object())
        throw Error(ErrorCode::InvalidInput, "physics.scripted_policy settings must be an object");
    for (const auto &[key, value] : settings.items()) {
        if (key != "skill")
            throw Error(ErrorCode::InvalidInput,
                        "physics.scripted_policy settings has no field '" + key + "' (skill)");
        if (!value.is_string())
            throw Error(ErrorCode::InvalidInput,
                        "physics.scripted_policy settings.skill must be a string");
    }
    return physicsSkillByName(settings.value("skill", "expert"));
}

} // namespace

Availability PhysicsPolicyPlugin::availability(const nlohmann::json &settings) const
{
    try {
        skillOf(settings);
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
    return Availability::yes();
}

std::unique_ptr<Policy> PhysicsPolicyPlugin::createPolicy(const nlohmann::json &settings)
{
    return std::make_unique<ScriptedPhysicsPolicy>(skillOf(settings));
}

} // namespace kosmos::physics
