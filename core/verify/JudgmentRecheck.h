#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

struct RecheckProblem
{
    std::int64_t judgmentId = 0;
    std::string message;
};

// Recomputes every stored judgment from its stored raw samples: each raw answer is parsed and
// classified again (format class and parse must match what is stored), the sample indices must
// be exactly 0..n-1 for the frozen sample count, and the quorum rule applied to the final try
// of each sample must give the stored outcome, unknown reason, progress and decisive votes.
// Anything else is a forged or corrupted summary. `kosmos-cli verify` runs it.
std::vector<RecheckProblem> recheckJudgments(Ledger &ledger, std::int64_t *checked = nullptr);

} // namespace kosmos
