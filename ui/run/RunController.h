#pragma once

#include "queries/BatchProgress.h"
#include "queries/BatchThroughput.h"
#include "scaleout/ScaleOut.h"

#include <QFutureWatcher>
#include <QList>
#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include <memory>

class QProcess;
class QTimer;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

// Where the launcher sends a batch: this machine, or a Slurm cluster as N shards
// (docs/scale-out.md): partition, GPUs per shard task, time limit.
struct SlurmTarget
{
    int shards = 4;
    QString partition;
    int gpusPerTask = 0;
    QString timeLimit;
};
// Whether this machine can submit to Slurm (sbatch on PATH); empty: yes, else the reason.
QString slurmUnavailableReason();

// Starts batches as `kosmos-cli run PROTOCOL --ledger L --workers N --isolate`: a supervisor
// process of its own (detached, so it outlives the window if the user chooses) whose worker
// processes run the plugins. A crashing plugin ends one attempt, never the workstation. The
// controller follows progress through the ledger only (PRAGMA data_version polling), so a
// later launch picks up a batch that is still running; cancellation goes through the ledger.
class RunController : public QObject
{
    Q_OBJECT
public:
    RunController(QString cliPath, QObject *parent = nullptr);
    ~RunController() override;

    // The ledger to launch into and follow; picks up its newest active batch, if any.
    void setLedger(const QString &bundle);
    QString ledger() const { return m_bundle; }
    QString cliPath() const { return m_cli; }

    // What running this protocol would do (`run --dry-run --json`): runs, finished, problems.
    nlohmann::json preview(const nlohmann::json &protocol, QString *error = nullptr);
    // Saves the protocol (AppDataLocation/protocols/<name>-<sha12>.json) and starts the batch.
    // Returns false with error() when it cannot be started.
    // batch: episodes each worker runs in lockstep (kosmos-cli run --batch N).
    bool start(const nlohmann::json &protocol, int workers, int batch = 1);
    // The same batch as shards on a Slurm cluster (`kosmos-cli submit --slurm`): a job array,
    // then a merge job into this ledger. Progress is followed through the shard ledgers; when
    // the merge has run, the ledger's runs are there (runsFinished) and following goes on in it.
    // batch: as for start(), in every shard.
    bool startSharded(const nlohmann::json &protocol, int workers, const SlurmTarget &target,
                      int batch = 1);
    // A sharded batch is being followed (through its shard ledgers).
    bool sharded() const { return m_sharded != nullptr; }
    QString error() const { return m_error; }
    QString logFile() const { return m_log; }

    void follow(const QString &protocolSha256);
    QString followed() const { return m_followed; }
    const BatchProgress &progress() const { return m_progress; }
    // Steps/s, frames/s and where the time goes, per worker, of the batch followed.
    const BatchThroughput &throughput() const { return m_throughput; }
    bool active() const { return m_progress.active(); }

    // Through the ledger: a queued run is cancelled at once, a running one at its next step.
    bool cancelRun(qint64 runId);
    // A sharded batch: scancel of its array and merge jobs; once Slurm has ended them, what
    // the shards finished is merged into this ledger from here (`kosmos-cli merge`).
    int cancelBatch();
    // Puts the failed runs among runIds back in the queue (each failed attempt stays recorded)
    // and starts their protocols' batches, which run just those runs. Returns how many were
    // requeued; runs that did not fail, or whose protocol is not runnable (imported runs), are
    // left as they are and named in error().
    int retryFailed(const QList<qint64> &runIds, int workers);
    // Judges the finished rollouts of runIds again with another judge configuration (a JSON file
    // as `kosmos-cli judge --judge` takes), one `kosmos-cli judge RUN` after the other in the
    // background; the new judgments are recorded beside the old ones. rejudgeFinished says how
    // many were judged and what failed. False (error()) when one is still going.
    bool rejudge(const QList<qint64> &runIds, const QString &judgeConfig);
    bool rejudging() const { return m_rejudge != nullptr; }

public slots:
    void poll();

signals:
    void progressChanged(const kosmos::BatchProgress &progress);
    void runsFinished(); // the number of finished runs grew: the runs view refreshes
    void rejudgeFinished(int judged, const QStringList &failures);

private:
    Ledger *reader();
    QString saveProtocol(const nlohmann::json &protocol);
    void followSharded(const ScaleOutJob &job);
    void pollSharded();

    QString m_cli;
    QString m_bundle;
    QString m_followed;
    QString m_error;
    QString m_log;
    std::unique_ptr<Ledger> m_reader;
    std::int64_t m_dataVersion = -1;
    BatchProgress m_progress;
    BatchThroughput m_throughput;
    std::unique_ptr<BatchThroughputReader> m_throughputReader; // of the batch followed
    std::int64_t m_throughputSinceMs = 0;
    QTimer *m_timer;
    std::unique_ptr<ScaleOutJob> m_sharded; // the sharded batch followed, if any
    SlurmJobStates m_slurm;                 // Slurm's last answer about it
    // squeue/sacct are asked off the GUI thread (a remote controller can take seconds), at most
    // every 3 s; m_slurmFresh: an answer arrived that no poll has acted on yet.
    QFutureWatcher<SlurmJobStates> *m_slurmWatcher;
    qint64 m_slurmAskedAtMs = 0;
    bool m_slurmFresh = false;
    std::vector<std::string> m_slurmAskedFor; // the job ids of the request in flight
    bool m_mergeHere = false;                 // cancelled: merge what the shards finished from here
    void rejudgeNext();
    QList<qint64> m_rejudgeQueue;
    QString m_rejudgeConfig;
    QProcess *m_rejudge = nullptr; // the `kosmos-cli judge` in flight
    int m_rejudged = 0;
    QStringList m_rejudgeFailures;
};

} // namespace kosmos::ui
