#pragma once

#include "evaluation/Fidelity.h"

#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QProcess;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace kosmos {
class Ledger;
}

namespace kosmos::ui {

// The Evaluation view's Fidelity tab: a learned world model against the physics reference
// (core/evaluation/Fidelity.h, the figures of kosmos-cli fidelity): the scatter of world-model
// against physics success rates with intervals both ways, the per-policy table, the correlations
// with bootstrap intervals and the per-episode agreement, computed here from the open ledger. The
// open-loop frame comparison loads the world model, which the workstation never does itself: it
// runs kosmos-cli fidelity --json and plots the PSNR/SSIM curve it returns; "Against
// recordings..." does the same with a LeRobot dataset's recorded episodes (fidelity replay).
class FidelityPanel : public QWidget
{
    Q_OBJECT
public:
    explicit FidelityPanel(QWidget *parent = nullptr);
    void setLedger(Ledger *ledger);
    void setCliPath(const QString &cliPath);
    // Lists the protocols; proposes the newest "...-imagined" one and the physics one it names.
    void refresh();

    QComboBox *physicsProtocol() const { return m_physics; }
    QComboBox *imaginedProtocol() const { return m_imagined; }
    // Whose verdicts count: the protocols' own judge (the first item) or a judge configuration
    // of the ledger, its own or re-judging the recorded rollouts (FidelityOptions::judgeConfig).
    QComboBox *judgeConfiguration() const { return m_judge; }
    QTableWidget *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }
    QPushButton *framesButton() const { return m_framesButton; }
    QLabel *framesSummary() const { return m_framesText; }

    QPushButton *recordingsButton() const { return m_recordingsButton; }
    QCustomPlot *framesPlot() const { return m_frames; }
    // The last curve plotted (from either comparison).
    const FrameFidelityCurve &frameCurve() const { return m_curve; }

public slots:
    void update();
    void compareFrames();
    // Against recordings: a LeRobot dataset's recorded actions replayed open loop in a world
    // model (kosmos-cli fidelity replay DATASET --world-model CONFIG --json), the PSNR/SSIM curve
    // against the recorded frames with its 95% bands. Asks for both when called without them.
    void compareWithRecordings(const QString &dataset = {}, const QString &worldModelConfig = {});

signals:
    void framesCompared(); // a comparison ended (its curve plotted, or why not said)

private:
    // The goals docs/fidelity.md states, each met or not, as rich text for the summary.
    // The closed-loop split's line (FidelityReport::closedLoop), or why there is none.
    QString splitText(const FidelityReport &report, const QString &error);
    QString goalsText(const FidelityReport &report); // sets the summary's tooltip

    Ledger *m_ledger = nullptr;
    QString m_cliPath;
    QComboBox *m_physics;
    QComboBox *m_imagined;
    QComboBox *m_judge;
    QTableWidget *m_table;
    QLabel *m_summary;
    QCustomPlot *m_scatter;
    QSpinBox *m_replays;
    QPushButton *m_framesButton;
    QPushButton *m_recordingsButton;
    FrameFidelityCurve m_curve;
    QLabel *m_framesText;
    QCustomPlot *m_frames;
    QProcess *m_process = nullptr;
};

} // namespace kosmos::ui
