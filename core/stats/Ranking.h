#pragma once

#include "stats/Proportion.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

// One evaluated episode: which policy, on which task, from which start lineage (episodes of
// different policies from one start share a lineage), and whether it succeeded.
struct EpisodeOutcome
{
    std::string policy;
    std::string task;
    std::string lineage;
    bool success = false;
};

// A percentile bootstrap interval of the success-rate difference A - B. Each replicate resamples,
// within every task, the start lineages with replacement (a lineage brings all its episodes of
// both policies), so the pairing by start is kept and tasks keep their weight. Seeded: the same
// inputs, replicate count and seed give the same interval.
struct BootstrapInterval
{
    double observed = 0;
    double lower = 0;
    double upper = 0;
    int replicates = 0;
    std::uint64_t seed = 0;
};
BootstrapInterval bootstrapRateDifference(const std::vector<EpisodeOutcome> &episodes,
                                          const std::string &policyA, const std::string &policyB,
                                          int replicates = 10000, std::uint64_t seed = 20261202,
                                          double alpha = 0.05);

// The order of two policies, stated only when the bootstrap interval of the difference excludes
// 0 *and* their exact (Clopper-Pearson) intervals do not overlap; otherwise indeterminate.
struct PairOrder
{
    std::string a;
    std::string b;
    enum class Verdict
    {
        ABetter,
        BBetter,
        Indeterminate
    } verdict = Verdict::Indeterminate;
    BootstrapInterval difference;
    bool exactSeparated = false;
};
struct PolicyRanking
{
    std::vector<std::pair<std::string, Proportion>> rates; // Wilson, by rate descending
    std::vector<PairOrder> pairs;                          // every pair, in policy order
};
// Callers pass the episodes of one frozen protocol only: rates are never pooled across
// protocols.
PolicyRanking rankPolicies(const std::vector<EpisodeOutcome> &episodes, int replicates = 10000,
                           std::uint64_t seed = 20261202);

// The success rate of one policy on one task with the episodes that have no decisive outcome
// (judge unknown, unlabelled, failed attempt) kept in view: Wilson over the decisive episodes,
// and the Horowitz-Manski worst/best-case bounds over all episodes of the cell, which assume
// nothing about why an outcome is missing: [k / (n + m), (k + m) / (n + m)].
struct CellRate
{
    std::string policy;
    std::string task;
    Proportion decisive; // Wilson over the n decisive episodes
    int missing = 0;     // m
    double worstCase = 0;
    double bestCase = 0;
};
// Cells in (policy, task) order. `missing` lists the episodes without a decisive outcome (their
// `success` is ignored).
std::vector<CellRate> cellRates(const std::vector<EpisodeOutcome> &episodes,
                                const std::vector<EpisodeOutcome> &missing);

// Simulated success rates against reference rates (e.g. real-robot results) of the same
// policies. A reference name matches a ranked policy whose name equals it or starts with it and
// a space (a policy is "<adapter id> <settings>").
struct ReferenceComparison
{
    std::vector<std::string> matched; // ranked policy names, in reference order
    std::vector<double> simulated;
    std::vector<double> reference;
    std::vector<std::string> unmatched; // reference names with no ranked policy
    std::optional<double> pearson;
    std::optional<double> spearman;
    std::optional<double> mmrv;
};
ReferenceComparison compareWithReference(const PolicyRanking &ranking,
                                         const std::vector<std::pair<std::string, double>> &rates);

// Bradley-Terry strengths from pairwise outcomes (Hunter's MM algorithm), scaled so that their
// geometric mean is 1: P(i beats j) = s_i / (s_i + s_j). A player that never wins gets 0.
struct PairwiseOutcome
{
    std::string winner;
    std::string loser;
    int count = 1;
};
std::map<std::string, double> bradleyTerry(const std::vector<PairwiseOutcome> &outcomes,
                                           int iterations = 2000);

} // namespace kosmos
