#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

struct StoredJudgeSample
{
    int sampleIndex = 0;
    int tryIndex = 0;
    std::optional<std::int64_t> seed;
    std::optional<std::string> rawText;
    std::string formatClass;
    std::optional<std::string> parseError;
    nlohmann::json parsed; // the schema-valid judgment, or null
    std::optional<std::int64_t> generatedTokens;
    std::optional<std::int64_t> decodeMs;
    std::optional<std::string> finishReason;
    std::string answerForm; // as stored; for rows before schema version 3, read from the raw
                            // text under answer rule 1 (what it was classified under)
    std::optional<std::string> requestSha256; // the kosmos.judge_request/1 artifact, if kept
    std::optional<std::string> serverModel;
    std::optional<std::string> systemFingerprint;
};

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
    std::vector<StoredJudgeSample> samples;
};

// Every judgment of a run's rollout: its own and those of runs that re-judged it, oldest first.
std::vector<StoredJudgment> judgmentsOfRun(Ledger &ledger, std::int64_t runId);

} // namespace kosmos
