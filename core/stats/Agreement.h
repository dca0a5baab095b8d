#pragma once

#include "stats/Proportion.h"

#include <optional>
#include <string>
#include <vector>

namespace kosmos {

// Statistics for judge calibration and paired audits (docs/statistics.md has every formula and
// where each test's expected values come from).

// Clopper-Pearson exact interval for successes out of n at level 1 - alpha. The bounds are
// quantiles of Beta(k, n - k + 1) and Beta(k + 1, n - k); 0 and 1 at k = 0 and k = n.
Proportion clopperPearson(int successes, int n, double alpha = 0.05);

// Exact McNemar test on paired binary outcomes: the two-sided binomial test of the discordant
// pairs (b: first yes / second no, c: first no / second yes) against p = 1/2.
struct McNemarResult
{
    int discordant = 0; // b + c
    int b = 0;
    int c = 0;
    double pValue = 1.0; // min(1, 2 * P(X <= min(b, c))), X ~ Bin(b + c, 1/2); 1 when b + c = 0
};
McNemarResult mcnemarExact(int b, int c);

// Fisher's exact test of a 2x2 table [[a, b], [c, d]], two-sided: the sum of the probabilities
// (hypergeometric, margins fixed) of every table no more probable than the observed one (with
// scipy.stats.fisher_exact's relative tolerance of 1e-7).
double fisherExactTwoSided(int a, int b, int c, int d);

// Holm's step-down adjustment of p-values (the family-wise error rate): the i-th smallest p times
// (m - i + 1), made monotone, at most 1; in the input's order.
std::vector<double> holmAdjusted(const std::vector<double> &pValues);

// Cohen's kappa between two raters over the same items, categories as strings. nullopt when
// there is no item or the expected agreement is 1 (both raters constant and equal).
struct KappaResult
{
    int n = 0;
    double observedAgreement = 0; // p_o
    double expectedAgreement = 0; // p_e
    std::optional<double> kappa;  // (p_o - p_e) / (1 - p_e)
};
KappaResult cohensKappa(const std::vector<std::string> &a, const std::vector<std::string> &b);
// Quadratic-weighted kappa on an ordinal scale minValue..maxValue (e.g. progress 0-5):
// 1 - sum(w O) / sum(w E), w_ij = (i - j)^2 / (K - 1)^2.
KappaResult weightedKappa(const std::vector<int> &a, const std::vector<int> &b, int minValue,
                          int maxValue);

// A judge's binary verdicts against reference verdicts (human labels) on the same clips. Pairs
// where either side is undecided (nullopt) are counted as indecisive and left out.
struct BinaryAgreement
{
    int pairs = 0;      // decisive pairs
    int indecisive = 0; // pairs with an unknown on either side
    int truePositive = 0, falsePositive = 0, trueNegative = 0, falseNegative = 0;
    Proportion agreement;   // (TP + TN) / pairs, Wilson
    Proportion sensitivity; // TP / (TP + FN), Wilson
    Proportion specificity; // TN / (TN + FP), Wilson
    KappaResult kappa;
    std::optional<double> leniencyOffset; // judge success rate - reference success rate
};
BinaryAgreement binaryAgreement(const std::vector<std::optional<bool>> &judge,
                                const std::vector<std::optional<bool>> &reference);

// Correlations of two equally long vectors; nullopt when fewer than 2 points or a constant one.
std::optional<double> pearson(const std::vector<double> &x, const std::vector<double> &y);
// Pearson on average ranks (ties share the mean of their ranks).
std::optional<double> spearman(const std::vector<double> &x, const std::vector<double> &y);
// Mean maximum rank violation as SIMPLER defines it (simpler_env/utils/metrics.py): for each i,
// the largest |real_i - real_j| over j with (sim_i > sim_j) != (real_i > real_j); the mean of
// those. Lower is better; 0 when the orderings agree.
std::optional<double> mmrv(const std::vector<double> &sim, const std::vector<double> &real);

} // namespace kosmos
