#include "plots/EvaluationPlots.h"

#include "evaluation/Calibration.h"
#include "evaluation/Fidelity.h"
#include "queries/ComponentLabels.h"
#include "stats/Ranking.h"

#include <QMap>
#include <qcustomplot.h>

namespace kosmos::ui {

namespace {

const QColor kBlue(40, 90, 170);
const QColor kOrange(200, 120, 0);

void reset(QCustomPlot *plot)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->legend->setVisible(false);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
}

// Points with Wilson error bars.
QCPGraph *ratesWithBars(QCustomPlot *plot, const QVector<double> &x, const QVector<double> &rate,
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
    return graph;
}

// Says in the plot why it shows nothing (rather than bare axes). Returns whether it did.
bool sayWhyEmpty(QCustomPlot *plot, bool empty, const QString &why)
{
    if (!empty)
        return false;
    auto *note = new QCPItemText(plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setPositionAlignment(Qt::AlignCenter);
    note->setText(why);
    note->setColor(QColor(90, 90, 90));
    note->setPadding(QMargins(6, 4, 6, 4));
    note->setBrush(QBrush(QColor(255, 255, 255, 230)));
    return true;
}

// Numbered labels beside points; points at the same place share one label ("1, 3, 4"), so
// the numbers never print over each other.
void numberPoints(QCustomPlot *plot, const QVector<double> &x, const QVector<double> &y,
                  const QVector<int> &numbers)
{
    QMap<QPair<long, long>, QStringList> at;
    QMap<QPair<long, long>, QPointF> where;
    for (int i = 0; i < x.size(); ++i) {
        const QPair<long, long> key{std::lround(x[i] * 200), std::lround(y[i] * 200)};
        at[key] << QString::number(numbers[i]);
        where[key] = {x[i], y[i]};
    }
    for (auto it = at.cbegin(); it != at.cend(); ++it) {
        auto *label = new QCPItemText(plot);
        label->position->setCoords(where[it.key()].x(), where[it.key()].y());
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        label->setText(QStringLiteral(" %1").arg(it.value().join(QStringLiteral(", "))));
    }
}

void diagonal(QCustomPlot *plot)
{
    auto *line = plot->addGraph();
    line->setData({0, 1}, {0, 1});
    line->setPen(QPen(Qt::gray, 1, Qt::DashLine));
}

} // namespace

void EvaluationPlots::reliability(QCustomPlot *plot, const CalibrationReport &report)
{
    reset(plot);
    QVector<double> x, y, lo, hi;
    for (const ReliabilityBin &bin : report.reliability) {
        if (!bin.labelSuccess.rate)
            continue;
        x << (bin.from + bin.to) / 2;
        y << *bin.labelSuccess.rate;
        lo << *bin.labelSuccess.rate - *bin.labelSuccess.lower;
        hi << *bin.labelSuccess.upper - *bin.labelSuccess.rate;
    }
    ratesWithBars(plot, x, y, lo, hi, kBlue);
    diagonal(plot);
    sayWhyEmpty(plot, x.isEmpty(),
                tr("No judged run has a label yet: label clips blind (View > Label clips blind)"));
    plot->xAxis->setLabel(tr("judge success-vote share"));
    plot->yAxis->setLabel(report.labelSource == "human" ? tr("human label success rate")
                                                        : tr("reference label success rate"));
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setRange(0, 1);
    plot->replot();
}

void EvaluationPlots::audit(QCustomPlot *plot, const PairedAudit &a)
{
    reset(plot);
    auto *barsA = new QCPBars(plot->xAxis, plot->yAxis);
    auto *barsB = new QCPBars(plot->xAxis, plot->yAxis);
    auto share = [](int k, int n) { return n > 0 ? static_cast<double>(k) / n : 0.0; };
    barsA->setData({0.85, 1.85},
                   {share(a.a.schemaValid, a.a.samples), share(a.a.bareJson, a.a.samples)});
    barsB->setData({1.15, 2.15},
                   {share(a.b.schemaValid, a.b.samples), share(a.b.bareJson, a.b.samples)});
    barsA->setWidth(0.3);
    barsB->setWidth(0.3);
    barsA->setName(tr("A"));
    barsB->setName(tr("B"));
    barsA->setBrush(kBlue);
    barsB->setBrush(kOrange);
    sayWhyEmpty(plot, a.a.samples == 0 && a.b.samples == 0,
                tr("No answers of two judge configurations on the same clips to compare"));
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    ticker->addTick(1, tr("schema-valid"));
    ticker->addTick(2, tr("bare JSON"));
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setLabel(QString());
    plot->yAxis->setLabel(tr("share of answers"));
    plot->xAxis->setRange(0.4, 2.6);
    plot->yAxis->setRange(0, 1.05);
    plot->legend->setVisible(true);
    plot->replot();
}

void EvaluationPlots::policyRates(QCustomPlot *plot, const PolicyRanking &ranking)
{
    reset(plot);
    QVector<double> x, y, lo, hi;
    QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
    // Policies are "adapter {settings}": named by what tells them apart (core's labels).
    std::vector<std::string> policies;
    for (const auto &entry : ranking.rates)
        policies.push_back(entry.first);
    const std::vector<std::string> names = labelsOfIdentityTexts(policies);
    for (std::size_t i = 0; i < ranking.rates.size(); ++i) {
        const Proportion &p = ranking.rates[i].second;
        if (!p.rate)
            continue;
        x << static_cast<double>(i + 1);
        y << *p.rate;
        lo << *p.rate - *p.lower;
        hi << *p.upper - *p.rate;
        // The policy by what tells it apart (the end elided when long; the table has it whole).
        ticker->addTick(static_cast<double>(i + 1),
                        QFontMetrics(plot->xAxis->tickLabelFont())
                            .elidedText(QString::fromStdString(names[i]), Qt::ElideRight, 160));
    }
    ratesWithBars(plot, x, y, lo, hi, kBlue);
    sayWhyEmpty(plot, x.isEmpty(), tr("No policy has a decided run yet"));
    plot->xAxis->setTicker(ticker);
    plot->xAxis->setTickLabelRotation(ranking.rates.size() > 3 ? 30 : 0);
    plot->xAxis->setLabel(tr("policy"));
    plot->yAxis->setLabel(tr("success rate, Wilson 95%"));
    plot->xAxis->setRange(0.5, static_cast<double>(ranking.rates.size()) + 0.5);
    plot->yAxis->setRange(0, 1.05);
    plot->replot();
}

void EvaluationPlots::reference(QCustomPlot *plot, const ReferenceComparison &comparison)
{
    reset(plot);
    QVector<double> x, y;
    QVector<int> numbers;
    for (std::size_t i = 0; i < comparison.matched.size(); ++i) {
        x << comparison.reference[i];
        y << comparison.simulated[i];
        numbers << static_cast<int>(i + 1);
    }
    numberPoints(plot, x, y, numbers);
    sayWhyEmpty(plot, x.isEmpty(), tr("No policy matched a reference rate"));
    auto *points = plot->addGraph();
    points->setData(x, y);
    points->setLineStyle(QCPGraph::lsNone);
    points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kOrange, kOrange, 8));
    diagonal(plot);
    plot->xAxis->setLabel(tr("reference success rate"));
    plot->yAxis->setLabel(tr("success rate here"));
    plot->xAxis->setRange(0, 1);
    plot->yAxis->setRange(0, 1);
    plot->replot();
}

void EvaluationPlots::fidelity(QCustomPlot *plot, const FidelityReport &report)
{
    reset(plot);
    QVector<double> x, y, xLo, xHi, yLo, yHi;
    QVector<int> numbers;
    for (std::size_t i = 0; i < report.policies.size(); ++i) {
        const auto &p = report.policies[i];
        if (!p.physics.rate || !p.imagined.rate)
            continue;
        x << *p.physics.rate;
        y << *p.imagined.rate;
        xLo << *p.physics.rate - *p.physics.lower;
        xHi << *p.physics.upper - *p.physics.rate;
        yLo << *p.imagined.rate - *p.imagined.lower;
        yHi << *p.imagined.upper - *p.imagined.rate;
        numbers << static_cast<int>(i + 1);
    }
    numberPoints(plot, x, y, numbers);
    sayWhyEmpty(plot, x.isEmpty(), tr("No policy has a rate in both worlds yet"));
    QCPGraph *points = ratesWithBars(plot, x, y, yLo, yHi, kOrange);
    auto *horizontal = new QCPErrorBars(plot->xAxis, plot->yAxis);
    horizontal->setErrorType(QCPErrorBars::etKeyError);
    horizontal->setDataPlottable(points);
    horizontal->setData(xLo, xHi);
    horizontal->setPen(QPen(kOrange));
    diagonal(plot);
    plot->xAxis->setLabel(tr("physics success rate (simulator state)"));
    plot->yAxis->setLabel(tr("world-model success rate (judged)"));
    plot->xAxis->setRange(-0.02, 1.02);
    plot->yAxis->setRange(-0.02, 1.02);
    plot->replot();
}

void EvaluationPlots::frameFidelity(QCustomPlot *plot, const FrameFidelityCurve &curve,
                                    const QString &against)
{
    reset(plot);
    QVector<double> steps, psnr, ssim;
    for (std::size_t i = 0; i < curve.psnrMean.size(); ++i) {
        steps << static_cast<double>(i + 1);
        psnr << curve.psnrMean[i];
        ssim << curve.ssimMean[i];
    }
    // The 95% bands first (drawn under the means), where the curve has them.
    const bool bands = curve.psnrLower.size() == curve.psnrMean.size() && !steps.isEmpty();
    auto band = [&](QCPAxis *axis, const std::vector<double> &lo, const std::vector<double> &hi,
                    const QColor &colour) {
        QVector<double> x, lower, upper;
        for (std::size_t i = 0; i < lo.size(); ++i)
            if (std::isfinite(lo[i]) && std::isfinite(hi[i])) {
                x << static_cast<double>(i + 1);
                lower << lo[i];
                upper << hi[i];
            }
        auto *l = plot->addGraph(plot->xAxis, axis);
        l->setData(x, lower);
        l->setPen(Qt::NoPen);
        l->removeFromLegend();
        auto *u = plot->addGraph(plot->xAxis, axis);
        u->setData(x, upper);
        u->setPen(Qt::NoPen);
        QColor fill = colour;
        fill.setAlpha(50);
        u->setBrush(fill);
        u->setChannelFillGraph(l);
        u->removeFromLegend();
    };
    if (bands) {
        band(plot->yAxis, curve.psnrLower, curve.psnrUpper, kBlue);
        band(plot->yAxis2, curve.ssimLower, curve.ssimUpper, kOrange);
    }
    auto *p = plot->addGraph(plot->xAxis, plot->yAxis);
    p->setData(steps, psnr);
    p->setPen(QPen(kBlue, 2));
    p->setName(bands ? tr("PSNR (dB), 95% band") : tr("PSNR (dB)"));
    plot->yAxis2->setVisible(true);
    auto *s = plot->addGraph(plot->xAxis, plot->yAxis2);
    s->setData(steps, ssim);
    s->setPen(QPen(kOrange, 2));
    s->setName(bands ? tr("SSIM, 95% band") : tr("SSIM"));
    plot->legend->setVisible(!steps.isEmpty());
    sayWhyEmpty(plot, steps.isEmpty(),
                tr("No replay compared yet: Compare frames replays physics actions in the world "
                   "model"));
    plot->xAxis->setLabel(against.isEmpty() ? tr("step (open-loop replay of physics actions)")
                                            : against);
    plot->yAxis->setLabel(tr("PSNR (dB)"));
    plot->yAxis2->setLabel(tr("SSIM"));
    plot->xAxis->setRange(0, std::max(1.0, static_cast<double>(steps.size()) + 1.0));
    plot->yAxis->rescale();
    plot->yAxis2->setRange(0, 1);
    plot->replot();
}

} // namespace kosmos::ui
