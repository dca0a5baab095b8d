#include "views/EvaluationView.h"

#include "judge/Calibration.h"
#include "ledger/Ledger.h"
#include "stats/Ranking.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace kosmos::ui {

namespace {

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

// Points with Wilson error bars on a QCustomPlot.
void plotRates(QCustomPlot *plot, const QVector<double> &x, const QVector<double> &rate,
               const QVector<double> &lowerErr, const QVector<double> &upperErr,
               const QColor &colour)
{
    auto *graph = plot->addGraph();
    graph->setData(x, rate);
    graph->setLineStyle(QCPGraph::lsNone);
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 7));
    auto *bars = new QCPErrorBars(plot->xAxis, plot->yAxis);
    bars->setDataPlottable(graph);
    bars->setData(lowerErr, upperErr);
    bars->setPen(QPen(colour));
}

} // namespace

EvaluationView::EvaluationView(QWidget *parent)
    : QWidget(parent), m_tabs(new QTabWidget(this)), m_calibrationJudge(new QComboBox(this)),
      m_labelSource(new QComboBox(this)), m_minLabels(new QSpinBox(this)),
      m_minSensitivity(new QDoubleSpinBox(this)), m_minSpecificity(new QDoubleSpinBox(this)),
      m_maxLeniency(new QDoubleSpinBox(this)), m_calibrationText(new QLabel(this)),
      m_reliability(new QCustomPlot(this)), m_auditA(new QComboBox(this)),
      m_auditB(new QComboBox(this)),
      m_auditTable(makeTable(this, {tr("Metric"), tr("A"), tr("B")})),
      m_flips(makeTable(this, {tr("Run"), tr("Field"), tr("A"), tr("B")})),
      m_auditPlot(new QCustomPlot(this)), m_protocol(new QComboBox(this)),
      m_outcomeSource(new QComboBox(this)),
      m_rates(makeTable(this, {tr("Policy"), tr("Success (Wilson 95%)"), tr("n")})),
      m_pairs(makeTable(this, {tr("Pair"), tr("Order"), tr("Bootstrap difference"),
                               tr("Exact bounds separate")})),
      m_rankingText(new QLabel(this)), m_ratesPlot(new QCustomPlot(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(m_tabs);

    // Calibration.
    auto *calibration = new QWidget(this);
    auto *calibrationForm = new QFormLayout;
    m_labelSource->addItem(tr("human labels"), QStringLiteral("human"));
    m_labelSource->addItem(tr("synthetic reference labels (NOT human)"),
                           QStringLiteral("synthetic_reference"));
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
    m_reliability->xAxis->setLabel(tr("judge success-vote share"));
    m_reliability->yAxis->setLabel(tr("label success rate"));
    m_reliability->setMinimumHeight(180);
    auto *calibrationSplit = new QSplitter(Qt::Horizontal, this);
    calibrationSplit->addWidget(m_calibrationText);
    calibrationSplit->addWidget(m_reliability);
    auto *calibrationLayout = new QVBoxLayout(calibration);
    calibrationLayout->addLayout(calibrationForm);
    calibrationLayout->addWidget(calibrationSplit, 1);
    m_tabs->addTab(calibration, tr("Calibration"));
    connect(m_calibrationJudge, &QComboBox::currentIndexChanged, this,
            &EvaluationView::updateCalibration);
    connect(m_labelSource, &QComboBox::currentIndexChanged, this,
            &EvaluationView::updateCalibration);
    connect(m_minLabels, &QSpinBox::valueChanged, this, &EvaluationView::updateCalibration);
    for (QDoubleSpinBox *box : {m_minSensitivity, m_minSpecificity, m_maxLeniency})
        connect(box, &QDoubleSpinBox::valueChanged, this, &EvaluationView::updateCalibration);

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
    m_tabs->addTab(audit, tr("Paired audit"));
    for (QComboBox *box : {m_auditA, m_auditB})
        connect(box, &QComboBox::currentIndexChanged, this, &EvaluationView::updateAudit);
    connect(m_flips, &QTableWidget::cellDoubleClicked, this,
            [this](int row) { emit runActivated(m_flips->item(row, 0)->text().toLongLong()); });

    // Ranking.
    auto *ranking = new QWidget(this);
    auto *rankingForm = new QFormLayout;
    m_outcomeSource->addItem(tr("judge outcomes"), QStringLiteral("judge"));
    m_outcomeSource->addItem(tr("synthetic reference labels"),
                             QStringLiteral("synthetic_reference"));
    m_outcomeSource->addItem(tr("human labels"), QStringLiteral("human"));
    rankingForm->addRow(tr("Protocol (rates are never pooled across protocols)"), m_protocol);
    rankingForm->addRow(tr("Success by"), m_outcomeSource);
    m_rankingText->setWordWrap(true);
    auto *rankingSplit = new QSplitter(Qt::Horizontal, this);
    auto *tables = new QSplitter(Qt::Vertical, this);
    tables->addWidget(m_rates);
    tables->addWidget(m_pairs);
    rankingSplit->addWidget(tables);
    rankingSplit->addWidget(m_ratesPlot);
    auto *rankingLayout = new QVBoxLayout(ranking);
    rankingLayout->addLayout(rankingForm);
    rankingLayout->addWidget(rankingSplit, 1);
    rankingLayout->addWidget(m_rankingText);
    m_tabs->addTab(ranking, tr("Ranking"));
    connect(m_protocol, &QComboBox::currentIndexChanged, this, &EvaluationView::updateRanking);
    connect(m_outcomeSource, &QComboBox::currentIndexChanged, this, &EvaluationView::updateRanking);
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
    for (QComboBox *box : {m_calibrationJudge, m_auditA, m_auditB, m_protocol}) {
        const QSignalBlocker block(box);
        box->clear();
    }
    if (!m_ledger)
        return;
    try {
        const auto configs = judgeConfigs(*m_ledger);
        for (std::size_t i = 0; i < configs.size(); ++i) {
            // The judge and its plugin settings first: what tells configurations apart.
            const auto &config = configs[i].settings;
            const std::string shown =
                config.is_object() && config.contains("settings")
                    ? configs[i].judge + " " + config["settings"].dump() + " quorum " +
                          config.value("quorum", nlohmann::json::object()).dump()
                    : configs[i].key;
            const QString label = QStringLiteral("%1: %2 (%3 judgments)")
                                      .arg(i + 1)
                                      .arg(QString::fromStdString(shown))
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
    text += tr("<p><b>Calibration gate: %1</b><br>").arg(r.gatePassed ? tr("PASS") : tr("FAIL"));
    for (const GateLine &line : r.gate)
        text += QStringLiteral("<span style='color:%1'>%2</span> %3: %4<br>")
                    .arg(line.pass ? QStringLiteral("#1a7f37") : QStringLiteral("#b00020"),
                         line.pass ? tr("pass") : tr("FAIL"),
                         QString::fromStdString(line.name).toHtmlEscaped(),
                         QString::fromStdString(line.figure).toHtmlEscaped());
    m_calibrationText->setText(text + QStringLiteral("</p>"));

    QVector<double> x, y, lo, hi;
    for (const ReliabilityBin &bin : r.reliability) {
        if (!bin.labelSuccess.rate)
            continue;
        x << (bin.from + bin.to) / 2;
        y << *bin.labelSuccess.rate;
        lo << *bin.labelSuccess.rate - *bin.labelSuccess.lower;
        hi << *bin.labelSuccess.upper - *bin.labelSuccess.rate;
    }
    plotRates(m_reliability, x, y, lo, hi, QColor(40, 90, 170));
    auto *diagonal = m_reliability->addGraph();
    diagonal->setData({0, 1}, {0, 1});
    diagonal->setPen(QPen(Qt::gray, 1, Qt::DashLine));
    m_reliability->xAxis->setRange(0, 1);
    m_reliability->yAxis->setRange(0, 1);
    m_reliability->replot();
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
    PairedAudit a;
    try {
        a = pairedAudit(*m_ledger, m_auditA->currentData().toString().toStdString(),
                        m_auditB->currentData().toString().toStdString());
    } catch (const std::exception &e) {
        setRow(m_auditTable, 0, {tr("error"), QString::fromUtf8(e.what()), QString()});
        return;
    }
    auto ratio = [](int k, int n) { return QStringLiteral("%1/%2").arg(k).arg(n); };
    int row = 0;
    setRow(m_auditTable, row++, {tr("clips judged by both"), QString::number(a.clips), QString()});
    setRow(m_auditTable, row++,
           {tr("schema-valid answers"), ratio(a.a.schemaValid, a.a.samples),
            ratio(a.b.schemaValid, a.b.samples)});
    setRow(m_auditTable, row++,
           {tr("bare JSON answers"), ratio(a.a.bareJson, a.a.samples),
            ratio(a.b.bareJson, a.b.samples)});
    setRow(m_auditTable, row++,
           {tr("mean generated tokens"), optional(a.a.meanTokens, 1), optional(a.b.meanTokens, 1)});
    setRow(m_auditTable, row++,
           {tr("mean decode time (ms)"), optional(a.a.meanDecodeMs, 0),
            optional(a.b.meanDecodeMs, 0)});
    for (const auto &[field, counts] : a.fieldAgreement)
        setRow(m_auditTable, row++,
               {tr("agreement: %1").arg(QString::fromStdString(field)),
                ratio(counts.first, counts.second), QString()});
    setRow(m_auditTable, row++,
           {tr("full semantic agreement"), ratio(a.fullAgreement, a.fullCompared), QString()});
    setRow(m_auditTable, row++,
           {tr("exact McNemar (decisive pairs)"),
            tr("p = %1 (n = %2; %3 vs %4)")
                .arg(a.mcnemar.pValue, 0, 'g', 4)
                .arg(a.decisivePairs)
                .arg(a.mcnemar.b)
                .arg(a.mcnemar.c),
            QString()});
    m_auditTable->resizeColumnsToContents();
    for (std::size_t i = 0; i < a.flips.size(); ++i)
        setRow(m_flips, static_cast<int>(i),
               {QString::number(a.flips[i].runId), QString::fromStdString(a.flips[i].field),
                QString::fromStdString(a.flips[i].a), QString::fromStdString(a.flips[i].b)});

    // Side by side: schema-valid and bare-JSON rates of A and B.
    auto *barsA = new QCPBars(m_auditPlot->xAxis, m_auditPlot->yAxis);
    auto *barsB = new QCPBars(m_auditPlot->xAxis, m_auditPlot->yAxis);
    auto share = [](int k, int n) { return n > 0 ? static_cast<double>(k) / n : 0.0; };
    barsA->setData({0.85, 1.85},
                   {share(a.a.schemaValid, a.a.samples), share(a.a.bareJson, a.a.samples)});
    barsB->setData({1.15, 2.15},
                   {share(a.b.schemaValid, a.b.samples), share(a.b.bareJson, a.b.samples)});
    barsA->setWidth(0.3);
    barsB->setWidth(0.3);
    barsA->setName(tr("A"));
    barsB->setName(tr("B"));
    barsA->setBrush(QColor(40, 90, 170));
    barsB->setBrush(QColor(200, 120, 0));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->addTick(1, tr("schema-valid"));
    ticker->addTick(2, tr("bare JSON"));
    m_auditPlot->xAxis->setTicker(ticker);
    m_auditPlot->xAxis->setRange(0.4, 2.6);
    m_auditPlot->yAxis->setRange(0, 1.05);
    m_auditPlot->legend->setVisible(true);
    m_auditPlot->replot();
}

void EvaluationView::updateRanking()
{
    m_rates->setRowCount(0);
    m_pairs->setRowCount(0);
    m_ratesPlot->clearPlottables();
    if (!m_ledger || m_protocol->count() == 0) {
        m_ratesPlot->replot();
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
    QVector<double> x, y, lo, hi;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    for (std::size_t i = 0; i < ranking.rates.size(); ++i) {
        const auto &[policy, p] = ranking.rates[i];
        setRow(m_rates, static_cast<int>(i),
               {QString::fromStdString(policy), interval(p), QString::number(p.n)});
        x << static_cast<double>(i + 1);
        y << *p.rate;
        lo << *p.rate - *p.lower;
        hi << *p.upper - *p.rate;
        ticker->addTick(static_cast<double>(i + 1), QString::number(i + 1));
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
                pair.exactSeparated ? tr("yes") : tr("no")});
    }
    m_rates->resizeColumnsToContents();
    m_pairs->resizeColumnsToContents();
    plotRates(m_ratesPlot, x, y, lo, hi, QColor(40, 90, 170));
    m_ratesPlot->xAxis->setTicker(ticker);
    m_ratesPlot->xAxis->setLabel(tr("policy (row in the table)"));
    m_ratesPlot->yAxis->setLabel(tr("success rate, Wilson 95%"));
    m_ratesPlot->xAxis->setRange(0.5, static_cast<double>(ranking.rates.size()) + 0.5);
    m_ratesPlot->yAxis->setRange(0, 1.05);
    m_ratesPlot->replot();
    m_rankingText->setText(
        tr("%1 episodes with a decisive outcome, %2 without (left out of the rates and counted "
           "here). An order is stated only when the task-stratified lineage bootstrap (2,000 "
           "replicates, seeded) and the Clopper-Pearson bounds both separate the pair. These are "
           "rollouts in a generated or synthetic world, not evidence of real robot-task success.")
            .arg(outcomes.episodes.size())
            .arg(outcomes.missing));
}

} // namespace kosmos::ui
