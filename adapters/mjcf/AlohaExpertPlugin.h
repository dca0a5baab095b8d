#pragma once

// mjcf.aloha_expert: metadata in aloha_expert.json.
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::mjcf {

class AlohaExpertPlugin : public QObject, public PolicyPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "aloha_expert.json")
    Q_INTERFACES(kosmos::PolicyPlugin)
public:
    Availability availability(const nlohmann::json &settings) const override;
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override;
};

} // namespace kosmos::mjcf
