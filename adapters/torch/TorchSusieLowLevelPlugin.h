#pragma once

// The torch.susie_ll plugin: metadata in torch_susie_ll.json; the work is in TorchAdapters.cpp.
#include "TorchAdapters.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::torchadapters {

class SusieLowLevelPlugin : public QObject, public PolicyPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "torch_susie_ll.json")
    Q_INTERFACES(kosmos::PolicyPlugin kosmos::ComponentIdentityProvider)
public:
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return torchIdentity(ModelFamily::SusieLowLevel, settings);
    }
    Availability availability(const nlohmann::json &settings) const override
    {
        return torchAvailability(ModelFamily::SusieLowLevel, settings);
    }
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override
    {
        return createTorchPolicy(ModelFamily::SusieLowLevel, settings);
    }
};

} // namespace kosmos::torchadapters
