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

struct CompareCandidate
{
    std::int64_t runId = 0;
    std::string policy;     // adapter id + settings
    std::string worldModel; // adapter id + settings
    std::string status;
    std::string matchedBy; // "start_state", "seed", or "" (the same instruction, another start)
    bool otherPolicy = false;
    bool otherWorldModel = false;
};

// What a run can be compared with (the compare workspace's picker): every other run of the same
// instruction, those from the same start first (the same recorded start state, else the same
// episode seed) - other policies on it, then other world models, then repeats of the same
// components - then the instruction's other starts; by run id within each group. At most `limit`.
std::vector<CompareCandidate> compareCandidates(Ledger &ledger, std::int64_t runId,
                                                std::size_t limit = 500);

} // namespace kosmos
