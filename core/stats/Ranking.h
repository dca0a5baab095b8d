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

// The order of two policies (docs/statistics.md, "Ranking"): one test per pair, paired where the
// design pairs them (exact McNemar over the starts both ran: episodes of the same task and start
// lineage), Fisher's exact test where they share no start; Holm's adjustment over every pair of
// the ranking; an order is stated only when the adjusted p is below 0.05. The bootstrap interval
// of the difference is the effect size shown beside it.
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
    bool exactSeparated = false; // Clopper-Pearson intervals disjoint (shown; not the rule)
    std::string test;            // "exact McNemar" | "Fisher exact"
    int sharedStarts = 0;        // starts both policies ran (the paired test's n)
    int aOnly = 0;               // shared starts where only A succeeded (McNemar's b)
    int bOnly = 0;               // ... only B (c)
    double pValue = 1.0;         // two-sided, unadjusted
    double adjustedP = 1.0;      // Holm over the ranking's pairs
};
struct PolicyRanking
{
    std::vector<std::pair<std::string, Proportion>> rates; // Wilson, by rate descending
    std::vector<PairOrder> pairs;                          // every pair, in policy order
    double alpha = 0.05;
    // Pairs whose order is stated (the header every view shows: "2 of 10 pairs separated").
    int separatedPairs() const;
};

// The header every ranking view shows: "2 of 10 pairwise orders stated (exact McNemar on the
// starts both ran, Fisher's exact test without shared starts; Holm-adjusted p < 0.05)".
std::string rankingHeader(const PolicyRanking &ranking);
// A pair's test, for its row: "exact McNemar on 40 shared starts (7 vs 1): p 0.070, Holm 0.210".
std::string pairTestText(const PairOrder &pair);
// For an indeterminate pair, what more data would do: "about 130 episodes per policy would tell
// them apart (at the observed rates)", or "not at these rates (equal)". Empty for a stated order.
std::string separationText(const PolicyRanking &ranking, const PairOrder &pair);
// The rule as one sentence (docs/statistics.md), for views that explain it.
extern const char *const kPairOrderRule;

// How far apart the rates are, before any correlation with them is read (issue [honest-gate]):
// the number of distinguishable levels (the largest set of policies whose Wilson intervals are
// pairwise disjoint: a greedy pass over the intervals sorted by upper bound), the policies tied at
// 0% and at 100%, and how many pairwise orders the ranking states. With fewer than three levels,
// or fewer than half of the pairs ordered, a correlation over these rates is not informative.
struct RateSpread
{
    int policies = 0;
    int levels = 0;
    std::vector<std::string> levelPolicies; // one per level, lowest first
    int atZero = 0;
    int atHundred = 0;
    int pairs = 0;
    int orderedPairs = 0;
    bool informative() const { return levels >= 3 && 2 * orderedPairs >= pairs; }
    // The plain sentence: why not (empty when informative).
    std::string whyNotInformative() const;
};
RateSpread rateSpread(const PolicyRanking &ranking);

// Episodes per policy at which two observed rates would be told apart at 95% (their Wilson
// intervals disjoint, the rates kept): nullopt for equal rates or beyond 1,000,000.
std::optional<int> episodesToSeparate(double rateA, double rateB);
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
