#include "run/ProgressPanel.h"

#include "Vocabulary.h"
#include "queries/ComponentLabels.h"
#include "run/RunController.h"
#include "util/GpuMonitor.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace kosmos::ui {

namespace {

QString duration(std::int64_t ms)
{
    const std::int64_t s = ms / 1000;
    return s >= 3600 ? QStringLiteral("%1:%2:%3")
                           .arg(s / 3600)
                           .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
                           .arg(s % 60, 2, 10, QLatin1Char('0'))
                     : QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

ProgressPanel::ProgressPanel(RunController &controller, QWidget *parent)
    : QWidget(parent), m_controller(controller), m_title(new QLabel(this)),
      m_overall(new QProgressBar(this)), m_status(new QLabel(this)), m_tree(new QTreeWidget(this)),
      m_resources(new QLabel(this)), m_throughput(new QLabel(this)), m_notice(new QLabel(this)),
      m_cancelRun(new QPushButton(tr("Cancel run"), this)),
      m_cancelBatch(new QPushButton(tr("Cancel batch"), this))
{
    m_tree->setHeaderLabels({tr("Run"), tr("Task"), tr("Policy"), tr("Status"), tr("Stage"),
                             tr("Steps"), tr("Worker")});
    m_tree->setRootIsDecorated(false);
    m_tree->setUniformRowHeights(true);
    m_tree->header()->setStretchLastSection(true);
    m_status->setWordWrap(true);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_cancelRun);
    buttons->addWidget(m_cancelBatch);
    buttons->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_title);
    layout->addWidget(m_overall);
    layout->addWidget(m_status);
    layout->addWidget(m_tree, 1);
    layout->addWidget(m_resources);
    m_throughput->setObjectName(QStringLiteral("throughput"));
    m_throughput->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_throughput->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_throughput);
    m_notice->setWordWrap(true);
    m_notice->setObjectName(QStringLiteral("cancelNotice"));
    layout->addWidget(m_notice);
    m_resources->setWordWrap(true);
    layout->addLayout(buttons);
    connect(&m_controller, &RunController::progressChanged, this, &ProgressPanel::show);
    connect(m_cancelRun, &QPushButton::clicked, this, [this] {
        QTreeWidgetItem *item = m_tree->currentItem();
        if (!item) {
            m_notice->setText(tr("Choose a run in the list to cancel it."));
            return;
        }
        const qint64 run = item->data(0, Qt::UserRole).toLongLong();
        if (m_controller.cancelRun(run)) {
            m_notice->setText(tr("Run %1: cancel requested; its worker stops it at the next "
                                 "step.")
                                  .arg(run));
            return;
        }
        m_notice->setText(
            m_controller.error().isEmpty()
                ? tr("Run %1 was not cancelled: it has already finished.").arg(run)
                : tr("Run %1 was not cancelled: %2").arg(run).arg(m_controller.error()));
    });
    connect(m_cancelBatch, &QPushButton::clicked, this, [this] { m_controller.cancelBatch(); });
    connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem *item) {
        emit runActivated(item->data(0, Qt::UserRole).toLongLong());
    });
    m_title->setText(tr("No batch running. Run > New batch... starts one."));
    m_cancelRun->setEnabled(false);
    m_cancelBatch->setEnabled(false);
}

QString ProgressPanel::resourcesText() const
{
    return m_resources->text();
}

QString ProgressPanel::throughputText() const
{
    return m_throughput->text();
}

QString ProgressPanel::statusText() const
{
    return m_status->text();
}

namespace {

// "\nSlurm: 8 shards: 3 done, 2 running, 3 pending; merge job PENDING" for a sharded batch.
QString shardText(const BatchProgress &p)
{
    if (p.shards.empty())
        return {};
    int done = 0;
    int running = 0;
    int waiting = 0;
    for (const ShardState &s : p.shards) {
        if (s.total > 0 && s.finished == s.total)
            ++done;
        else if (s.running > 0 || s.scheduler == "RUNNING")
            ++running;
        else
            ++waiting;
    }
    return ProgressPanel::tr("\nSlurm: %1 shards: %2 done, %3 running, %4 waiting; merge job %5")
        .arg(p.shards.size())
        .arg(done)
        .arg(running)
        .arg(waiting)
        .arg(p.mergeState.empty() ? ProgressPanel::tr("not in the queue")
                                  : QString::fromStdString(p.mergeState));
}

// At most `limit` rows (a batch of 100,000 runs would otherwise make a row and a progress bar per
// run, refreshed four times a second): every running run, then the next queued, then the latest
// finished.
std::vector<const RunProgress *> rowsToShow(const BatchProgress &p, std::size_t limit)
{
    std::vector<const RunProgress *> rows;
    for (const RunProgress &r : p.runs)
        if (r.status == "running" && rows.size() < limit)
            rows.push_back(&r);
    for (const RunProgress &r : p.runs)
        if (r.status == "queued" && rows.size() < limit)
            rows.push_back(&r);
    if (rows.size() < limit) {
        std::vector<const RunProgress *> finished;
        for (const RunProgress &r : p.runs)
            if (r.status != "running" && r.status != "queued")
                finished.push_back(&r);
        const std::size_t take = std::min(finished.size(), limit - rows.size());
        std::partial_sort(finished.begin(), finished.begin() + static_cast<std::ptrdiff_t>(take),
                          finished.end(), [](const RunProgress *a, const RunProgress *b) {
                              return a->finishedAtMs.value_or(0) > b->finishedAtMs.value_or(0);
                          });
        rows.insert(rows.end(), finished.begin(),
                    finished.begin() + static_cast<std::ptrdiff_t>(take));
    }
    return rows;
}

// The policies named as the runs table names them (a model package by its folder): labels made
// over the batch's distinct policies, so they tell apart what the batch runs.
std::unordered_map<std::string, QString> policyLabelsOf(const BatchProgress &p)
{
    std::vector<std::string> identities;
    {
        std::unordered_set<std::string_view> seen; // views into p's runs, which outlive it
        for (const RunProgress &r : p.runs)
            if (seen.insert(r.policyIdentity).second)
                identities.push_back(r.policyIdentity);
    }
    const std::vector<std::string> labels = labelsOfIdentityTexts(identities);
    std::unordered_map<std::string, QString> policyLabel;
    for (std::size_t i = 0; i < identities.size(); ++i)
        policyLabel.emplace(identities[i], QString::fromStdString(labels[i]));
    return policyLabel;
}

} // namespace

// Rows are reused so a selection survives the refresh.
void ProgressPanel::fillRows(const BatchProgress &p, const std::vector<const RunProgress *> &rows,
                             qint64 selected)
{
    auto policyLabel = policyLabelsOf(p);
    if (m_tree->topLevelItemCount() != static_cast<int>(rows.size()))
        m_tree->clear();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const RunProgress &r = *rows[i];
        QTreeWidgetItem *item = m_tree->topLevelItem(static_cast<int>(i));
        if (!item) {
            item = new QTreeWidgetItem(m_tree);
            auto *bar = new QProgressBar(m_tree);
            bar->setMaximumHeight(16);
            m_tree->setItemWidget(item, 5, bar);
        }
        item->setData(0, Qt::UserRole, static_cast<qint64>(r.runId));
        // A sharded batch: run ids are those of each shard's own ledger.
        item->setText(0, r.shard >= 0 ? tr("shard %1: %2").arg(r.shard).arg(r.runId)
                                      : QString::number(r.runId));
        item->setText(1, QString::fromStdString(r.task));
        item->setText(2, policyLabel[r.policyIdentity]);
        item->setToolTip(2, QString::fromStdString(r.policyIdentity));
        item->setText(3, valueText(QString::fromStdString(r.status)) +
                             (r.cancelRequested && (r.status == "running" || r.status == "queued")
                                  ? tr(" (cancelling)")
                                  : QString()));
        item->setText(4, r.status == "running" ? QString::fromStdString(r.stage) : QString());
        item->setText(6, QString::fromStdString(r.workerId));
        auto *bar = static_cast<QProgressBar *>(m_tree->itemWidget(item, 5));
        bar->setRange(0, std::max(1, r.horizon));
        bar->setValue(r.stepsDone);
        bar->setFormat(QStringLiteral("%1/%2").arg(r.stepsDone).arg(r.horizon));
        if (r.runId == selected)
            m_tree->setCurrentItem(item);
    }
}

// Resources of the worker processes (ids "kosmos-cli-<pid>-<n>") of running runs.
void ProgressPanel::showResources(const BatchProgress &p)
{
    QStringList lines;
    QHash<int, ProcessSample> seen;
    // The GPUs through NVML (the driver's view: every process, this machine only).
    const GpuSnapshot gpus = p.active() ? GpuMonitor::instance().sample() : GpuSnapshot{};
    for (const RunProgress &r : p.runs) {
        if (r.status != "running")
            continue;
        if (!r.workerPid || seen.contains(*r.workerPid))
            continue;
        const int pid = *r.workerPid;
        const auto sample = sampleProcess(pid);
        if (!sample)
            continue; // on another machine, or just ended
        seen.insert(pid, *sample);
        const QString cpu =
            m_samples.contains(pid)
                ? tr("CPU %1%").arg(cpuPercent(m_samples.value(pid), *sample), 0, 'f', 0)
                : tr("CPU -");
        QString gpu;
        for (const GpuDevice &d : gpus.devices)
            for (const GpuProcess &proc : d.processes)
                if (proc.pid == pid)
                    gpu += tr(", cuda:%1 %2 MiB")
                               .arg(d.index)
                               .arg(static_cast<double>(proc.usedBytes) / (1 << 20), 0, 'f', 0);
        lines << tr("worker %1: %2, RSS %3 MiB%4")
                     .arg(pid)
                     .arg(cpu)
                     .arg(static_cast<double>(sample->rssBytes) / (1 << 20), 0, 'f', 0)
                     .arg(gpu);
    }
    m_samples = seen;
    m_resources->setText(lines.isEmpty() ? QString()
                                         : lines.join(QStringLiteral("; ")) + QStringLiteral(". ") +
                                               QString::fromStdString(gpus.summary()));
}

void ProgressPanel::show(const BatchProgress &p)
{
    // Where the time goes (core/queries/BatchThroughput: what kosmos-cli run prints at its end),
    // from the runs ended so far and the steps of those running.
    const std::string through = m_controller.throughput().text();
    m_throughput->setText(through.empty() ? QString()
                                          : tr("Throughput per worker (each stage's share of the "
                                               "work; store runs beside the rollout):\n%1")
                                                .arg(QString::fromStdString(through).trimmed()));
    m_title->setText(tr("<b>%1</b> (%2)")
                         .arg(QString::fromStdString(p.protocolName).toHtmlEscaped(),
                              QString::fromStdString(p.protocolSha256.substr(0, 12))));
    m_overall->setRange(0, static_cast<int>(std::max<std::int64_t>(1, p.stepsTotal)));
    m_overall->setValue(static_cast<int>(p.stepsDone));
    // BatchProgress::summary()'s counts in the window's language (the CLI prints core's text).
    QString counts = tr("%1 of %2 runs completed").arg(p.completed).arg(p.total);
    if (p.failed > 0)
        counts += tr(", %1 failed").arg(p.failed);
    if (p.cancelled > 0)
        counts += tr(", %1 cancelled").arg(p.cancelled);
    m_overall->setFormat(tr("%1 (%p% of steps)").arg(counts));
    m_status->setText(
        tr("%1 completed, %2 failed, %3 cancelled, %4 running, %5 queued; elapsed %6%7")
            .arg(p.completed)
            .arg(p.failed)
            .arg(p.cancelled)
            .arg(p.running)
            .arg(p.queued)
            .arg(duration(p.elapsedMs))
            .arg(p.remainingMs ? tr(", about %1 left").arg(duration(*p.remainingMs)) : QString()) +
        shardText(p));
    const qint64 selected =
        m_tree->currentItem() ? m_tree->currentItem()->data(0, Qt::UserRole).toLongLong() : 0;
    // At most kMaxRows rows: every running run, then the next queued, then the latest finished.
    const std::vector<const RunProgress *> rows = rowsToShow(p, kMaxRows);
    if (rows.size() < p.runs.size())
        m_status->setText(m_status->text() +
                          tr("\nShowing %1 of %2 runs: the running ones, the next queued, the "
                             "latest finished.")
                              .arg(rows.size())
                              .arg(p.runs.size()));
    fillRows(p, rows, selected);
    m_cancelRun->setEnabled(p.active());
    m_cancelBatch->setEnabled(p.active());

    showResources(p);
}

QString ProgressPanel::notice() const
{
    return m_notice->text();
}

} // namespace kosmos::ui
