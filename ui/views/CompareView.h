#pragma once

#include <QWidget>

class QLabel;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

class FramePlayer;
class TracesPlot;

// Two runs side by side on one shared timeline (e.g. two policies from the same start, or one
// rollout judged by two judges): each with its frames, traces and verdict line; seeking either
// moves both.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);
    void compare(Ledger &ledger, qint64 runA, qint64 runB);
    FramePlayer *playerA() const { return m_playerA; }
    FramePlayer *playerB() const { return m_playerB; }

private:
    void fill(Ledger &ledger, qint64 run, FramePlayer *player, TracesPlot *traces, QLabel *label);

    FramePlayer *m_playerA;
    FramePlayer *m_playerB;
    TracesPlot *m_tracesA;
    TracesPlot *m_tracesB;
    QLabel *m_labelA;
    QLabel *m_labelB;
};

} // namespace kosmos::ui
