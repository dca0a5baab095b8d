#include "host/PluginRegistry.h"

#include "util/Error.h"
#include "util/SettingsSchema.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QPluginLoader>
#include <QSettings>

#include <cstdlib>
#include <mutex>
#include <set>

namespace kosmos {

namespace fs = std::filesystem;

namespace {

constexpr const char *kIidPrefix = "org.kosmos-workstation.";

struct FamilyIid
{
    const char *family;
    const char *iidName;
};
constexpr FamilyIid kFamilies[] = {
    {"policy", "PolicyPlugin"}, {"world_model", "WorldModelPlugin"}, {"judge", "JudgePlugin"}};

std::mutex &loaderMutex()
{
    static std::mutex m;
    return m;
}

PluginInfo describe(const fs::path &path, QPluginLoader &loader)
{
    PluginInfo info;
    info.path = path;
    const QJsonObject meta = loader.metaData();
    if (meta.isEmpty()) {
        info.problem = "not a loadable Qt plugin (" + loader.errorString().toStdString() + ")";
        return info;
    }
    const std::string iid = meta.value(QStringLiteral("IID")).toString().toStdString();
    if (iid.rfind(kIidPrefix, 0) != 0) {
        info.problem = "not a Kosmos plugin (IID '" + iid + "')";
        return info;
    }
    const std::string rest = iid.substr(std::string(kIidPrefix).size());
    const auto slash = rest.find('/');
    const std::string iidName = rest.substr(0, slash);
    const int iidVersion = slash == std::string::npos ? 0 : std::atoi(rest.c_str() + slash + 1);
    std::string iidFamily;
    for (const auto &f : kFamilies) {
        if (iidName == f.iidName)
            iidFamily = f.family;
    }
    if (iidFamily.empty()) {
        info.problem = "unknown plugin interface '" + iidName + "'";
        return info;
    }
    info.family = iidFamily;
    info.apiVersion = iidVersion;
    const QJsonValue data = meta.value(QStringLiteral("MetaData"));
    if (!data.isObject() || data.toObject().isEmpty()) {
        info.problem = "missing plugin metadata (Q_PLUGIN_METADATA needs FILE with id, family, "
                       "version, api_version)";
        return info;
    }
    info.metadata = nlohmann::json::parse(QJsonDocument(data.toObject()).toJson().toStdString());
    for (const char *key : {"id", "family", "version"}) {
        if (!info.metadata.contains(key) || !info.metadata[key].is_string() ||
            info.metadata[key].get<std::string>().empty()) {
            info.problem = std::string("plugin metadata lacks '") + key + "'";
            return info;
        }
    }
    info.id = info.metadata["id"];
    info.version = info.metadata["version"];
    if (info.metadata["family"] != info.family) {
        info.problem = "metadata says family '" + info.metadata["family"].get<std::string>() +
                       "' but the plugin implements " + info.family;
        return info;
    }
    const int declared = info.metadata.value("api_version", 0);
    if (iidVersion != kAdapterApiVersion || declared != kAdapterApiVersion) {
        info.problem = "wrong API version " + std::to_string(iidVersion) + " (this host supports " +
                       std::to_string(kAdapterApiVersion) + ")";
        return info;
    }
    info.usable = true;
    return info;
}

} // namespace

PluginRegistry::PluginRegistry() = default;
PluginRegistry::~PluginRegistry() = default;

std::vector<fs::path> PluginRegistry::configuredSearchPath(const fs::path &executableDir)
{
    std::vector<fs::path> extra;
    const QSettings settings(QStringLiteral("kosmos-workstation"), QStringLiteral("Kosmos"));
    for (const QString &folder : settings.value(QStringLiteral("plugins/folders")).toStringList())
        extra.emplace_back(folder.toStdString());
    return searchPath(executableDir, extra);
}

std::vector<fs::path> PluginRegistry::searchPath(const fs::path &executableDir,
                                                 const std::vector<fs::path> &extra)
{
    std::vector<fs::path> out;
    out.push_back(executableDir / ".." / KOSMOS_PKGLIBDIR / "plugins");
    if (const char *env = std::getenv("KOSMOS_PLUGIN_PATH")) {
        std::string list = env;
        std::size_t start = 0;
        while (start <= list.size()) {
            const auto end = list.find(':', start);
            const std::string item =
                list.substr(start, end == std::string::npos ? std::string::npos : end - start);
            if (!item.empty())
                out.emplace_back(item);
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
    }
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

void PluginRegistry::scan(const std::vector<fs::path> &folders)
{
    std::set<std::string> seen;
    for (const auto &p : m_plugins)
        seen.insert(p.path.string());
    for (const auto &folder : folders) {
        std::error_code ec;
        if (!fs::is_directory(folder, ec))
            continue;
        std::vector<fs::path> files;
        for (const auto &entry : fs::directory_iterator(folder, ec)) {
            if (entry.is_regular_file() && entry.path().extension() == ".so")
                files.push_back(fs::canonical(entry.path(), ec));
        }
        std::sort(files.begin(), files.end());
        for (const auto &file : files) {
            if (!seen.insert(file.string()).second)
                continue;
            auto loader = std::make_unique<QPluginLoader>(QString::fromStdString(file.string()));
            loader->setLoadHints(QLibrary::ResolveAllSymbolsHint);
            PluginInfo info = describe(file, *loader);
            if (info.usable && find(info.id)) {
                info.usable = false;
                info.problem = "duplicate id '" + info.id + "' (already provided by " +
                               find(info.id)->path.string() + ")";
            }
            m_plugins.push_back(std::move(info));
            m_loaders.push_back(std::move(loader));
        }
    }
}

const PluginInfo *PluginRegistry::find(const std::string &id) const
{
    for (const auto &p : m_plugins) {
        if (p.usable && p.id == id)
            return &p;
    }
    return nullptr;
}

void PluginRegistry::checkSettingsOf(const std::string &id, const nlohmann::json &settings) const
{
    const PluginInfo *info = find(id);
    if (!info || !info->metadata.is_object() || !info->metadata.contains("settings_schema"))
        return;
    const auto problems = checkSettings(info->metadata["settings_schema"], settings);
    if (!problems.empty())
        throw Error(ErrorCode::InvalidInput,
                    "settings of plugin '" + id + "': " + describeProblems(problems));
}

QObject *PluginRegistry::instance(const std::string &id, const std::string &family)
{
    std::size_t index = m_plugins.size();
    for (std::size_t i = 0; i < m_plugins.size(); ++i) {
        if (m_plugins[i].usable && m_plugins[i].id == id)
            index = i;
    }
    if (index == m_plugins.size()) {
        std::string known;
        for (const auto &p : m_plugins) {
            if (p.usable && (family.empty() || p.family == family))
                known += (known.empty() ? "" : ", ") + p.id;
        }
        throw Error(ErrorCode::NotFound, "unknown plugin id '" + id + "'" +
                                             (known.empty() ? std::string(" (no plugins found)")
                                                            : " (known: " + known + ")"));
    }
    const PluginInfo &info = m_plugins[index];
    if (!family.empty() && info.family != family)
        throw Error(ErrorCode::InvalidInput, "plugin '" + id + "' is a " + info.family +
                                                 " plugin, not a " + family + " plugin");
    std::lock_guard lock(loaderMutex());
    QObject *object = m_loaders[index]->instance();
    if (!object)
        throw Error(ErrorCode::InvalidInput, "plugin '" + id + "' failed to load from " +
                                                 info.path.string() + ": " +
                                                 m_loaders[index]->errorString().toStdString());
    return object;
}

std::string PluginRegistry::loadProblem(const std::string &id)
{
    try {
        instance(id, "");
        return {};
    } catch (const Error &e) {
        return e.what();
    }
}

Availability PluginRegistry::availability(const std::string &id, const nlohmann::json &settings)
{
    try {
        QObject *object = instance(id, "");
        // The plugin's own reason first (it knows what is missing, e.g. "endpoint unset"), then
        // the settings against its schema.
        Availability own = Availability::no("the plugin object implements no Kosmos interface");
        if (auto *p = qobject_cast<PolicyPlugin *>(object))
            own = p->availability(settings);
        else if (auto *w = qobject_cast<WorldModelPlugin *>(object))
            own = w->availability(settings);
        else if (auto *j = qobject_cast<JudgePlugin *>(object))
            own = j->availability(settings);
        if (own.available)
            checkSettingsOf(id, settings);
        return own;
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
}

namespace {
template<typename Plugin, typename Make>
auto create(QObject *object, const std::string &id, const nlohmann::json &settings, Make make)
{
    auto *plugin = qobject_cast<Plugin *>(object);
    if (!plugin)
        throw Error(ErrorCode::InvalidInput,
                    "plugin '" + id + "' does not implement its declared interface");
    const Availability a = plugin->availability(settings);
    if (!a.available)
        throw Error(ErrorCode::InvalidInput, "plugin '" + id + "' is unavailable: " + a.reason);
    return make(plugin);
}
} // namespace

std::unique_ptr<Policy> PluginRegistry::createPolicy(const std::string &id,
                                                     const nlohmann::json &settings)
{
    checkSettingsOf(id, settings);
    return create<PolicyPlugin>(instance(id, "policy"), id, settings,
                                [&](PolicyPlugin *p) { return p->createPolicy(settings); });
}

std::unique_ptr<WorldModel> PluginRegistry::createWorldModel(const std::string &id,
                                                             const nlohmann::json &settings)
{
    checkSettingsOf(id, settings);
    return create<WorldModelPlugin>(
        instance(id, "world_model"), id, settings,
        [&](WorldModelPlugin *p) { return p->createWorldModel(settings); });
}

nlohmann::json PluginRegistry::componentIdentity(const std::string &id,
                                                 const nlohmann::json &settings)
{
    auto *provider = qobject_cast<ComponentIdentityProvider *>(instance(id, ""));
    return provider ? provider->componentIdentity(settings) : nlohmann::json();
}

std::unique_ptr<Judge> PluginRegistry::createJudge(const std::string &id,
                                                   const nlohmann::json &settings)
{
    checkSettingsOf(id, settings);
    return create<JudgePlugin>(instance(id, "judge"), id, settings,
                               [&](JudgePlugin *p) { return p->createJudge(settings); });
}

} // namespace kosmos
