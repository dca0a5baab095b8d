#pragma once

// The torch.cosmos plugin: metadata in torch_cosmos.json; the work is in TorchAdapters.cpp.
#include "TorchAdapters.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::torchadapters {

class CosmosPlugin : public QObject, public WorldModelPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_WORLD_MODEL_PLUGIN_IID FILE "torch_cosmos.json")
    Q_INTERFACES(kosmos::WorldModelPlugin kosmos::ComponentIdentityProvider)
public:
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return torchIdentity(ModelFamily::Cosmos, settings);
    }
    Availability availability(const nlohmann::json &settings) const override
    {
        return torchAvailability(ModelFamily::Cosmos, settings);
    }
    std::unique_ptr<WorldModel> createWorldModel(const nlohmann::json &settings) override
    {
        return createTorchWorldModel(ModelFamily::Cosmos, settings);
    }
};

} // namespace kosmos::torchadapters
