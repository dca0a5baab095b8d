#include "stats/Ranking.h"

#include "stats/Agreement.h"
#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>

namespace kosmos {

namespace {

struct Tally
{
    int successes = 0;
    int n = 0;
};

} // namespace

BootstrapInterval bootstrapRateDifference(const std::vector<EpisodeOutcome> &episodes,
                                          const std::string &policyA, const std::string &policyB,
                                          int replicates, std::uint64_t seed, double alpha)
{
    if (replicates < 1)
        throw Error(ErrorCode::InvalidInput, "bootstrap: replicates must be 1 or more");
    if (!(alpha > 0 && alpha < 1))
        throw Error(ErrorCode::InvalidInput, "bootstrap: alpha must lie strictly between 0 and 1");
    // task -> lineage -> (A tally, B tally)
    std::map<std::string, std::map<std::string, std::pair<Tally, Tally>>> byTask;
    for (const auto &e : episodes) {
        if (e.policy != policyA && e.policy != policyB)
            continue;
        auto &cell = byTask[e.task][e.lineage];
        Tally &t = e.policy == policyA ? cell.first : cell.second;
        t.successes += e.success;
        ++t.n;
    }
    std::vector<std::vector<std::pair<Tally, Tally>>> tasks;
    Tally a, b;
    for (const auto &[task, lineages] : byTask) {
        std::vector<std::pair<Tally, Tally>> cells;
        for (const auto &[lineage, cell] : lineages) {
            cells.push_back(cell);
            a.successes += cell.first.successes;
            a.n += cell.first.n;
            b.successes += cell.second.successes;
            b.n += cell.second.n;
        }
        tasks.push_back(std::move(cells));
    }
    if (a.n == 0 || b.n == 0)
        throw Error(ErrorCode::InvalidInput,
                    "bootstrap: no episodes of " + (a.n == 0 ? policyA : policyB));
    BootstrapInterval out;
    out.replicates = replicates;
    out.seed = seed;
    out.observed = static_cast<double>(a.successes) / a.n - static_cast<double>(b.successes) / b.n;
    std::mt19937_64 rng(seed);
    std::vector<double> differences;
    differences.reserve(static_cast<std::size_t>(replicates));
    for (int r = 0; r < replicates; ++r) {
        Tally ra, rb;
        for (const auto &cells : tasks) {
            std::uniform_int_distribution<std::size_t> pick(0, cells.size() - 1);
            for (std::size_t i = 0; i < cells.size(); ++i) {
                const auto &cell = cells[pick(rng)];
                ra.successes += cell.first.successes;
                ra.n += cell.first.n;
                rb.successes += cell.second.successes;
                rb.n += cell.second.n;
            }
        }
        if (ra.n == 0 || rb.n == 0)
            continue; // a replicate that drew no episode of one policy has no difference
        differences.push_back(static_cast<double>(ra.successes) / ra.n -
                              static_cast<double>(rb.successes) / rb.n);
    }
    std::sort(differences.begin(), differences.end());
    if (differences.empty()) {
        out.lower = out.upper = out.observed;
        return out;
    }
    auto quantile = [&](double q) {
        const double pos = q * static_cast<double>(differences.size() - 1);
        const auto lo = static_cast<std::size_t>(std::floor(pos));
        const auto hi = std::min(lo + 1, differences.size() - 1);
        return differences[lo] +
               (pos - static_cast<double>(lo)) * (differences[hi] - differences[lo]);
    };
    out.lower = quantile(alpha / 2);
    out.upper = quantile(1 - alpha / 2);
    return out;
}

PolicyRanking rankPolicies(const std::vector<EpisodeOutcome> &episodes, int replicates,
                           std::uint64_t seed)
{
    std::map<std::string, Tally> tallies;
    // policy -> (task, lineage) -> success, for the paired test
    std::map<std::string, std::map<std::pair<std::string, std::string>, bool>> byStart;
    for (const auto &e : episodes) {
        tallies[e.policy].successes += e.success;
        ++tallies[e.policy].n;
        byStart[e.policy][{e.task, e.lineage}] = e.success;
    }
    PolicyRanking ranking;
    for (const auto &[policy, t] : tallies)
        ranking.rates.emplace_back(policy, wilson(t.successes, t.n));
    std::stable_sort(ranking.rates.begin(), ranking.rates.end(),
                     [](const auto &x, const auto &y) { return *x.second.rate > *y.second.rate; });
    for (auto i = tallies.begin(); i != tallies.end(); ++i) {
        for (auto j = std::next(i); j != tallies.end(); ++j) {
            PairOrder pair;
            pair.a = i->first;
            pair.b = j->first;
            pair.difference = bootstrapRateDifference(episodes, pair.a, pair.b, replicates, seed);
            const Proportion ea = clopperPearson(i->second.successes, i->second.n);
            const Proportion eb = clopperPearson(j->second.successes, j->second.n);
            pair.exactSeparated = *ea.lower > *eb.upper || *eb.lower > *ea.upper;
            const auto &startsA = byStart[pair.a];
            const auto &startsB = byStart[pair.b];
            for (const auto &[start, successA] : startsA) {
                const auto other = startsB.find(start);
                if (other == startsB.end())
                    continue;
                ++pair.sharedStarts;
                pair.aOnly += successA && !other->second;
                pair.bOnly += !successA && other->second;
            }
            if (pair.sharedStarts > 0) {
                pair.test = "exact McNemar";
                pair.pValue = mcnemarExact(pair.aOnly, pair.bOnly).pValue;
            } else {
                pair.test = "Fisher exact";
                pair.pValue =
                    fisherExactTwoSided(i->second.successes, i->second.n - i->second.successes,
                                        j->second.successes, j->second.n - j->second.successes);
            }
            ranking.pairs.push_back(pair);
        }
    }
    std::vector<double> p;
    p.reserve(ranking.pairs.size());
    for (const PairOrder &pair : ranking.pairs)
        p.push_back(pair.pValue);
    const std::vector<double> adjusted = holmAdjusted(p);
    for (std::size_t k = 0; k < ranking.pairs.size(); ++k) {
        PairOrder &pair = ranking.pairs[k];
        pair.adjustedP = adjusted[k];
        if (pair.adjustedP >= ranking.alpha)
            continue;
        const double rateA = *wilson(tallies[pair.a].successes, tallies[pair.a].n).rate;
        const double rateB = *wilson(tallies[pair.b].successes, tallies[pair.b].n).rate;
        if (rateA != rateB)
            pair.verdict =
                rateA > rateB ? PairOrder::Verdict::ABetter : PairOrder::Verdict::BBetter;
    }
    return ranking;
}

const char *const kPairOrderRule =
    "An order is stated only when a test of the pair (exact McNemar over the starts both policies "
    "ran; Fisher's exact test where they share none) gives a p-value below 0.05 after Holm's "
    "adjustment over every pair of the ranking; the lineage bootstrap interval of the difference "
    "is its effect size.";

std::string rankingHeader(const PolicyRanking &ranking)
{
    return std::to_string(ranking.separatedPairs()) + " of " +
           std::to_string(ranking.pairs.size()) +
           " pairwise orders stated (exact McNemar on the starts both ran, Fisher's exact test "
           "without shared starts; Holm-adjusted p < 0.05)";
}

std::string pairTestText(const PairOrder &pair)
{
    char p[64];
    std::snprintf(p, sizeof p, "p %.3g, Holm %.3g", pair.pValue, pair.adjustedP);
    if (pair.sharedStarts > 0)
        return pair.test + " on " + std::to_string(pair.sharedStarts) + " shared starts (" +
               std::to_string(pair.aOnly) + " vs " + std::to_string(pair.bOnly) + "): " + p;
    return pair.test + ": " + p;
}

std::string separationText(const PolicyRanking &ranking, const PairOrder &pair)
{
    if (pair.verdict != PairOrder::Verdict::Indeterminate)
        return {};
    auto rateOf = [&](const std::string &policy) {
        for (const auto &[name, p] : ranking.rates)
            if (name == policy)
                return p.rate.value_or(0);
        return 0.0;
    };
    const auto n = episodesToSeparate(rateOf(pair.a), rateOf(pair.b));
    return n ? "about " + std::to_string(*n) +
                   " episodes per policy would tell them apart (at the observed rates)"
             : std::string("not at these rates (equal, or beyond a million episodes)");
}

int PolicyRanking::separatedPairs() const
{
    return static_cast<int>(std::count_if(pairs.begin(), pairs.end(), [](const PairOrder &p) {
        return p.verdict != PairOrder::Verdict::Indeterminate;
    }));
}

RateSpread rateSpread(const PolicyRanking &ranking)
{
    RateSpread s;
    s.policies = static_cast<int>(ranking.rates.size());
    std::vector<std::pair<std::string, Proportion>> byUpper;
    for (const auto &[policy, rate] : ranking.rates) {
        if (!rate.rate)
            continue;
        s.atZero += rate.successes == 0;
        s.atHundred += rate.successes == rate.n;
        byUpper.emplace_back(policy, rate);
    }
    std::stable_sort(byUpper.begin(), byUpper.end(), [](const auto &x, const auto &y) {
        return *x.second.upper < *y.second.upper;
    });
    std::optional<double> last;
    for (const auto &[policy, rate] : byUpper) {
        if (last && *rate.lower <= *last)
            continue;
        s.levelPolicies.push_back(policy);
        last = *rate.upper;
    }
    s.levels = static_cast<int>(s.levelPolicies.size());
    s.pairs = static_cast<int>(ranking.pairs.size());
    s.orderedPairs = ranking.separatedPairs();
    return s;
}

std::string RateSpread::whyNotInformative() const
{
    if (informative())
        return {};
    std::string why = "the rates form " + std::to_string(levels) +
                      " distinguishable level(s) (policies whose 95% intervals are pairwise "
                      "disjoint; 3 are needed)";
    if (atZero > 1)
        why += ", " + std::to_string(atZero) + " policies are tied at 0%";
    if (atHundred > 1)
        why += ", " + std::to_string(atHundred) + " are tied at 100%";
    why += ", and " + std::to_string(orderedPairs) + " of " + std::to_string(pairs) +
           " pairwise orders are stated (half are needed)";
    return why;
}

std::optional<int> episodesToSeparate(double rateA, double rateB)
{
    if (rateA == rateB)
        return std::nullopt;
    const double hi = std::max(rateA, rateB);
    const double lo = std::min(rateA, rateB);
    auto apart = [&](int n) {
        const Proportion a = wilson(static_cast<int>(std::lround(hi * n)), n);
        const Proportion b = wilson(static_cast<int>(std::lround(lo * n)), n);
        return *a.lower > *b.upper;
    };
    int lower = 1;
    int upper = 1;
    while (!apart(upper)) {
        if (upper >= 1000000)
            return std::nullopt;
        lower = upper;
        upper = std::min(1000000, upper * 2);
    }
    while (upper - lower > 1) {
        const int mid = lower + (upper - lower) / 2;
        (apart(mid) ? upper : lower) = mid;
    }
    return upper;
}

std::vector<CellRate> cellRates(const std::vector<EpisodeOutcome> &episodes,
                                const std::vector<EpisodeOutcome> &missing)
{
    std::map<std::pair<std::string, std::string>, std::pair<Tally, int>> cells;
    for (const auto &e : episodes) {
        auto &[tally, m] = cells[{e.policy, e.task}];
        tally.successes += e.success;
        ++tally.n;
    }
    for (const auto &e : missing)
        ++cells[{e.policy, e.task}].second;
    std::vector<CellRate> out;
    for (const auto &[key, value] : cells) {
        const auto &[tally, m] = value;
        CellRate c;
        c.policy = key.first;
        c.task = key.second;
        c.decisive = wilson(tally.successes, tally.n);
        c.missing = m;
        const double all = tally.n + m;
        c.worstCase = tally.successes / all;
        c.bestCase = (tally.successes + m) / all;
        out.push_back(c);
    }
    return out;
}

ReferenceComparison compareWithReference(const PolicyRanking &ranking,
                                         const std::vector<std::pair<std::string, double>> &rates)
{
    ReferenceComparison out;
    for (const auto &[policy, rate] : rates) {
        bool found = false;
        for (const auto &[name, p] : ranking.rates)
            if (p.rate && (name == policy || name.rfind(policy + " ", 0) == 0)) {
                out.matched.push_back(name);
                out.simulated.push_back(*p.rate);
                out.reference.push_back(rate);
                found = true;
            }
        if (!found)
            out.unmatched.push_back(policy);
    }
    out.pearson = pearson(out.simulated, out.reference);
    out.spearman = spearman(out.simulated, out.reference);
    out.mmrv = mmrv(out.simulated, out.reference);
    return out;
}

std::map<std::string, double> bradleyTerry(const std::vector<PairwiseOutcome> &outcomes,
                                           int iterations)
{
    std::set<std::string> players;
    std::map<std::string, double> wins;
    std::map<std::pair<std::string, std::string>, double> games; // unordered pair -> count
    for (const auto &o : outcomes) {
        if (o.count < 0 || o.winner == o.loser)
            throw Error(ErrorCode::InvalidInput,
                        "bradleyTerry: an outcome needs two players and a count >= 0");
        players.insert(o.winner);
        players.insert(o.loser);
        wins[o.winner] += o.count;
        games[std::minmax(o.winner, o.loser)] += o.count;
    }
    std::map<std::string, double> s;
    for (const auto &p : players)
        s[p] = 1.0;
    for (int it = 0; it < iterations; ++it) {
        std::map<std::string, double> next;
        double change = 0;
        for (const auto &p : players) {
            double denominator = 0;
            for (const auto &[pair, n] : games) {
                if (pair.first == p)
                    denominator += n / (s[p] + s[pair.second]);
                else if (pair.second == p)
                    denominator += n / (s[p] + s[pair.first]);
            }
            next[p] = denominator > 0 ? wins[p] / denominator : 0.0;
        }
        // Scale to a geometric mean of 1 over the players that won anything.
        double logSum = 0;
        int positive = 0;
        for (const auto &[p, v] : next)
            if (v > 0) {
                logSum += std::log(v);
                ++positive;
            }
        const double scale = positive > 0 ? std::exp(-logSum / positive) : 1.0;
        for (auto &[p, v] : next) {
            v *= scale;
            change = std::max(change, std::abs(v - s[p]));
        }
        s = std::move(next);
        if (change < 1e-12)
            break;
    }
    return s;
}

} // namespace kosmos
