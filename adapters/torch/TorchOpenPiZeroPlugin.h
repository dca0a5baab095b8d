#pragma once

// The torch.openpizero plugin: metadata in torch_openpizero.json; the work is in TorchAdapters.cpp.
#include "TorchAdapters.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::torchadapters {

class OpenPiZeroPlugin : public QObject, public PolicyPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "torch_openpizero.json")
    Q_INTERFACES(kosmos::PolicyPlugin)
public:
    Availability availability(const nlohmann::json &settings) const override
    {
        return torchAvailability(ModelFamily::OpenPiZero, settings);
    }
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override
    {
        return createTorchPolicy(ModelFamily::OpenPiZero, settings);
    }
};

} // namespace kosmos::torchadapters
