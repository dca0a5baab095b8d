#pragma once

#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::replay {

class ReplayPolicyPlugin : public QObject, public PolicyPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "replay_actions.json")
    Q_INTERFACES(kosmos::PolicyPlugin kosmos::ComponentIdentityProvider)
public:
    Availability availability(const nlohmann::json &settings) const override;
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override;
    // A replay by seed: the SHA-256 of its file (the recorded actions are its "weights"). A replay
    // of one file: nothing beyond its settings, as before.
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override;
};

} // namespace kosmos::replay
