#pragma once

#include "queries/BatchProgress.h"
#include "util/ProcessStats.h"

#include <QHash>

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace kosmos::ui {

class RunController;

// The batch being followed: overall progress (runs and steps, elapsed, estimated remaining),
// one row per run with its own progress bar, stage and worker (at most kMaxRows: the running
// runs, the next queued, the latest finished), the CPU and memory of each
// worker process (from /proc), and cancel buttons for the selected run or the whole batch.
// Everything shown comes from the ledger.
class ProgressPanel : public QWidget
{
    Q_OBJECT
public:
    static constexpr std::size_t kMaxRows = 300; // rows of the per-run list
    explicit ProgressPanel(RunController &controller, QWidget *parent = nullptr);
    QTreeWidget *tree() const { return m_tree; }
    QProgressBar *overall() const { return m_overall; }
    QString statusText() const;
    // "worker 1234: CPU 97%, RSS 80 MiB; ..." for the worker processes of running runs.
    QString resourcesText() const;
    QString throughputText() const;
    // What the last Cancel run said when nothing was cancelled (a finished run, a shard).
    QString notice() const;

signals:
    void runActivated(qint64 runId);

private:
    void show(const BatchProgress &progress);
    void fillRows(const BatchProgress &progress, const std::vector<const RunProgress *> &rows,
                  qint64 selected);
    void showResources(const BatchProgress &progress);

    RunController &m_controller;
    QLabel *m_title;
    QProgressBar *m_overall;
    QLabel *m_status;
    QTreeWidget *m_tree;
    QLabel *m_resources;
    QLabel *m_throughput; // steps/s, frames/s, where the time goes, per worker
    QLabel *m_notice;
    QHash<int, ProcessSample> m_samples; // last sample per worker process, for CPU %
    QPushButton *m_cancelRun;
    QPushButton *m_cancelBatch;
};

} // namespace kosmos::ui
