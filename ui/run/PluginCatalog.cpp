#include "run/PluginCatalog.h"

#include "util/BoundedJson.h"

#include <QProcess>

namespace kosmos::ui {

namespace {
// A reply of kosmos-cli read within limits (64 levels, 16 MiB); discarded when it does not
// parse, as a missing reply is.
nlohmann::json cliReply(const QByteArray &out)
{
    try {
        return json::parseBounded(std::string_view(out.constData(), out.size()),
                                  "kosmos-cli's reply", {64, 16u << 20, false});
    } catch (const std::exception &) {
        return nlohmann::json(nlohmann::json::value_t::discarded);
    }
}
} // namespace

PluginCatalog::PluginCatalog(QString cliPath, QObject *parent)
    : QObject(parent), m_cli(std::move(cliPath))
{
}

PluginCatalog::~PluginCatalog()
{
    for (QProcess *process : {m_test, m_check})
        if (process && process->state() != QProcess::NotRunning) {
            process->disconnect(this);
            process->kill();
            process->waitForFinished(2000);
        }
}

bool PluginCatalog::reload()
{
    m_plugins.clear();
    m_checked.clear();
    m_packages = findModelPackages(modelPackageFolders());
    QProcess cli;
    cli.start(m_cli, {QStringLiteral("plugins"), QStringLiteral("--json")});
    if (!cli.waitForFinished(30000) || cli.exitStatus() != QProcess::NormalExit ||
        cli.exitCode() != 0) {
        m_error =
            tr("cannot list plugins with %1: %2")
                .arg(m_cli, cli.errorString() + QString::fromUtf8(cli.readAllStandardError()));
        return false;
    }
    const QByteArray out = cli.readAllStandardOutput();
    const auto list = cliReply(out);
    if (!list.is_array()) {
        m_error = tr("kosmos-cli plugins --json printed something that is not a JSON list");
        return false;
    }
    for (const auto &p : list) {
        PluginEntry e;
        e.id = QString::fromStdString(p.value("id", ""));
        e.family = QString::fromStdString(p.value("family", ""));
        e.version = QString::fromStdString(p.value("version", ""));
        e.apiVersion = p.value("api_version", 0);
        e.path = QString::fromStdString(p.value("path", ""));
        e.description = QString::fromStdString(p.value("description", ""));
        e.title = QString::fromStdString(p.value("title", ""));
        e.requires_ = p.value("requires", nlohmann::json::object());
        e.runtime = p.value("runtime", nlohmann::json());
        e.settingsSchema = p.value("settings_schema", nlohmann::json::object());
        e.available = p.value("available", false);
        // Older CLIs say nothing of loading: what is available loads.
        e.loads = p.value("loads", e.available);
        e.tasks = p.value("tasks", nlohmann::json::array());
        if (!e.tasks.is_array())
            e.tasks = nlohmann::json::array();
        e.reason = QString::fromStdString(p.value("reason", ""));
        m_plugins.append(e);
    }
    m_error.clear();
    return true;
}

QList<PluginEntry> PluginCatalog::ofFamily(const QString &family, bool availableOnly) const
{
    QList<PluginEntry> out;
    for (const auto &p : m_plugins)
        if (p.family == family && (!availableOnly || p.available))
            out.append(p);
    return out;
}

const PluginEntry *PluginCatalog::find(const QString &id) const
{
    for (const auto &p : m_plugins)
        if (p.id == id)
            return &p;
    return nullptr;
}

QMap<QString, QList<SettingChoice>> PluginCatalog::settingChoices(const QString &id) const
{
    const PluginEntry *p = find(id);
    if (!p)
        return {};
    // A folder setting ("format": "directory", remote.lerobot's checkpoint) is chosen like a
    // model package: a list with "Other folder..." (none offered yet).
    QMap<QString, QList<SettingChoice>> choices;
    const nlohmann::json properties =
        p->settingsSchema.value("properties", nlohmann::json::object());
    for (const auto &[key, spec] : properties.items())
        if (spec.is_object() && spec.value("format", std::string()) == "directory")
            choices.insert(QString::fromStdString(key), {});
    if (!properties.contains("package"))
        return choices;
    QList<SettingChoice> packages;
    for (const ModelPackageEntry &m : m_packages)
        if (QString::fromStdString(m.pluginId) == id)
            packages.append({QString::fromStdString(m.name),
                             QString::fromStdString(m.folder.string()),
                             QString::fromStdString(m.folder.string() + "\n" + m.description)});
    choices.insert(QStringLiteral("package"), packages);
    return choices;
}

bool PluginCatalog::testRunning() const
{
    return m_test && m_test->state() != QProcess::NotRunning;
}

void PluginCatalog::startTest(const QString &id, const nlohmann::json &settings)
{
    if (testRunning())
        return;
    delete m_test;
    m_test = new QProcess(this);
    connect(m_test, &QProcess::finished, this, [this, id](int, QProcess::ExitStatus status) {
        const QByteArray out = m_test->readAllStandardOutput();
        auto report = cliReply(out);
        if (status != QProcess::NormalExit || !report.is_object())
            report = {{"ok", false},
                      {"error", (tr("the test process ended abnormally: ") +
                                 QString::fromUtf8(m_test->readAllStandardError()))
                                    .toStdString()}};
        emit testFinished(id, report);
    });
    m_test->start(m_cli, {QStringLiteral("plugins"), QStringLiteral("--test"), id,
                          QStringLiteral("--settings"), QString::fromStdString(settings.dump()),
                          QStringLiteral("--json")});
}

} // namespace kosmos::ui

namespace kosmos::ui {

namespace {
QString checkKey(const QString &id, const std::string &settings)
{
    return id + QLatin1Char('\n') + QString::fromStdString(settings);
}
} // namespace

std::optional<SettingsAvailability> PluginCatalog::known(const QString &id,
                                                         const nlohmann::json &settings) const
{
    const auto found = m_checked.constFind(checkKey(id, settings.dump()));
    if (found == m_checked.constEnd())
        return std::nullopt;
    return *found;
}

void PluginCatalog::requestAvailability(const QString &id, const nlohmann::json &settings)
{
    const std::string dump = settings.dump();
    if (id.isEmpty() || m_checked.contains(checkKey(id, dump)))
        return;
    // Only the latest settings of a plugin are worth asking about.
    for (qsizetype i = m_pendingChecks.size() - 1; i >= 0; --i)
        if (m_pendingChecks[i].first == id)
            m_pendingChecks.removeAt(i);
    m_pendingChecks.append({id, dump});
    if (!m_check || m_check->state() == QProcess::NotRunning)
        nextCheck();
}

void PluginCatalog::nextCheck()
{
    if (m_pendingChecks.isEmpty())
        return;
    const auto [id, settings] = m_pendingChecks.takeFirst();
    if (m_check) // called from its own finished() signal: deleted once that has returned
        m_check->deleteLater();
    auto *process = new QProcess(this);
    m_check = process;
    connect(process, &QProcess::finished, this,
            [this, process, id = id, settings = settings](int, QProcess::ExitStatus status) {
                const QByteArray out = process->readAllStandardOutput();
                const auto report = cliReply(out);
                SettingsAvailability a;
                if (status == QProcess::NormalExit && report.is_object()) {
                    a.available = report.value("available", false);
                    a.reason = QString::fromStdString(
                        report.value("reason", report.value("error", std::string())));
                } else {
                    a.reason = tr("the check ended abnormally: %1")
                                   .arg(QString::fromUtf8(process->readAllStandardError()));
                }
                m_checked.insert(checkKey(id, settings), a);
                emit availabilityKnown(id); // may start the next check itself
                if (m_check == process)
                    nextCheck();
            });
    m_check->start(m_cli, {QStringLiteral("plugins"), QStringLiteral("--check"), id,
                           QStringLiteral("--settings"), QString::fromStdString(settings),
                           QStringLiteral("--json")});
}

} // namespace kosmos::ui
