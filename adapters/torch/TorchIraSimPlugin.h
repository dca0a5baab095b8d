#pragma once

// The torch.irasim plugin: metadata in torch_irasim.json; the work is in TorchAdapters.cpp.
#include "TorchAdapters.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::torchadapters {

class IraSimPlugin : public QObject, public WorldModelPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_WORLD_MODEL_PLUGIN_IID FILE "torch_irasim.json")
    Q_INTERFACES(kosmos::WorldModelPlugin kosmos::ComponentIdentityProvider)
public:
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return torchIdentity(ModelFamily::IraSim, settings);
    }
    Availability availability(const nlohmann::json &settings) const override
    {
        return torchAvailability(ModelFamily::IraSim, settings);
    }
    std::unique_ptr<WorldModel> createWorldModel(const nlohmann::json &settings) override
    {
        return createTorchWorldModel(ModelFamily::IraSim, settings);
    }
};

} // namespace kosmos::torchadapters
