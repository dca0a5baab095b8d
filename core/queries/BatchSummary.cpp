#include "queries/BatchSummary.h"

#include "ledger/Ledger.h"
#include "queries/CountingRules.h"

#include <map>

namespace kosmos {

std::vector<PolicySummary> summarizeProtocol(Ledger &ledger, const std::string &protocolSha256)
{
    // Latest attempt per run; its validation and judgment; the run's latest reference label.
    sqlite::Statement s(ledger.database(),
                        R"sql(
        SELECT c.adapter_id || ' ' || json_extract(c.identity_json, '$.config') AS policy,
               r.status,
               (SELECT v.verdict FROM validation_results v JOIN attempts a USING (attempt_id)
                 WHERE a.run_id = r.run_id AND )sql" KOSMOS_SQL_LATEST_ATTEMPT(a, r) R"sql(
                 ORDER BY v.validation_id DESC LIMIT 1),
               (SELECT j.outcome FROM judgments j JOIN attempts a USING (attempt_id)
                 WHERE a.run_id = r.run_id AND )sql" KOSMOS_SQL_LATEST_ATTEMPT(a, r) R"sql(
                 ORDER BY j.judgment_id DESC LIMIT 1),
               (SELECT h.completion FROM human_labels h
                 WHERE h.run_id = r.run_id AND)sql" KOSMOS_SQL_LABEL_COUNTS(h, r) R"sql(
                   AND h.source IN ('synthetic_reference', 'physics')
                 ORDER BY h.label_id DESC LIMIT 1),
               (SELECT h.source FROM human_labels h
                 WHERE h.run_id = r.run_id AND)sql" KOSMOS_SQL_LABEL_COUNTS(h, r) R"sql(
                   AND h.source IN ('synthetic_reference', 'physics')
                 ORDER BY h.label_id DESC LIMIT 1)
          FROM runs r
          JOIN protocols p ON p.protocol_id = r.protocol_id
          LEFT JOIN components c ON c.component_id = r.policy_id
         WHERE p.protocol_sha256 = ?
           AND json_extract(r.key_json, '$.seeds.rejudge_of') IS NULL -- re-judgments are not new rollouts
         ORDER BY r.run_id)sql");
    s.bind(1, protocolSha256);
    std::map<std::string, PolicySummary> rows;
    std::vector<std::string> order;
    std::map<std::string, std::pair<int, int>> reference; // successes, n
    std::map<std::string, std::pair<int, int>> judge;
    while (s.step()) {
        const std::string policy = s.optText(0).value_or("(no policy)");
        if (!rows.count(policy)) {
            order.push_back(policy);
            rows[policy].policy = policy;
        }
        auto &row = rows[policy];
        ++row.runs;
        const std::string status = s.text(1);
        if (status == "completed")
            ++row.completed;
        else if (status == "failed")
            ++row.failed;
        else if (status == "cancelled")
            ++row.cancelled;
        else
            ++row.unfinished;
        if (s.optText(2) == std::optional<std::string>("invalid"))
            ++row.validationInvalid;
        if (const auto outcome = s.optText(3)) {
            if (*outcome == "unknown")
                ++row.judgeUnknown;
            else {
                judge[policy].second++;
                judge[policy].first += *outcome == "success";
            }
        }
        if (const auto label = s.optText(4)) {
            reference[policy].second++;
            reference[policy].first += *label == "met";
            const std::string source = s.text(5);
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
