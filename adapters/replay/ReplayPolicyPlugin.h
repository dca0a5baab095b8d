#pragma once

#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::replay {

class ReplayPolicyPlugin : public QObject, public PolicyPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "replay_actions.json")
    Q_INTERFACES(kosmos::PolicyPlugin)
public:
    Availability availability(const nlohmann::json &settings) const override;
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override;
};

} // namespace kosmos::replay
