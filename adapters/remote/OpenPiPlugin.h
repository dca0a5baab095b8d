#pragma once

// remote.openpi: metadata in remote_openpi.json.
#include "RemotePolicies.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::remote {

class OpenPiPlugin : public QObject, public PolicyPlugin, public ComponentIdentityProvider
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "remote_openpi.json")
    Q_INTERFACES(kosmos::PolicyPlugin kosmos::ComponentIdentityProvider)
public:
    Availability availability(const nlohmann::json &settings) const override
    {
        return openPiAvailability(settings);
    }
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override
    {
        return createOpenPiPolicy(settings);
    }
    // The server's metadata frame is part of the component identity (and so of the run key).
    nlohmann::json componentIdentity(const nlohmann::json &settings) const override
    {
        return openPiIdentity(settings);
    }
};

} // namespace kosmos::remote
