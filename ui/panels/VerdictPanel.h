#pragma once

#include <QWidget>

class QTreeWidget;
class QLabel;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

// The judge's verdicts on a run (its own and re-judgments), each with its rule settings and every
// sample (format, parsed fields, raw text, tokens, decode time); the reference and human labels
// beside them, visibly distinct. Clicking an evidence frame seeks the player.
class VerdictPanel : public QWidget
{
    Q_OBJECT
public:
    explicit VerdictPanel(QWidget *parent = nullptr);
    void showRun(Ledger &ledger, qint64 runId);
    QTreeWidget *tree() const { return m_tree; }

signals:
    void seekRequested(int frame);

private:
    QLabel *m_labels;
    QTreeWidget *m_tree;
    QList<int> m_frameIndices;
};

} // namespace kosmos::ui
