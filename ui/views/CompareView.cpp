#include "views/CompareView.h"

#include "ledger/Ledger.h"
#include "player/FramePlayer.h"
#include "player/TracesPlot.h"
#include "queries/JudgmentQuery.h"
#include "queries/RolloutQuery.h"

#include <QGridLayout>
#include <QLabel>

namespace kosmos::ui {

CompareView::CompareView(QWidget *parent)
    : QWidget(parent), m_playerA(new FramePlayer(this)), m_playerB(new FramePlayer(this)),
      m_tracesA(new TracesPlot(this)), m_tracesB(new TracesPlot(this)), m_labelA(new QLabel(this)),
      m_labelB(new QLabel(this))
{
    auto *grid = new QGridLayout(this);
    grid->addWidget(m_labelA, 0, 0);
    grid->addWidget(m_labelB, 0, 1);
    grid->addWidget(m_playerA, 1, 0);
    grid->addWidget(m_playerB, 1, 1);
    grid->addWidget(m_tracesA, 2, 0);
    grid->addWidget(m_tracesB, 2, 1);
    grid->setRowStretch(1, 3);
    grid->setRowStretch(2, 2);
    // One timeline: seeking either side moves both (seek() ignores the echo).
    connect(m_playerA, &FramePlayer::positionChanged, m_playerB, &FramePlayer::seek);
    connect(m_playerB, &FramePlayer::positionChanged, m_playerA, &FramePlayer::seek);
    connect(m_playerA, &FramePlayer::positionChanged, m_tracesA, &TracesPlot::setCursor);
    connect(m_playerB, &FramePlayer::positionChanged, m_tracesB, &TracesPlot::setCursor);
    connect(m_tracesA, &TracesPlot::seekRequested, m_playerA, &FramePlayer::seek);
    connect(m_tracesB, &TracesPlot::seekRequested, m_playerB, &FramePlayer::seek);
}

void CompareView::fill(Ledger &ledger, qint64 run, FramePlayer *player, TracesPlot *traces,
                       QLabel *label)
{
    const RolloutView rollout = loadRollout(ledger, run);
    player->setRollout(&ledger, rollout);
    traces->setRollout(rollout);
    const auto record = ledger.run(run);
    QString verdict = tr("no judgment");
    const auto judgments = judgmentsOfRun(ledger, run);
    if (!judgments.empty())
        verdict = tr("judge: %1").arg(QString::fromStdString(judgments.front().outcome));
    label->setText(tr("<b>Run %1</b> %2 - %3, validation %4")
                       .arg(run)
                       .arg(record ? QString::fromStdString(record->task.value_or("")) : QString())
                       .arg(verdict)
                       .arg(QString::fromStdString(rollout.validationVerdict.value_or("—"))));
}

void CompareView::compare(Ledger &ledger, qint64 runA, qint64 runB)
{
    fill(ledger, runA, m_playerA, m_tracesA, m_labelA);
    fill(ledger, runB, m_playerB, m_tracesB, m_labelB);
}

} // namespace kosmos::ui
