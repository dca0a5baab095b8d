#include "run/LauncherDialog.h"

#include "LedgerSettings.h"
#include "dialogs/ScreenFit.h"
#include "protocol/DevicePlacement.h"
#include "protocol/Protocol.h"
#include "run/PluginCatalog.h"
#include "run/RunController.h"
#include "run/SettingsForm.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/SettingsSchema.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QVBoxLayout>

#include <limits>

namespace kosmos::ui {

DeviceChoice deviceChoice(const PluginCatalog &catalog, const GpuSnapshot &gpus)
{
    DeviceChoice out;
    QString cpuOnly;
    bool cuda = false;
    for (const PluginEntry &p : catalog.plugins()) {
        const std::optional<bool> canUseCuda = cudaCapabilityOf(p.runtime);
        if (!canUseCuda)
            continue;
        if (*canUseCuda)
            cuda = true;
        else
            cpuOnly = QString::fromStdString(p.runtime.value("libtorch", std::string("?")));
    }
    if (!cuda) {
        out.reason =
            cpuOnly.isEmpty()
                ? QObject::tr("No plugin here can use CUDA: the synthetic and physics backends run "
                              "on the CPU, and no libtorch plugin is built.")
                : QObject::tr("The libtorch plugins here were built on libtorch %1, which is "
                              "CPU-only (Debian's libtorch-dev): build the cuda preset "
                              "(scripts/setup-cuda.sh, docs/gpu.md) to run them on a GPU.")
                      .arg(cpuOnly);
        return out;
    }
    if (!gpus.available || gpus.devices.empty()) {
        out.reason = QObject::tr("The libtorch plugins can use CUDA, but here: %1.")
                         .arg(QString::fromStdString(gpus.reason));
        return out;
    }
    for (const GpuDevice &d : gpus.devices)
        out.devices.append({QObject::tr("cuda:%1 - %2 (%3 GiB free of %4)")
                                .arg(d.index)
                                .arg(QString::fromStdString(d.name))
                                .arg(static_cast<double>(d.freeBytes) / (1ll << 30), 0, 'f', 1)
                                .arg(static_cast<double>(d.totalBytes) / (1ll << 30), 0, 'f', 1),
                            QStringLiteral("cuda:%1").arg(d.index)});
    out.reason = QObject::tr("Sets the device of every CUDA-capable adapter (torch.*) in the "
                             "batch; the others run on the CPU. Check refuses a batch whose "
                             "declared memory does not fit.");
    return out;
}

LauncherDialog::LauncherDialog(PluginCatalog &catalog, RunController &controller, QWidget *parent)
    : QDialog(parent), m_catalog(catalog), m_controller(controller), m_name(new QLineEdit(this)),
      m_seed(new QSpinBox(this)), m_horizon(new QSpinBox(this)), m_episodes(new QSpinBox(this)),
      m_feedback(new QComboBox(this)), m_tasks(new QTableWidget(0, 3, this)),
      m_policy(new QComboBox(this)), m_policyForm(new SettingsForm(this)),
      m_policies(new QListWidget(this)), m_world(new QComboBox(this)),
      m_worldForm(new SettingsForm(this)), m_judge(new QComboBox(this)),
      m_judgeForm(new SettingsForm(this)), m_samples(new QSpinBox(this)),
      m_quorum(new QSpinBox(this)), m_device(new QComboBox(this)), m_workers(new QSpinBox(this)),
      m_batch(new QSpinBox(this)), m_summary(new QLabel(this)), m_problems(new QLabel(this)),
      m_start(new QPushButton(tr("Start"), this))
{
    setWindowTitle(tr("New batch"));
    m_policyStatus = new QLabel(this);
    m_policyStatus->setWordWrap(true);
    connect(&m_catalog, &PluginCatalog::availabilityKnown, this, &LauncherDialog::refresh);
    auto *buttons = new QDialogButtonBox(this);
    // The form scrolls; the summary, the problems and the buttons stay in view, so the dialog
    // is usable on a 1280x720 screen whatever the plugins' settings forms take.
    auto *content = new QWidget;
    auto *columns = new QHBoxLayout(content);
    columns->addWidget(buildProtocolBox(), 3);
    auto *right = new QVBoxLayout;
    right->addWidget(buildPolicyBox());
    right->addWidget(buildWorldBox());
    right->addWidget(buildTargetBox());
    right->addStretch(1);
    columns->addLayout(right, 2);
    auto *scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(scroll, 1);
    m_summary->setWordWrap(true);
    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(QStringLiteral("color: #b00020"));
    layout->addWidget(m_summary);
    layout->addWidget(m_problems);
    layout->addWidget(buttons);
    addButtons(buttons);
    fitToScreen(this, content->sizeHint() + QSize(40, 160));

    for (QSpinBox *spin : {m_seed, m_horizon, m_episodes, m_samples, m_quorum})
        connect(spin, &QSpinBox::valueChanged, this, &LauncherDialog::refresh);
    connect(m_name, &QLineEdit::textChanged, this, &LauncherDialog::refresh);
    setProtocol({{"kosmos_protocol", 1},
                 {"name", "batch"},
                 {"seed", 1},
                 {"horizon", 40},
                 {"episodes_per_task", 10},
                 {"tasks", nlohmann::json::array()}});
}

nlohmann::json LauncherDialog::schemaOf(const QComboBox *box) const
{
    const PluginEntry *p = m_catalog.find(box->currentData().toString());
    return p ? p->settingsSchema : nlohmann::json::object();
}

QWidget *LauncherDialog::buildProtocolBox()
{
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_horizon->setRange(1, 100000);
    m_episodes->setRange(1, 100000);
    m_feedback->addItem(tr("closed loop (the policy sees predicted frames)"),
                        QStringLiteral("closed_loop"));
    m_feedback->addItem(tr("open loop (the policy sees the start frame only)"),
                        QStringLiteral("open_loop"));
    m_tasks->setHorizontalHeaderLabels(
        {tr("Task id"), tr("Instruction"), tr("Start state (JSON)")});
    // The instruction gets the room; the id and the start state as wide as they read.
    m_tasks->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_tasks->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_tasks->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    m_tasks->setWordWrap(false);
    m_tasks->setMinimumHeight(140);

    auto *protocolBox = new QGroupBox(tr("Protocol"), this);
    auto *protocolForm = new QFormLayout(protocolBox);
    protocolForm->addRow(tr("Name"), m_name);
    protocolForm->addRow(tr("Seed"), m_seed);
    protocolForm->addRow(tr("Horizon (steps)"), m_horizon);
    protocolForm->addRow(tr("Episodes per task"), m_episodes);
    protocolForm->addRow(tr("Feedback"), m_feedback);
    auto *taskButtons = new QHBoxLayout;
    auto *addTask = new QPushButton(tr("Add task"), this);
    auto *removeTask = new QPushButton(tr("Remove task"), this);
    taskButtons->addWidget(addTask);
    taskButtons->addWidget(removeTask);
    taskButtons->addStretch(1);
    protocolForm->addRow(m_tasks);
    protocolForm->addRow(taskButtons);

    connect(addTask, &QPushButton::clicked, this, [this] {
        const int row = m_tasks->rowCount();
        m_tasks->insertRow(row);
        m_tasks->setItem(row, 2, new QTableWidgetItem(QStringLiteral("{}")));
    });
    connect(removeTask, &QPushButton::clicked, this, [this] {
        if (m_tasks->currentRow() >= 0)
            m_tasks->removeRow(m_tasks->currentRow());
    });
    connect(m_tasks, &QTableWidget::itemChanged, this, &LauncherDialog::refresh);
    connect(m_tasks->model(), &QAbstractItemModel::rowsRemoved, this, &LauncherDialog::refresh);
    return protocolBox;
}

QWidget *LauncherDialog::buildPolicyBox()
{
    auto *policyBox = new QGroupBox(tr("Policies"), this);
    auto *policyLayout = new QFormLayout(policyBox);
    policyLayout->addRow(tr("Plugin"), m_policy);
    policyLayout->addRow(m_policyForm);
    policyLayout->addRow(m_policyStatus);
    auto *policyButtons = new QHBoxLayout;
    auto *add = new QPushButton(tr("Add policy"), this);
    auto *remove = new QPushButton(tr("Remove policy"), this);
    policyButtons->addWidget(add);
    policyButtons->addWidget(remove);
    policyButtons->addStretch(1);
    policyLayout->addRow(policyButtons);
    policyLayout->addRow(m_policies);

    fillPlugins(m_policy, QStringLiteral("policy"), false);
    showSettings(m_policy, m_policyForm);
    connect(m_policy, &QComboBox::currentIndexChanged, this, [this] {
        showSettings(m_policy, m_policyForm);
        refresh();
    });
    connect(m_policyForm, &SettingsForm::changed, this, &LauncherDialog::refresh);
    connect(add, &QPushButton::clicked, this, &LauncherDialog::addPolicy);
    connect(remove, &QPushButton::clicked, this, [this] {
        delete m_policies->currentItem();
        refresh();
    });
    return policyBox;
}

QWidget *LauncherDialog::buildWorldBox()
{
    m_samples->setRange(1, 64);
    m_quorum->setRange(1, 64);
    m_workers->setRange(1, 64);
    m_batch->setRange(1, 256);
    m_batch->setObjectName(QStringLiteral("batch"));
    m_batch->setToolTip(tr("Episodes each worker runs in lockstep: one call of a batched policy "
                           "or world model (torch.generic_*) for all of them; the others are "
                           "called per episode. The runs are the same as with 1."));
    auto *worldBox = new QGroupBox(tr("World model and judge"), this);
    auto *worldLayout = new QFormLayout(worldBox);
    worldLayout->addRow(tr("World model"), m_world);
    worldLayout->addRow(m_worldForm);
    worldLayout->addRow(tr("Judge"), m_judge);
    worldLayout->addRow(m_judgeForm);
    worldLayout->addRow(tr("Judge samples / quorum"), [&] {
        auto *row = new QWidget(this);
        auto *h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->addWidget(m_samples);
        h->addWidget(m_quorum);
        return row;
    }());
    worldLayout->addRow(tr("Device"), m_device);
    worldLayout->addRow(tr("Worker processes"), m_workers);
    worldLayout->addRow(tr("Episodes in lockstep per worker"), m_batch);

    fillPlugins(m_world, QStringLiteral("world_model"), false);
    fillPlugins(m_judge, QStringLiteral("judge"), true);
    // Devices: CPU always; CUDA devices (NVML: name, free memory) only where a plugin's
    // runtime can use them, with the reason otherwise.
    m_device->addItem(tr("CPU"), QStringLiteral("cpu"));
    m_deviceChoice = deviceChoice(m_catalog, GpuMonitor::instance().sample());
    for (const auto &[label, value] : m_deviceChoice.devices)
        m_device->addItem(label, value);
    m_device->setToolTip(m_deviceChoice.reason);
    m_device->setEnabled(m_deviceChoice.devices.size() > 0);
    connect(m_device, &QComboBox::currentIndexChanged, this, &LauncherDialog::refresh);
    showSettings(m_world, m_worldForm);
    showSettings(m_judge, m_judgeForm);
    connect(m_world, &QComboBox::currentIndexChanged, this, [this] {
        showSettings(m_world, m_worldForm);
        offerWorldTasks();
        refresh();
    });
    connect(m_judge, &QComboBox::currentIndexChanged, this, [this] {
        showSettings(m_judge, m_judgeForm);
        refresh();
    });
    for (SettingsForm *form : {m_worldForm, m_judgeForm})
        connect(form, &SettingsForm::changed, this, &LauncherDialog::refresh);
    return worldBox;
}

QWidget *LauncherDialog::buildTargetBox()
{
    auto *box = new QGroupBox(tr("Where it runs"), this);
    auto *form = new QFormLayout(box);
    m_target = new QComboBox(box);
    m_target->addItem(tr("This machine"), QStringLiteral("local"));
    m_target->addItem(tr("Slurm cluster (shards)"), QStringLiteral("slurm"));
    // Slurm only where sbatch is found; the reason otherwise, on the item itself.
    if (const QString why = slurmUnavailableReason(); !why.isEmpty()) {
        auto *model = qobject_cast<QStandardItemModel *>(m_target->model());
        if (QStandardItem *item = model ? model->item(1) : nullptr) {
            item->setEnabled(false);
            item->setToolTip(why);
        }
        m_target->setToolTip(why);
    }
    m_shards = new QSpinBox(box);
    m_shards->setRange(1, 10000);
    m_shards->setValue(4);
    m_shards->setToolTip(tr("One Slurm array task per shard; each writes a ledger of its own, "
                            "merged into this ledger when all have ended"));
    m_partition = new QLineEdit(box);
    m_partition->setPlaceholderText(tr("the cluster's default"));
    m_gpus = new QSpinBox(box);
    m_gpus->setRange(0, 16);
    m_gpus->setToolTip(tr("GPUs per shard task (--gres gpu:N); 0: none requested"));
    m_timeLimit = new QLineEdit(box);
    m_timeLimit->setPlaceholderText(tr("e.g. 04:00:00 (the partition's default when empty)"));
    form->addRow(tr("Target"), m_target);
    form->addRow(tr("Shards"), m_shards);
    form->addRow(tr("Partition"), m_partition);
    form->addRow(tr("GPUs per task"), m_gpus);
    form->addRow(tr("Time limit"), m_timeLimit);
    auto update = [this] {
        const bool slurm = m_target->currentData().toString() == QLatin1String("slurm");
        for (QWidget *w :
             std::initializer_list<QWidget *>{m_shards, m_partition, m_gpus, m_timeLimit})
            w->setEnabled(slurm);
        refresh();
    };
    connect(m_target, &QComboBox::currentIndexChanged, this, update);
    for (QWidget *w : std::initializer_list<QWidget *>{m_shards, m_partition, m_gpus, m_timeLimit})
        w->setEnabled(false);
    return box;
}

void LauncherDialog::addButtons(QDialogButtonBox *buttons)
{
    auto *load = buttons->addButton(tr("Load..."), QDialogButtonBox::ActionRole);
    auto *save = buttons->addButton(tr("Save..."), QDialogButtonBox::ActionRole);
    auto *checkButton = buttons->addButton(tr("Check"), QDialogButtonBox::ActionRole);
    buttons->addButton(m_start, QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Cancel);
    connect(checkButton, &QPushButton::clicked, this, [this] { check(); });
    connect(m_start, &QPushButton::clicked, this, [this] {
        if (launch())
            accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(load, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Load a protocol"), QString(),
                                                          tr("Protocols (*.json)"));
        QFile file(path);
        if (path.isEmpty() || !file.open(QIODevice::ReadOnly))
            return;
        const QByteArray bytes = file.readAll();
        const auto doc = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(),
                                               nullptr, false);
        if (doc.is_object())
            setProtocol(doc);
        else
            m_problems->setText(tr("%1 is not a JSON object").arg(path));
    });
    connect(save, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the protocol"), QString(),
                                                          tr("Protocols (*.json)"));
        QFile file(path);
        if (!path.isEmpty() && file.open(QIODevice::WriteOnly | QIODevice::Truncate))
            file.write(QByteArray::fromStdString(protocol().dump(2)));
    });
}

void LauncherDialog::fillPlugins(QComboBox *box, const QString &family, bool optional)
{
    if (optional)
        box->addItem(tr("(none)"), QString());
    for (const PluginEntry &p : m_catalog.ofFamily(family, false)) {
        // A plugin that loads can be chosen: what its settings still lack is said under its
        // form, live (availability with the settings typed, not with none). One that does not
        // load stays listed with its reason, but cannot be chosen.
        const QString name = p.title.isEmpty()
                                 ? QStringLiteral("%1 %2").arg(p.id, p.version)
                                 : QStringLiteral("%1 (%2 %3)").arg(p.title, p.id, p.version);
        box->addItem(p.loads ? name : tr("%1 (cannot load: %2)").arg(name, p.reason), p.id);
        box->setItemData(box->count() - 1, p.description, Qt::ToolTipRole);
        if (!p.loads)
            if (auto *model = qobject_cast<QStandardItemModel *>(box->model()))
                model->item(box->count() - 1)->setEnabled(false);
    }
    // The default is a plugin that runs with no settings at all (the first listed may need
    // some, or not load).
    int preferred = -1;
    for (int i = 0; i < box->count() && preferred < 0; ++i) {
        const PluginEntry *p = m_catalog.find(box->itemData(i).toString());
        if (p ? p->available : (optional && i == 0))
            preferred = i;
    }
    if (preferred >= 0)
        box->setCurrentIndex(preferred);
}

void LauncherDialog::showSettings(QComboBox *box, SettingsForm *form, const nlohmann::json &values)
{
    const QString id = box->currentData().toString();
    form->setSchema(schemaOf(box), values, m_catalog.settingChoices(id));
}

void LauncherDialog::offerWorldTasks()
{
    // The table is the user's once they changed it: offered tasks are replaced only while the
    // table is empty or still holds what the previous world offered.
    const nlohmann::json current = protocol()["tasks"];
    if (!current.empty() && current != m_offeredTasks)
        return;
    nlohmann::json offered = nlohmann::json::array();
    if (const PluginEntry *world = m_catalog.find(m_world->currentData().toString()))
        for (const auto &task : world->tasks)
            if (task.is_object() && task.contains("id") && task.contains("instruction"))
                offered.push_back(
                    {{"id", task["id"]},
                     {"instruction", task["instruction"]},
                     {"start_state", task.value("start_state", nlohmann::json::object())}});
    {
        const QSignalBlocker block(m_tasks);
        m_tasks->setRowCount(0);
        for (const auto &t : offered)
            appendTask(t);
    }
    m_offeredTasks = offered;
}

void LauncherDialog::appendTask(const nlohmann::json &t)
{
    const int row = m_tasks->rowCount();
    m_tasks->insertRow(row);
    m_tasks->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(t.value("id", ""))));
    m_tasks->setItem(row, 1,
                     new QTableWidgetItem(QString::fromStdString(t.value("instruction", ""))));
    m_tasks->setItem(row, 2,
                     new QTableWidgetItem(QString::fromStdString(
                         t.value("start_state", nlohmann::json::object()).dump())));
}

void LauncherDialog::addPolicy()
{
    const QString id = m_policy->currentData().toString();
    if (id.isEmpty())
        return;
    // The effective settings (defaults filled in): the runs say what ran.
    const nlohmann::json spec = {{"plugin", id.toStdString()},
                                 {"settings", m_policyForm->effectiveValues()}};
    auto *item = new QListWidgetItem(
        QString::fromStdString(spec["plugin"].get<std::string>() + " " + spec["settings"].dump()),
        m_policies);
    item->setData(Qt::UserRole, QString::fromStdString(spec.dump()));
    // Problems of these settings stay with the item until it is removed.
    const QStringList problems = m_policyForm->problems();
    item->setData(Qt::UserRole + 1, problems);
    if (!problems.isEmpty())
        item->setForeground(QColor(0xb0, 0x00, 0x20));
    refresh();
}

void LauncherDialog::setProtocol(const nlohmann::json &p)
{
    const QSignalBlocker block(m_tasks);
    m_base = p.is_object() ? p : nlohmann::json::object();
    m_name->setText(QString::fromStdString(p.value("name", "batch")));
    m_seed->setValue(static_cast<int>(p.value("seed", 1)));
    m_horizon->setValue(p.value("horizon", 40));
    m_episodes->setValue(p.value("episodes_per_task", 1));
    m_feedback->setCurrentIndex(std::max(0, m_feedback->findData(QString::fromStdString(p.value(
                                                "feedback_mode", std::string("closed_loop"))))));
    m_tasks->setRowCount(0);
    m_offeredTasks = nlohmann::json::array();
    for (const auto &t : p.value("tasks", nlohmann::json::array()))
        if (t.is_object())
            appendTask(t);
    m_policies->clear();
    for (const auto &policy : p.value("policies", nlohmann::json::array())) {
        auto *item = new QListWidgetItem(
            QString::fromStdString(policy.value("plugin", "") + " " +
                                   policy.value("settings", nlohmann::json::object()).dump()),
            m_policies);
        item->setData(Qt::UserRole, QString::fromStdString(policy.dump()));
    }
    auto select = [this](QComboBox *box, SettingsForm *form, const nlohmann::json &spec) {
        if (!spec.is_object())
            return;
        const int index = box->findData(QString::fromStdString(spec.value("plugin", "")));
        if (index >= 0) {
            const QSignalBlocker quiet(box);
            box->setCurrentIndex(index);
        }
        showSettings(box, form, spec.value("settings", nlohmann::json::object()));
    };
    select(m_world, m_worldForm, p.value("world_model", nlohmann::json()));
    if (p.value("tasks", nlohmann::json::array()).empty())
        offerWorldTasks();
    if (p.contains("judge") && p["judge"].is_object()) {
        select(m_judge, m_judgeForm, p["judge"]);
        const auto quorum = p["judge"].value("quorum", nlohmann::json::object());
        m_samples->setValue(quorum.value("samples", 5));
        m_quorum->setValue(quorum.value("quorum", 3));
    } else {
        m_judge->setCurrentIndex(0);
    }
    refresh();
}

nlohmann::json LauncherDialog::protocol() const
{
    // The loaded document with the form's fields over it: what the form does not show (a
    // description, quorum details) is kept, so an unchanged protocol keeps its hash.
    nlohmann::json p = m_base;
    p["kosmos_protocol"] = m_base.value("kosmos_protocol", 1);
    p["name"] = m_name->text().trimmed().toStdString();
    p["seed"] = m_seed->value();
    p["horizon"] = m_horizon->value();
    p["episodes_per_task"] = m_episodes->value();
    p["feedback_mode"] = m_feedback->currentData().toString().toStdString();
    p["tasks"] = nlohmann::json::array();
    p["policies"] = nlohmann::json::array();
    for (int row = 0; row < m_tasks->rowCount(); ++row) {
        auto text = [&](int column) {
            const QTableWidgetItem *item = m_tasks->item(row, column);
            return item ? item->text().trimmed().toStdString() : std::string();
        };
        const std::string state = text(2);
        p["tasks"].push_back(
            {{"id", text(0)},
             {"instruction", text(1)},
             {"start_state", nlohmann::json::parse(state.empty() ? "{}" : state, nullptr, false)}});
    }
    for (int i = 0; i < m_policies->count(); ++i)
        p["policies"].push_back(nlohmann::json::parse(
            m_policies->item(i)->data(Qt::UserRole).toString().toStdString(), nullptr, false));
    p["world_model"] = {{"plugin", m_world->currentData().toString().toStdString()},
                        {"settings", m_worldForm->values()}};
    p.erase("judge");
    if (!m_judge->currentData().toString().isEmpty()) {
        const auto base = m_base.value("judge", nlohmann::json::object());
        nlohmann::json quorum = base.is_object() ? base.value("quorum", nlohmann::json::object())
                                                 : nlohmann::json::object();
        quorum["samples"] = m_samples->value();
        quorum["quorum"] = m_quorum->value();
        p["judge"] = {{"plugin", m_judge->currentData().toString().toStdString()},
                      {"settings", m_judgeForm->values()},
                      {"quorum", quorum}};
    }
    // A CUDA device chosen: every component whose plugin's runtime has CUDA runs there (the
    // rule of `kosmos-cli run --device`). CPU leaves the settings as loaded (an unchanged
    // protocol keeps its hash); refresh() offers CUDA only when a chosen plugin can use it.
    const QString device = m_device->currentData().toString();
    if (device.startsWith(QLatin1String("cuda"))) {
        try {
            p = placeOnDevice(p, device.toStdString(), [this](const std::string &id) {
                    const PluginEntry *e = m_catalog.find(QString::fromStdString(id));
                    return e ? cudaCapabilityOf(e->runtime) : std::nullopt;
                }).document;
        } catch (const Error &) {
            // none of the chosen components can use CUDA: they stay where they run
        }
    }
    return p;
}

QStringList LauncherDialog::problems() const
{
    QStringList out;
    const nlohmann::json p = protocol();
    for (std::size_t i = 0; i < p["tasks"].size(); ++i)
        if (p["tasks"][i]["start_state"].is_discarded())
            out << tr("task %1: the start state is not valid JSON").arg(i + 1);
    if (!out.isEmpty())
        return out;
    // What a new user meets first, said in the window's language with what to do; the
    // protocol's own check (core, English) for everything else.
    if (m_name->text().trimmed().isEmpty())
        out << tr("Give the batch a name.");
    QStringList ids;
    for (std::size_t i = 0; i < p["tasks"].size(); ++i) {
        const auto &task = p["tasks"][i];
        if (!task["start_state"].is_object())
            out << tr("task %1: the start state must be a JSON object, such as {}").arg(i + 1);
        const QString id = QString::fromStdString(task.value("id", std::string()));
        if (id.isEmpty())
            out << tr("task %1: the task id is empty").arg(i + 1);
        else if (ids.contains(id))
            out << tr("task %1: the task id %2 is used twice").arg(i + 1).arg(id);
        ids << id;
        if (task.value("instruction", std::string()).empty())
            out << tr("task %1: the instruction is empty").arg(i + 1);
    }
    if (p["tasks"].empty())
        out << tr("Add a task (a world that knows its tasks offers them when it is chosen).");
    if (p["policies"].empty())
        out << tr("Add a policy: choose its plugin and settings, then Add policy.");
    if (p.contains("judge") && m_horizon->value() < 15)
        out << tr("The judge needs at least 16 frames: set the horizon to 15 steps or more.");
    if (out.isEmpty()) {
        try {
            Protocol::fromJson(p);
        } catch (const std::exception &e) {
            out << QString::fromUtf8(e.what());
        }
    }
    for (int i = 0; i < m_policies->count(); ++i)
        for (const QString &problem : m_policies->item(i)->data(Qt::UserRole + 1).toStringList())
            out << tr("policy %1 settings: %2").arg(i + 1).arg(problem);
    for (const QString &problem : m_worldForm->problems())
        out << tr("world model settings: %1").arg(problem);
    if (!m_judge->currentData().toString().isEmpty())
        for (const QString &problem : m_judgeForm->problems())
            out << tr("judge settings: %1").arg(problem);
    for (const ChosenComponent &c : chosenComponents(p))
        if (const auto known = m_catalog.known(c.id, c.settings); known && !known->available)
            out << tr("%1 (%2) cannot run with these settings: %3")
                       .arg(c.role, c.id, known->reason);
    if (m_dryRunFor == p && m_dryRun.is_object())
        for (const auto &problem : m_dryRun.value("problems", nlohmann::json::array()))
            out << tr("refused: %1").arg(QString::fromStdString(problem.get<std::string>()));
    return out;
}

QList<LauncherDialog::ChosenComponent>
LauncherDialog::chosenComponents(const nlohmann::json &p) const
{
    // Each component whose settings fit its schema (the schema's problems are said already):
    // the policies in the list, the policy being set up in the form, the world model and judge.
    QList<ChosenComponent> out;
    auto add = [&](const QString &role, const nlohmann::json &spec) {
        if (!spec.is_object() || !spec.value("plugin", nlohmann::json()).is_string())
            return;
        const QString id = QString::fromStdString(spec["plugin"].get<std::string>());
        const nlohmann::json settings = spec.value("settings", nlohmann::json::object());
        const PluginEntry *entry = m_catalog.find(id);
        if (id.isEmpty() || !entry || !checkSettings(entry->settingsSchema, settings).empty())
            return;
        out.append({role, id, settings});
    };
    const auto policies = p.value("policies", nlohmann::json::array());
    for (std::size_t i = 0; i < policies.size(); ++i)
        add(tr("policy %1").arg(i + 1), policies[i]);
    add(tr("world model"), p.value("world_model", nlohmann::json()));
    add(tr("judge"), p.value("judge", nlohmann::json()));
    return out;
}

int LauncherDialog::workers() const
{
    return m_workers->value();
}

int LauncherDialog::batch() const
{
    return m_batch->value();
}

bool LauncherDialog::restoreForm(const QString &ledgerPath)
{
    QSettings settings;
    settings.beginGroup(perLedgerGroup(QStringLiteral("launcher"), ledgerPath));
    const QByteArray saved = settings.value(QStringLiteral("protocol")).toByteArray();
    // Read within a protocol's limits (the settings file is outside input too): a damaged or
    // hostile entry is ignored, never a crash.
    nlohmann::json doc;
    try {
        doc = json::parseBounded(std::string_view(saved.constData(), saved.size()),
                                 "the saved New batch form", {32, 4u << 20, true});
    } catch (const Error &) {
        return false;
    }
    if (!doc.is_object())
        return false;
    setProtocol(doc);
    m_workers->setValue(settings.value(QStringLiteral("workers"), 1).toInt());
    m_batch->setValue(settings.value(QStringLiteral("batch"), 1).toInt());
    const int target = m_target->findData(settings.value(QStringLiteral("target")).toString());
    if (target >= 0 &&
        m_target->model()->flags(m_target->model()->index(target, 0)) & Qt::ItemIsEnabled)
        m_target->setCurrentIndex(target);
    return true;
}

void LauncherDialog::saveForm(const QString &ledgerPath) const
{
    QSettings settings;
    settings.beginGroup(perLedgerGroup(QStringLiteral("launcher"), ledgerPath));
    settings.setValue(QStringLiteral("protocol"), QByteArray::fromStdString(protocol().dump()));
    settings.setValue(QStringLiteral("workers"), m_workers->value());
    settings.setValue(QStringLiteral("batch"), m_batch->value());
    settings.setValue(QStringLiteral("target"), m_target->currentData().toString());
}

void LauncherDialog::refresh()
{
    // The device list only where one of the chosen plugins can use CUDA.
    if (!m_deviceChoice.devices.isEmpty()) {
        QStringList chosen;
        for (int i = 0; i < m_policies->count(); ++i)
            chosen << QString::fromStdString(
                nlohmann::json::parse(
                    m_policies->item(i)->data(Qt::UserRole).toString().toStdString(), nullptr,
                    false)
                    .value("plugin", std::string()));
        chosen << m_world->currentData().toString() << m_judge->currentData().toString();
        bool cuda = false;
        for (const QString &id : chosen)
            if (const PluginEntry *e = m_catalog.find(id))
                cuda = cuda || cudaCapabilityOf(e->runtime).value_or(false);
        if (!cuda)
            m_device->setCurrentIndex(0);
        m_device->setEnabled(cuda);
        m_device->setToolTip(cuda ? m_deviceChoice.reason
                                  : tr("None of the chosen plugins can use CUDA (only libtorch "
                                       "plugins of a CUDA build can); they run on the CPU."));
    }
    const nlohmann::json p = protocol();
    // Live: whether each chosen plugin can run with the settings as typed (and the one in the
    // policy form, before it is added), asked of kosmos-cli in the background.
    QStringList checking;
    QList<ChosenComponent> chosen = chosenComponents(p);
    if (m_policyForm->problems().isEmpty())
        chosen.append({tr("policy form"), m_policy->currentData().toString(),
                       m_policyForm->effectiveValues()});
    QString formNote;
    bool formRefused = false;
    for (const ChosenComponent &c : chosen) {
        const auto known = m_catalog.known(c.id, c.settings);
        if (!known) {
            m_catalog.requestAvailability(c.id, c.settings);
            if (!checking.contains(c.id))
                checking << c.id;
        } else if (c.role == tr("policy form")) {
            formRefused = !known->available;
            formNote = known->available
                           ? tr("%1 can run with these settings: Add policy.").arg(c.id)
                           : tr("%1 cannot run with these settings: %2").arg(c.id, known->reason);
        }
    }
    m_policyStatus->setText(formNote);
    m_policyStatus->setStyleSheet(formRefused ? QStringLiteral("color: #b00020") : QString());
    const QStringList found = problems();
    m_problems->setText(found.join(QLatin1Char('\n')));
    m_start->setEnabled(found.isEmpty());
    const int runs =
        static_cast<int>(p["tasks"].size() * p["policies"].size()) * m_episodes->value();
    if (m_dryRunFor == p && m_dryRun.is_object())
        m_summary->setText(tr("%1 runs; %2 already finished in this ledger, %3 to run. Generated "
                              "rollouts are not evidence of real robot-task success.")
                               .arg(m_dryRun.value("runs", 0))
                               .arg(m_dryRun.value("finished", 0))
                               .arg(m_dryRun.value("runs", 0) - m_dryRun.value("finished", 0)));
    else
        m_summary->setText(tr("%1 runs (policies x tasks x episodes). Check to see how many this "
                              "ledger already finished.")
                               .arg(runs));
    if (!checking.isEmpty())
        m_summary->setText(m_summary->text() + QLatin1Char(' ') +
                           tr("Checking whether %1 can run with these settings...")
                               .arg(checking.join(QStringLiteral(", "))));
}

nlohmann::json LauncherDialog::check()
{
    m_dryRunFor = protocol();
    QString error;
    m_dryRun = m_controller.preview(m_dryRunFor, &error);
    if (m_dryRun.is_null())
        m_dryRun = {{"problems",
                     {error.isEmpty() ? std::string("the dry run failed") : error.toStdString()}}};
    refresh();
    return m_dryRun;
}

bool LauncherDialog::launch()
{
    if (!problems().isEmpty())
        return false;
    const nlohmann::json report = check();
    if (!report.value("problems", nlohmann::json::array()).empty())
        return false;
    const bool slurm = m_target && m_target->currentData().toString() == QLatin1String("slurm");
    const bool started =
        slurm ? m_controller.startSharded(protocol(), workers(),
                                          {m_shards->value(), m_partition->text().trimmed(),
                                           m_gpus->value(), m_timeLimit->text().trimmed()},
                                          batch())
              : m_controller.start(protocol(), workers(), batch());
    if (!started) {
        m_problems->setText(m_controller.error());
        return false;
    }
    return true;
}

} // namespace kosmos::ui
