#include "views/CompareView.h"

#include "ledger/Ledger.h"
#include "player/FramePlayer.h"
#include "player/TracesPlot.h"
#include "queries/JudgmentQuery.h"
#include "queries/RolloutQuery.h"
#include "queries/SameStart.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace kosmos::ui {

CompareView::CompareView(QWidget *parent)
    : QWidget(parent), m_heading(new QLabel(this)), m_picker(new QComboBox(this)),
      m_overlay(new QCheckBox(tr("Overlay traces"), this)), m_playerA(new FramePlayer(this)),
      m_playerB(new FramePlayer(this)), m_tracesA(new TracesPlot(this)),
      m_tracesB(new TracesPlot(this)), m_overlayTraces(new TracesPlot(this)),
      m_labelA(new QLabel(this)), m_labelB(new QLabel(this))
{
    m_picker->setObjectName(QStringLiteral("comparePicker"));
    m_picker->setMinimumContentsLength(40);
    m_picker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_picker->setToolTip(tr("Runs of the same instruction: from the same start first (other "
                            "policies, then other world models, then repeats), then other starts"));
    m_overlay->setToolTip(tr("Draw both runs' actions on shared axes (the other run dashed)"));
    m_heading->setText(tr("Choose a run in Review, then compare it here (or select two runs and "
                          "choose Compare)."));
    m_heading->setWordWrap(true);
    auto *bar = new QHBoxLayout;
    bar->addWidget(m_heading, 1);
    bar->addWidget(new QLabel(tr("Compare with:"), this));
    bar->addWidget(m_picker, 2);
    bar->addWidget(m_overlay);
    m_labelA->setWordWrap(true);
    m_labelB->setWordWrap(true);
    auto *grid = new QGridLayout;
    grid->addWidget(m_labelA, 0, 0);
    grid->addWidget(m_labelB, 0, 1);
    grid->addWidget(m_playerA, 1, 0);
    grid->addWidget(m_playerB, 1, 1);
    grid->addWidget(m_tracesA, 2, 0);
    grid->addWidget(m_tracesB, 2, 1);
    grid->addWidget(m_overlayTraces, 2, 0, 1, 2);
    grid->setRowStretch(1, 3);
    grid->setRowStretch(2, 2);
    m_overlayTraces->hide();
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addLayout(grid, 1);
    // One timeline: seeking either side moves both (seek() ignores the echo).
    connect(m_playerA, &FramePlayer::positionChanged, m_playerB, &FramePlayer::seek);
    connect(m_playerB, &FramePlayer::positionChanged, m_playerA, &FramePlayer::seek);
    connect(m_playerA, &FramePlayer::positionChanged, m_tracesA, &TracesPlot::setCursor);
    connect(m_playerB, &FramePlayer::positionChanged, m_tracesB, &TracesPlot::setCursor);
    connect(m_playerA, &FramePlayer::positionChanged, m_overlayTraces, &TracesPlot::setCursor);
    connect(m_tracesA, &TracesPlot::seekRequested, m_playerA, &FramePlayer::seek);
    connect(m_tracesB, &TracesPlot::seekRequested, m_playerB, &FramePlayer::seek);
    connect(m_overlayTraces, &TracesPlot::seekRequested, m_playerA, &FramePlayer::seek);
    // Zooming one side's traces zooms the other's: one timeline.
    auto syncZoom = [](TracesPlot *from, TracesPlot *to) {
        connect(from, &TracesPlot::visibleRangeChanged, to, [to](double a, double b) {
            if (to->visibleRange() != qMakePair(a, b))
                to->setVisibleRange(a, b);
        });
    };
    syncZoom(m_tracesA, m_tracesB);
    syncZoom(m_tracesB, m_tracesA);
    connect(m_picker, &QComboBox::currentIndexChanged, this, [this](int index) {
        const qint64 other = m_picker->itemData(index).toLongLong();
        if (m_ledger && m_runA > 0 && other > 0)
            compare(*m_ledger, m_runA, other);
    });
    connect(m_overlay, &QCheckBox::toggled, this, [this] { showOverlay(); });
}

RolloutView CompareView::fill(Ledger &ledger, qint64 run, FramePlayer *player, TracesPlot *traces,
                              QLabel *label)
{
    RolloutView rollout = loadRollout(ledger, run);
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
    return rollout;
}

void CompareView::fillPicker(Ledger &ledger, qint64 runA)
{
    const QSignalBlocker blocker(m_picker);
    m_picker->clear();
    for (const CompareCandidate &c : compareCandidates(ledger, runA)) {
        QString why = c.matchedBy == "start_state" ? tr("same start state")
                      : c.matchedBy == "seed"      ? tr("same seed")
                                                   : tr("another start");
        if (!c.matchedBy.empty())
            why += c.otherPolicy       ? tr(", other policy")
                   : c.otherWorldModel ? tr(", other world model")
                                       : tr(", same components");
        m_picker->addItem(tr("run %1 - %2 (%3; %4)")
                              .arg(c.runId)
                              .arg(QString::fromStdString(c.policy).simplified().left(48), why,
                                   QString::fromStdString(c.status)),
                          QVariant::fromValue<qint64>(c.runId));
        m_picker->setItemData(
            m_picker->count() - 1,
            tr("policy: %1\nworld model: %2")
                .arg(QString::fromStdString(c.policy), QString::fromStdString(c.worldModel)),
            Qt::ToolTipRole);
    }
    m_picker->setEnabled(m_picker->count() > 0);
    if (m_picker->count() == 0)
        m_picker->addItem(tr("no other run of this instruction"));
}

void CompareView::compare(Ledger &ledger, qint64 runA, qint64 runB)
{
    if (m_ledger != &ledger || m_runA != runA)
        fillPicker(ledger, runA);
    m_ledger = &ledger;
    m_runA = runA;
    m_runB = runB;
    {
        const QSignalBlocker blocker(m_picker);
        const int index = m_picker->findData(QVariant::fromValue<qint64>(runB));
        if (index >= 0)
            m_picker->setCurrentIndex(index);
    }
    m_heading->setText(
        tr("<b>Run %1</b> beside <b>run %2</b>, on one timeline").arg(runA).arg(runB));
    m_rolloutA = fill(ledger, runA, m_playerA, m_tracesA, m_labelA);
    m_rolloutB = fill(ledger, runB, m_playerB, m_tracesB, m_labelB);
    showOverlay();
}

bool CompareView::compareWithBest(Ledger &ledger, qint64 runA)
{
    const auto candidates = compareCandidates(ledger, runA, 1);
    if (candidates.empty()) {
        clear();
        m_ledger = &ledger;
        m_runA = runA;
        fillPicker(ledger, runA);
        m_heading->setText(
            tr("Run %1 has no other run of its instruction to compare with.").arg(runA));
        return false;
    }
    compare(ledger, runA, candidates.front().runId);
    return true;
}

void CompareView::showOverlay()
{
    const bool on = m_overlay->isChecked() && m_ledger && m_runA > 0 && m_runB > 0;
    m_tracesA->setVisible(!on);
    m_tracesB->setVisible(!on);
    m_overlayTraces->setVisible(on);
    if (!on)
        return;
    m_overlayTraces->setRollout(m_rolloutA);
    m_overlayTraces->setOverlay(m_rolloutB, tr("run %1").arg(m_runA), tr("run %1").arg(m_runB));
    m_overlayTraces->setCursor(m_playerA->position());
}

void CompareView::clear()
{
    m_playerA->clear();
    m_playerB->clear();
    m_tracesA->clear();
    m_tracesB->clear();
    m_overlayTraces->clear();
    m_labelA->clear();
    m_labelB->clear();
    m_ledger = nullptr;
    m_runA = 0;
    m_runB = 0;
    m_rolloutA = {};
    m_rolloutB = {};
    const QSignalBlocker blocker(m_picker);
    m_picker->clear();
    m_heading->setText(tr("Choose a run in Review, then compare it here (or select two runs and "
                          "choose Compare)."));
}

} // namespace kosmos::ui
