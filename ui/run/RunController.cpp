#include "run/RunController.h"

#include "ledger/Ledger.h"
#include "scaleout/ScaleOut.h"
#include "util/CanonicalJson.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <QDateTime>
#include <QElapsedTimer>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <numeric>
#include <utility>

namespace kosmos::ui {

RunController::RunController(QString cliPath, QObject *parent)
    : QObject(parent), m_cli(std::move(cliPath)), m_timer(new QTimer(this)),
      m_slurmWatcher(new QFutureWatcher<SlurmJobStates>(this))
{
    m_timer->setInterval(250);
    connect(m_timer, &QTimer::timeout, this, &RunController::poll);
    connect(m_slurmWatcher, &QFutureWatcher<SlurmJobStates>::finished, this, [this] {
        // An answer about another batch (followed before this one) is dropped.
        if (!m_sharded || m_slurmAskedFor != std::vector<std::string>{m_sharded->arrayJobId,
                                                                      m_sharded->mergeJobId})
            return;
        m_slurm = m_slurmWatcher->result();
        m_slurmFresh = true;
        poll();
    });
}

RunController::~RunController() = default;

QString slurmUnavailableReason()
{
    if (QStandardPaths::findExecutable(QStringLiteral("sbatch")).isEmpty())
        return RunController::tr("sbatch is not on PATH: this machine cannot submit to a Slurm "
                                 "cluster (install slurm-client and its cluster's slurm.conf)");
    return {};
}

void RunController::setLedger(const QString &bundle)
{
    m_bundle = bundle;
    m_reader.reset();
    m_followed.clear();
    m_progress = {};
    m_throughputReader.reset();
    m_throughput = {};
    m_dataVersion = -1;
    m_sharded.reset();
    try {
        if (Ledger *r = reader()) {
            const auto active = activeProtocols(*r);
            if (!active.empty()) {
                follow(QString::fromStdString(active.front()));
            } else if (const auto jobs = submissions(*r);
                       !jobs.empty() && jobs.back().launcher == "slurm") {
                // A sharded batch whose merge has not brought every run here yet.
                const ScaleOutJob &job = jobs.back();
                const auto expected = job.expectedRuns();
                if (protocolRunCounts(*r, job.protocolSha256).finished <
                    std::accumulate(expected.begin(), expected.end(), std::int64_t{0}))
                    followSharded(job);
            }
        }
    } catch (const std::exception &) {
        // A ledger that cannot be read has no batch to follow; the main window says why.
    }
}

Ledger *RunController::reader()
{
    if (!m_reader && !m_bundle.isEmpty())
        m_reader =
            std::make_unique<Ledger>(Ledger::open(m_bundle.toStdString(), {OpenMode::ReadOnly}));
    return m_reader.get();
}

nlohmann::json RunController::preview(const nlohmann::json &protocol, QString *error)
{
    const QString path = saveProtocol(protocol);
    if (path.isEmpty()) {
        if (error)
            *error = m_error;
        return nullptr;
    }
    QProcess cli;
    cli.start(m_cli, {QStringLiteral("run"), path, QStringLiteral("--ledger"), m_bundle,
                      QStringLiteral("--dry-run"), QStringLiteral("--json")});
    cli.waitForFinished(60000);
    const QByteArray out = cli.readAllStandardOutput();
    auto report =
        nlohmann::json::parse(out.constData(), out.constData() + out.size(), nullptr, false);
    if (!report.is_object()) {
        if (error)
            *error = QString::fromUtf8(cli.readAllStandardError()).trimmed();
        return nullptr;
    }
    return report;
}

QString RunController::saveProtocol(const nlohmann::json &protocol)
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
                        QStringLiteral("/protocols");
    QDir().mkpath(dir);
    std::string sha;
    try {
        sha = Sha256::hex(canonicalJson(protocol));
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
        return {};
    }
    QString path = dir + QStringLiteral("/%1-%2.json")
                             .arg(QString::fromStdString(protocol.value("name", "protocol")),
                                  QString::fromStdString(sha.substr(0, 12)));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        m_error = tr("cannot save the protocol to %1: %2").arg(path, file.errorString());
        return {};
    }
    file.write(QByteArray::fromStdString(protocol.dump(2)));
    return path;
}

bool RunController::start(const nlohmann::json &protocol, int workers, int batch)
{
    if (m_bundle.isEmpty()) {
        m_error = tr("open a ledger first");
        return false;
    }
    const QString path = saveProtocol(protocol);
    if (path.isEmpty())
        return false;
    const QString logs =
        QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/logs");
    QDir().mkpath(logs);
    m_log =
        logs +
        QStringLiteral("/run-%1.log")
            .arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-hhmmss-zzz")));
    QProcess process;
    process.setProgram(m_cli);
    process.setArguments({QStringLiteral("run"), path, QStringLiteral("--ledger"), m_bundle,
                          QStringLiteral("--workers"), QString::number(workers),
                          QStringLiteral("--batch"), QString::number(std::max(1, batch)),
                          QStringLiteral("--isolate")});
    process.setStandardOutputFile(m_log);
    process.setStandardErrorFile(m_log, QIODevice::Append);
    qint64 pid = 0;
    if (!process.startDetached(&pid)) {
        m_error = tr("cannot start %1: %2").arg(m_cli, process.errorString());
        return false;
    }
    follow(QString::fromStdString(Sha256::hex(canonicalJson(protocol))));
    return true;
}

bool RunController::startSharded(const nlohmann::json &protocol, int workers,
                                 const SlurmTarget &target, int batch)
{
    if (m_bundle.isEmpty()) {
        m_error = tr("open a ledger first");
        return false;
    }
    if (const QString why = slurmUnavailableReason(); !why.isEmpty()) {
        m_error = why;
        return false;
    }
    const QString path = saveProtocol(protocol);
    if (path.isEmpty())
        return false;
    QStringList args = {QStringLiteral("submit"),
                        path,
                        QStringLiteral("--ledger"),
                        m_bundle,
                        QStringLiteral("--shards"),
                        QString::number(target.shards),
                        QStringLiteral("--slurm"),
                        QStringLiteral("--workers"),
                        QString::number(workers),
                        QStringLiteral("--batch"),
                        QString::number(std::max(1, batch)),
                        QStringLiteral("--json")};
    if (!target.partition.isEmpty())
        args << QStringLiteral("--partition") << target.partition;
    if (target.gpusPerTask > 0)
        args << QStringLiteral("--gres") << QStringLiteral("gpu:%1").arg(target.gpusPerTask);
    if (!target.timeLimit.isEmpty())
        args << QStringLiteral("--time") << target.timeLimit;
    QProcess process;
    process.start(m_cli, args);
    if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit ||
        process.exitCode() != 0) {
        const QString said = QString::fromUtf8(process.readAllStandardError()).trimmed();
        m_error =
            tr("kosmos-cli submit failed: %1").arg(said.isEmpty() ? process.errorString() : said);
        return false;
    }
    // Shards have their own ledgers; the reader of this one is opened again after the merge.
    m_reader.reset();
    try {
        const auto jobs = submissions(*reader());
        if (jobs.empty())
            throw Error(ErrorCode::NotFound, "the submission was not recorded");
        followSharded(jobs.back());
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
        return false;
    }
    return true;
}

void RunController::followSharded(const ScaleOutJob &job)
{
    m_sharded = std::make_unique<ScaleOutJob>(job);
    m_slurmAskedAtMs = 0;
    m_slurmFresh = false;
    m_mergeHere = false;
    follow(QString::fromStdString(job.protocolSha256));
}

void RunController::pollSharded()
{
    const ScaleOutJob &job = *m_sharded;
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (!m_slurmWatcher->isRunning() && now - m_slurmAskedAtMs > 3000) {
        m_slurmAskedAtMs = now;
        m_slurmAskedFor = {job.arrayJobId, job.mergeJobId};
        m_slurmWatcher->setFuture(QtConcurrent::run(slurmJobStates, m_slurmAskedFor));
    }
    const ShardLayout layout = job.layout(m_bundle.toStdString());
    const int finishedBefore = m_progress.finished();
    m_progress = shardedProgress(layout, job.protocolSha256, now, job.expectedRuns(), m_slurm,
                                 job.arrayJobId, job.mergeJobId);
    emit progressChanged(m_progress);
    if (m_progress.finished() != finishedBefore)
        emit runsFinished();
    // The merge job has left the queue: its runs are in this ledger now; it is followed there.
    // Slurm has ended the array and the merge job (and said so just now): the runs are in this
    // ledger, followed there.
    const bool fresh = std::exchange(m_slurmFresh, false);
    if (fresh && m_slurm.queueAnswered && !m_slurm.arrayLive(job.arrayJobId) &&
        !m_slurm.live(job.mergeJobId)) {
        if (m_mergeHere) {
            // Cancelled: Slurm's merge job went with the array; what the shards finished is
            // merged here (detached, like a batch), and followed in this ledger.
            QStringList args = {QStringLiteral("merge"), m_bundle};
            for (int i = 0; i < job.shards; ++i)
                args << QString::fromStdString(layout.shardBundle(i).string());
            QProcess merge;
            merge.setProgram(m_cli);
            merge.setArguments(args);
            merge.setStandardOutputFile(QProcess::nullDevice());
            merge.setStandardErrorFile(QProcess::nullDevice());
            if (!merge.startDetached())
                m_error = tr("cannot start %1 merge: %2").arg(m_cli, merge.errorString());
            m_mergeHere = false;
        }
        m_sharded.reset();
        m_reader.reset();
        m_throughputReader.reset(); // the merged runs are new attempts of this ledger
        m_dataVersion = -1;
        m_progress = {};
        poll();
        emit runsFinished();
    }
}

void RunController::follow(const QString &protocolSha256)
{
    m_followed = protocolSha256;
    m_dataVersion = -1;
    m_throughputReader.reset();
    m_throughput = {};
    m_timer->start();
    poll();
}

void RunController::poll()
{
    if (m_followed.isEmpty())
        return;
    try {
        if (m_sharded) {
            pollSharded();
            return;
        }
        Ledger *r = reader();
        if (!r)
            return;
        const std::int64_t version = r->dataVersion();
        const bool changed = version != m_dataVersion;
        m_dataVersion = version;
        const int finishedBefore = m_progress.finished();
        // Elapsed and remaining time move even when nothing was written.
        QElapsedTimer cost;
        cost.start();
        const std::int64_t now = QDateTime::currentMSecsSinceEpoch();
        m_progress = batchProgress(*r, m_followed.toStdString(), now);
        // Where the time goes, per worker: read again (what started or ended since) when
        // something was written.
        const std::int64_t since = m_progress.startedAtMs.value_or(0);
        const bool fresh = !m_throughputReader || m_throughputSinceMs != since;
        if (fresh) {
            m_throughputReader =
                std::make_unique<BatchThroughputReader>(m_followed.toStdString(), since);
            m_throughputSinceMs = since;
        }
        if (changed || fresh)
            m_throughput = m_throughputReader->read(*r, now);
        emit progressChanged(m_progress);
        if (changed && m_progress.finished() != finishedBefore)
            emit runsFinished();
        // A large batch (100,000 runs) takes a while to read: never spend more than a tenth of
        // the GUI thread's time following it.
        const int base = !m_progress.active() && m_progress.total > 0 ? 2000 : 250;
        m_timer->setInterval(static_cast<int>(std::max<qint64>(base, 10 * cost.elapsed())));
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
    }
}

bool RunController::cancelRun(qint64 runId)
{
    m_error.clear();
    if (m_sharded) { // a run in a shard's ledger: the shard's job is cancelled as a whole
        m_error = tr("a run of a sharded batch is cancelled with its whole batch (scancel)");
        return false;
    }
    try {
        Ledger writer = Ledger::open(m_bundle.toStdString(), {OpenMode::ReadWrite});
        const bool asked = writer.requestCancel(runId, "cancelled from the workstation");
        poll();
        return asked;
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
        return false;
    }
}

int RunController::retryFailed(const QList<qint64> &runIds, int workers)
{
    m_error.clear();
    RetryResult retry;
    try {
        Ledger writer = Ledger::open(m_bundle.toStdString(), {OpenMode::ReadWrite});
        retry = writer.retryFailedRuns(std::vector<std::int64_t>(runIds.begin(), runIds.end()));
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
        return 0;
    }
    QStringList problems;
    for (const auto &why : retry.skipped)
        problems << QString::fromStdString(why);
    for (const auto &protocol : retry.protocols)
        if (!start(protocol, workers))
            problems << m_error;
    m_error = problems.join(QStringLiteral("; "));
    poll();
    return static_cast<int>(retry.requeued.size());
}

int RunController::cancelBatch()
{
    int asked = 0;
    if (m_sharded) {
        try {
            cancelSlurmJobs({m_sharded->arrayJobId, m_sharded->mergeJobId});
            asked = m_progress.queued + m_progress.running;
            m_slurmAskedAtMs = 0;
            m_slurmFresh = false; // an answer asked before the cancel says nothing about after
            m_mergeHere = true;
        } catch (const std::exception &e) {
            m_error = QString::fromUtf8(e.what());
        }
        poll();
        return asked;
    }
    try {
        Ledger writer = Ledger::open(m_bundle.toStdString(), {OpenMode::ReadWrite});
        for (const RunProgress &run : m_progress.runs)
            if ((run.status == "queued" || run.status == "running") &&
                writer.requestCancel(run.runId, "batch cancelled from the workstation"))
                ++asked;
    } catch (const std::exception &e) {
        m_error = QString::fromUtf8(e.what());
    }
    poll();
    return asked;
}

bool RunController::rejudge(const QList<qint64> &runIds, const QString &judgeConfig)
{
    m_error.clear();
    if (m_rejudge) {
        m_error = tr("runs are still being judged again");
        return false;
    }
    if (m_bundle.isEmpty() || runIds.isEmpty()) {
        m_error = tr("no ledger or no runs to judge");
        return false;
    }
    m_rejudgeQueue = runIds;
    m_rejudgeConfig = judgeConfig;
    m_rejudged = 0;
    m_rejudgeFailures.clear();
    rejudgeNext();
    return true;
}

void RunController::rejudgeNext()
{
    if (m_rejudgeQueue.isEmpty()) {
        m_rejudge = nullptr;
        emit runsFinished(); // the views that show verdicts refresh
        emit rejudgeFinished(m_rejudged, m_rejudgeFailures);
        return;
    }
    const qint64 run = m_rejudgeQueue.takeFirst();
    auto *process = new QProcess(this);
    m_rejudge = process;
    process->setProgram(m_cli);
    process->setArguments({QStringLiteral("judge"), QString::number(run),
                           QStringLiteral("--ledger"), m_bundle, QStringLiteral("--judge"),
                           m_rejudgeConfig});
    process->setProcessChannelMode(QProcess::MergedChannels);
    connect(process, &QProcess::finished, this,
            [this, process, run](int code, QProcess::ExitStatus) {
                if (code == 0)
                    ++m_rejudged;
                else
                    m_rejudgeFailures << tr("run %1: %2")
                                             .arg(run)
                                             .arg(QString::fromUtf8(process->readAll())
                                                      .trimmed()
                                                      .section(QLatin1Char('\n'), -1));
                process->deleteLater();
                rejudgeNext();
            });
    // A crash ends in finished() with its code; only a process that never started does not.
    connect(process, &QProcess::errorOccurred, this,
            [this, process, run](QProcess::ProcessError e) {
                if (e != QProcess::FailedToStart)
                    return;
                m_rejudgeFailures << tr("run %1: %2").arg(run).arg(process->errorString());
                process->deleteLater();
                rejudgeNext();
            });
    process->start();
}

} // namespace kosmos::ui
