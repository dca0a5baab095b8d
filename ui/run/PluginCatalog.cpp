#include "run/PluginCatalog.h"

#include <QProcess>

namespace kosmos::ui {

PluginCatalog::PluginCatalog(QString cliPath, QObject *parent)
    : QObject(parent), m_cli(std::move(cliPath))
{
}

PluginCatalog::~PluginCatalog()
{
    if (m_test && m_test->state() != QProcess::NotRunning) {
        m_test->kill();
        m_test->waitForFinished(2000);
    }
}

bool PluginCatalog::reload()
{
    m_plugins.clear();
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
    const auto list =
        nlohmann::json::parse(out.constData(), out.constData() + out.size(), nullptr, false);
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
        e.requires_ = p.value("requires", nlohmann::json::object());
        e.runtime = p.value("runtime", nlohmann::json());
        e.settingsSchema = p.value("settings_schema", nlohmann::json::object());
        e.available = p.value("available", false);
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
        auto report =
            nlohmann::json::parse(out.constData(), out.constData() + out.size(), nullptr, false);
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
