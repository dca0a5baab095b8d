#include "report/ReportWriter.h"

#include "evaluation/EvaluationRecord.h"
#include "plots/EvaluationPlots.h"
#include "util/Error.h"
#include "util/FileWrite.h"

#include <QBuffer>
#include <QDateTime>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>
#include <qcustomplot.h>

namespace kosmos::ui {

namespace {

QString esc(const std::string &text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

QString num(const std::optional<double> &v, int decimals = 3)
{
    return v ? QString::number(*v, 'f', decimals) : QStringLiteral("n/a");
}

QString interval(const Proportion &p)
{
    return esc(intervalText(p));
}

QString row(const QStringList &cells, bool header = false)
{
    const QString tag = header ? QStringLiteral("th") : QStringLiteral("td");
    QString out = QStringLiteral("<tr>");
    for (const QString &c : cells)
        out += QStringLiteral("<%1>%2</%1>").arg(tag, c);
    return out + QStringLiteral("</tr>\n");
}

QString image(const std::function<QString(const QString &)> &source, const QString &name,
              const QString &caption)
{
    return QStringLiteral("<p><img src=\"%1\" width=\"560\" alt=\"%2\"><br><i>%2</i></p>\n")
        .arg(source(name), caption.toHtmlEscaped());
}

QByteArray png(QCustomPlot &plot)
{
    const QPixmap pixmap = plot.toPixmap(800, 450, 1.0);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    pixmap.save(&buffer, "PNG");
    return bytes;
}

QString calibrationSection(const CalibrationReport &r, const QString &title, const QString &plot,
                           const std::function<QString(const QString &)> &source)
{
    const auto &b = r.binary;
    QString h = QStringLiteral("<h3>%1</h3>\n").arg(title.toHtmlEscaped());
    if (r.labelSource != "human")
        h += QStringLiteral("<p class=warn>These labels come from a %1 that knows its true state. "
                            "They are not human labels.</p>\n")
                 .arg(r.labelSource == "physics" ? QStringLiteral("physics simulator")
                                                 : QStringLiteral("synthetic world"));
    if (!r.emptyReason.empty())
        h += QStringLiteral("<p><b>%1</b></p>\n").arg(esc(r.emptyReason));
    h += QStringLiteral("<p>%1 labelled clips: %2 decisive pairs, %3 indecisive.</p>\n")
             .arg(r.labeledClips)
             .arg(b.pairs)
             .arg(b.indecisive);
    h += QStringLiteral("<table>") +
         row({QString(), QStringLiteral("label success"), QStringLiteral("label failure")}, true) +
         row({QStringLiteral("<b>judge success</b>"), QString::number(b.truePositive),
              QString::number(b.falsePositive)}) +
         row({QStringLiteral("<b>judge failure</b>"), QString::number(b.falseNegative),
              QString::number(b.trueNegative)}) +
         QStringLiteral("</table>\n<table>");
    h += row({QStringLiteral("agreement"), interval(b.agreement)});
    h += row({QStringLiteral("sensitivity"), interval(b.sensitivity)});
    h += row({QStringLiteral("specificity"), interval(b.specificity)});
    h += row({QStringLiteral("Cohen's kappa"),
              QStringLiteral("%1 (n = %2)").arg(num(b.kappa.kappa)).arg(b.pairs)});
    h +=
        row({QStringLiteral("progress, quadratic-weighted kappa"),
             QStringLiteral("%1 (n = %2)").arg(num(r.progressKappa.kappa)).arg(r.progressKappa.n)});
    h += row({QStringLiteral("leniency offset (judge rate - label rate)"),
              QStringLiteral("%1 (n = %2)").arg(num(b.leniencyOffset)).arg(b.pairs)});
    h += QStringLiteral("</table>\n<p><b>Calibration gate: %1</b></p>\n<table>")
             .arg(QString::fromStdString(gateVerdictTitle(r.gateVerdict)));
    h += row({QStringLiteral("check"), QStringLiteral("result"), QStringLiteral("figure"),
              QStringLiteral("what would settle it")},
             true);
    for (const GateLine &line : r.gate) {
        const QString verdict = esc(std::string(gateVerdictName(line.verdict)));
        h += row(
            {esc(line.name),
             line.verdict == GateVerdict::Pass ? verdict : QStringLiteral("<b>%1</b>").arg(verdict),
             esc(line.figure), esc(line.needed)});
    }
    h += QStringLiteral("</table>\n<p><i>%1</i></p>\n").arg(esc(pointValuesText(r)));
    h += image(source, plot,
               QStringLiteral("Reliability: label success rate (Wilson 95%) per bin of the judge's "
                              "success-vote share; dashed: perfect calibration."));
    return h;
}

QString provenanceSection(const EvaluationRecord &r)
{
    QString h;
    h += QStringLiteral("<h2>Provenance</h2>\n<table>");
    h += row({QStringLiteral("protocol SHA-256"),
              QStringLiteral("<span class=mono>%1</span>").arg(esc(r.protocolSha256))});
    h += row({QStringLiteral("ledger"), esc(r.ledgerPath)});
    h += row({QStringLiteral("generated"),
              QDateTime::fromMSecsSinceEpoch(r.generatedAtMs, Qt::UTC).toString(Qt::ISODate)});
    h += row({QStringLiteral("Kosmos version"), esc(r.kosmosVersion)});
    h += row({QStringLiteral("success by"), esc(r.outcomeSource)});
    h += row({QStringLiteral("episodes"), QStringLiteral("%1 (%2 without a decisive outcome)")
                                              .arg(r.episodes)
                                              .arg(r.outcomes.missing)});
    h += row({QStringLiteral("bootstrap"),
              QStringLiteral("task-stratified start-lineage resampling, %1 replicates, seed %2")
                  .arg(r.replicates)
                  .arg(r.seed)});
    h += QStringLiteral("</table>\n<h3>Components</h3>\n");
    // One block per component (a seven-column table broke into narrow columns across pages);
    // hashes and settings may wrap anywhere (zero-width spaces every 16 characters).
    auto breakable = [](const std::string &text) {
        QString out;
        const QString s = QString::fromStdString(text);
        for (qsizetype i = 0; i < s.size(); i += 16)
            out += s.mid(i, 16).toHtmlEscaped() + QChar(0x200B);
        return QStringLiteral("<span class=mono>%1</span>").arg(out);
    };
    for (const ComponentUse &c : r.components) {
        h += QStringLiteral("<p><b>%1</b>: %2 %3, %4 run(s)</p>\n<table>")
                 .arg(esc(c.family), esc(c.adapterId), esc(c.adapterVersion))
                 .arg(c.runs);
        h += row({QStringLiteral("identity SHA-256"), breakable(c.identitySha256)});
        h += row({QStringLiteral("weights SHA-256"), c.weightsSha256
                                                         ? breakable(*c.weightsSha256)
                                                         : QStringLiteral("none (no weights)")});
        h += row({QStringLiteral("config"),
                  breakable(c.config.is_null() ? std::string("{}") : c.config.dump())});
        h += QStringLiteral("</table>\n");
    }

    return h;
}

QString ratesSection(const EvaluationRecord &r,
                     const std::function<QString(const QString &)> &source)
{
    QString h;
    h += QStringLiteral("<h2>Success rates</h2>\n<table>");
    h += row({QStringLiteral("#"), QStringLiteral("policy"), QStringLiteral("success (Wilson 95%)"),
              QStringLiteral("n")},
             true);
    for (std::size_t i = 0; i < r.ranking.rates.size(); ++i)
        h += row({QString::number(i + 1), esc(r.ranking.rates[i].first),
                  interval(r.ranking.rates[i].second),
                  QString::number(r.ranking.rates[i].second.n)});
    h += QStringLiteral("</table>\n");
    if (!r.ranking.rates.empty())
        h += image(
            source, QStringLiteral("rates"),
            QStringLiteral("Success rate per policy (numbered as in the table), Wilson 95%."));
    h += QStringLiteral("<h3>Pairwise orders</h3>\n<p><b>%1</b>. %2</p>\n<table>")
             .arg(esc(rankingHeader(r.ranking)), esc(kPairOrderRule));
    h += row({QStringLiteral("first"), QStringLiteral("second"), QStringLiteral("order"),
              QStringLiteral("difference [95% bootstrap]"), QStringLiteral("test")},
             true);
    for (const PairOrder &p : r.ranking.pairs)
        h += row({esc(p.a), esc(p.b),
                  p.verdict == PairOrder::Verdict::ABetter   ? QStringLiteral("first better")
                  : p.verdict == PairOrder::Verdict::BBetter ? QStringLiteral("second better")
                                                             : QStringLiteral("indeterminate"),
                  QStringLiteral("%1 [%2, %3]")
                      .arg(p.difference.observed, 0, 'f', 3)
                      .arg(p.difference.lower, 0, 'f', 3)
                      .arg(p.difference.upper, 0, 'f', 3),
                  esc(pairTestText(p))});
    h += QStringLiteral("</table>\n<h3>Per policy and task, with missing outcomes</h3>\n<p>Worst "
                        "and best case (Horowitz-Manski) count every missing outcome as a "
                        "failure or a success; they hold whatever the reason it is "
                        "missing.</p>\n<table>");
    h += row({QStringLiteral("policy"), QStringLiteral("task"),
              QStringLiteral("decisive (Wilson 95%)"), QStringLiteral("missing"),
              QStringLiteral("worst / best case")},
             true);
    for (const CellRate &c : r.cells)
        h += row({esc(c.policy), esc(c.task), interval(c.decisive), QString::number(c.missing),
                  QStringLiteral("%1% / %2%")
                      .arg(c.worstCase * 100, 0, 'f', 0)
                      .arg(c.bestCase * 100, 0, 'f', 0)});
    h += QStringLiteral("</table>\n");

    return h;
}

QString calibrationSections(const EvaluationRecord &r,
                            const std::function<QString(const QString &)> &source)
{
    QString h;
    h += QStringLiteral("<h2>Judge calibration</h2>\n<p>Judge configuration: <span "
                        "class=mono>%1</span>. Calibration uses every clip of this ledger judged "
                        "by it.</p>\n")
             .arg(r.judgeKey.empty() ? QStringLiteral("(none: nothing was judged)")
                                     : esc(r.judgeKey));
    if (r.humanCalibration)
        h += calibrationSection(*r.humanCalibration, QStringLiteral("Against human labels"),
                                QStringLiteral("reliability_human"), source);
    else
        h += QStringLiteral("<p><b>No human labels in this ledger: the judge is not calibrated "
                            "against people.</b></p>\n");
    if (r.referenceCalibration)
        h += calibrationSection(*r.referenceCalibration,
                                r.referenceCalibration->labelSource == "physics"
                                    ? QStringLiteral("Against physics ground truth (the "
                                                     "simulator's state, not human)")
                                    : QStringLiteral("Against synthetic reference labels (not "
                                                     "human)"),
                                QStringLiteral("reliability_reference"), source);
    if (!r.annotatorAgreements.empty()) {
        h += QStringLiteral("<h3>Agreement between annotators</h3>\n<table>");
        h += row({QStringLiteral("annotators"), QStringLiteral("split"), QStringLiteral("clips"),
                  QStringLiteral("completion agreement"), QStringLiteral("kappa"),
                  QStringLiteral("progress weighted kappa"), QStringLiteral("note")},
                 true);
        for (const AnnotatorAgreement &a : r.annotatorAgreements)
            h += row({esc(a.annotatorA + " / " + a.annotatorB), esc(a.split),
                      QString::number(a.clips), interval(a.completion.agreement),
                      QStringLiteral("%1 (n = %2)")
                          .arg(num(a.completion.kappa.kappa))
                          .arg(a.completion.pairs),
                      QStringLiteral("%1 (n = %2)")
                          .arg(num(a.progressKappa.kappa))
                          .arg(a.progressKappa.n),
                      esc(a.emptyReason)});
        h += QStringLiteral("</table>\n");
    }

    return h;
}

QString auditSection(const PairedAudit &a, const std::function<QString(const QString &)> &source)
{
    QString h;
    h += QStringLiteral("<h2>Paired judge audit</h2>\n<p>%1 clips judged by both.<br>A: <span "
                        "class=mono>%2</span><br>B: <span class=mono>%3</span></p>\n<table>")
             .arg(a.clips)
             .arg(esc(a.a.key), esc(a.b.key));
    h += row({QStringLiteral("metric"), QStringLiteral("A"), QStringLiteral("B")}, true);
    for (const AuditRow &line : auditRows(a))
        h += row({esc(line.metric), esc(line.a), esc(line.b)});
    h += QStringLiteral("</table>\n");
    h += image(source, QStringLiteral("audit"),
               QStringLiteral("Schema-valid and bare-JSON shares of A and B."));
    h += QStringLiteral("<p>%1 flips").arg(a.flips.size());
    if (!a.flips.empty()) {
        h += QStringLiteral(" (run: field A -> B): ");
        QStringList flips;
        for (std::size_t i = 0; i < a.flips.size() && i < 200; ++i)
            flips << esc(std::to_string(a.flips[i].runId) + ": " + a.flips[i].field + " " +
                         a.flips[i].a + " -> " + a.flips[i].b);
        h += flips.join(QStringLiteral("; "));
        if (a.flips.size() > 200)
            h += QStringLiteral("; ... (%1 more)").arg(a.flips.size() - 200);
    }
    h += QStringLiteral("</p>\n");
    return h;
}

QString referenceSection(const EvaluationRecord &r,
                         const std::function<QString(const QString &)> &source)
{
    QString h;
    const ReferenceComparison &c = *r.reference;
    h += QStringLiteral("<h2>Against reference success rates</h2>\n<p>Source: %1. %2 "
                        "policies matched, %3 unmatched.</p>\n<table>")
             .arg(esc(r.referenceName))
             .arg(c.matched.size())
             .arg(c.unmatched.size());
    h += row({QStringLiteral("#"), QStringLiteral("policy"), QStringLiteral("here"),
              QStringLiteral("reference")},
             true);
    for (std::size_t i = 0; i < c.matched.size(); ++i)
        h +=
            row({QString::number(i + 1), esc(c.matched[i]), QString::number(c.simulated[i], 'f', 3),
                 QString::number(c.reference[i], 'f', 3)});
    h += QStringLiteral("</table>\n<p>Pearson %1, Spearman %2, MMRV %3 (n = %4).</p>\n")
             .arg(num(c.pearson), num(c.spearman), num(c.mmrv))
             .arg(c.matched.size());
    if (!c.matched.empty())
        h += image(source, QStringLiteral("reference"),
                   QStringLiteral("Success rate here against the reference rate, per "
                                  "matched policy; dashed: equal rates."));
    return h;
}

QString fidelitySection(const FidelityReport &f,
                        const std::function<QString(const QString &)> &source)
{
    auto stat = [](const IntervalStat &v) {
        if (!v.value)
            return QStringLiteral("n/a");
        QString out = QString::number(*v.value, 'f', 3);
        if (v.lower && v.upper)
            out += QStringLiteral(" [%1, %2]").arg(*v.lower, 0, 'f', 3).arg(*v.upper, 0, 'f', 3);
        return out;
    };
    QString h = QStringLiteral("<h2>Fidelity: the learned world model against physics</h2>\n<p>%1 "
                               "paired episodes (same policy, same start) of <span class=mono>%2"
                               "</span>; unpaired %3 physics, %4 imagined. The world model's "
                               "success is the judge's verdict; physics success is the "
                               "simulator's state.</p>\n<table>")
                    .arg(f.pairs.size())
                    .arg(esc(f.imaginedName))
                    .arg(f.unpairedPhysics)
                    .arg(f.unpairedImagined);
    h += row({QStringLiteral("#"), QStringLiteral("policy"), QStringLiteral("physics"),
              QStringLiteral("world model"), QStringLiteral("unknown"),
              QStringLiteral("lenient / harsh")},
             true);
    for (std::size_t i = 0; i < f.policies.size(); ++i) {
        const auto &p = f.policies[i];
        h += row({QString::number(i + 1),
                  esc(p.policy) +
                      (p.openLoopReplay
                           ? QStringLiteral(" <em>(world model: its physics actions replayed open "
                                            "loop)</em>")
                           : QString()),
                  interval(p.physics) + QStringLiteral(" n = %1").arg(p.physics.n),
                  interval(p.imagined) + QStringLiteral(" n = %1").arg(p.imagined.n),
                  QString::number(p.imaginedMissing),
                  QStringLiteral("%1 / %2").arg(p.lenient).arg(p.harsh)});
    }
    h += QStringLiteral("</table>\n<p>Across policies (95% bootstrap over starts, %1 "
                        "replicates): Pearson %2, Spearman %3, MMRV %4 (lower is better). "
                        "Anchors: WorldGym r = 0.78; SC3-Eval Pearson 0.929, MMRV 0.119.<br>"
                        "Pairwise orders: %5 the same, %6 opposite, %7 indeterminate in a world. "
                        "Per episode: agreement %8 (n = %9).</p>\n")
             .arg(f.replicates)
             .arg(stat(f.pearson), stat(f.spearman), stat(f.mmrv))
             .arg(f.pairsSameOrder)
             .arg(f.pairsOppositeOrder)
             .arg(f.pairsIndeterminate)
             .arg(interval(f.agreement))
             .arg(f.agreement.n);
    h += image(source, QStringLiteral("fidelity"),
               QStringLiteral("World-model success rate against physics success rate per policy "
                              "(numbered as in the table), Wilson 95% both ways; dashed: equal."));
    return h;
}

QString supportSection(const EvaluationRecord &r)
{
    QString h;
    h += QStringLiteral("<h2>What these numbers support</h2>\n<ul>");
    for (const auto &line : r.supports)
        h += QStringLiteral("<li>%1</li>").arg(esc(line));
    h += QStringLiteral("</ul>\n<h2>What they do not support</h2>\n<ul>");
    for (const auto &line : r.doesNotSupport)
        h += QStringLiteral("<li>%1</li>").arg(esc(line));
    h += QStringLiteral("</ul>\n</body></html>\n");
    return h;
}

} // namespace

QMap<QString, QByteArray> renderReportPlots(const EvaluationRecord &record)
{
    QMap<QString, QByteArray> out;
    QCustomPlot plot;
    plot.resize(800, 450);
    if (!record.ranking.rates.empty()) {
        EvaluationPlots::policyRates(&plot, record.ranking);
        out[QStringLiteral("rates")] = png(plot);
    }
    if (record.humanCalibration) {
        EvaluationPlots::reliability(&plot, *record.humanCalibration);
        out[QStringLiteral("reliability_human")] = png(plot);
    }
    if (record.referenceCalibration) {
        EvaluationPlots::reliability(&plot, *record.referenceCalibration);
        out[QStringLiteral("reliability_reference")] = png(plot);
    }
    if (record.audit) {
        EvaluationPlots::audit(&plot, *record.audit);
        out[QStringLiteral("audit")] = png(plot);
    }
    if (record.fidelity) {
        EvaluationPlots::fidelity(&plot, *record.fidelity);
        out[QStringLiteral("fidelity")] = png(plot);
    }
    if (record.reference && !record.reference->matched.empty()) {
        EvaluationPlots::reference(&plot, *record.reference);
        out[QStringLiteral("reference")] = png(plot);
    }
    return out;
}

QString reportHtml(const EvaluationRecord &r,
                   const std::function<QString(const QString &name)> &source)
{
    QString h =
        QStringLiteral(
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>Evaluation record: "
            "%1</title>\n"
            "<style>body{font-family:sans-serif;max-width:60em;margin:1em auto;color:#111}"
            "table{border-collapse:collapse;margin:0.5em 0}td,th{border:1px solid #999;padding:3px "
            "6px;text-align:left;vertical-align:top}th{background:#eee}.warn{color:#8a5a00}"
            ".mono{font-family:monospace}h2{border-bottom:1px solid #999}</style>\n</head><body>\n")
            .arg(esc(r.protocolName));
    h += QStringLiteral("<h1>Evaluation record: %1</h1>\n").arg(esc(r.protocolName));
    h += QStringLiteral("<p class=warn><b>Rollouts in a generated or synthetic world. These "
                        "numbers are not evidence of real robot-task success.</b></p>\n");
    h += provenanceSection(r);
    h += ratesSection(r, source);
    h += calibrationSections(r, source);
    if (r.audit)
        h += auditSection(*r.audit, source);
    if (r.reference)
        h += referenceSection(r, source);
    if (r.fidelity)
        h += fidelitySection(*r.fidelity, source);
    h += supportSection(r);
    return h;
}

namespace {

// Through a temporary name, every write and the close checked (util/FileWrite.h).
void saveReport(const QString &path, const QByteArray &bytes)
{
    try {
        writeFileAtomically(path.toStdString(), std::string_view(bytes.data(), bytes.size()));
    } catch (const Error &e) {
        throw Error(e.code(), std::string("cannot write the report: ") + e.what());
    }
}

} // namespace

void writeEvaluationReport(const EvaluationRecord &record, const QString &htmlPath,
                           const QString &pdfPath, const QString &pngPath)
{
    const QMap<QString, QByteArray> plots = renderReportPlots(record);
    if (!htmlPath.isEmpty()) {
        const QString html = reportHtml(record, [&](const QString &name) {
            return QStringLiteral("data:image/png;base64,") +
                   QString::fromLatin1(plots.value(name).toBase64());
        });
        saveReport(htmlPath, html.toUtf8());
    }
    QTextDocument document;
    if (!pdfPath.isEmpty() || !pngPath.isEmpty()) {
        for (auto it = plots.begin(); it != plots.end(); ++it) {
            QImage image;
            image.loadFromData(it.value(), "PNG");
            document.addResource(QTextDocument::ImageResource,
                                 QUrl(QStringLiteral("kosmos-plot:") + it.key()), image);
        }
        document.setHtml(reportHtml(
            record, [](const QString &name) { return QStringLiteral("kosmos-plot:") + name; }));
    }
    if (!pngPath.isEmpty()) {
        document.setTextWidth(900);
        QImage page(900, 1300, QImage::Format_RGB32);
        page.fill(Qt::white);
        {
            QPainter painter(&page);
            document.drawContents(&painter, QRectF(0, 0, 900, 1300));
        }
        QByteArray png;
        QBuffer buffer(&png);
        if (!buffer.open(QIODevice::WriteOnly) || !page.save(&buffer, "PNG"))
            throw Error(ErrorCode::Io, "cannot encode the report " + pngPath.toStdString());
        saveReport(pngPath, png);
        document.setTextWidth(-1);
    }
    if (!pdfPath.isEmpty()) {
        QByteArray pdf;
        QBuffer file(&pdf);
        if (!file.open(QIODevice::WriteOnly))
            throw Error(ErrorCode::Io, "cannot render the report " + pdfPath.toStdString());
        {
            QPdfWriter writer(&file);
            writer.setPageSize(QPageSize(QPageSize::A4));
            writer.setResolution(150);
            writer.setTitle(QStringLiteral("Evaluation record: ") +
                            QString::fromStdString(record.protocolName));
            writer.setCreator(QStringLiteral("Kosmos ") +
                              QString::fromStdString(record.kosmosVersion));
            document.print(&writer);
        }
        file.close();
        saveReport(pdfPath, pdf);
    }
}

} // namespace kosmos::ui
