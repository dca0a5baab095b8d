#pragma once

// Runs as the ledger means them: the typed reader of the schema's run_latest view (see
// core/ledger/schema.sql, "Views"). Ranking, calibration, fidelity, the batch summary and the
// CLI's verbs read runs through here, and the workstation's runs table reads the same view, so
// which attempt, judgment and labels count is decided in one place.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

// What a run without a policy component (an imported rollout) is called where a name is needed.
inline constexpr const char *kNoPolicyLabel = "(no policy)";

struct LatestRun
{
    std::int64_t runId = 0;
    std::string runKey;
    std::string protocolSha256;
    std::int64_t episodeIndex = 0;
    std::string task; // empty when the run has none
    std::optional<std::string> instruction;
    std::string status;
    // Set on a re-judgment: the run key of the run whose rollout it judged again.
    std::optional<std::string> rejudgeOf;
    // The component_labels view's label: adapter id, a space, the settings as canonical JSON
    // ('{}' when there are none); kNoPolicyLabel when the run has no policy.
    std::string policyLabel;
    std::optional<std::string> worldModel;   // adapter id
    std::optional<std::int64_t> attemptId;   // the latest attempt
    std::optional<std::string> validation;   // its latest verdict
    std::optional<std::string> judgeOutcome; // its latest judgment: success, failure, unknown
    std::optional<std::string> judgeUnknownReason;
    std::optional<std::string> reference; // latest counted label that is not a person's
    std::optional<std::string> referenceSource;
    std::optional<std::string> worldTruth; // latest counted physics / synthetic_reference label
    std::optional<std::string> worldTruthSource;
    std::optional<std::string> human; // latest human label's completion
    // With LatestRunQuery::labelSource: the latest counted label of that source (completion).
    std::optional<std::string> sourceLabel;
};

struct LatestRunQuery
{
    std::optional<std::string> protocolSha256; // one frozen protocol's runs
    bool rolloutsOnly = true;                  // leave re-judgments out (not new rollouts)
    std::optional<std::string> labelSource;    // fills LatestRun::sourceLabel
};

// Runs in run order.
std::vector<LatestRun> latestRuns(Ledger &ledger, const LatestRunQuery &query);

// The rollout runs (not re-judgments) whose latest attempt was judged, after `afterRunId`, in run
// order, at most `limit` (0: all); of one protocol when protocolSha256 is set. For readers that
// page through a large ledger.
std::vector<std::int64_t> judgedRolloutRuns(Ledger &ledger,
                                            const std::optional<std::string> &protocolSha256,
                                            std::int64_t afterRunId = 0, int limit = 0);

// Runs whose latest attempt completed and holds frames (candidates for --all), excluding
// re-judging runs themselves.
std::vector<std::int64_t> judgeableRuns(Ledger &ledger);

// The outcome a run has by `source` ("judge": its latest judgment; a label source: that label),
// or nullopt when it has none. The LatestRun must come from a query with labelSource = source
// unless source is "judge".
std::optional<std::string> outcomeBy(const LatestRun &run, const std::string &source);

} // namespace kosmos
