#pragma once

// The torch.generic_policy plugin: metadata in torch_generic_policy.json; the work is in
// TorchGeneric.cpp.
#include "TorchAdapters.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::torchadapters {

class GenericPolicyPlugin : public QObject, public PolicyPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "torch_generic_policy.json")
    Q_INTERFACES(kosmos::PolicyPlugin kosmos::ComponentIdentityProvider)
public:
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return torchIdentity(ModelFamily::GenericPolicy, settings);
    }
    Availability availability(const nlohmann::json &settings) const override
    {
        return torchAvailability(ModelFamily::GenericPolicy, settings);
    }
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override
    {
        return createTorchPolicy(ModelFamily::GenericPolicy, settings);
    }
};

} // namespace kosmos::torchadapters
