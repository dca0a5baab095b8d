#include "mjcf/AlohaExpertPlugin.h"

#include "mjcf/AlohaExpert.h"
#include "mjcf/ScenePackages.h"
#include "util/Error.h"

namespace kosmos::mjcf {

Availability AlohaExpertPlugin::availability(const nlohmann::json &settings) const
{
    try {
        findScenePackage("gym_aloha", ExpertSettings::fromJson(settings).lookup);
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
    return Availability::yes();
}

std::unique_ptr<Policy> AlohaExpertPlugin::createPolicy(const nlohmann::json &settings)
{
    return std::make_unique<AlohaExpert>(ExpertSettings::fromJson(settings));
}

} // namespace kosmos::mjcf
