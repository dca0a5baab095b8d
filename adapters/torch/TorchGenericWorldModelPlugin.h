#pragma once

// The torch.generic_world_model plugin: metadata in torch_generic_world_model.json; the work is in
// TorchGeneric.cpp.
#include "TorchAdapters.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::torchadapters {

class GenericWorldModelPlugin : public QObject,
                                public WorldModelPlugin,
                                public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_WORLD_MODEL_PLUGIN_IID FILE "torch_generic_world_model.json")
    Q_INTERFACES(kosmos::WorldModelPlugin kosmos::ComponentIdentityProvider)
public:
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return torchIdentity(ModelFamily::GenericWorldModel, settings);
    }
    Availability availability(const nlohmann::json &settings) const override
    {
        return torchAvailability(ModelFamily::GenericWorldModel, settings);
    }
    std::unique_ptr<WorldModel> createWorldModel(const nlohmann::json &settings) override
    {
        return createTorchWorldModel(ModelFamily::GenericWorldModel, settings);
    }
};

} // namespace kosmos::torchadapters
