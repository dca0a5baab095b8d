#pragma once

// remote.world: metadata in remote_world.json.
#include "RemoteWorld.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::remote {

class RemoteWorldPlugin : public QObject, public WorldModelPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_WORLD_MODEL_PLUGIN_IID FILE "remote_world.json")
    Q_INTERFACES(kosmos::WorldModelPlugin kosmos::ComponentIdentityProvider)
public:
    Availability availability(const nlohmann::json &settings) const override
    {
        return remoteWorldAvailability(settings);
    }
    std::unique_ptr<WorldModel> createWorldModel(const nlohmann::json &settings) override
    {
        return createRemoteWorld(settings);
    }
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return remoteWorldIdentity(settings);
    }
};

} // namespace kosmos::remote
