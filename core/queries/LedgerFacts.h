#pragma once

// Plain facts read from a ledger by core's readers (which protocols it holds, whether labels of
// a kind exist, a run's components, an attempt's artifacts), typed, so that no layer above
// core/queries writes SQL of its own. What *counts* for a run is not here: see LatestRuns.h and
// the schema's views. Each call finishes its reads before it returns: no statement is left open,
// whose read snapshot would make the caller's next write transaction fail with "database is
// locked" when another process committed meanwhile (re-judging relies on it).

#include "artifacts/ArtifactStore.h"
#include "ledger/LedgerTypes.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kosmos {

class Ledger;

// Frozen protocols with rollout runs (not only re-judgments), oldest first: (name, SHA-256).
std::vector<std::pair<std::string, std::string>> rolloutProtocols(Ledger &ledger);
// Of those, the protocols whose runs carry physics labels (a simulator's state): the only ones a
// fidelity report may take as its ground truth.
std::vector<std::pair<std::string, std::string>> physicsProtocols(Ledger &ledger);
// Whether any human (not reference) label exists.
bool hasHumanLabels(Ledger &ledger);
// Whether any label of `source` (human, synthetic_reference, imported_reference, physics) exists.
bool hasLabels(Ledger &ledger, const std::string &source);
// The runs that hold a label of `source`, in run order.
std::vector<std::int64_t> runsWithLabels(Ledger &ledger, const std::string &source);
// The runs of a protocol in a ledger and how many of them are finished (what a merge brought).
struct RunCounts
{
    std::int64_t runs = 0;
    std::int64_t finished = 0;
};
RunCounts protocolRunCounts(Ledger &ledger, const std::string &protocolSha256);
// Whether the ledger holds any run.
bool hasRuns(Ledger &ledger);

// A run's latest completed attempt (the rollout a re-judgment reads), if any.
std::optional<std::int64_t> latestCompletedAttempt(Ledger &ledger, std::int64_t runId);
// The component ids a run names (policy, world model); nullopt where it names none.
struct RunComponents
{
    std::optional<std::int64_t> policyId;
    std::optional<std::int64_t> worldModelId;
};
RunComponents runComponents(Ledger &ledger, std::int64_t runId);
// A registered component's identity, as it was registered; nullopt for none or an unknown id.
std::optional<ComponentIdentity> componentIdentity(Ledger &ledger,
                                                   std::optional<std::int64_t> componentId);
// An attempt's artifacts of one role, by name: (name, the stored object).
std::vector<std::pair<std::string, StoredObject>>
attemptArtifacts(Ledger &ledger, std::int64_t attemptId, const std::string &role);

} // namespace kosmos
