#pragma once

#include "ledger/AttemptScope.h"
#include "pipeline/Lockstep.h"
#include "pipeline/RolloutEngine.h"

#include <atomic>
#include <optional>
#include <string>

namespace kosmos {

// How one leased run ended, and "code: message" when it failed.
struct RunExecution
{
    AttemptResult end = AttemptResult::Failed;
    std::string failure;
};

// Executes one leased run end to end (set-up, rollout with its contract checks and stored frames,
// validation, judgment, timings) and ends the attempt through `scope`. A lost lease ends it as
// LeaseLost (nothing more is written) whichever write noticed. The engine's workers call it.
// `lockstep`: the worker's group of episodes run in lockstep (--batch N), or null.
RunExecution executeRun(AttemptScope &scope, const Protocol &protocol, const RunPlan &plan,
                        ComponentFactory &factory, const std::atomic<bool> &stop,
                        const ProgressFn &progress,
                        const std::optional<ComponentIdentity> &judgeIdentity,
                        LockstepGroup *lockstep = nullptr);

} // namespace kosmos
