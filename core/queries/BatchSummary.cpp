#include "queries/BatchSummary.h"

#include "queries/LatestRuns.h"

#include <map>

namespace kosmos {

std::vector<PolicySummary> summarizeProtocol(Ledger &ledger, const std::string &protocolSha256)
{
    std::map<std::string, PolicySummary> rows;
    std::vector<std::string> order;
    std::map<std::string, std::pair<int, int>> reference; // successes, n
    std::map<std::string, std::pair<int, int>> judge;
    for (const LatestRun &run : latestRuns(ledger, {protocolSha256, true, std::nullopt})) {
        const std::string &policy = run.policyLabel;
        if (!rows.count(policy)) {
            order.push_back(policy);
            rows[policy].policy = policy;
        }
        auto &row = rows[policy];
        ++row.runs;
        if (run.status == "completed")
            ++row.completed;
        else if (run.status == "failed")
            ++row.failed;
        else if (run.status == "cancelled")
            ++row.cancelled;
        else
            ++row.unfinished;
        if (run.validation == "invalid")
            ++row.validationInvalid;
        if (run.judgeOutcome) {
            if (*run.judgeOutcome == "unknown")
                ++row.judgeUnknown;
            else {
                judge[policy].second++;
                judge[policy].first += *run.judgeOutcome == "success";
            }
        }
        if (run.worldTruth) {
            reference[policy].second++;
            reference[policy].first += *run.worldTruth == "met";
            const std::string &source = *run.worldTruthSource;
            if (row.referenceSource.empty())
                row.referenceSource = source;
            else if (row.referenceSource != source)
                row.referenceSource = "mixed";
        }
    }
    std::vector<PolicySummary> out;
    for (const auto &policy : order) {
        PolicySummary row = rows[policy];
        row.reference = wilson(reference[policy].first, reference[policy].second);
        row.judge = wilson(judge[policy].first, judge[policy].second);
        out.push_back(row);
    }
    return out;
}

} // namespace kosmos
