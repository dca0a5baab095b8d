#pragma once

#include "run/SettingsForm.h"
#include "util/ModelPackages.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include <optional>

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
    QString title; // what the launcher calls it (remote.lerobot: "LeRobot policy (local folder)")
    nlohmann::json requires_ = nlohmann::json::object();
    // torch plugins: {"libtorch": "2.15.0", "cuda": true, "aoti": true}; null for the others.
    nlohmann::json runtime;
    nlohmann::json settingsSchema = nlohmann::json::object();
    // The library loads and speaks this API: it can be chosen. Whether it can run then depends
    // on its settings; `available` and `reason` are its answer for no settings at all.
    bool loads = false;
    bool available = false;
    QString reason;
    // A world's own tasks ({id, instruction, start_state}), offered by the launcher.
    nlohmann::json tasks = nlohmann::json::array();
};

// A plugin's answer for one set of settings (`kosmos-cli plugins --check`).
struct SettingsAvailability
{
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
    // The model packages found (util/ModelPackages), read again by reload().
    const std::vector<ModelPackageEntry> &packages() const { return m_packages; }
    void setPackages(std::vector<ModelPackageEntry> packages) { m_packages = std::move(packages); }
    // The choices a settings form offers for this plugin: its `package` setting lists the
    // packages made for it (torch.<family>).
    QMap<QString, QList<SettingChoice>> settingChoices(const QString &id) const;
    QString cliPath() const { return m_cli; }

    // `kosmos-cli plugins --test ID --settings JSON --json` in a process of its own; emits
    // testFinished with its JSON report (timing, peak RSS, or the error).
    void startTest(const QString &id, const nlohmann::json &settings);
    bool testRunning() const;

    // Whether the plugin can run here with these settings, asked of `kosmos-cli plugins --check`
    // in a process of its own (one at a time, the latest request per plugin first); the answer
    // is kept and availabilityKnown() emitted. known() is empty until it is there.
    void requestAvailability(const QString &id, const nlohmann::json &settings);
    std::optional<SettingsAvailability> known(const QString &id,
                                              const nlohmann::json &settings) const;

signals:
    void testFinished(const QString &id, const nlohmann::json &report);
    void availabilityKnown(const QString &id);

private:
    QString m_cli;
    QList<PluginEntry> m_plugins;
    std::vector<ModelPackageEntry> m_packages;
    QString m_error;
    QProcess *m_test = nullptr;
    void nextCheck();
    QProcess *m_check = nullptr;
    QList<QPair<QString, std::string>> m_pendingChecks; // id, settings dump
    QHash<QString, SettingsAvailability> m_checked;     // id + '\n' + settings dump
};

} // namespace kosmos::ui
