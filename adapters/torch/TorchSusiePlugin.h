#pragma once

// The torch.susie plugin: metadata in torch_susie.json; the work is in TorchAdapters.cpp.
#include "TorchAdapters.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::torchadapters {

class SusiePlugin : public QObject, public PolicyPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "torch_susie.json")
    Q_INTERFACES(kosmos::PolicyPlugin kosmos::ComponentIdentityProvider)
public:
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return torchIdentity(ModelFamily::Susie, settings);
    }
    Availability availability(const nlohmann::json &settings) const override
    {
        return torchAvailability(ModelFamily::Susie, settings);
    }
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override
    {
        return createTorchPolicy(ModelFamily::Susie, settings);
    }
};

} // namespace kosmos::torchadapters
