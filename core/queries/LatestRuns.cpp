#include "queries/LatestRuns.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"

namespace kosmos {

std::vector<LatestRun> latestRuns(Ledger &ledger, const LatestRunQuery &query)
{
    std::string sql = R"sql(
        SELECT run_id, run_key, protocol_sha256, episode_index, task, instruction, status,
               rejudge_of, policy_label, world_model, attempt_id, validation, judge_outcome,
               judge_unknown_reason, reference, reference_source, world_truth,
               world_truth_source, human, )sql";
    sql += query.labelSource ? "(SELECT c.completion FROM counted_labels c WHERE c.run_id = "
                               "rl.run_id AND c.source = ?2 ORDER BY c.label_id DESC LIMIT 1)"
                             : "NULL";
    sql += " FROM run_latest rl WHERE (?1 IS NULL OR protocol_sha256 = ?1)";
    if (query.rolloutsOnly)
        sql += " AND rejudge_of IS NULL";
    sql += " ORDER BY run_id";
    sqlite::Statement s(LedgerSql::of(ledger), sql);
    if (query.protocolSha256)
        s.bind(1, *query.protocolSha256);
    if (query.labelSource)
        s.bind(2, *query.labelSource);
    std::vector<LatestRun> out;
    while (s.step()) {
        LatestRun r;
        r.runId = s.int64(0);
        r.runKey = s.text(1);
        r.protocolSha256 = s.text(2);
        r.episodeIndex = s.int64(3);
        r.task = s.optText(4).value_or("");
        r.instruction = s.optText(5);
        r.status = s.text(6);
        r.rejudgeOf = s.optText(7);
        r.policyLabel = s.optText(8).value_or(kNoPolicyLabel);
        r.worldModel = s.optText(9);
        r.attemptId = s.optInt64(10);
        r.validation = s.optText(11);
        r.judgeOutcome = s.optText(12);
        r.judgeUnknownReason = s.optText(13);
        r.reference = s.optText(14);
        r.referenceSource = s.optText(15);
        r.worldTruth = s.optText(16);
        r.worldTruthSource = s.optText(17);
        r.human = s.optText(18);
        r.sourceLabel = s.optText(19);
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<std::int64_t> judgedRolloutRuns(Ledger &ledger,
                                            const std::optional<std::string> &protocolSha256,
                                            std::int64_t afterRunId, int limit)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT run_id FROM run_latest WHERE judgment_id IS NOT NULL AND "
                        "rejudge_of IS NULL AND run_id > ?1 AND (?2 IS NULL OR protocol_sha256 = "
                        "?2) ORDER BY run_id LIMIT ?3");
    s.bind(1, afterRunId).bind(3, limit > 0 ? static_cast<std::int64_t>(limit) : -1);
    if (protocolSha256)
        s.bind(2, *protocolSha256);
    std::vector<std::int64_t> out;
    while (s.step())
        out.push_back(s.int64(0));
    return out;
}

std::vector<std::int64_t> judgeableRuns(Ledger &ledger)
{
    sqlite::Statement s(LedgerSql::of(ledger), R"sql(
        SELECT r.run_id FROM runs r
         WHERE r.status = 'completed'
           AND json_extract(r.key_json, '$.seeds.rejudge_of') IS NULL
           AND EXISTS (SELECT 1 FROM attempts a JOIN attempt_artifacts aa USING (attempt_id)
                        WHERE a.run_id = r.run_id AND a.state = 'completed' AND aa.role = 'frame')
         ORDER BY r.run_id)sql");
    std::vector<std::int64_t> out;
    while (s.step())
        out.push_back(s.int64(0));
    return out;
}

std::optional<std::string> outcomeBy(const LatestRun &run, const std::string &source)
{
    return source == "judge" ? run.judgeOutcome : run.sourceLabel;
}

} // namespace kosmos
