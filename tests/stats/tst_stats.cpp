// Every expected value is computed by hand (the arithmetic is in the comment) or taken from a
// published source named beside it; docs/statistics.md has the formulas.
#include "stats/Agreement.h"
#include "stats/Proportion.h"
#include "stats/Ranking.h"
#include "util/Error.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace kosmos;

TEST(Stats, WilsonInterval)
{
    // 0 of 10: upper = z^2 / (n + z^2) = 3.8415 / 13.8415.
    const Proportion zero = wilson(0, 10);
    EXPECT_DOUBLE_EQ(*zero.lower, 0.0);
    EXPECT_NEAR(*zero.upper, 0.277533, 1e-6);
    // 5 of 10: centre 0.5, half width z sqrt(0.025 + z^2/400) / (1 + z^2/10) = 0.2366.
    const Proportion half = wilson(5, 10);
    EXPECT_NEAR(*half.lower, 0.236593, 1e-6);
    EXPECT_NEAR(*half.upper, 0.763407, 1e-6);
    EXPECT_FALSE(wilson(0, 0).rate) << "no rate over n = 0";
    // Counts outside 0 <= successes <= n have no interval (wilson(5, 3) printed "5/3 = 167%
    // [95% CI 0-100%]"); every interval function refuses them alike.
    for (const auto &[k, n] : std::vector<std::pair<int, int>>{{5, 3}, {-1, 3}, {0, -1}, {1, 0}}) {
        EXPECT_THROW(wilson(k, n), Error) << k << "/" << n;
        EXPECT_THROW(clopperPearson(k, n), Error) << k << "/" << n;
    }
    EXPECT_NE(test::errorOf([] { wilson(5, 3); }).find("not 5 of 3"), std::string::npos);
    EXPECT_THROW(wilson(1, 2, 0.0), Error);
    EXPECT_THROW(clopperPearson(1, 2, 1.5), Error);
}

TEST(Stats, ClopperPearsonMatchesTheClosedFormsAndRsBinomTest)
{
    // k = 0: upper = 1 - (alpha/2)^(1/n); k = n: lower = (alpha/2)^(1/n).
    const Proportion zero = clopperPearson(0, 10);
    EXPECT_DOUBLE_EQ(*zero.lower, 0.0);
    EXPECT_NEAR(*zero.upper, 1 - std::pow(0.025, 0.1), 1e-9);
    const Proportion all = clopperPearson(10, 10);
    EXPECT_NEAR(*all.lower, std::pow(0.025, 0.1), 1e-9);
    EXPECT_DOUBLE_EQ(*all.upper, 1.0);
    // R: binom.test(5, 10)$conf.int = 0.1870860 0.8129140.
    const Proportion five = clopperPearson(5, 10);
    EXPECT_NEAR(*five.lower, 0.1870860, 1e-6);
    EXPECT_NEAR(*five.upper, 0.8129140, 1e-6);
    // Symmetry: (k, n) and (n - k, n) mirror each other.
    const Proportion three = clopperPearson(3, 9), six = clopperPearson(6, 9);
    EXPECT_NEAR(*three.lower, 1 - *six.upper, 1e-9);
    EXPECT_THROW(clopperPearson(11, 10), Error);
}

TEST(Stats, ExactMcNemar)
{
    // b = 0, c = 9: p = 2 * 0.5^9 = 0.00390625.
    EXPECT_DOUBLE_EQ(mcnemarExact(0, 9).pValue, 2.0 / 512);
    // b = 1, c = 8: p = 2 * (1 + 9) / 512 = 0.0390625.
    EXPECT_NEAR(mcnemarExact(1, 8).pValue, 20.0 / 512, 1e-12);
    // Balanced discordance: p = 1 (capped).
    EXPECT_DOUBLE_EQ(mcnemarExact(4, 4).pValue, 1.0);
    EXPECT_DOUBLE_EQ(mcnemarExact(0, 0).pValue, 1.0);
    EXPECT_EQ(mcnemarExact(2, 3).discordant, 5);
}

TEST(Stats, CohensKappaWikipediaExample)
{
    // Wikipedia "Cohen's kappa": 50 proposals, yes/yes 20, yes/no 5, no/yes 10, no/no 15:
    // p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5, kappa = 0.4.
    std::vector<std::string> a, b;
    auto add = [&](int n, const char *x, const char *y) {
        for (int i = 0; i < n; ++i) {
            a.push_back(x);
            b.push_back(y);
        }
    };
    add(20, "yes", "yes");
    add(5, "yes", "no");
    add(10, "no", "yes");
    add(15, "no", "no");
    const KappaResult k = cohensKappa(a, b);
    EXPECT_DOUBLE_EQ(k.observedAgreement, 0.7);
    EXPECT_DOUBLE_EQ(k.expectedAgreement, 0.5);
    EXPECT_NEAR(*k.kappa, 0.4, 1e-12);
    EXPECT_FALSE(cohensKappa({"x", "x"}, {"x", "x"}).kappa) << "p_e = 1: undefined";
    EXPECT_THROW(cohensKappa({"x"}, {}), Error);
}

TEST(Stats, QuadraticWeightedKappa)
{
    // Scale 0..3, a = [0,1,2,3], b = [0,1,3,2]: sum w O = 2/9; every marginal is 1 so
    // E_ij = 1/4 and sum w E = (1/4) * 40/9 = 10/9; kappa = 1 - (2/9)/(10/9) = 0.8.
    EXPECT_NEAR(*weightedKappa({0, 1, 2, 3}, {0, 1, 3, 2}, 0, 3).kappa, 0.8, 1e-12);
    EXPECT_NEAR(*weightedKappa({0, 1, 2, 3}, {0, 1, 2, 3}, 0, 3).kappa, 1.0, 1e-12);
    EXPECT_THROW(weightedKappa({6}, {0}, 0, 5), Error) << "outside the scale";
}

TEST(Stats, BinaryAgreementCountsIndecisivePairsApart)
{
    using B = std::optional<bool>;
    // judge:     Y Y Y N N N ?  Y
    // reference: Y Y N N N Y Y  ?
    const std::vector<B> judge = {true, true, true, false, false, false, std::nullopt, true};
    const std::vector<B> human = {true, true, false, false, false, true, true, std::nullopt};
    const BinaryAgreement r = binaryAgreement(judge, human);
    EXPECT_EQ(r.pairs, 6);
    EXPECT_EQ(r.indecisive, 2);
    EXPECT_EQ(r.truePositive, 2);
    EXPECT_EQ(r.falsePositive, 1);
    EXPECT_EQ(r.trueNegative, 2);
    EXPECT_EQ(r.falseNegative, 1);
    EXPECT_NEAR(*r.sensitivity.rate, 2.0 / 3, 1e-12);
    EXPECT_NEAR(*r.specificity.rate, 2.0 / 3, 1e-12);
    EXPECT_NEAR(*r.leniencyOffset, 0.0, 1e-12); // 3/6 - 3/6
    // p_o = 4/6, p_e = 0.5*0.5 + 0.5*0.5 = 0.5: kappa = (2/3 - 1/2) / (1/2) = 1/3.
    EXPECT_NEAR(*r.kappa.kappa, 1.0 / 3, 1e-12);
    EXPECT_TRUE(r.sensitivity.lower && r.sensitivity.upper) << "with its interval";
}

TEST(Stats, PearsonSpearmanAndMmrv)
{
    // x = 1..5, y = [2,4,5,4,5]: sum dxdy = 6, sxx = 10, syy = 6: r = 6 / sqrt(60).
    const std::vector<double> x = {1, 2, 3, 4, 5}, y = {2, 4, 5, 4, 5};
    EXPECT_NEAR(*pearson(x, y), 6 / std::sqrt(60.0), 1e-12);
    // Ranks of y with ties averaged: [1, 2.5, 4.5, 2.5, 4.5]: r = 7 / sqrt(90).
    EXPECT_NEAR(*spearman(x, y), 7 / std::sqrt(90.0), 1e-12);
    EXPECT_FALSE(pearson({1, 1}, {2, 3})) << "a constant vector has no correlation";
    // MMRV (SIMPLER): sim [0.1,0.2,0.3] vs real [0.3,0.2,0.1]: violations 0.2, 0.1, 0.2.
    EXPECT_NEAR(*mmrv({0.1, 0.2, 0.3}, {0.3, 0.2, 0.1}), 0.5 / 3, 1e-12);
    EXPECT_DOUBLE_EQ(*mmrv({0.1, 0.5, 0.9}, {0.2, 0.4, 0.8}), 0.0) << "same order";
    // Ties in sim are not violations under strict comparison: only i = 2 vs j = 0 / 1 differ.
    EXPECT_NEAR(*mmrv({0.5, 0.5, 0.1}, {0.2, 0.4, 0.6}), (0.4 + 0.2 + 0.4) / 3, 1e-12);
}

namespace {

// Two tasks x `starts` lineages; policy A succeeds with `a` of them per task, B with `b`.
std::vector<EpisodeOutcome> episodes(int starts, int a, int b)
{
    std::vector<EpisodeOutcome> out;
    for (const char *task : {"t1", "t2"})
        for (int s = 0; s < starts; ++s) {
            const std::string lineage = std::string(task) + "-" + std::to_string(s);
            out.push_back({"A", task, lineage, s < a});
            out.push_back({"B", task, lineage, s < b});
        }
    return out;
}

} // namespace

TEST(Stats, BootstrapIsSeededAndSeparatesOnlyWhatItShould)
{
    const auto same = episodes(10, 5, 5);
    const auto r1 = bootstrapRateDifference(same, "A", "B", 2000, 7);
    const auto r2 = bootstrapRateDifference(same, "A", "B", 2000, 7);
    EXPECT_EQ(r1.lower, r2.lower);
    EXPECT_EQ(r1.upper, r2.upper);
    EXPECT_DOUBLE_EQ(r1.observed, 0.0);
    // Paired by lineage, identical outcomes: every replicate's difference is 0.
    EXPECT_DOUBLE_EQ(r1.lower, 0.0);
    EXPECT_DOUBLE_EQ(r1.upper, 0.0);

    const auto apart = bootstrapRateDifference(episodes(10, 10, 0), "A", "B", 2000, 7);
    EXPECT_DOUBLE_EQ(apart.lower, 1.0);
    const auto close = bootstrapRateDifference(episodes(10, 6, 4), "A", "B", 2000, 7);
    EXPECT_LE(close.lower, 0.2);
    EXPECT_GE(close.upper, 0.2);
    EXPECT_THROW(bootstrapRateDifference(same, "A", "C", 10, 1), Error);
}

TEST(Stats, RankingStatesOnlyTheOrdersItsTestsSeparate)
{
    auto all = episodes(20, 20, 2); // A 40/40, B 4/40: separated both ways
    for (auto &e : episodes(20, 12, 12))
        if (e.policy == "A") {
            e.policy = "C"; // C 24/40: bootstrap vs A separates, but is it exact-separated?
            all.push_back(e);
        }
    const PolicyRanking r = rankPolicies(all, 2000, 11);
    ASSERT_EQ(r.rates.size(), 3u);
    EXPECT_EQ(r.rates[0].first, "A");
    for (const auto &pair : r.pairs) {
        if (pair.a == "A" && pair.b == "B") {
            EXPECT_EQ(pair.verdict, PairOrder::Verdict::ABetter);
        }
        if (pair.a == "B" && pair.b == "C") {
            EXPECT_EQ(pair.verdict, PairOrder::Verdict::BBetter); // 4/40 vs 24/40
            EXPECT_TRUE(pair.exactSeparated);
        }
    }
    // Close rates: indeterminate.
    const PolicyRanking close = rankPolicies(episodes(10, 6, 5), 2000, 11);
    EXPECT_EQ(close.pairs[0].verdict, PairOrder::Verdict::Indeterminate);
}

// Expected values from scipy 1.17.1 (scipy.stats.fisher_exact) and statsmodels 0.15.0
// (multipletests(method="holm"), mcnemar(exact=True)).
TEST(Stats, FisherExactAndHolmMatchScipyAndStatsmodels)
{
    EXPECT_NEAR(fisherExactTwoSided(8, 2, 1, 5), 0.034965034965034975, 1e-12);
    EXPECT_NEAR(fisherExactTwoSided(3, 97, 0, 100), 0.24623115577889448, 1e-12);
    EXPECT_NEAR(fisherExactTwoSided(12, 88, 3, 97), 0.028671314973177094, 1e-12);
    EXPECT_DOUBLE_EQ(fisherExactTwoSided(0, 5, 0, 5), 1.0);
    EXPECT_NEAR(fisherExactTwoSided(10, 0, 0, 10), 1.082508822446903e-05, 1e-15);
    EXPECT_THROW(fisherExactTwoSided(-1, 0, 0, 0), Error);
    const auto holm = holmAdjusted({0.01, 0.04, 0.03, 0.005, 0.5});
    const std::vector<double> expected = {0.04, 0.09, 0.09, 0.025, 0.5};
    ASSERT_EQ(holm.size(), expected.size());
    for (std::size_t i = 0; i < holm.size(); ++i)
        EXPECT_NEAR(holm[i], expected[i], 1e-12) << i;
    EXPECT_NEAR(mcnemarExact(7, 1).pValue, 0.0703125, 1e-12);
}

namespace {

// Policies over shared starts "s0".."s<starts-1>" of one task: `successes` of them succeed, the
// first ones.
void addPolicy(std::vector<EpisodeOutcome> &out, const std::string &policy, int starts,
               int successes, const std::string &prefix = "s")
{
    for (int s = 0; s < starts; ++s)
        out.push_back({policy, "t", prefix + std::to_string(s), s < successes});
}

} // namespace

TEST(Stats, OrdersComeFromAPairedTestAfterHolmsAdjustment)
{
    // Two policies on 10 shared starts, 6 vs 0: exact McNemar b = 6, c = 0, p = 2 / 64.
    std::vector<EpisodeOutcome> two;
    addPolicy(two, "A", 10, 6);
    addPolicy(two, "B", 10, 0);
    const PolicyRanking r2 = rankPolicies(two, 500, 3);
    ASSERT_EQ(r2.pairs.size(), 1u);
    EXPECT_EQ(r2.pairs[0].test, "exact McNemar");
    EXPECT_EQ(r2.pairs[0].sharedStarts, 10);
    EXPECT_EQ(r2.pairs[0].aOnly, 6);
    EXPECT_NEAR(r2.pairs[0].pValue, 0.03125, 1e-12);
    EXPECT_EQ(r2.pairs[0].verdict, PairOrder::Verdict::ABetter);
    EXPECT_EQ(r2.separatedPairs(), 1);
    // A third policy like B: three pairs, and Holm takes A's two orders back (0.03125 x 2).
    std::vector<EpisodeOutcome> three = two;
    addPolicy(three, "C", 10, 0);
    const PolicyRanking r3 = rankPolicies(three, 500, 3);
    EXPECT_EQ(r3.separatedPairs(), 0);
    for (const PairOrder &p : r3.pairs)
        EXPECT_EQ(p.verdict, PairOrder::Verdict::Indeterminate) << p.a << " " << p.b;
    EXPECT_EQ(rankingHeader(r3).rfind("0 of 3 pairwise orders stated", 0), 0u);
    for (const PairOrder &p : r3.pairs) {
        const std::string more = separationText(r3, p);
        if (p.a == "B" && p.b == "C")
            EXPECT_EQ(more, "not at these rates (equal, or beyond a million episodes)");
        else
            EXPECT_NE(more.find("episodes per policy would tell them apart"), std::string::npos)
                << more;
    }
    EXPECT_TRUE(separationText(r2, r2.pairs[0]).empty()) << "a stated order needs nothing more";
    // No shared start: Fisher's exact test on the two rates.
    std::vector<EpisodeOutcome> apart;
    addPolicy(apart, "A", 10, 8, "a");
    addPolicy(apart, "B", 6, 1, "b");
    const PolicyRanking rf = rankPolicies(apart, 500, 3);
    EXPECT_EQ(rf.pairs[0].test, "Fisher exact");
    EXPECT_NEAR(rf.pairs[0].pValue, fisherExactTwoSided(8, 2, 1, 5), 1e-15);
    EXPECT_EQ(pairTestText(rf.pairs[0]).rfind("Fisher exact: p 0.035", 0), 0u)
        << pairTestText(rf.pairs[0]);
}

TEST(Stats, TheSpreadSaysHowManyLevelsTheRatesForm)
{
    // A third seed's physics rates: 4%, 1%, 0%, 0%, 0% of 100 each: one level, three tied at 0.
    std::vector<EpisodeOutcome> flat;
    const std::vector<std::pair<std::string, int>> rates = {
        {"P1", 4}, {"P2", 1}, {"P3", 0}, {"P4", 0}, {"P5", 0}};
    for (const auto &[policy, k] : rates)
        addPolicy(flat, policy, 100, k);
    const RateSpread s = rateSpread(rankPolicies(flat, 200, 3));
    EXPECT_EQ(s.policies, 5);
    EXPECT_EQ(s.levels, 1);
    EXPECT_EQ(s.atZero, 3);
    EXPECT_EQ(s.pairs, 10);
    EXPECT_FALSE(s.informative());
    EXPECT_NE(s.whyNotInformative().find("1 distinguishable level(s)"), std::string::npos)
        << s.whyNotInformative();
    EXPECT_NE(s.whyNotInformative().find("3 policies are tied at 0%"), std::string::npos);
    // Rates far apart: three levels, every order stated.
    std::vector<EpisodeOutcome> wide;
    addPolicy(wide, "H", 100, 90);
    addPolicy(wide, "M", 100, 50);
    addPolicy(wide, "L", 100, 10);
    const RateSpread w = rateSpread(rankPolicies(wide, 200, 3));
    EXPECT_EQ(w.levels, 3);
    EXPECT_EQ(w.orderedPairs, 3);
    EXPECT_TRUE(w.informative());
    EXPECT_TRUE(w.whyNotInformative().empty());
}

TEST(Stats, EpisodesToSeparateTwoRates)
{
    const auto n = episodesToSeparate(0.04, 0.01);
    ASSERT_TRUE(n.has_value());
    auto apart = [](int k) {
        return *wilson(static_cast<int>(std::lround(0.04 * k)), k).lower >
               *wilson(static_cast<int>(std::lround(0.01 * k)), k).upper;
    };
    EXPECT_TRUE(apart(*n)) << *n;
    EXPECT_FALSE(apart(*n - 1)) << *n;
    EXPECT_GT(*n, 100) << "far more than the 100 episodes that left them tied";
    EXPECT_FALSE(episodesToSeparate(0.3, 0.3).has_value());
    EXPECT_EQ(episodesToSeparate(0.9, 0.1).value_or(0) < 20, true);
}

TEST(Stats, BradleyTerry)
{
    // A beats B 3 times of 4: s_A / (s_A + s_B) = 3/4, so s_A / s_B = 3; geometric mean 1.
    const auto s = bradleyTerry({{"A", "B", 3}, {"B", "A", 1}});
    EXPECT_NEAR(s.at("A") / s.at("B"), 3.0, 1e-6);
    EXPECT_NEAR(s.at("A") * s.at("B"), 1.0, 1e-6);
    // A chain with equal margins: A beats B and B beats C 2:1 each, A beats C 4:1
    // (consistent with s = 4, 2, 1 up to scale).
    const auto c = bradleyTerry({{"A", "B", 200},
                                 {"B", "A", 100},
                                 {"B", "C", 200},
                                 {"C", "B", 100},
                                 {"A", "C", 400},
                                 {"C", "A", 100}});
    EXPECT_NEAR(c.at("A") / c.at("B"), 2.0, 1e-6);
    EXPECT_NEAR(c.at("B") / c.at("C"), 2.0, 1e-6);
    EXPECT_THROW(bradleyTerry({{"A", "A", 1}}), Error);
}

TEST(Stats, CellRatesKeepMissingOutcomesInViewWithWorstAndBestCase)
{
    // Policy p on task t: 3 successes of 5 decisive episodes and 2 missing. Wilson over 5;
    // Horowitz-Manski bounds over all 7: worst 3/7 (missing all failed), best 5/7.
    std::vector<EpisodeOutcome> decisive = {{"p", "t", "t#0", true},  {"p", "t", "t#1", true},
                                            {"p", "t", "t#2", true},  {"p", "t", "t#3", false},
                                            {"p", "t", "t#4", false}, {"q", "t", "t#0", true}};
    std::vector<EpisodeOutcome> missing = {
        {"p", "t", "t#5", false}, {"p", "t", "t#6", false}, {"q", "u", "u#0", false}};
    const auto cells = cellRates(decisive, missing);
    ASSERT_EQ(cells.size(), 3u);
    EXPECT_EQ(cells[0].policy, "p");
    EXPECT_EQ(cells[0].decisive.n, 5);
    EXPECT_EQ(cells[0].missing, 2);
    EXPECT_DOUBLE_EQ(cells[0].worstCase, 3.0 / 7);
    EXPECT_DOUBLE_EQ(cells[0].bestCase, 5.0 / 7);
    // A cell with nothing decisive: no rate, bounds [0, 1].
    EXPECT_EQ(cells[2].task, "u");
    EXPECT_FALSE(cells[2].decisive.rate);
    EXPECT_DOUBLE_EQ(cells[2].worstCase, 0.0);
    EXPECT_DOUBLE_EQ(cells[2].bestCase, 1.0);
}

TEST(Stats, ReferenceComparisonMatchesByNameOrAdapterPrefix)
{
    PolicyRanking ranking;
    ranking.rates = {
        {"a {\"skill\":1}", wilson(9, 10)}, {"b", wilson(5, 10)}, {"c", wilson(1, 10)}};
    const auto c = compareWithReference(ranking, {{"a", 0.8}, {"b", 0.6}, {"c", 0.1}, {"z", 0.5}});
    ASSERT_EQ(c.matched.size(), 3u);
    EXPECT_EQ(c.matched[0], "a {\"skill\":1}");
    EXPECT_EQ(c.unmatched, std::vector<std::string>{"z"});
    // Same order in both: Spearman 1, MMRV 0.
    EXPECT_DOUBLE_EQ(*c.spearman, 1.0);
    EXPECT_DOUBLE_EQ(*c.mmrv, 0.0);
}
