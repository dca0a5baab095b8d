#pragma once

// remote.openvla_rest: metadata in remote_openvla.json.
#include "RemotePolicies.h"
#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::remote {

class OpenVlaRestPlugin : public QObject, public PolicyPlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_POLICY_PLUGIN_IID FILE "remote_openvla.json")
    Q_INTERFACES(kosmos::PolicyPlugin)
public:
    Availability availability(const nlohmann::json &settings) const override
    {
        return openVlaRestAvailability(settings);
    }
    std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) override
    {
        return createOpenVlaRestPolicy(settings);
    }
};

} // namespace kosmos::remote
