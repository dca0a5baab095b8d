// kosmos-cli report: the evaluation record of one protocol (core/judge/EvaluationRecord), as
// text, JSON, or HTML + PDF rendered by Kosmos::report.
#include "CliCommands.h"

#include "evaluation/EvaluationRecord.h"
#include "ledger/Ledger.h"
#include "report/ReportWriter.h"
#include "util/Error.h"

#include <QString>

#include <iostream>

using namespace kosmos;

int runReport(const ReportRequest &request)
{
    try {
        Ledger ledger = Ledger::open(request.bundle, {OpenMode::ReadOnly});
        EvaluationRecordOptions options;
        options.protocol = request.protocol;
        options.outcomeSource =
            request.source == "reference" ? "synthetic_reference" : request.source;
        options.gate.minLabels = request.minLabels;
        options.gate.minSuccesses = options.gate.minFailures = request.minPerClass;
        const auto configs = judgeConfigs(ledger);
        if (!request.judgeConfig.empty())
            options.judgeKey = resolveJudgeConfig(configs, request.judgeConfig);
        for (const auto &c : request.audit)
            options.auditKeys.push_back(resolveJudgeConfig(configs, c));
        if (!request.referenceCsv.empty()) {
            options.referenceRates = readReferenceRates(request.referenceCsv);
            options.referenceName = request.referenceCsv;
        }
        const EvaluationRecord record = buildEvaluationRecord(ledger, options);
        if (!request.htmlPath.empty() || !request.pdfPath.empty() || !request.pngPath.empty()) {
            ui::writeEvaluationReport(record, QString::fromStdString(request.htmlPath),
                                      QString::fromStdString(request.pdfPath),
                                      QString::fromStdString(request.pngPath));
            for (const auto &path : {request.htmlPath, request.pdfPath, request.pngPath})
                if (!path.empty())
                    std::cout << "wrote " << path << "\n";
            return ExitCode::Ok;
        }
        if (request.json)
            std::cout << toJson(record).dump(2) << "\n";
        else
            std::cout << toText(record);
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}
