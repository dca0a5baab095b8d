#include "views/EvaluationView.h"

#include "Vocabulary.h"
#include "views/FidelityPanel.h"

#include "evaluation/Calibration.h"
#include "evaluation/EvaluationRecord.h"
#include "ledger/Ledger.h"
#include "plots/EvaluationPlots.h"
#include "report/ReportWriter.h"
#include "stats/Ranking.h"
#include "util/Error.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace kosmos::ui {

namespace {

QString verdictColour(GateVerdict verdict)
{
    return verdict == GateVerdict::Pass   ? QStringLiteral("#1a7f37")
           : verdict == GateVerdict::Fail ? QStringLiteral("#b00020")
                                          : QStringLiteral("#9a6700");
}

QString verdictWord(GateVerdict verdict)
{
    return verdict == GateVerdict::Pass ? QCoreApplication::translate("EvaluationView", "pass")
           : verdict == GateVerdict::Fail
               ? QCoreApplication::translate("EvaluationView", "FAIL")
               : QCoreApplication::translate("EvaluationView", "inconclusive");
}

QString interval(const Proportion &p)
{
    if (!p.rate)
        return EvaluationView::tr("n = 0 (no rate)");
    return QStringLiteral("%1/%2 = %3% [95% CI %4-%5%]")
        .arg(p.successes)
        .arg(p.n)
        .arg(*p.rate * 100, 0, 'f', 0)
        .arg(*p.lower * 100, 0, 'f', 0)
        .arg(*p.upper * 100, 0, 'f', 0);
}

QString optional(const std::optional<double> &v, int decimals = 3)
{
    return v ? QString::number(*v, 'f', decimals) : QStringLiteral("n/a");
}

void setRow(QTableWidget *table, int row, const QStringList &cells)
{
    if (table->rowCount() <= row)
        table->setRowCount(row + 1);
    for (int c = 0; c < cells.size(); ++c)
        table->setItem(row, c, new QTableWidgetItem(cells[c]));
}

QTableWidget *makeTable(QWidget *parent, const QStringList &headers)
{
    auto *t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setHorizontalHeaderLabels(headers);
    t->horizontalHeader()->setStretchLastSection(true);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    return t;
}

} // namespace

EvaluationView::EvaluationView(QWidget *parent)
    : QWidget(parent), m_tabs(new QTabWidget(this)), m_calibrationJudge(new QComboBox(this)),
      m_labelSource(new QComboBox(this)), m_minLabels(new QSpinBox(this)),
      m_minSensitivity(new QDoubleSpinBox(this)), m_minSpecificity(new QDoubleSpinBox(this)),
      m_maxLeniency(new QDoubleSpinBox(this)), m_calibrationText(new QLabel(this)),
      m_reliability(new QCustomPlot(this)), m_annotatorA(new QComboBox(this)),
      m_annotatorB(new QComboBox(this)), m_agreementSplit(new QComboBox(this)),
      m_agreementText(new QLabel(this)), m_auditA(new QComboBox(this)),
      m_auditB(new QComboBox(this)),
      m_auditTable(makeTable(this, {tr("Metric"), tr("A"), tr("B")})),
      m_flips(makeTable(this, {tr("Run"), tr("Field"), tr("A"), tr("B")})),
      m_auditPlot(new QCustomPlot(this)), m_protocol(new QComboBox(this)),
      m_outcomeSource(new QComboBox(this)),
      m_rates(makeTable(this, {tr("Policy"), tr("Success (Wilson 95%)"), tr("n")})),
      m_pairs(makeTable(this, {tr("Pair"), tr("Order"), tr("Bootstrap difference"),
                               tr("Test (Holm-adjusted)"), tr("What would separate them")})),
      m_rankingText(new QLabel(this)), m_ratesPlot(new QCustomPlot(this)),
      m_cells(makeTable(this, {tr("Policy"), tr("Task"), tr("Decisive (Wilson 95%)"), tr("Missing"),
                               tr("Worst / best case")})),
      m_referenceButton(new QPushButton(tr("Reference rates..."), this)),
      m_referenceText(new QLabel(this)), m_referencePlot(new QCustomPlot(this)),
      m_exportButton(new QPushButton(tr("Export evaluation record..."), this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_tabs);
    auto *exportRow = new QHBoxLayout;
    exportRow->addStretch(1);
    m_exportButton->setToolTip(
        tr("The chosen protocol's record as HTML (plots embedded) and PDF: protocol hash, "
           "components, rates with n and intervals, calibration and gate, the audit, and what "
           "the numbers do and do not support."));
    exportRow->addWidget(m_exportButton);
    layout->addLayout(exportRow);
    connect(m_exportButton, &QPushButton::clicked, this, &EvaluationView::chooseReportFile);

    m_tabs->addTab(buildCalibrationTab(), tr("Calibration"));
    m_tabs->addTab(buildAuditTab(), tr("Paired audit"));
    m_tabs->addTab(buildRankingTab(), tr("Ranking"));
    m_fidelity = new FidelityPanel(this);
    m_tabs->addTab(m_fidelity, tr("Fidelity"));
}

QWidget *EvaluationView::buildCalibrationTab()
{
    // Calibration.
    auto *calibration = new QWidget(this);
    auto *calibrationForm = new QFormLayout;
    m_labelSource->addItem(tr("human labels"), QStringLiteral("human"));
    m_labelSource->addItem(tr("synthetic reference labels (NOT human)"),
                           QStringLiteral("synthetic_reference"));
    m_labelSource->addItem(tr("physics ground truth (simulator state, NOT human)"),
                           QStringLiteral("physics"));
    m_minLabels->setRange(1, 100000);
    m_minLabels->setValue(20);
    for (QDoubleSpinBox *box : {m_minSensitivity, m_minSpecificity, m_maxLeniency}) {
        box->setRange(0, 1);
        box->setSingleStep(0.05);
        box->setDecimals(2);
    }
    m_minSensitivity->setValue(0.8);
    m_minSpecificity->setValue(0.8);
    m_maxLeniency->setValue(0.1);
    calibrationForm->addRow(tr("Judge configuration"), m_calibrationJudge);
    calibrationForm->addRow(tr("Against"), m_labelSource);
    auto *gateRow = new QHBoxLayout;
    gateRow->addWidget(new QLabel(tr("gate: labels >="), this));
    gateRow->addWidget(m_minLabels);
    gateRow->addWidget(new QLabel(tr("sensitivity >="), this));
    gateRow->addWidget(m_minSensitivity);
    gateRow->addWidget(new QLabel(tr("specificity >="), this));
    gateRow->addWidget(m_minSpecificity);
    gateRow->addWidget(new QLabel(tr("|leniency| <="), this));
    gateRow->addWidget(m_maxLeniency);
    calibrationForm->addRow(gateRow);
    m_calibrationText->setTextFormat(Qt::RichText);
    m_calibrationText->setWordWrap(true);
    m_calibrationText->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_reliability->setMinimumHeight(180);
    auto *calibrationSplit = new QSplitter(Qt::Horizontal, this);
    calibrationSplit->addWidget(m_calibrationText);
    calibrationSplit->addWidget(m_reliability);
    auto *calibrationLayout = new QVBoxLayout(calibration);
    calibrationLayout->addLayout(calibrationForm);
    calibrationLayout->addWidget(calibrationSplit, 1);
    // Two human annotators on the clips both labelled (held-out clips by default).
    auto *agreementRow = new QHBoxLayout;
    agreementRow->addWidget(new QLabel(tr("Annotator agreement:"), this));
    agreementRow->addWidget(m_annotatorA, 1);
    agreementRow->addWidget(m_annotatorB, 1);
    m_agreementSplit->addItem(tr("held-out clips"), QStringLiteral("held_out"));
    m_agreementSplit->addItem(tr("development clips"), QStringLiteral("development"));
    m_agreementSplit->addItem(tr("all clips"), QStringLiteral("all"));
    agreementRow->addWidget(m_agreementSplit);
    calibrationLayout->addLayout(agreementRow);
    m_agreementText->setWordWrap(true);
    m_agreementText->setTextFormat(Qt::RichText);
    calibrationLayout->addWidget(m_agreementText);
    for (QComboBox *box : {m_annotatorA, m_annotatorB, m_agreementSplit})
        connect(box, &QComboBox::currentIndexChanged, this, &EvaluationView::updateAgreement);
    connect(m_minLabels, &QSpinBox::valueChanged, this, &EvaluationView::updateAgreement);
    connect(m_calibrationJudge, &QComboBox::currentIndexChanged, this,
            &EvaluationView::updateCalibration);
    connect(m_labelSource, &QComboBox::currentIndexChanged, this,
            &EvaluationView::updateCalibration);
    connect(m_minLabels, &QSpinBox::valueChanged, this, &EvaluationView::updateCalibration);
    for (QDoubleSpinBox *box : {m_minSensitivity, m_minSpecificity, m_maxLeniency})
        connect(box, &QDoubleSpinBox::valueChanged, this, &EvaluationView::updateCalibration);

    return calibration;
}

QWidget *EvaluationView::buildAuditTab()
{
    // Paired audit.
    auto *audit = new QWidget(this);
    auto *auditForm = new QFormLayout;
    auditForm->addRow(tr("A"), m_auditA);
    auditForm->addRow(tr("B"), m_auditB);
    auto *auditSplit = new QSplitter(Qt::Horizontal, this);
    auditSplit->addWidget(m_auditTable);
    auditSplit->addWidget(m_auditPlot);
    auto *auditLayout = new QVBoxLayout(audit);
    auditLayout->addLayout(auditForm);
    auditLayout->addWidget(auditSplit, 2);
    auditLayout->addWidget(new QLabel(tr("Flips (double-click to open the run):"), this));
    auditLayout->addWidget(m_flips, 1);
    for (QComboBox *box : {m_auditA, m_auditB})
        connect(box, &QComboBox::currentIndexChanged, this, &EvaluationView::updateAudit);
    connect(m_flips, &QTableWidget::cellDoubleClicked, this,
            [this](int row) { emit runActivated(m_flips->item(row, 0)->text().toLongLong()); });

    return audit;
}

QWidget *EvaluationView::buildRankingTab()
{
    // Ranking.
    auto *ranking = new QWidget(this);
    auto *rankingForm = new QFormLayout;
    m_outcomeSource->addItem(tr("judge outcomes"), QStringLiteral("judge"));
    m_outcomeSource->addItem(tr("synthetic reference labels"),
                             QStringLiteral("synthetic_reference"));
    m_outcomeSource->addItem(tr("physics ground truth (simulator state)"),
                             QStringLiteral("physics"));
    m_outcomeSource->addItem(tr("human labels"), QStringLiteral("human"));
    rankingForm->addRow(tr("Protocol (rates are never pooled across protocols)"), m_protocol);
    rankingForm->addRow(tr("Success by"), m_outcomeSource);
    m_rankingText->setWordWrap(true);
    auto *rankingSplit = new QSplitter(Qt::Horizontal, this);
    auto *tables = new QSplitter(Qt::Vertical, this);
    tables->addWidget(m_rates);
    tables->addWidget(m_pairs);
    tables->addWidget(m_cells);
    rankingSplit->addWidget(tables);
    auto *plots = new QSplitter(Qt::Vertical, this);
    plots->addWidget(m_ratesPlot);
    auto *referencePane = new QWidget(this);
    auto *referenceLayout = new QVBoxLayout(referencePane);
    referenceLayout->setContentsMargins(0, 0, 0, 0);
    auto *referenceRow = new QHBoxLayout;
    m_referenceButton->setToolTip(tr("A CSV of \"policy,rate\" lines, e.g. real-robot success "
                                     "rates: Pearson, Spearman and MMRV against the rates here."));
    referenceRow->addWidget(m_referenceButton);
    referenceRow->addWidget(m_referenceText, 1);
    m_referenceText->setWordWrap(true);
    m_referenceText->setText(tr("No reference rates loaded."));
    referenceLayout->addLayout(referenceRow);
    referenceLayout->addWidget(m_referencePlot, 1);
    m_referencePlot->setMinimumHeight(140);
    m_referencePlot->hide();
    plots->addWidget(referencePane);
    rankingSplit->addWidget(plots);
    connect(m_referenceButton, &QPushButton::clicked, this, &EvaluationView::chooseReferenceRates);
    auto *rankingLayout = new QVBoxLayout(ranking);
    rankingLayout->addLayout(rankingForm);
    rankingLayout->addWidget(rankingSplit, 1);
    rankingLayout->addWidget(m_rankingText);
    connect(m_protocol, &QComboBox::currentIndexChanged, this, &EvaluationView::updateRanking);
    connect(m_outcomeSource, &QComboBox::currentIndexChanged, this, &EvaluationView::updateRanking);
    return ranking;
}

void EvaluationView::setCliPath(const QString &cliPath)
{
    m_fidelity->setCliPath(cliPath);
}

void EvaluationView::setLedger(Ledger *ledger)
{
    m_ledger = ledger;
    m_stale = true;
    if (isVisible())
        refresh();
}

void EvaluationView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void EvaluationView::refresh()
{
    m_stale = false;
    m_fidelity->setLedger(m_ledger);
    for (QComboBox *box : {m_calibrationJudge, m_auditA, m_auditB, m_protocol}) {
        const QSignalBlocker block(box);
        box->clear();
    }
    if (!m_ledger)
        return;
    try {
        const auto configs = judgeConfigs(*m_ledger);
        for (std::size_t i = 0; i < configs.size(); ++i) {
            const QString label = tr("%1: %2 (%3 judgments)")
                                      .arg(i + 1)
                                      .arg(QString::fromStdString(judgeConfigLabel(configs[i])))
                                      .arg(configs[i].judgments);
            for (QComboBox *box : {m_calibrationJudge, m_auditA, m_auditB}) {
                const QSignalBlocker block(box);
                box->addItem(label, QString::fromStdString(configs[i].key));
            }
        }
        {
            const QSignalBlocker block(m_auditB);
            m_auditB->setCurrentIndex(std::min(1, m_auditB->count() - 1));
        }
        // No human label yet: start on the reference labels (marked as not human) rather than
        // on an empty page; the choice stays the user's.
        const QSignalBlocker blockSource(m_labelSource);
        m_labelSource->setCurrentIndex(hasHumanLabels(*m_ledger) ? 0 : 1);
        for (QComboBox *box : {m_annotatorA, m_annotatorB}) {
            const QSignalBlocker blockAnnotator(box);
            box->clear();
            for (const auto &[who, clips] : humanAnnotators(*m_ledger))
                box->addItem(tr("%1 (%2 clips)").arg(QString::fromStdString(who)).arg(clips),
                             QString::fromStdString(who));
        }
        {
            const QSignalBlocker blockAnnotator(m_annotatorB);
            m_annotatorB->setCurrentIndex(std::min(1, m_annotatorB->count() - 1));
        }
        const QSignalBlocker block(m_protocol);
        for (const auto &[name, sha] : rolloutProtocols(*m_ledger))
            m_protocol->addItem(
                QStringLiteral("%1 (%2)").arg(QString::fromStdString(name),
                                              QString::fromStdString(sha.substr(0, 12))),
                QString::fromStdString(sha));
    } catch (const std::exception &e) {
        m_calibrationText->setText(
            tr("Cannot read the judgments: %1").arg(QString::fromUtf8(e.what())));
        return;
    }
    updateCalibration();
    updateAgreement();
    updateAudit();
    updateRanking();
}

void EvaluationView::updateCalibration()
{
    m_reliability->clearPlottables();
    if (!m_ledger || m_calibrationJudge->count() == 0) {
        m_calibrationText->setText(tr("No judgments in this ledger: nothing to calibrate."));
        m_reliability->replot();
        return;
    }
    CalibrationGate gate;
    gate.minLabels = m_minLabels->value();
    gate.minSensitivity = m_minSensitivity->value();
    gate.minSpecificity = m_minSpecificity->value();
    gate.maxLeniency = m_maxLeniency->value();
    CalibrationReport r;
    try {
        r = calibrate(*m_ledger, m_calibrationJudge->currentData().toString().toStdString(),
                      m_labelSource->currentData().toString().toStdString(), gate);
    } catch (const std::exception &e) {
        m_calibrationText->setText(QString::fromUtf8(e.what()));
        return;
    }
    const auto &b = r.binary;
    const bool reference = r.labelSource != "human";
    QString text;
    if (reference)
        text += tr("<p style='color:#8a5a00'><b>Against synthetic reference labels</b> from a "
                   "world that knows its true state: not human labels.</p>");
    if (!r.emptyReason.empty())
        text += QStringLiteral("<p><b>%1</b></p>").arg(QString::fromStdString(r.emptyReason));
    text += tr("<p>%1 labelled clips: %2 decisive pairs, %3 indecisive.</p>")
                .arg(r.labeledClips)
                .arg(b.pairs)
                .arg(b.indecisive);
    text +=
        tr("<table border=1 cellpadding=3><tr><th></th><th>label success</th><th>label "
           "failure</th></tr><tr><th>judge success</th><td>%1</td><td>%2</td></tr><tr><th>judge "
           "failure</th><td>%3</td><td>%4</td></tr></table>")
            .arg(b.truePositive)
            .arg(b.falsePositive)
            .arg(b.falseNegative)
            .arg(b.trueNegative);
    text += tr("<p>agreement %1<br>sensitivity %2<br>specificity %3<br>kappa %4 (n = %5), "
               "progress weighted kappa %6 (n = %7)<br>leniency offset %8</p>")
                .arg(interval(b.agreement), interval(b.sensitivity), interval(b.specificity),
                     optional(b.kappa.kappa))
                .arg(b.pairs)
                .arg(optional(r.progressKappa.kappa))
                .arg(r.progressKappa.n)
                .arg(optional(b.leniencyOffset));
    text += tr("<p><b>Calibration gate: %1</b><br>").arg(verdictWord(r.gateVerdict).toUpper());
    for (const GateLine &line : r.gate)
        text += QStringLiteral("<span style='color:%1'>%2</span> %3<br>")
                    .arg(verdictColour(line.verdict), verdictWord(line.verdict),
                         gateLineWords(line).toHtmlEscaped());
    text +=
        QStringLiteral("<i>%1</i>").arg(QString::fromStdString(pointValuesText(r)).toHtmlEscaped());
    m_calibrationText->setText(text + QStringLiteral("</p>"));

    EvaluationPlots::reliability(m_reliability, r);
}

void EvaluationView::updateAudit()
{
    m_auditTable->setRowCount(0);
    m_flips->setRowCount(0);
    m_auditPlot->clearPlottables();
    if (!m_ledger || m_auditA->count() == 0) {
        m_auditPlot->replot();
        return;
    }
    // One configuration (or the same chosen twice) is not an audit: say what is needed.
    if (m_auditA->count() < 2 || m_auditA->currentIndex() == m_auditB->currentIndex()) {
        setRow(m_auditTable, 0,
               {tr("needs two configurations"),
                m_auditA->count() < 2
                    ? tr("This ledger has one judge configuration. Judge the same rollouts with "
                         "another: select them in Review, right-click > Judge again with another "
                         "judge... (or kosmos-cli judge --all --judge CONFIG.json), then choose it "
                         "as B.")
                    : tr("A and B are the same configuration: choose another as B."),
                QString()});
        m_auditTable->resizeColumnsToContents();
        m_auditPlot->replot();
        return;
    }
    PairedAudit a;
    try {
        a = pairedAudit(*m_ledger, m_auditA->currentData().toString().toStdString(),
                        m_auditB->currentData().toString().toStdString());
    } catch (const std::exception &e) {
        setRow(m_auditTable, 0, {tr("error"), QString::fromUtf8(e.what()), QString()});
        return;
    }
    int row = 0;
    setRow(m_auditTable, row++, {tr("clips judged by both"), QString::number(a.clips), QString()});
    // The rows are core's (auditRows); the metric names are translated where a translation
    // exists (context EvaluationView), per-field rows by their prefix.
    for (const AuditRow &r : auditRows(a)) {
        QString metric = QCoreApplication::translate("EvaluationView", r.metric.c_str());
        if (r.metric.rfind("agreement: ", 0) == 0)
            metric = tr("agreement: %1").arg(QString::fromStdString(r.metric.substr(11)));
        setRow(m_auditTable, row++,
               {metric, QString::fromStdString(r.a), QString::fromStdString(r.b)});
    }
    m_auditTable->resizeColumnsToContents();
    for (std::size_t i = 0; i < a.flips.size(); ++i)
        setRow(m_flips, static_cast<int>(i),
               {QString::number(a.flips[i].runId), QString::fromStdString(a.flips[i].field),
                QString::fromStdString(a.flips[i].a), QString::fromStdString(a.flips[i].b)});

    // Side by side: schema-valid and bare-JSON rates of A and B.
    EvaluationPlots::audit(m_auditPlot, a);
}

void EvaluationView::updateRanking()
{
    m_rates->setRowCount(0);
    m_pairs->setRowCount(0);
    m_cells->setRowCount(0);
    m_ratesPlot->clearPlottables();
    if (!m_ledger || m_protocol->count() == 0) {
        m_ratesPlot->replot();
        m_referencePlot->hide();
        return;
    }
    ProtocolOutcomes outcomes;
    PolicyRanking ranking;
    try {
        outcomes = protocolOutcomes(*m_ledger, m_protocol->currentData().toString().toStdString(),
                                    m_outcomeSource->currentData().toString().toStdString());
        if (!outcomes.episodes.empty())
            ranking = rankPolicies(outcomes.episodes, 2000);
    } catch (const std::exception &e) {
        m_rankingText->setText(QString::fromUtf8(e.what()));
        return;
    }
    for (std::size_t i = 0; i < ranking.rates.size(); ++i) {
        const auto &[policy, p] = ranking.rates[i];
        setRow(m_rates, static_cast<int>(i),
               {QString::fromStdString(policy), interval(p), QString::number(p.n)});
    }
    for (std::size_t i = 0; i < ranking.pairs.size(); ++i) {
        const PairOrder &pair = ranking.pairs[i];
        const QString order = pair.verdict == PairOrder::Verdict::ABetter   ? tr("first better")
                              : pair.verdict == PairOrder::Verdict::BBetter ? tr("second better")
                                                                            : tr("indeterminate");
        setRow(m_pairs, static_cast<int>(i),
               {QString::fromStdString(pair.a + "  vs  " + pair.b), order,
                QStringLiteral("%1 [%2, %3]")
                    .arg(pair.difference.observed, 0, 'f', 3)
                    .arg(pair.difference.lower, 0, 'f', 3)
                    .arg(pair.difference.upper, 0, 'f', 3),
                QString::fromStdString(pairTestText(pair)),
                QString::fromStdString(separationText(ranking, pair))});
    }
    // Per policy and task, with the episodes that have no decisive outcome kept in view.
    const auto cells = cellRates(outcomes.episodes, outcomes.missingEpisodes);
    for (std::size_t i = 0; i < cells.size(); ++i)
        setRow(m_cells, static_cast<int>(i),
               {QString::fromStdString(cells[i].policy), QString::fromStdString(cells[i].task),
                interval(cells[i].decisive), QString::number(cells[i].missing),
                QStringLiteral("%1% / %2%")
                    .arg(cells[i].worstCase * 100, 0, 'f', 0)
                    .arg(cells[i].bestCase * 100, 0, 'f', 0)});
    m_rates->resizeColumnsToContents();
    m_pairs->resizeColumnsToContents();
    m_cells->resizeColumnsToContents();
    EvaluationPlots::policyRates(m_ratesPlot, ranking);
    m_rankingText->setText(
        tr("<b>%3</b><br>%1 episodes with a decisive outcome, %2 without (left out of the rates "
           "and counted here; the worst / best case per cell counts them as failures / "
           "successes). %4 These are rollouts in a generated or synthetic world, not evidence of "
           "real robot-task success.")
            .arg(outcomes.episodes.size())
            .arg(outcomes.missing)
            .arg(QString::fromStdString(rankingHeader(ranking)).toHtmlEscaped(),
                 QString::fromUtf8(kPairOrderRule)));
    if (m_referenceRates.empty()) {
        m_referencePlot->hide();
        return;
    }
    const ReferenceComparison c = compareWithReference(ranking, m_referenceRates);
    QStringList matched;
    for (std::size_t i = 0; i < c.matched.size(); ++i)
        matched << QStringLiteral("%1: %2").arg(i + 1).arg(QString::fromStdString(c.matched[i]));
    m_referenceText->setText(
        tr("%1: %2 matched, %3 unmatched. Pearson %4, Spearman %5, MMRV %6 (n = %7).")
            .arg(QFileInfo(m_referenceName).fileName())
            .arg(c.matched.size())
            .arg(c.unmatched.size())
            .arg(optional(c.pearson), optional(c.spearman), optional(c.mmrv))
            .arg(c.matched.size()));
    m_referenceText->setToolTip(matched.join(QLatin1Char('\n')));
    EvaluationPlots::reference(m_referencePlot, c);
    m_referencePlot->show();
}

void EvaluationView::updateAgreement()
{
    if (!m_ledger || m_annotatorA->count() < 2) {
        m_agreementText->setText(
            tr("Agreement between annotators needs two people who labelled the same clips "
               "(%1 annotator(s) here).")
                .arg(m_annotatorA->count()));
        return;
    }
    try {
        const AnnotatorAgreement a = annotatorAgreement(
            *m_ledger, m_annotatorA->currentData().toString().toStdString(),
            m_annotatorB->currentData().toString().toStdString(),
            m_agreementSplit->currentData().toString().toStdString(), m_minLabels->value());
        QString text;
        if (!a.emptyReason.empty())
            text += QStringLiteral("<b>%1</b><br>").arg(QString::fromStdString(a.emptyReason));
        text += tr("%1 clips labelled by both: completion agreement %2, kappa %3 (n = %4); "
                   "progress weighted kappa %5 (n = %6); %7 disagreement(s).")
                    .arg(a.clips)
                    .arg(interval(a.completion.agreement), optional(a.completion.kappa.kappa))
                    .arg(a.completion.pairs)
                    .arg(optional(a.progressKappa.kappa))
                    .arg(a.progressKappa.n)
                    .arg(a.disagreements.size());
        m_agreementText->setText(text);
    } catch (const std::exception &e) {
        m_agreementText->setText(QString::fromUtf8(e.what()).toHtmlEscaped());
    }
}

bool EvaluationView::loadReferenceRates(const QString &path)
{
    try {
        m_referenceRates = readReferenceRates(path.toStdString());
        m_referenceName = path;
    } catch (const std::exception &e) {
        m_referenceRates.clear();
        m_referenceName.clear();
        m_referenceText->setText(QString::fromUtf8(e.what()));
        m_referencePlot->hide();
        return false;
    }
    updateRanking();
    return true;
}

void EvaluationView::chooseReferenceRates()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Reference success rates"), QString(), tr("CSV files (*.csv);;All files (*)"));
    if (!path.isEmpty())
        loadReferenceRates(path);
}

QString EvaluationView::exportReport(const QString &htmlPath, const QString &pdfPath)
{
    if (!m_ledger || m_protocol->count() == 0)
        return tr("No protocol with rollouts in this ledger: nothing to report.");
    try {
        EvaluationRecordOptions options;
        options.protocol = m_protocol->currentData().toString().toStdString();
        options.outcomeSource = m_outcomeSource->currentData().toString().toStdString();
        options.judgeKey = m_calibrationJudge->currentData().toString().toStdString();
        options.gate.minLabels = m_minLabels->value();
        options.gate.minSensitivity = m_minSensitivity->value();
        options.gate.minSpecificity = m_minSpecificity->value();
        options.gate.maxLeniency = m_maxLeniency->value();
        if (m_auditA->count() > 1 && m_auditA->currentIndex() != m_auditB->currentIndex())
            options.auditKeys = {m_auditA->currentData().toString().toStdString(),
                                 m_auditB->currentData().toString().toStdString()};
        options.referenceRates = m_referenceRates;
        options.referenceName = m_referenceName.toStdString();
        writeEvaluationReport(buildEvaluationRecord(*m_ledger, options), htmlPath, pdfPath);
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

void EvaluationView::chooseReportFile()
{
    QString path =
        QFileDialog::getSaveFileName(this, tr("Export evaluation record"),
                                     QStringLiteral("evaluation-record.html"), tr("HTML (*.html)"));
    if (path.isEmpty())
        return;
    if (!path.endsWith(QLatin1String(".html"), Qt::CaseInsensitive))
        path += QStringLiteral(".html");
    const QString pdf = path.left(path.size() - 5) + QStringLiteral(".pdf");
    const QString error = exportReport(path, pdf);
    if (error.isEmpty())
        QMessageBox::information(this, tr("Export evaluation record"),
                                 tr("Evaluation record written:\n%1\n%2").arg(path, pdf));
    else
        QMessageBox::warning(this, tr("Export evaluation record"),
                             tr("Could not export the evaluation record: %1").arg(error));
}

} // namespace kosmos::ui
