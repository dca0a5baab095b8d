#pragma once

// The plugin boundary: one interface per component family. A plugin library implements
// exactly one of them and carries JSON metadata (Q_PLUGIN_METADATA(IID ... FILE ...)) that the
// host reads before instantiating anything:
//
//   {"id": "synthetic.scripted_policy", "family": "policy", "version": "1.0.0",
//    "api_version": 3 (stamped by the build), "description": "...",
//    "requires": {"libtorch": false, "cuda": false, "network": false, "model_files": false},
//    "settings_schema": {JSON Schema of the settings object}}
//
// The API major version is part of the IID; a plugin built for another major version is
// listed as incompatible and never instantiated. It is written once, as
// KOSMOS_ADAPTER_API_VERSION in cmake/KosmosPlugin.cmake: the IIDs below and the host's constant
// come from it (api/KosmosApiVersion.h is generated), and kosmos_add_plugin stamps it into the
// metadata (a plugin's source metadata, <name>.meta.json, has no api_version of its own).

#include "api/KosmosApiVersion.h"
#include "components/Components.h"

#include <nlohmann/json.hpp>

#include <QtPlugin>

#include <memory>

namespace kosmos {

inline constexpr int kAdapterApiVersion = KOSMOS_ADAPTER_API_VERSION;

class PolicyPlugin
{
public:
    virtual ~PolicyPlugin() = default;
    // Whether this adapter can run here with these settings, and why not.
    virtual Availability availability(const nlohmann::json &settings) const = 0;
    // Throws kosmos::Error(InvalidInput) naming the bad setting.
    virtual std::unique_ptr<Policy> createPolicy(const nlohmann::json &settings) = 0;
};

class WorldModelPlugin
{
public:
    virtual ~WorldModelPlugin() = default;
    virtual Availability availability(const nlohmann::json &settings) const = 0;
    virtual std::unique_ptr<WorldModel> createWorldModel(const nlohmann::json &settings) = 0;
};

class JudgePlugin
{
public:
    virtual ~JudgePlugin() = default;
    virtual Availability availability(const nlohmann::json &settings) const = 0;
    virtual std::unique_ptr<Judge> createJudge(const nlohmann::json &settings) = 0;
};

// Optional, beside the family interface: what identifies a component beyond its settings (the
// hashes of its weights or model package, the runtime it resolved: device, dtype, threads).
// Read before any run, so it is part of the component identity and the run key. Plugins
// without weights need not implement it.
class ComponentIdentityProvider
{
public:
    virtual ~ComponentIdentityProvider() = default;
    // {"weights_sha256": "<64 hex>" (optional), "details": {...}}. Throws kosmos::Error when
    // the settings cannot be resolved (e.g. the package is missing or its hashes mismatch).
    virtual nlohmann::json componentIdentity(const nlohmann::json &settings) const = 0;
};

} // namespace kosmos

Q_DECLARE_INTERFACE(kosmos::PolicyPlugin, KOSMOS_POLICY_PLUGIN_IID)
Q_DECLARE_INTERFACE(kosmos::WorldModelPlugin, KOSMOS_WORLD_MODEL_PLUGIN_IID)
Q_DECLARE_INTERFACE(kosmos::JudgePlugin, KOSMOS_JUDGE_PLUGIN_IID)
Q_DECLARE_INTERFACE(kosmos::ComponentIdentityProvider, KOSMOS_IDENTITY_PROVIDER_IID)
