#pragma once

// physics.mjcf: metadata in physics_mjcf.json.
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::mjcf {

class MjcfWorldPlugin : public QObject, public WorldModelPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_WORLD_MODEL_PLUGIN_IID FILE "physics_mjcf.json")
    Q_INTERFACES(kosmos::WorldModelPlugin kosmos::ComponentIdentityProvider)
public:
    Availability availability(const nlohmann::json &settings) const override;
    std::unique_ptr<WorldModel> createWorldModel(const nlohmann::json &settings) override;
    // The task files and every file of each task's scene folder, hashed, and MuJoCo's version:
    // part of the component identity and so of the run key.
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override;
};

} // namespace kosmos::mjcf
