#pragma once

#include "queries/RolloutQuery.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

class FramePlayer;
class TracesPlot;

// Two runs side by side on one shared timeline (e.g. two policies from the same start, or one
// rollout judged by two judges): each with its frames, traces and verdict line; seeking either
// moves both. The picker lists what run A can be compared with (core's compareCandidates: the
// same start first, other policies on it first); "Overlay traces" draws both runs' actions on
// shared axes instead of two columns of tracks.
class CompareView : public QWidget
{
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);
    // Compares runA with runB and offers runA's candidates in the picker. The ledger must outlive
    // the view's use of it (clear() before it goes).
    void compare(Ledger &ledger, qint64 runA, qint64 runB);
    // Offers runA's candidates and compares with the first (other policy, same start); false
    // when runA has none (the view then says so).
    bool compareWithBest(Ledger &ledger, qint64 runA);
    void clear();
    qint64 runA() const { return m_runA; }
    qint64 runB() const { return m_runB; }
    FramePlayer *playerA() const { return m_playerA; }
    FramePlayer *playerB() const { return m_playerB; }
    QComboBox *picker() const { return m_picker; }
    QCheckBox *overlay() const { return m_overlay; }
    TracesPlot *overlayTraces() const { return m_overlayTraces; }

private:
    // Loads the run into one side and returns its rollout (kept for the overlay).
    RolloutView fill(Ledger &ledger, qint64 run, FramePlayer *player, TracesPlot *traces,
                     QLabel *label);
    void fillPicker(Ledger &ledger, qint64 runA);
    void showOverlay();

    Ledger *m_ledger = nullptr;
    qint64 m_runA = 0;
    qint64 m_runB = 0;
    RolloutView m_rolloutA; // as shown, for the overlay (not read again)
    RolloutView m_rolloutB;
    QLabel *m_heading;
    QComboBox *m_picker;
    QCheckBox *m_overlay;
    FramePlayer *m_playerA;
    FramePlayer *m_playerB;
    TracesPlot *m_tracesA;
    TracesPlot *m_tracesB;
    TracesPlot *m_overlayTraces;
    QLabel *m_labelA;
    QLabel *m_labelB;
};

} // namespace kosmos::ui
