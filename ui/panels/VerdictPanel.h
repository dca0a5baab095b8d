#pragma once

#include "queries/JudgmentQuery.h"
#include "queries/RolloutQuery.h"

#include <QWidget>

class QListWidget;
class QPlainTextEdit;
class QTreeWidget;
class QTreeWidgetItem;
class QLabel;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

// The judge's verdicts on a run (its own and re-judgments), summary first: the outcome, the
// quorum (decisive votes of the samples), progress and the evidence frames as thumbnails (click to
// seek); then every judgment and sample (format, parsed fields, tokens and decode time in the
// tooltip) and the selected sample's raw text in a wrapped, selectable pane. The reference and
// human labels beside them, visibly distinct.
class VerdictPanel : public QWidget
{
    Q_OBJECT
public:
    explicit VerdictPanel(QWidget *parent = nullptr);
    // `rollout` (the run's frames) gives the evidence thumbnails; without it none are shown.
    void showRun(Ledger &ledger, qint64 runId, const RolloutView *rollout = nullptr);
    void clear();
    QTreeWidget *tree() const { return m_tree; }
    QLabel *summary() const { return m_summary; }
    QLabel *labels() const { return m_labels; } // reference, physics and human labels
    QListWidget *evidence() const { return m_evidence; }
    QPlainTextEdit *rawText() const { return m_raw; }

signals:
    void seekRequested(int frame);

private:
    void showLabels(Ledger &ledger, qint64 runId);
    void addJudgment(const StoredJudgment &j);
    void addSample(QTreeWidgetItem *top, const JudgeSampleRecord &sample,
                   const QVariantList &frames);
    void showSummary(const std::vector<StoredJudgment> &judgments);
    void showEvidence(Ledger &ledger, const StoredJudgment &j, const RolloutView *rollout);

    QLabel *m_summary;
    QListWidget *m_evidence;
    QLabel *m_labels;
    QTreeWidget *m_tree;
    QPlainTextEdit *m_raw;
};

} // namespace kosmos::ui
