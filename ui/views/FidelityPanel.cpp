#include "views/FidelityPanel.h"

#include "evaluation/Calibration.h"
#include "evaluation/Fidelity.h"
#include "ledger/Ledger.h"
#include "plots/EvaluationPlots.h"
#include "util/BoundedJson.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

namespace kosmos::ui {

namespace {

QString stat(const IntervalStat &s)
{
    if (!s.value)
        return QStringLiteral("n/a");
    QString out = QString::number(*s.value, 'f', 3);
    if (s.lower && s.upper)
        out += QStringLiteral(" [%1, %2]").arg(*s.lower, 0, 'f', 3).arg(*s.upper, 0, 'f', 3);
    return out;
}

QString rate(const Proportion &p)
{
    return QString::fromStdString(intervalText(p)) + QStringLiteral("  n = %1").arg(p.n);
}

// kosmos-cli's reply, read like any outside input: bounded size and depth; null when it is not
// JSON (the caller then shows the process's error output).
nlohmann::json cliReply(const QByteArray &out, const std::string &what)
{
    try {
        json::Limits limits;
        limits.maxBytes = 8u << 20;
        limits.maxDepth = 16;
        return json::parseBounded(out.toStdString(), what, limits);
    } catch (const std::exception &) {
        return nullptr;
    }
}

} // namespace

FidelityPanel::FidelityPanel(QWidget *parent)
    : QWidget(parent), m_physics(new QComboBox(this)), m_imagined(new QComboBox(this)),
      m_judge(new QComboBox(this)), m_table(new QTableWidget(0, 6, this)),
      m_summary(new QLabel(this)), m_scatter(new QCustomPlot(this)), m_replays(new QSpinBox(this)),
      m_framesButton(new QPushButton(tr("Compare frames (kosmos-cli)"), this)),
      m_recordingsButton(new QPushButton(tr("Against recordings..."), this)),
      m_framesText(new QLabel(this)), m_frames(new QCustomPlot(this))
{
    auto *form = new QFormLayout;
    form->addRow(tr("Physics protocol (ground truth)"), m_physics);
    form->addRow(tr("Imagined protocol (world model, judged)"), m_imagined);
    form->addRow(tr("Judged by"), m_judge);
    m_judge->setToolTip(
        tr("Whose verdicts count, on both sides: the protocols' own judge, or another judge "
           "configuration of this ledger, whether the runs' own or re-judging their recorded "
           "rollouts (kosmos-cli judge --all ... --judge J.json; kosmos-cli fidelity --config)"));
    m_table->setHorizontalHeaderLabels({tr("#"), tr("Policy"), tr("Physics (Wilson 95%)"),
                                        tr("World model (Wilson 95%)"), tr("Unknown"),
                                        tr("Lenient / harsh")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setTextElideMode(Qt::ElideMiddle);
    m_table->setWordWrap(false);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_scatter->setMinimumHeight(200);
    m_frames->setMinimumHeight(160);
    m_replays->setRange(1, 1000);
    m_replays->setValue(20);
    m_replays->setToolTip(tr("Physics starts whose actions are replayed open loop in the world "
                             "model (kosmos-cli fidelity --replays)"));
    m_framesText->setWordWrap(true);
    auto *framesRow = new QHBoxLayout;
    framesRow->addWidget(new QLabel(tr("Open-loop replays:"), this));
    framesRow->addWidget(m_replays);
    framesRow->addWidget(m_framesButton);
    m_recordingsButton->setToolTip(
        tr("Replay a LeRobot dataset's recorded actions open loop in a world model and compare "
           "its frames with the recorded ones (kosmos-cli fidelity replay)"));
    m_recordingsButton->setEnabled(false); // until kosmos-cli is known
    framesRow->addWidget(m_recordingsButton);
    framesRow->addWidget(m_framesText, 1);
    // The summary (spread, correlations, orders, per-episode agreement, goals) scrolls when the
    // window is too short for it.
    auto *summaryScroll = new QScrollArea(this);
    summaryScroll->setWidget(m_summary);
    summaryScroll->setWidgetResizable(true);
    summaryScroll->setFrameShape(QFrame::NoFrame);
    m_summary->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    auto *left = new QSplitter(Qt::Vertical, this);
    left->addWidget(m_table);
    left->addWidget(summaryScroll);
    left->setStretchFactor(0, 1);
    left->setStretchFactor(1, 1);
    left->setSizes({300, 300}); // eight policies' rows, and the summary without scrolling
    auto *right = new QSplitter(Qt::Vertical, this);
    right->addWidget(m_scatter);
    right->addWidget(m_frames);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    split->setSizes({700, 500});
    m_table->setMinimumWidth(200);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(split, 1);
    layout->addLayout(framesRow);
    for (QComboBox *box : {m_physics, m_imagined, m_judge})
        connect(box, &QComboBox::currentIndexChanged, this, &FidelityPanel::update);
    connect(m_framesButton, &QPushButton::clicked, this, &FidelityPanel::compareFrames);
    connect(m_recordingsButton, &QPushButton::clicked, this, [this] { compareWithRecordings(); });
}

void FidelityPanel::setCliPath(const QString &cliPath)
{
    m_cliPath = cliPath;
    m_recordingsButton->setEnabled(!m_cliPath.isEmpty()); // needs no ledger
}

void FidelityPanel::setLedger(Ledger *ledger)
{
    m_ledger = ledger;
    // Nothing of the previous ledger stays: its frame comparison belongs to its protocols.
    m_frames->clearGraphs();
    m_frames->clearItems();
    m_frames->replot();
    m_framesText->clear();
    refresh();
}

void FidelityPanel::refresh()
{
    {
        const QSignalBlocker a(m_physics), b(m_imagined), c(m_judge);
        const QString judge = m_judge->currentData().toString(); // kept when still there
        m_physics->clear();
        m_imagined->clear();
        m_judge->clear();
        m_judge->addItem(tr("the protocols' own judge"), QString());
        if (m_ledger) {
            try {
                const auto configs = judgeConfigs(*m_ledger);
                for (std::size_t i = 0; i < configs.size(); ++i)
                    m_judge->addItem(tr("%1: %2 (%3 judgments)")
                                         .arg(i + 1)
                                         .arg(QString::fromStdString(judgeConfigLabel(configs[i])))
                                         .arg(configs[i].judgments),
                                     QString::fromStdString(configs[i].key));
                m_judge->setCurrentIndex(std::max(0, m_judge->findData(judge)));
                auto labelOf = [](const std::string &name, const std::string &sha) {
                    return QStringLiteral("%1  (%2)")
                        .arg(QString::fromStdString(name),
                             QString::fromStdString(sha.substr(0, 12)));
                };
                // The ground truth side offers only protocols with physics labels.
                for (const auto &[name, sha] : physicsProtocols(*m_ledger))
                    m_physics->addItem(labelOf(name, sha), QString::fromStdString(sha));
                for (const auto &[name, sha] : rolloutProtocols(*m_ledger)) {
                    const QString label = labelOf(name, sha);
                    m_imagined->addItem(label, QString::fromStdString(sha));
                    if (name.ends_with("-imagined")) {
                        m_imagined->setCurrentIndex(m_imagined->count() - 1);
                        const int physics = m_physics->findText(
                            QString::fromStdString(name.substr(0, name.size() - 9)) +
                                QStringLiteral("  ("),
                            Qt::MatchStartsWith);
                        if (physics >= 0)
                            m_physics->setCurrentIndex(physics);
                    }
                }
                // Studies with policies added later on the same starts: each side's protocols
                // as one entry (their SHA-256s), chosen when there is one.
                for (const FidelityGroup &group : fidelityGroups(*m_ledger)) {
                    auto add = [&](QComboBox *box, const auto &protocols) {
                        QStringList names, shas;
                        for (const auto &[name, sha] : protocols) {
                            names << QString::fromStdString(name);
                            shas << QString::fromStdString(sha);
                        }
                        box->addItem(names.join(QStringLiteral(" + ")), shas);
                        box->setCurrentIndex(box->count() - 1);
                    };
                    add(m_physics, group.physics);
                    add(m_imagined, group.imagined);
                }
            } catch (const std::exception &e) {
                m_summary->setText(QString::fromUtf8(e.what()).toHtmlEscaped());
            }
        }
    }
    update();
}

void FidelityPanel::update()
{
    m_table->setRowCount(0);
    m_summary->setToolTip(QString()); // the goals' statements, set again with a report
    m_scatter->clearPlottables();
    m_scatter->clearItems();
    m_scatter->replot();
    m_framesButton->setEnabled(false);
    if (!m_ledger || m_physics->count() == 0 || m_imagined->count() < 2) {
        m_summary->setText(
            (m_ledger && m_physics->count() == 0
                 ? tr("<b>No protocol of this ledger has physics labels</b>, so there is no "
                      "ground truth to compare a world model against. ")
                 : QString()) +
            tr("Fidelity compares two protocols of this ledger: policies in the "
               "physics world and the same policies from the same starts in a "
               "learned world model (kosmos-cli fidelity prepare; docs/fidelity.md)."));
        return;
    }
    const QStringList physics = m_physics->currentData().toStringList();
    const QStringList imagined = m_imagined->currentData().toStringList();
    if (physics.isEmpty() || imagined.isEmpty()) { // nothing chosen on a side
        m_summary->setText(tr("Choose the physics protocol (ground truth) and the imagined one "
                              "(world model, judged)."));
        return;
    }
    if (std::any_of(physics.begin(), physics.end(),
                    [&](const QString &sha) { return imagined.contains(sha); })) {
        m_summary->setText(tr("Choose two different protocols: the physics one (ground truth) and "
                              "the imagined one (world model, judged)."));
        return;
    }
    FidelityOptions options;
    options.physicsProtocol = physics.front().toStdString();
    options.imaginedProtocol = imagined.front().toStdString();
    for (qsizetype i = 1; i < physics.size(); ++i)
        options.alsoPhysics.push_back(physics[i].toStdString());
    for (qsizetype i = 1; i < imagined.size(); ++i)
        options.alsoImagined.push_back(imagined[i].toStdString());
    options.judgeConfig = m_judge->currentData().toString().toStdString();
    // The imagined runs' actions replayed in physics (kosmos-cli fidelity prepare --in-physics),
    // when every imagined protocol chosen has them: the report then splits its disagreement.
    // Replays it refuses leave the report without the split, said so.
    std::vector<std::string> imaginedShas;
    for (const QString &sha : imagined)
        imaginedShas.push_back(sha.toStdString());
    options.inPhysicsProtocols = inPhysicsReplaysOf(*m_ledger, imaginedShas);
    QString splitError;
    auto report = [&] {
        try {
            return fidelityReport(*m_ledger, options);
        } catch (const std::exception &e) {
            if (options.inPhysicsProtocols.empty())
                throw;
            splitError = QString::fromUtf8(e.what());
            options.inPhysicsProtocols.clear();
            return fidelityReport(*m_ledger, options);
        }
    };
    try {
        const FidelityReport r = report();
        m_table->setRowCount(static_cast<int>(r.policies.size()));
        for (std::size_t i = 0; i < r.policies.size(); ++i) {
            const auto &p = r.policies[i];
            const int row = static_cast<int>(i);
            m_table->setItem(row, 0, new QTableWidgetItem(QString::number(i + 1)));
            // The mark first: the column elides in the middle.
            auto *name = new QTableWidgetItem((p.openLoopReplay ? tr("[open loop] ") : QString()) +
                                              QString::fromStdString(policyDisplayName(p.policy)));
            name->setToolTip(
                QString::fromStdString(p.policy) +
                (p.openLoopReplay
                     ? tr("\n\nIn the world model, the actions this policy took in physics from "
                          "each start were replayed open loop: it reads the simulator's state, "
                          "which a world model does not give, or the imagined protocol was "
                          "prepared with --open-loop. Its world-model rate says whether the "
                          "world model and judge see success in those actions, not how it would "
                          "react to imagined frames.")
                     : QString()));
            m_table->setItem(row, 1, name);
            m_table->setItem(row, 2, new QTableWidgetItem(rate(p.physics)));
            m_table->setItem(row, 3, new QTableWidgetItem(rate(p.imagined)));
            auto *missing = new QTableWidgetItem(
                QStringLiteral("%1 (%2 invalid)").arg(p.imaginedMissing).arg(p.imaginedInvalid));
            missing->setToolTip(tr("Imagined runs without a verdict; of them, rollouts that failed "
                                   "validation and were never judged"));
            m_table->setItem(row, 4, missing);
            m_table->setItem(
                row, 5,
                new QTableWidgetItem(QStringLiteral("%1 / %2").arg(p.lenient).arg(p.harsh)));
        }
        m_table->resizeColumnsToContents();
        // The rates are what the table is for: a long policy name is elided in the middle (its
        // tooltip has it whole) rather than pushing them out of sight.
        m_table->setColumnWidth(1, std::min(m_table->columnWidth(1), 280));
        EvaluationPlots::fidelity(m_scatter, r);
        const RateSpread &spread = r.physicsSpread;
        QString spreadText =
            tr("Spread in physics: %1 distinguishable level(s) of %2 policies, %3 at 0%, %4 at "
               "100%; physics states %5 of %6 pairwise orders.")
                .arg(spread.levels)
                .arg(spread.policies)
                .arg(spread.atZero)
                .arg(spread.atHundred)
                .arg(spread.orderedPairs)
                .arg(spread.pairs);
        if (!r.correlationsInformative())
            spreadText += QStringLiteral("<br><b style='color:#b00020'>%1</b> %2")
                              .arg(tr("NOT INFORMATIVE:"),
                                   tr("the correlations and MMRV below say nothing about this "
                                      "world model's fidelity: %1.")
                                       .arg(QString::fromStdString(spread.whyNotInformative())
                                                .toHtmlEscaped()));
        if (!r.judgeConfig.empty())
            spreadText.prepend(
                tr("<b>Judged by %1</b> (each run's latest judgment by it, its own or a "
                   "re-judgment of the recorded rollout); rollouts it has not judged, without a "
                   "verdict: %2 imagined, %3 physics.<br>")
                    .arg(QString::fromStdString(r.judgeConfig).toHtmlEscaped())
                    .arg(r.imaginedNotJudgedByConfig)
                    .arg(r.physicsNotJudgedByConfig));
        m_summary->setText(
            spreadText + QStringLiteral("<br>") +
            tr("<b>%1 paired episodes</b> (same policy, same start); unpaired %2 physics, %3 "
               "imagined.<br>Across the policies with a rate in both worlds, 95% bootstrap over "
               "starts (%4 replicates): "
               "<b>Pearson %5</b>, Spearman %6, <b>MMRV %7</b> (lower is better; it rests on the "
               "pairwise orders physics states). Anchors: "
               "WorldGym r = 0.78; SC3-Eval Pearson 0.929, MMRV 0.119.<br>Pairwise orders: %8 "
               "the same, %9 opposite, %10 indeterminate in a world.<br>Per episode: agreement "
               "%11 (n = %12), world-model success when physics failed %13, failure when physics "
               "succeeded %14.<br><i>Both worlds are simulations: this is agreement with a "
               "physics reference, not evidence of real robot-task success.</i>")
                .arg(r.pairs.size())
                .arg(r.unpairedPhysics)
                .arg(r.unpairedImagined)
                .arg(r.replicates)
                .arg(stat(r.pearson), stat(r.spearman), stat(r.mmrv))
                .arg(r.pairsSameOrder)
                .arg(r.pairsOppositeOrder)
                .arg(r.pairsIndeterminate)
                .arg(QString::fromStdString(intervalText(r.agreement)))
                .arg(r.agreement.n)
                .arg(r.confusion[0][1])
                .arg(r.confusion[1][0]) +
            splitText(r, splitError) + goalsText(r));
        m_framesButton->setEnabled(!m_cliPath.isEmpty());
    } catch (const std::exception &e) {
        m_summary->setText(tr("Cannot compare these protocols: %1")
                               .arg(QString::fromUtf8(e.what()).toHtmlEscaped()));
    }
}

QString FidelityPanel::splitText(const FidelityReport &r, const QString &error)
{
    if (!error.isEmpty())
        return QStringLiteral("<br>") +
               tr("The imagined actions replayed in physics cannot split this comparison: %1")
                   .arg(error.toHtmlEscaped());
    const ClosedLoopSplit &s = r.closedLoop;
    if (s.protocols.empty())
        return QString();
    const QString kappa = s.kappa.kappa ? QString::number(*s.kappa.kappa, 'f', 3) : tr("n/a");
    return QStringLiteral("<br>") +
           tr("<b>Where the disagreement comes from</b> (%1: each policy's actions in the world "
              "model replayed in physics): of %2 pairs, %3 the policy acted otherwise on imagined "
              "frames, %4 the world model or the judge erred on the very actions (%5 lenient, %6 "
              "harsh), %7 agree by two errors that cancel; on its own actions the world model "
              "agrees with physics %8 (kappa %9). A diagnosis, counted for no goal.")
               .arg(QString::fromStdString(s.name).toHtmlEscaped())
               .arg(s.triples)
               .arg(s.reaction)
               .arg(s.worldJudge)
               .arg(s.worldLenient)
               .arg(s.worldHarsh)
               .arg(s.cancelled)
               .arg(QString::fromStdString(intervalText(s.agreement)), kappa) +
           (s.worldJudgeJudged > 0
                ? QStringLiteral(" ") +
                      tr("Of those errors on the very actions, the judge makes the same call on "
                         "the physics frames of the actions in %1 of %2 (its own error on real "
                         "frames).")
                          .arg(s.judgeRepeats)
                          .arg(s.worldJudgeJudged)
                : QString());
}

QString FidelityPanel::goalsText(const FidelityReport &r)
{
    // One line a goal (what was measured); what each asks and its anchors are in the tooltip.
    QString out = QStringLiteral("<br><b>%1</b> %2")
                      .arg(tr("Goals"), tr("(docs/fidelity.md; hover for each goal and its "
                                           "anchors):"));
    QString tip;
    for (const FidelityGoal &g : fidelityGoals(r)) {
        const QString mark = !g.met ? tr("undecided") : *g.met ? tr("met") : tr("not met");
        const QString colour = !g.met   ? QStringLiteral("#555555")
                               : *g.met ? QStringLiteral("#1b5e20")
                                        : QStringLiteral("#b00020");
        const QString id = QString::fromStdString(g.id);
        out += QStringLiteral("<br>&nbsp;&nbsp;<b style='color:%1'>[%2]</b> %3: %4")
                   .arg(colour, mark, id, QString::fromStdString(g.measured).toHtmlEscaped());
        tip += QStringLiteral("<p><b>%1</b>: %2<br><i>%3</i> %4</p>")
                   .arg(id, QString::fromStdString(g.statement).toHtmlEscaped(), tr("anchors:"),
                        QString::fromStdString(g.anchors).toHtmlEscaped());
    }
    m_summary->setToolTip(tip);
    return out;
}

void FidelityPanel::compareFrames()
{
    if (!m_ledger || m_cliPath.isEmpty() ||
        (m_process && m_process->state() != QProcess::NotRunning))
        return;
    if (!m_process)
        m_process = new QProcess(this);
    m_process->disconnect();
    m_framesText->setText(tr("Replaying %1 starts in the world model...").arg(m_replays->value()));
    m_framesButton->setEnabled(false);
    connect(m_process, &QProcess::finished, this, [this](int code) {
        m_framesButton->setEnabled(true);
        const QByteArray out = m_process->readAllStandardOutput();
        const nlohmann::json doc = cliReply(out, "kosmos-cli fidelity --json");
        if (code != 0 || !doc.is_object() || !doc.contains("frame_fidelity")) {
            m_framesText->setText(
                tr("kosmos-cli fidelity failed: %1")
                    .arg(QString::fromUtf8(m_process->readAllStandardError()).trimmed()));
            return;
        }
        m_curve = frameFidelityFromJson(doc["frame_fidelity"]);
        const FrameFidelityCurve &curve = m_curve;
        EvaluationPlots::frameFidelity(m_frames, curve);
        m_framesText->setText(
            curve.psnrMean.empty()
                ? tr("No replay: no paired physics episode with frames and actions.")
                : tr("%1 replays: PSNR %2 dB after the first step, %3 dB at step %4; SSIM %5 -> "
                     "%6.")
                      .arg(curve.episodes)
                      .arg(curve.psnrMean.front(), 0, 'f', 2)
                      .arg(curve.psnrMean.back(), 0, 'f', 2)
                      .arg(curve.psnrMean.size())
                      .arg(curve.ssimMean.front(), 0, 'f', 3)
                      .arg(curve.ssimMean.back(), 0, 'f', 3));
        emit framesCompared();
    });
    QStringList arguments = {QStringLiteral("fidelity"),
                             QString::fromStdString(m_ledger->bundle().string())};
    for (const QString &sha : m_physics->currentData().toStringList())
        arguments << QStringLiteral("--physics") << sha;
    for (const QString &sha : m_imagined->currentData().toStringList())
        arguments << QStringLiteral("--imagined") << sha;
    if (const QString judge = m_judge->currentData().toString(); !judge.isEmpty())
        arguments << QStringLiteral("--config") << judge;
    arguments << QStringLiteral("--replays") << QString::number(m_replays->value())
              << QStringLiteral("--json");
    m_process->start(m_cliPath, arguments);
}

void FidelityPanel::compareWithRecordings(const QString &datasetGiven, const QString &configGiven)
{
    if (m_cliPath.isEmpty() || (m_process && m_process->state() != QProcess::NotRunning))
        return;
    QString dataset = datasetGiven;
    QString config = configGiven;
    if (dataset.isEmpty())
        dataset = QFileDialog::getExistingDirectory(
            this, tr("A LeRobot dataset whose recorded episodes the world model replays"));
    if (dataset.isEmpty())
        return;
    if (config.isEmpty())
        config = QFileDialog::getOpenFileName(
            this, tr("The world model's configuration ({\"plugin\", \"settings\"})"), QString(),
            tr("JSON (*.json)"));
    if (config.isEmpty())
        return;
    if (!m_process)
        m_process = new QProcess(this);
    m_process->disconnect();
    m_framesText->setText(tr("Replaying the recorded episodes of %1 in the world model...")
                              .arg(QDir::toNativeSeparators(dataset)));
    m_framesButton->setEnabled(false);
    m_recordingsButton->setEnabled(false);
    connect(m_process, &QProcess::finished, this, [this, dataset](int code) {
        m_framesButton->setEnabled(m_ledger != nullptr);
        m_recordingsButton->setEnabled(true);
        const QByteArray out = m_process->readAllStandardOutput();
        const nlohmann::json doc = cliReply(out, "kosmos-cli fidelity replay --json");
        if (code != 0 || !doc.is_object() || !doc.contains("frame_fidelity")) {
            m_framesText->setText(
                tr("kosmos-cli fidelity replay failed: %1")
                    .arg(QString::fromUtf8(m_process->readAllStandardError()).trimmed()));
            emit framesCompared();
            return;
        }
        m_curve = frameFidelityFromJson(doc["frame_fidelity"]);
        EvaluationPlots::frameFidelity(
            m_frames, m_curve,
            tr("step (open-loop replay of recorded actions, against the recorded frames)"));
        const auto at = [&](const std::vector<double> &v, std::size_t i) {
            return i < v.size() && std::isfinite(v[i]) ? QString::number(v[i], 'f', 2)
                                                       : QStringLiteral("n/a");
        };
        const std::size_t last = m_curve.psnrMean.empty() ? 0 : m_curve.psnrMean.size() - 1;
        m_framesText->setText(
            m_curve.psnrMean.empty()
                ? tr("No replay: no episode of %1 has two frames.").arg(dataset)
                : tr("%1 recorded episodes of %2: PSNR %3 dB [%4, %5] after the first step, %6 "
                     "dB [%7, %8] at step %9 (mean, 95% interval over episodes); how well the "
                     "world model predicts recorded video, not evidence of success.")
                      .arg(m_curve.episodes)
                      .arg(QFileInfo(dataset).fileName())
                      .arg(at(m_curve.psnrMean, 0), at(m_curve.psnrLower, 0),
                           at(m_curve.psnrUpper, 0), at(m_curve.psnrMean, last),
                           at(m_curve.psnrLower, last), at(m_curve.psnrUpper, last))
                      .arg(last + 1));
        emit framesCompared();
    });
    m_process->start(m_cliPath,
                     {QStringLiteral("fidelity"), QStringLiteral("replay"), dataset,
                      QStringLiteral("--world-model"), config, QStringLiteral("--json")});
}

} // namespace kosmos::ui
