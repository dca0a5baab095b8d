#include "queries/JudgmentQuery.h"

#include "judge/JudgeSchema.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"

namespace kosmos {

namespace {

// The judgments of the latest attempts of the runs `where` selects (?1: the rollout run), with
// their samples, oldest first.
std::vector<StoredJudgment> readJudgments(Ledger &ledger, std::int64_t runId,
                                          const std::string &where,
                                          const std::function<void(sqlite::Statement &)> &bind)
{
    auto &db = LedgerSql::of(ledger);
    std::vector<StoredJudgment> out;
    sqlite::Statement s(db, R"sql(
        SELECT j.judgment_id, a.run_id, j.attempt_id, r.run_id <> ?1,
               COALESCE(c.adapter_id || ' ' || c.adapter_version, '(unknown)'),
               j.settings_json, j.outcome, j.unknown_reason, j.progress, j.decisive_votes,
               j.frame_indices_json, j.prompt_sha256, json_extract(c.identity_json, '$.config')
          FROM judgments j
          -- only the run's latest attempt (the schema's latest_attempts view)
          JOIN latest_attempts a ON a.attempt_id = j.attempt_id
          JOIN runs r ON r.run_id = a.run_id
          LEFT JOIN components c ON c.component_id = j.judge_id
         WHERE )sql" + where + " ORDER BY j.judgment_id");
    s.bind(1, runId);
    bind(s);
    sqlite::Statement samples(
        db, "SELECT sample_index, try_index, seed, raw_text, format_class, parse_error, "
            "generated_tokens, decode_ms, finish_reason, parsed_json, answer_form, "
            "request_sha256, server_model, system_fingerprint FROM judge_samples WHERE "
            "judgment_id = ? "
            "ORDER BY sample_index, try_index");
    while (s.step()) {
        StoredJudgment j;
        j.judgmentId = s.int64(0);
        j.runId = s.int64(1);
        j.attemptId = s.int64(2);
        j.rejudged = s.int64(3) != 0;
        j.judge = s.text(4);
        j.settings = nlohmann::json::parse(s.text(5));
        j.outcome = s.text(6);
        j.unknownReason = s.optText(7);
        if (auto p = s.optInt64(8))
            j.progress = static_cast<int>(*p);
        if (auto v = s.optInt64(9))
            j.decisiveVotes = static_cast<int>(*v);
        if (auto f = s.optText(10))
            j.frameIndices = nlohmann::json::parse(*f);
        j.promptSha256 = s.optText(11);
        if (auto config = s.optText(12))
            j.judgeConfig = nlohmann::json::parse(*config, nullptr, false);
        samples.reset();
        samples.bind(1, j.judgmentId);
        while (samples.step()) {
            JudgeSampleRecord x;
            x.sampleIndex = static_cast<int>(samples.int64(0));
            x.tryIndex = static_cast<int>(samples.int64(1));
            x.seed = samples.optInt64(2);
            x.rawText = samples.optText(3);
            x.formatClass = samples.text(4);
            x.parseError = samples.optText(5);
            x.generatedTokens = samples.optInt64(6);
            x.decodeMs = samples.optInt64(7);
            x.finishReason = samples.optText(8);
            if (auto parsed = samples.optText(9))
                x.parsed = nlohmann::json::parse(*parsed);
            x.answerForm =
                samples.optText(10).value_or(answerFormName(parseJudgeAnswer(x.rawText, 1).form));
            x.requestSha256 = samples.optText(11);
            x.serverModel = samples.optText(12);
            x.systemFingerprint = samples.optText(13);
            j.samples.push_back(std::move(x));
        }
        out.push_back(std::move(j));
    }
    return out;
}

} // namespace

std::vector<StoredJudgment> judgmentsOfRun(Ledger &ledger, std::int64_t runId)
{
    const auto run = ledger.run(runId);
    if (!run)
        return {};
    // (json_extract over every run: one scan of the runs a call; readers of many runs give the
    // re-judging runs, below.)
    return readJudgments(ledger, runId,
                         "(r.run_id = ?1 OR json_extract(r.key_json, '$.seeds.rejudge_of') = ?2)",
                         [&](sqlite::Statement &s) { s.bind(2, run->runKey); });
}

std::vector<StoredJudgment> judgmentsOfRun(Ledger &ledger, std::int64_t runId,
                                           const std::vector<std::int64_t> &rejudgingRuns)
{
    nlohmann::json ids = nlohmann::json::array({runId});
    for (const std::int64_t id : rejudgingRuns)
        ids.push_back(id);
    return readJudgments(ledger, runId, "r.run_id IN (SELECT value FROM json_each(?2))",
                         [&](sqlite::Statement &s) { s.bind(2, ids.dump()); });
}

std::map<std::string, std::vector<std::int64_t>> rejudgingRunsByKey(Ledger &ledger)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT json_extract(key_json, '$.seeds.rejudge_of'), run_id FROM runs "
                        "WHERE json_extract(key_json, '$.seeds.rejudge_of') IS NOT NULL "
                        "ORDER BY run_id");
    std::map<std::string, std::vector<std::int64_t>> out;
    while (s.step())
        out[s.text(0)].push_back(s.int64(1));
    return out;
}

void forEachJudgmentOutcome(Ledger &ledger,
                            const std::function<void(const JudgmentOutcome &)> &visit)
{
    sqlite::Statement s(LedgerSql::of(ledger), R"sql(
        SELECT COALESCE(source.run_id, r.run_id),
               COALESCE(c.adapter_id || ' ' || c.adapter_version, '(unknown)'),
               j.settings_json, json_extract(c.identity_json, '$.config'), j.outcome
          FROM judgments j
          -- only each run's latest attempt (the schema's latest_attempts view)
          JOIN latest_attempts a ON a.attempt_id = j.attempt_id
          JOIN runs r ON r.run_id = a.run_id
          -- a re-judgment stands for the run whose rollout it judged (run_key is unique)
          LEFT JOIN runs source
                 ON source.run_key = json_extract(r.key_json, '$.seeds.rejudge_of')
          LEFT JOIN components c ON c.component_id = j.judge_id
         ORDER BY j.judgment_id)sql");
    while (s.step()) {
        JudgmentOutcome o;
        o.rolloutRunId = s.int64(0);
        o.judge = s.text(1);
        o.settings = nlohmann::json::parse(s.text(2));
        if (auto config = s.optText(3))
            o.judgeConfig = nlohmann::json::parse(*config, nullptr, false);
        o.outcome = s.text(4);
        visit(o);
    }
}

std::optional<StoredJudgeCall> judgeCall(Ledger &ledger, std::int64_t judgmentId, int sampleIndex,
                                         int tryIndex)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT request_sha256, raw_text, server_model, system_fingerprint "
                        "FROM judge_samples WHERE judgment_id = ? AND sample_index = ? AND "
                        "try_index = ?");
    s.bind(1, judgmentId).bind(2, sampleIndex).bind(3, tryIndex);
    if (!s.step())
        return std::nullopt;
    return StoredJudgeCall{s.optText(0), s.optText(1), s.optText(2), s.optText(3)};
}

} // namespace kosmos
