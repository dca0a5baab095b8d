#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTreeWidget;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

// Where every byte of a run came from: the identities of policy, world model and judge; every
// attempt with its end state, error, timing per stage and peak memory; the artifacts of the
// latest attempt with byte and pixel hashes and what each was derived from. Verify re-hashes
// this run's artifacts off the GUI thread and shows the result per artifact.
class ProvenancePanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProvenancePanel(QWidget *parent = nullptr);
    void showRun(Ledger &ledger, qint64 runId);
    void clear();
    QTreeWidget *tree() const { return m_tree; }
    QPlainTextEdit *details() const { return m_details; }
    // Re-hashes every artifact of the shown attempt; returns how many failed (also shown).
    int verifyArtifacts();

private:
    Ledger *m_ledger = nullptr;
    QTreeWidget *m_tree;
    QPlainTextEdit *m_details;
    QPushButton *m_verify;
    QProgressBar *m_progress;
    QLabel *m_result;
};

} // namespace kosmos::ui
