#include "host/PluginComponentFactory.h"

#include "util/Error.h"

namespace kosmos {

std::string PluginComponentFactory::version(const std::string &pluginId)
{
    const PluginInfo *info = m_registry.find(pluginId);
    if (!info) {
        std::string known;
        for (const auto &p : m_registry.plugins()) {
            if (p.usable)
                known += (known.empty() ? "" : ", ") + p.id;
        }
        throw Error(ErrorCode::NotFound, "unknown plugin id '" + pluginId + "' (known: " +
                                             (known.empty() ? std::string("none found") : known) +
                                             "; see `kosmos-cli plugins`)");
    }
    return info->version;
}

void PluginComponentFactory::checkSettings(const ComponentSpec &spec)
{
    m_registry.checkSettingsOf(spec.plugin, spec.settings);
}

std::unique_ptr<Policy> PluginComponentFactory::createPolicy(const ComponentSpec &spec)
{
    return m_registry.createPolicy(spec.plugin, spec.settings);
}

std::unique_ptr<WorldModel> PluginComponentFactory::createWorldModel(const ComponentSpec &spec)
{
    return m_registry.createWorldModel(spec.plugin, spec.settings);
}

nlohmann::json PluginComponentFactory::identityOf(const ComponentSpec &spec)
{
    return m_registry.componentIdentity(spec.plugin, spec.settings);
}

std::unique_ptr<Judge> PluginComponentFactory::createJudge(const ComponentSpec &spec)
{
    return m_registry.createJudge(spec.plugin, spec.settings);
}

} // namespace kosmos
