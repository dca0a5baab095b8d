#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>

#include <functional>

namespace kosmos {
struct EvaluationRecord;
}

namespace kosmos::ui {

// The evaluation record as a self-contained document: HTML with its plots embedded as PNG
// (data: URIs, no other file needed) and the same document as PDF (QTextDocument printed
// through QPdfWriter). Plots are drawn by EvaluationPlots, as in the workstation. The document
// is in English whatever the interface language: it is a record to be shared and cited.
// Needs a QGuiApplication (QT_QPA_PLATFORM=offscreen works without a display).

// The plots of the record as PNG bytes, by name (reliability_human, reliability_reference,
// rates, audit, reference); only those the record has data for.
QMap<QString, QByteArray> renderReportPlots(const EvaluationRecord &record);

// The HTML document; `imageSource` turns a plot name into the src of its <img>.
QString reportHtml(const EvaluationRecord &record,
                   const std::function<QString(const QString &name)> &imageSource);

// Writes the HTML (when htmlPath is not empty), the PDF (when pdfPath is not empty) and an
// image of the document's start, 900 px wide (when pngPath is not empty: for a slide or an
// issue). Throws
// kosmos::Error(Io) naming the path that could not be written; a file that cannot be written
// leaves no partial file behind.
void writeEvaluationReport(const EvaluationRecord &record, const QString &htmlPath,
                           const QString &pdfPath, const QString &pngPath = {});

} // namespace kosmos::ui
