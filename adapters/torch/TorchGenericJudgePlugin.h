#pragma once

// The torch.generic_judge plugin: metadata in torch_generic_judge.json; the work is in
// TorchGeneric.cpp.
#include "TorchAdapters.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::torchadapters {

class GenericJudgePlugin : public QObject, public JudgePlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_JUDGE_PLUGIN_IID FILE "torch_generic_judge.json")
    Q_INTERFACES(kosmos::JudgePlugin kosmos::ComponentIdentityProvider)
public:
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return torchIdentity(ModelFamily::GenericJudge, settings);
    }
    Availability availability(const nlohmann::json &settings) const override
    {
        return torchAvailability(ModelFamily::GenericJudge, settings);
    }
    std::unique_ptr<Judge> createJudge(const nlohmann::json &settings) override
    {
        return createTorchJudge(ModelFamily::GenericJudge, settings);
    }
};

} // namespace kosmos::torchadapters
