#pragma once

// The open-loop twin of a policy (kosmos-cli fidelity prepare; docs/fidelity.md, "The
// workflow"): each imagined run replays the actions it took in physics from the same start
// (replay.actions by seed, which reads the document built here: "kosmos.replay_by_seed/1",
// adapters/replay/ReplayPolicy.h). Made for a policy that reads the simulator's state (a world
// model has none to give it), and for every policy with `fidelity prepare --open-loop`: the
// world model's and judge's errors apart from how policies react to imagined frames.

#include "queries/LatestRuns.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kosmos {

class Ledger;

// A component label ("ADAPTER SETTINGS-JSON") as its adapter id and settings, without what the
// plugin resolved ("resolved"): what a protocol's policy entry says.
std::pair<std::string, nlohmann::json> adapterAndSettings(const std::string &label);

struct OpenLoopTwin
{
    nlohmann::json document; // kosmos.replay_by_seed/1
    int episodes = 0;        // starts with a complete recording
};

// The replay document of `label`'s runs among `runs` (a physics protocol's latest runs): per start
// ("<task>#<episode>") that `policySeedOf` names, the seed its imagined run's policy is reset with,
// the instruction and the first `horizon` recorded actions, with the action contract the runs
// recorded. A run without all `horizon` actions or a contract is left out (its imagined run then
// fails, naming the seed). Throws Error(InvalidInput) when no run qualifies or the runs recorded
// different contracts.
OpenLoopTwin openLoopTwin(Ledger &ledger, const std::string &label,
                          const std::vector<LatestRun> &runs,
                          const std::map<std::string, std::uint64_t> &policySeedOf, int horizon);

// The other way (kosmos-cli fidelity prepare --in-physics): the actions `label` took in the world
// model, closed loop, replayed in physics from the same start. `imaginedRuns` are an imagined
// protocol's latest runs, each named `label` (an open-loop twin's runs named by the policy they
// replay); `policySeedOf` keys each start ("<task>#<episode>", an imagined task's id) by the seed
// the physics replay's policy is reset with. The document says "actions_from": "imagined", and
// each episode its "imagined_run". Physics then says whether the very actions the world model
// was judged on succeed: the world model's and judge's errors on the closed loop's own actions,
// apart from how differently the policy acted on imagined frames. Throws as openLoopTwin does.
OpenLoopTwin imaginedActionsTwin(Ledger &ledger, const std::string &label,
                                 const std::vector<LatestRun> &imaginedRuns,
                                 const std::map<std::string, std::uint64_t> &policySeedOf,
                                 int horizon);

} // namespace kosmos
