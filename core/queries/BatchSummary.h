#pragma once

#include "stats/Proportion.h"

#include <string>
#include <vector>

namespace kosmos {

class Ledger;

// Per policy of one frozen protocol: how its runs ended, what the reference (the synthetic
// world's truth or a physics simulator's state) says
// and what the judge said. Rates are never pooled across policies or protocols.
struct PolicySummary
{
    std::string policy; // adapter id + config, e.g. synthetic.scripted_policy {"skill":"expert"}
    int runs = 0;
    int completed = 0;
    int failed = 0;
    int cancelled = 0;
    int unfinished = 0;
    int validationInvalid = 0;
    Proportion reference; // reference (ground-truth) success over runs with a reference label
    // Where the reference labels come from: "synthetic_reference" (the procedural world's own
    // truth), "physics" (a simulator's state), "mixed", or empty (no reference labels).
    std::string referenceSource;
    Proportion judge; // judge success over decisive judgments
    int judgeUnknown = 0;
};

std::vector<PolicySummary> summarizeProtocol(Ledger &ledger, const std::string &protocolSha256);

} // namespace kosmos
