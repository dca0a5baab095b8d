#pragma once

#include <QList>
#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

class QProcess;

namespace kosmos::ui {

// One plugin as kosmos-cli reports it (`plugins --json`): the workstation never loads plugin
// code into its own process; listing, smoke tests and rollouts all run in kosmos-cli processes.
struct PluginEntry
{
    QString id;
    QString family; // policy | world_model | judge ("" when the metadata is unreadable)
    QString version;
    int apiVersion = 0;
    QString path;
    QString description;
    nlohmann::json requires_ = nlohmann::json::object();
    // torch plugins: {"libtorch": "2.15.0", "cuda": true, "aoti": true}; null for the others.
    nlohmann::json runtime;
    nlohmann::json settingsSchema = nlohmann::json::object();
    bool available = false;
    QString reason;
};

class PluginCatalog : public QObject
{
    Q_OBJECT
public:
    explicit PluginCatalog(QString cliPath, QObject *parent = nullptr);
    ~PluginCatalog() override;

    // Runs `kosmos-cli plugins --json` (a fraction of a second); false with error() on failure.
    bool reload();
    const QList<PluginEntry> &plugins() const { return m_plugins; }
    // A catalog read elsewhere (and the tests' way to stand in for other builds' plugins).
    void setPlugins(QList<PluginEntry> plugins) { m_plugins = std::move(plugins); }
    QList<PluginEntry> ofFamily(const QString &family, bool availableOnly = true) const;
    const PluginEntry *find(const QString &id) const;
    QString error() const { return m_error; }
    QString cliPath() const { return m_cli; }

    // `kosmos-cli plugins --test ID --settings JSON --json` in a process of its own; emits
    // testFinished with its JSON report (timing, peak RSS, or the error).
    void startTest(const QString &id, const nlohmann::json &settings);
    bool testRunning() const;

signals:
    void testFinished(const QString &id, const nlohmann::json &report);

private:
    QString m_cli;
    QList<PluginEntry> m_plugins;
    QString m_error;
    QProcess *m_test = nullptr;
};

} // namespace kosmos::ui
