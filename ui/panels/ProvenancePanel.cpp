#include "panels/ProvenancePanel.h"

#include "ledger/Ledger.h"
#include "queries/ProvenanceQuery.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace kosmos::ui {

namespace {
QString time(std::int64_t ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}
QString shortHash(const std::optional<std::string> &sha)
{
    return sha ? QString::fromStdString(sha->substr(0, 16)) + QStringLiteral("...")
               : QStringLiteral("—");
}
} // namespace

ProvenancePanel::ProvenancePanel(QWidget *parent)
    : QWidget(parent), m_tree(new QTreeWidget(this)), m_details(new QPlainTextEdit(this)),
      m_verify(new QPushButton(tr("Verify artifacts"), this)), m_progress(new QProgressBar(this)),
      m_result(new QLabel(this))
{
    m_tree->setHeaderLabels({tr("Item"), tr("Value"), tr("Detail")});
    m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setColumnWidth(0, 170);
    m_tree->setColumnWidth(1, 150);
    m_progress->setVisible(false);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_verify);
    bar->addWidget(m_progress, 1);
    bar->addWidget(m_result, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    // The selected item in full (hashes, settings, errors), wrapped and selectable: a side panel
    // cuts long values.
    m_details->setReadOnly(true);
    m_details->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_details->setPlaceholderText(tr("Select an item to read its values in full"));
    m_details->setObjectName(QStringLiteral("provenanceDetails"));
    auto *split = new QSplitter(Qt::Vertical, this);
    split->addWidget(m_tree);
    split->addWidget(m_details);
    split->setStretchFactor(0, 4);
    split->setStretchFactor(1, 1);
    layout->addWidget(split, 1);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (!item) {
            m_details->clear();
            return;
        }
        QStringList lines;
        for (int c = 0; c < item->columnCount(); ++c) {
            // The tooltip holds the whole value where the cell shows a shortened one.
            const QString full = item->toolTip(c).isEmpty() ? item->text(c) : item->toolTip(c);
            if (!full.isEmpty())
                lines << QStringLiteral("%1: %2").arg(m_tree->headerItem()->text(c), full);
        }
        m_details->setPlainText(lines.join(QLatin1Char('\n')));
    });
    connect(m_verify, &QPushButton::clicked, this, &ProvenancePanel::verifyArtifacts);
}

void ProvenancePanel::clear()
{
    m_ledger = nullptr;
    m_tree->clear();
    m_details->clear();
    m_result->clear();
}

void ProvenancePanel::showRun(Ledger &ledger, qint64 runId)
{
    m_ledger = &ledger;
    m_tree->clear();
    m_result->clear();
    const RunProvenance p = loadProvenance(ledger, runId);
    auto *run = new QTreeWidgetItem(m_tree, {tr("Run %1").arg(runId),
                                             QString::fromStdString(p.runKey.substr(0, 16)) + "...",
                                             tr("protocol %1").arg(shortHash(p.protocolSha256))});
    run->setToolTip(1, QString::fromStdString(p.runKey));
    auto *identities = new QTreeWidgetItem(m_tree, {tr("Components")});
    for (const auto &c : p.components) {
        auto *item = new QTreeWidgetItem(
            identities, {QString::fromStdString(c.family),
                         QString::fromStdString(c.adapterId + " " + c.adapterVersion),
                         tr("config %1, weights %2")
                             .arg(shortHash(c.configSha256), shortHash(c.weightsSha256))});
        item->setToolTip(2, QString::fromStdString(c.identitySha256));
    }
    auto *attempts = new QTreeWidgetItem(m_tree, {tr("Attempts")});
    for (const auto &a : p.attempts) {
        auto *item = new QTreeWidgetItem(
            attempts,
            {tr("attempt %1 (%2)").arg(a.attemptNo).arg(QString::fromStdString(a.workerId)),
             QString::fromStdString(a.state),
             QString::fromStdString(a.errorCode.value_or("")) +
                 (a.errorMessage ? QStringLiteral(": ") + QString::fromStdString(*a.errorMessage)
                                 : QString())});
        new QTreeWidgetItem(item, {tr("started"), time(a.startedAtMs)});
        if (a.finishedAtMs)
            new QTreeWidgetItem(
                item, {tr("finished"), time(*a.finishedAtMs),
                       tr("%1 s").arg(static_cast<double>(*a.finishedAtMs - a.startedAtMs) / 1000.0,
                                      0, 'f', 2)});
        new QTreeWidgetItem(item, {tr("seal"), shortHash(a.sealSha256)});
        if (a.merged.is_object()) { // merged from a shard ledger (docs/scale-out.md)
            const nlohmann::json &m = a.merged;
            const nlohmann::json &slurm = m.value("slurm", nlohmann::json());
            QString where = tr("host %1").arg(QString::fromStdString(
                m["host"].is_string() ? m["host"].get<std::string>() : std::string("?")));
            if (slurm.is_object())
                where += tr(", Slurm job %1 (array %2, task %3)")
                             .arg(QString::fromStdString(slurm.value("job_id", "?")),
                                  QString::fromStdString(slurm.value("array_job_id", "-")),
                                  QString::fromStdString(slurm.value("array_task_id", "-")));
            auto *origin = new QTreeWidgetItem(
                item,
                {tr("merged from"),
                 m["shard"].is_string() ? tr("shard %1").arg(QString::fromStdString(m["shard"]))
                                        : tr("a ledger"),
                 where});
            origin->setToolTip(1, QString::fromStdString(m.value("source", "")));
            new QTreeWidgetItem(origin,
                                {tr("source"), QString::fromStdString(m.value("source", "")),
                                 tr("its attempt %1").arg(m.value("source_attempt_id", 0))});
        }
        if (a.timings.is_object()) {
            auto *t = new QTreeWidgetItem(
                item,
                {tr("timings"), tr("%1 ms total").arg(a.timings.value("total_ms", 0.0), 0, 'f', 1),
                 tr("device %1, peak RSS %2 MiB")
                     .arg(QString::fromStdString(a.timings.value("device", "?")))
                     .arg(a.timings.value("peak_rss_kib", 0) / 1024)});
            if (a.timings.contains("stage_ms") && a.timings["stage_ms"].is_object()) {
                const nlohmann::json &stages = a.timings["stage_ms"];
                for (auto it = stages.begin(); it != stages.end(); ++it)
                    new QTreeWidgetItem(t, {QString::fromStdString(it.key()),
                                            tr("%1 ms").arg(it.value().get<double>(), 0, 'f', 1)});
            }
        }
        item->setExpanded(&a == &p.attempts.back());
    }
    auto *artifacts = new QTreeWidgetItem(
        m_tree, {tr("Artifacts of the latest attempt (%1)").arg(p.artifacts.size())});
    std::map<std::string, QTreeWidgetItem *> roles;
    for (const auto &a : p.artifacts) {
        auto *&group = roles[a.role];
        if (!group)
            group = new QTreeWidgetItem(artifacts, {QString::fromStdString(a.role)});
        auto *item = new QTreeWidgetItem(
            group, {QString::fromStdString(a.name),
                    tr("%1 bytes, %2").arg(a.sizeBytes).arg(QString::fromStdString(a.mediaType)),
                    tr("sha256 %1, pixels %2").arg(shortHash(a.sha256), shortHash(a.pixelSha256))});
        item->setData(0, Qt::UserRole, QString::fromStdString(a.sha256));
        item->setData(0, Qt::UserRole + 1, static_cast<qlonglong>(a.sizeBytes));
        item->setData(0, Qt::UserRole + 2,
                      a.pixelSha256 ? QString::fromStdString(*a.pixelSha256) : QString());
        item->setToolTip(2, QString::fromStdString(a.sha256));
        for (const auto &d : a.derivedFrom)
            new QTreeWidgetItem(item, {tr("derived"), QString::fromStdString(d)});
    }
    run->setExpanded(true);
    identities->setExpanded(true);
    attempts->setExpanded(true);
    artifacts->setExpanded(true);
}

int ProvenancePanel::verifyArtifacts()
{
    if (!m_ledger)
        return 0;
    struct Job
    {
        QTreeWidgetItem *item;
        std::string sha;
        std::int64_t size;
        std::optional<std::string> pixels;
    };
    QList<Job> jobs;
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it) {
        const QVariant sha = (*it)->data(0, Qt::UserRole);
        if (sha.isValid()) {
            const QString pixels = (*it)->data(0, Qt::UserRole + 2).toString();
            jobs.append({*it, sha.toString().toStdString(),
                         (*it)->data(0, Qt::UserRole + 1).toLongLong(),
                         pixels.isEmpty() ? std::nullopt
                                          : std::optional<std::string>(pixels.toStdString())});
        }
    }
    m_progress->setRange(0, static_cast<int>(jobs.size()));
    m_progress->setValue(0);
    m_progress->setVisible(true);
    const ArtifactStore &store = m_ledger->artifacts();
    int failed = 0;
    int done = 0;
    // Re-hashing runs on a worker thread, a batch at a time, so the window stays responsive.
    for (qsizetype start = 0; start < jobs.size(); start += 16) {
        const auto batch = jobs.mid(start, 16);
        QFuture<QList<ObjectCheck>> future = QtConcurrent::run([&store, batch] {
            QList<ObjectCheck> out;
            for (const auto &j : batch)
                out.append(store.check(j.sha, j.size, j.pixels));
            return out;
        });
        while (!future.isFinished())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        const auto results = future.result();
        for (qsizetype i = 0; i < results.size(); ++i) {
            QTreeWidgetItem *item = batch[i].item;
            const bool ok = results[i].ok();
            failed += !ok;
            item->setText(0,
                          (ok ? QStringLiteral("✔ ") : QStringLiteral("✘ ")) +
                              item->text(0).remove(QRegularExpression(QStringLiteral("^[✔✘] "))));
            item->setForeground(0, ok ? QColor(30, 120, 40) : QColor(170, 30, 30));
            if (!ok)
                item->setText(2, QString::fromStdString(results[i].detail));
            m_progress->setValue(++done);
        }
    }
    m_progress->setVisible(false);
    m_result->setText(
        failed ? tr("%1 of %2 artifacts FAILED verification").arg(failed).arg(jobs.size())
               : tr("all %1 artifacts verified").arg(jobs.size()));
    return failed;
}

} // namespace kosmos::ui
