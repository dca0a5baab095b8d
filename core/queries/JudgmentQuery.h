#pragma once

#include "ledger/LedgerTypes.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

struct StoredJudgment
{
    std::int64_t judgmentId = 0;
    std::int64_t runId = 0; // the run that holds it (the rollout's own run, or a re-judging run)
    std::int64_t attemptId = 0;
    bool rejudged = false;      // recorded by `kosmos-cli judge` beside the original
    std::string judge;          // adapter id + version, or "(unknown)"
    nlohmann::json settings;    // the frozen quorum settings and per-sample seeds
    nlohmann::json judgeConfig; // the judge component's configuration (plugin settings, quorum,
                                // prompt), or null when the judge component is unknown
    std::string outcome;
    std::optional<std::string> unknownReason;
    std::optional<int> progress;
    std::optional<int> decisiveVotes;
    nlohmann::json frameIndices;
    std::optional<std::string> promptSha256;
    // As recorded; answerForm is always set (for rows before schema version 3, read from the raw
    // text under answer rule 1, what it was classified under); request is left null (the stored
    // request document is the artifact named by requestSha256).
    std::vector<JudgeSampleRecord> samples;
};

// Every judgment of a run's rollout: its own and those of runs that re-judged it, oldest first.
std::vector<StoredJudgment> judgmentsOfRun(Ledger &ledger, std::int64_t runId);
// The same with the run's re-judging runs given (rejudgingRunsByKey()[run key]): for readers of
// many runs, as the one above reads every run of the ledger to find them.
std::vector<StoredJudgment> judgmentsOfRun(Ledger &ledger, std::int64_t runId,
                                           const std::vector<std::int64_t> &rejudgingRuns);
// The re-judging runs (`kosmos-cli judge`) by the run key of the run each judged again, in run
// order: one read of the ledger's runs.
std::map<std::string, std::vector<std::int64_t>> rejudgingRunsByKey(Ledger &ledger);

// A judgment's quorum outcome without its samples, and the rollout run it judged (for a
// re-judgment: the run whose rollout it judged again).
struct JudgmentOutcome
{
    std::int64_t rolloutRunId = 0;
    std::string judge;          // as StoredJudgment::judge
    nlohmann::json settings;    // as StoredJudgment::settings
    nlohmann::json judgeConfig; // as StoredJudgment::judgeConfig
    std::string outcome;
};

// Every judgment of every run's latest attempt (rollouts' own and re-judgments), oldest first,
// read one row at a time: one query for the whole ledger, where judgmentsOfRun is one per run.
void forEachJudgmentOutcome(Ledger &ledger,
                            const std::function<void(const JudgmentOutcome &)> &visit);

// One judge call as recorded: the request document's SHA-256 (none for imported samples and
// those written before schema version 3), the server's raw reply and what it said of itself.
struct StoredJudgeCall
{
    std::optional<std::string> requestSha256;
    std::optional<std::string> rawText;
    std::optional<std::string> serverModel;
    std::optional<std::string> systemFingerprint;
};
// nullopt when the ledger holds no such sample try.
std::optional<StoredJudgeCall> judgeCall(Ledger &ledger, std::int64_t judgmentId, int sampleIndex,
                                         int tryIndex);

} // namespace kosmos
