#include "physics/PhysicsPlugins.h"

#include "physics/PhysicsTabletop.h"
#include "physics/PhysicsWorldModel.h"
#include "util/Error.h"

namespace kosmos::physics {

Availability PhysicsWorldPlugin::availability(const nlohmann::json &settings) const
{
    try {
        SceneSettings::fromJson(settings);
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
    // Headless rendering: an EGL context must be possible here.
    if (const std::string problem = headlessRenderingProblem(); !problem.empty())
        return Availability::no(problem);
    return Availability::yes();
}

std::unique_ptr<WorldModel> PhysicsWorldPlugin::createWorldModel(const nlohmann::json &settings)
{
    return std::make_unique<PhysicsWorldModel>(SceneSettings::fromJson(settings));
}

} // namespace kosmos::physics
