#pragma once

#include "api/KosmosPlugin.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

class QPluginLoader;

namespace kosmos {

// One library found on the plugin search path, described from its metadata alone.
struct PluginInfo
{
    std::filesystem::path path;
    std::string id;
    std::string family; // policy | world_model | judge
    std::string version;
    int apiVersion = 0;
    nlohmann::json metadata; // the plugin's JSON metadata (requires, settings_schema ...)
    bool usable = false;     // metadata valid and API version supported
    std::string problem;     // why not usable
};

// Finds plugins, reads their metadata with QPluginLoader::metaData() before instantiating
// anything, and creates components on request. A wrong API version, missing metadata or a
// library that fails to load is listed with its reason; none of them crashes the host.
class PluginRegistry
{
public:
    PluginRegistry();
    ~PluginRegistry();
    PluginRegistry(const PluginRegistry &) = delete;
    PluginRegistry &operator=(const PluginRegistry &) = delete;

    // The install's (or build tree's) plugin folder next to the executable
    // (<exe>/../lib/<multiarch>/kosmos/plugins), then each folder in KOSMOS_PLUGIN_PATH
    // (colon-separated), then `extra`. Nothing else is searched.
    static std::vector<std::filesystem::path>
    searchPath(const std::filesystem::path &executableDir,
               const std::vector<std::filesystem::path> &extra = {});

    // searchPath() with the folders saved in the user's settings (QSettings organisation
    // "kosmos-workstation", application "Kosmos", key plugins/folders) as `extra`: what the
    // workstation and kosmos-cli both search.
    static std::vector<std::filesystem::path>
    configuredSearchPath(const std::filesystem::path &executableDir);

    void scan(const std::vector<std::filesystem::path> &folders);
    const std::vector<PluginInfo> &plugins() const { return m_plugins; }
    // The usable plugin with this id (the first found wins; later duplicates are listed as such).
    const PluginInfo *find(const std::string &id) const;

    // Loads the plugin (once): empty when it loads, the loader's reason otherwise. A plugin that
    // loads can be chosen; whether it can run then depends on its settings (availability()).
    std::string loadProblem(const std::string &id);
    // Loads the plugin (once) and asks it; a load failure is reported as unavailable.
    Availability availability(const std::string &id, const nlohmann::json &settings);

    // Each throws Error(NotFound) for an unknown id, Error(InvalidInput) for a plugin of another
    // family or an unavailable one (with the plugin's reason).
    std::unique_ptr<Policy> createPolicy(const std::string &id, const nlohmann::json &settings);
    std::unique_ptr<WorldModel> createWorldModel(const std::string &id,
                                                 const nlohmann::json &settings);
    std::unique_ptr<Judge> createJudge(const std::string &id, const nlohmann::json &settings);
    // The plugin's ComponentIdentityProvider answer, or null when it implements none.
    nlohmann::json componentIdentity(const std::string &id, const nlohmann::json &settings);

    // Throws Error(InvalidInput) naming each field that fails the plugin's settings_schema
    // (nothing for an unknown id: creating it reports that).
    void checkSettingsOf(const std::string &id, const nlohmann::json &settings) const;

private:
    QObject *instance(const std::string &id, const std::string &family);

    std::vector<PluginInfo> m_plugins;
    std::vector<std::unique_ptr<QPluginLoader>> m_loaders; // parallel to m_plugins
};

} // namespace kosmos
