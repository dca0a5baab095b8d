#pragma once

#include "run/SettingsForm.h"
#include "util/GpuMonitor.h"

#include <QDialog>
#include <QList>
#include <QPair>
#include <QString>

#include <nlohmann/json.hpp>

class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace kosmos::ui {

class PluginCatalog;
class RunController;

// The launcher's device list: CUDA devices (name, free memory) when a plugin's libtorch has
// CUDA and the driver shows devices; otherwise none, with the reason in words.
struct DeviceChoice
{
    QList<QPair<QString, QString>> devices; // label, "cuda:N"
    QString reason;
};
DeviceChoice deviceChoice(const PluginCatalog &catalog, const GpuSnapshot &gpus);

// Configure and launch a batch: the protocol (tasks with instruction and start state, horizon,
// seed, episodes, feedback mode), the policies, world model and judge from the plugins found,
// each with a settings form built from its schema, the device and the number of worker
// processes. "Check" shows how many runs there are and how many the ledger already finished
// (run keys are idempotent), and refuses contracts that do not fit, before anything runs; the
// protocol is frozen (hashed) by the batch itself, before its first run.
class LauncherDialog : public QDialog
{
    Q_OBJECT
public:
    LauncherDialog(PluginCatalog &catalog, RunController &controller, QWidget *parent = nullptr);

    void setProtocol(const nlohmann::json &protocol);
    // The protocol as the form describes it now (may not be valid: see problems()).
    nlohmann::json protocol() const;
    // Everything that stops a launch, each naming its field; empty: Start is enabled.
    QStringList problems() const;
    // Runs the dry run; returns its report ({runs, finished, problems}) or null.
    nlohmann::json check();
    int workers() const;
    int batch() const; // episodes in lockstep per worker (--batch)
    // The form as last left for this ledger (QSettings, per ledger path): New batch opens with
    // what was entered the last time, launched or not. False when nothing was saved.
    bool restoreForm(const QString &ledgerPath);
    void saveForm(const QString &ledgerPath) const;

    SettingsForm *policyForm() const { return m_policyForm; }
    SettingsForm *worldForm() const { return m_worldForm; }
    SettingsForm *judgeForm() const { return m_judgeForm; }
    QComboBox *worldPlugin() const { return m_world; }
    QComboBox *judgePlugin() const { return m_judge; }
    QTableWidget *tasks() const { return m_tasks; }
    // What the policy form's settings can do: "can run" or "cannot run ...: reason".
    QLabel *policyStatus() const { return m_policyStatus; }
    QComboBox *policyPlugin() const { return m_policy; }
    QListWidget *policies() const { return m_policies; }
    QSpinBox *horizon() const { return m_horizon; }
    QSpinBox *episodes() const { return m_episodes; }
    QPushButton *startButton() const { return m_start; }
    QComboBox *deviceBox() const { return m_device; }
    // Where the batch runs: this machine, or a Slurm cluster as shards (docs/scale-out.md).
    QComboBox *targetBox() const { return m_target; }
    QSpinBox *shardsBox() const { return m_shards; }
    QLineEdit *partitionEdit() const { return m_partition; }
    QSpinBox *gpusBox() const { return m_gpus; }
    QLineEdit *timeLimitEdit() const { return m_timeLimit; }
    QLabel *summary() const { return m_summary; }

public slots:
    void addPolicy();
    bool launch();

private:
    struct ChosenComponent
    {
        QString role;
        QString id;
        nlohmann::json settings;
    };
    QList<ChosenComponent> chosenComponents(const nlohmann::json &protocol) const;
    void showSettings(QComboBox *box, SettingsForm *form, const nlohmann::json &values = nullptr);
    void offerWorldTasks();
    void appendTask(const nlohmann::json &task);
    void refresh();
    void fillPlugins(QComboBox *box, const QString &family, bool optional);
    QWidget *buildProtocolBox();
    QWidget *buildPolicyBox();
    QWidget *buildWorldBox();
    QWidget *buildTargetBox();
    void addButtons(QDialogButtonBox *buttons);
    nlohmann::json schemaOf(const QComboBox *box) const;

    PluginCatalog &m_catalog;
    RunController &m_controller;
    QLineEdit *m_name;
    QSpinBox *m_seed;
    QSpinBox *m_horizon;
    QSpinBox *m_episodes;
    QComboBox *m_feedback;
    QTableWidget *m_tasks;
    QComboBox *m_policy;
    SettingsForm *m_policyForm;
    QListWidget *m_policies;
    QComboBox *m_world;
    SettingsForm *m_worldForm;
    QComboBox *m_judge;
    SettingsForm *m_judgeForm;
    QSpinBox *m_samples;
    QSpinBox *m_quorum;
    QComboBox *m_device;
    DeviceChoice
        m_deviceChoice; // what this machine offers; refresh() narrows it to the chosen plugins
    QSpinBox *m_workers;
    QSpinBox *m_batch;
    QComboBox *m_target = nullptr;
    QSpinBox *m_shards = nullptr;
    QLineEdit *m_partition = nullptr;
    QSpinBox *m_gpus = nullptr;
    QLineEdit *m_timeLimit = nullptr;
    QLabel *m_summary;
    QLabel *m_policyStatus = nullptr;
    nlohmann::json m_offeredTasks = nlohmann::json::array();
    QLabel *m_problems;
    QPushButton *m_start;
    nlohmann::json m_base = nlohmann::json::object(); // the loaded protocol: fields the form
                                                      // does not show are kept as they are
    nlohmann::json m_dryRun; // the last check, for the protocol it was made for
    nlohmann::json m_dryRunFor;
};

} // namespace kosmos::ui
