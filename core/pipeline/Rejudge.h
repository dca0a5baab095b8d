#pragma once

#include "pipeline/RolloutEngine.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace kosmos {

struct RejudgeOutcome
{
    std::int64_t sourceRunId = 0;
    std::int64_t runId = 0; // the re-judging run (0 when skipped)
    std::string state;      // completed | failed | cancelled | skipped | busy (held by another
                            // live process: not judged by this call)
    std::string detail;
};

// Re-judges finished rollouts with another judge configuration. Each re-judgment is its own run
// (same protocol, episode, policy and world model; the new judge; seeds + {"rejudge_of": the
// source run key}) whose attempt re-uses the source attempt's frame artifacts and records the
// new judgment: stored beside the old one, never over it. Idempotent: the same judge
// configuration on the same run is done once.
std::vector<RejudgeOutcome> rejudgeRuns(Ledger &ledger, ComponentFactory &factory,
                                        const ComponentSpec &judge, const QuorumSettings &quorum,
                                        const std::vector<std::int64_t> &runIds,
                                        const std::atomic<bool> &stop);

} // namespace kosmos
