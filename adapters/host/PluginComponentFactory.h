#pragma once

#include "host/PluginRegistry.h"
#include "pipeline/RolloutEngine.h"

namespace kosmos {

// The rollout engine's component factory, backed by the plugin registry.
class PluginComponentFactory : public ComponentFactory
{
public:
    explicit PluginComponentFactory(PluginRegistry &registry) : m_registry(registry) {}

    std::string version(const std::string &pluginId) override;
    std::unique_ptr<Policy> createPolicy(const ComponentSpec &spec) override;
    std::unique_ptr<WorldModel> createWorldModel(const ComponentSpec &spec) override;
    std::unique_ptr<Judge> createJudge(const ComponentSpec &spec) override;
    nlohmann::json identityOf(const ComponentSpec &spec) override;
    void checkSettings(const ComponentSpec &spec) override;

private:
    PluginRegistry &m_registry;
};

} // namespace kosmos
