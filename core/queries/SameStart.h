#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

struct SameStartRun
{
    std::int64_t runId = 0;
    std::string worldModel; // adapter id + settings
    std::string matchedBy;  // "start_state" (the same recorded start) or "seed"
};

// Completed runs of the same instruction from the same start in another world model (another
// component: another plugin or other settings), for the compare view: the same start state
// (recorded by the physics world in its label, or given in a protocol task's start_state, as a
// replay does), or else the same episode seed. Oldest first; empty when there is none.
std::vector<SameStartRun> runsFromTheSameStart(Ledger &ledger, std::int64_t runId);

} // namespace kosmos
