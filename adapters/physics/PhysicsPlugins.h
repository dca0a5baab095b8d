#pragma once

#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::physics {

class PhysicsWorldPlugin : public QObject, public WorldModelPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_WORLD_MODEL_PLUGIN_IID FILE "physics_world.json")
    Q_INTERFACES(kosmos::WorldModelPlugin)
public:
    Availability availability(const nlohmann::json &settings) const override;
    std::unique_ptr<WorldModel> createWorldModel(const nlohmann::json &settings) override;
};

} // namespace kosmos::physics
