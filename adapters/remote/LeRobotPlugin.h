#pragma once

// remote.lerobot: metadata in remote_lerobot.json.
#include "LeRobotPolicy.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::remote {

class LeRobotPlugin : public QObject, public PolicyPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "remote_lerobot.json")
    Q_INTERFACES(kosmos::PolicyPlugin kosmos::ComponentIdentityProvider)
public:
    Availability availability(const nlohmann::json &settings) const override
    {
        return leRobotAvailability(settings);
    }
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override
    {
        return createLeRobotPolicy(settings);
    }
    // The checkpoint's file digests and the interpreter's LeRobot version are part of the
    // component identity (and so of the run key).
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return leRobotIdentity(settings);
    }
};

} // namespace kosmos::remote
