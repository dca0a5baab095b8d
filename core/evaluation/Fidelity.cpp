#include "evaluation/Fidelity.h"

#include "evaluation/Calibration.h"
#include "evaluation/OpenLoopTwin.h"
#include "ledger/Ledger.h"
#include "queries/LatestRuns.h"
#include "queries/RolloutQuery.h"
#include "util/Error.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <utility>

namespace kosmos {

namespace {

struct EpisodeRow
{
    std::int64_t runId = 0;
    std::string policy;
    std::string task;
    std::int64_t episode = 0;
    std::optional<bool> outcome;
    bool invalid = false; // the rollout failed validation (so it was never judged)
};

std::optional<bool> decisive(const std::optional<std::string> &verdict)
{
    if (verdict == "success" || verdict == "met")
        return true;
    if (verdict == "failure" || verdict == "not_met")
        return false;
    return std::nullopt;
}

// Verdicts of one judge configuration (FidelityOptions::judgeConfig) by rollout run, and the
// valid rollouts it has not judged.
struct ConfigVerdicts
{
    std::map<std::int64_t, std::string> byRun;
    int missing = 0;
};

// The rollout runs of a protocol with their outcome by `source` (as protocolOutcomes reads it);
// "judge" read from `verdicts` instead of each run's own judgment where they are given.
std::vector<EpisodeRow> episodeRows(Ledger &ledger, const std::string &sha,
                                    const std::string &source, ConfigVerdicts *verdicts)
{
    std::vector<EpisodeRow> out;
    for (const LatestRun &run : latestRuns(ledger, {sha, true, source})) {
        const bool invalid = run.validation == "invalid";
        std::optional<std::string> outcome = outcomeBy(run, source);
        if (verdicts && source == "judge") {
            // A rollout that failed validation is never judged in the pipeline; a re-judgment
            // of it (kosmos-cli judge --all judges every completed rollout) does not count
            // either, so that two judges are compared on the same rollouts.
            const auto it = verdicts->byRun.find(run.runId);
            outcome =
                it == verdicts->byRun.end() || invalid ? std::nullopt : std::optional(it->second);
            verdicts->missing += !outcome && !invalid && run.status == "completed";
        }
        out.push_back(
            {run.runId, run.policyLabel, run.task, run.episodeIndex, decisive(outcome), invalid});
    }
    return out;
}

// The imagined runs of an open-loop twin (replay.actions by seed, settings.replays naming the
// physics policy's label) stand for that policy: relabelled, and the policy added to `replayed`.
void pairReplayedPolicies(std::vector<EpisodeRow> &imagined, std::set<std::string> &replayed)
{
    for (EpisodeRow &e : imagined) {
        if (!e.policy.starts_with("replay.actions "))
            continue;
        const auto [adapter, settings] = adapterAndSettings(e.policy);
        if (settings.is_object() && settings.contains("by_seed") && settings.contains("replays") &&
            settings["replays"].is_string()) {
            e.policy = settings["replays"].get<std::string>();
            replayed.insert(e.policy);
        }
    }
}

struct Rates
{
    std::vector<double> physics;
    std::vector<double> imagined;
};

// Per-policy rates of both worlds over the given pairs (each side over its decisive episodes);
// policies in `order`. A policy with no decisive episode on a side gets NaN there.
Rates ratesOf(const std::vector<const FidelityPair *> &pairs, const std::vector<std::string> &order)
{
    std::map<std::string, std::array<int, 4>> counts; // physics k, n, imagined k, n
    for (const FidelityPair *p : pairs) {
        auto &c = counts[p->policy];
        if (p->physics) {
            c[0] += *p->physics;
            ++c[1];
        }
        if (p->imagined) {
            c[2] += *p->imagined;
            ++c[3];
        }
    }
    Rates r;
    for (const auto &policy : order) {
        const auto &c = counts[policy];
        r.physics.push_back(c[1] ? static_cast<double>(c[0]) / c[1] : std::nan(""));
        r.imagined.push_back(c[3] ? static_cast<double>(c[2]) / c[3] : std::nan(""));
    }
    return r;
}

// The policies with a rate in both worlds only (a policy without a decisive episode on one side
// says nothing about agreement).
Rates bothKnown(const Rates &r)
{
    Rates out;
    for (std::size_t i = 0; i < r.physics.size(); ++i)
        if (std::isfinite(r.physics[i]) && std::isfinite(r.imagined[i])) {
            out.physics.push_back(r.physics[i]);
            out.imagined.push_back(r.imagined[i]);
        }
    return out;
}

std::optional<double> finiteOnly(const std::optional<double> &v)
{
    return v && std::isfinite(*v) ? v : std::nullopt;
}

// Percentile (type 7) of sorted values.
double percentile(const std::vector<double> &sorted, double q)
{
    const double h = (static_cast<double>(sorted.size()) - 1) * q;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    return sorted[lo] + (h - std::floor(h)) * (sorted[hi] - sorted[lo]);
}

IntervalStat withInterval(std::optional<double> value, std::vector<double> replicates)
{
    IntervalStat s;
    s.value = finiteOnly(value);
    std::erase_if(replicates, [](double v) { return !std::isfinite(v); });
    if (replicates.size() >= 20) {
        std::sort(replicates.begin(), replicates.end());
        s.lower = percentile(replicates, 0.025);
        s.upper = percentile(replicates, 0.975);
    }
    return s;
}

std::string orderName(PairOrder::Verdict v)
{
    return v == PairOrder::Verdict::ABetter   ? "first better"
           : v == PairOrder::Verdict::BBetter ? "second better"
                                              : "indeterminate";
}

// Pairs each physics episode with the imagined rollout from its start (imagined tasks are named
// "<physics task>#<episode>"); counts what stays unpaired.
void pairStarts(FidelityReport &report, const std::vector<EpisodeRow> &physics,
                const std::vector<EpisodeRow> &imagined)
{
    std::map<std::pair<std::string, std::string>, const EpisodeRow *> byStart;
    for (const auto &e : imagined)
        byStart[{e.policy, e.task}] = &e;
    std::set<std::pair<std::string, std::string>> used;
    for (const auto &e : physics) {
        const std::string lineage = e.task + "#" + std::to_string(e.episode);
        const auto it = byStart.find({e.policy, lineage});
        if (it == byStart.end()) {
            ++report.unpairedPhysics;
            continue;
        }
        used.insert(it->first);
        report.pairs.push_back({e.policy, e.task, lineage, e.runId, it->second->runId, e.outcome,
                                it->second->outcome, it->second->invalid});
    }
    report.unpairedImagined = static_cast<int>(byStart.size() - used.size());
    if (report.pairs.empty())
        throw Error(ErrorCode::InvalidInput,
                    "fidelity: no run of " + report.imaginedName + " starts from a start of " +
                        report.physicsName +
                        " (its tasks must be \"<task>#<episode>\", as kosmos-cli fidelity "
                        "prepare writes them, with the same policies)");
}

// Both worlds' outcomes per episode, for the rankings.
struct WorldOutcomes
{
    std::vector<EpisodeOutcome> physics;
    std::vector<EpisodeOutcome> imagined;
    std::vector<std::string> order; // policies, best physics rate first
};

// Per policy: both worlds' rates, what the imagined side missed, lenient and harsh episodes, and
// the confusion of the two worlds' verdicts.
WorldOutcomes perPolicy(FidelityReport &report)
{
    WorldOutcomes out;
    std::map<std::string, FidelityPolicy> perPolicy;
    std::map<std::string, std::array<int, 4>> counts;
    for (const auto &p : report.pairs) {
        auto &c = counts[p.policy];
        auto &fp = perPolicy[p.policy];
        fp.policy = p.policy;
        if (p.physics) {
            c[0] += *p.physics;
            ++c[1];
            out.physics.push_back({p.policy, p.task, p.lineage, *p.physics});
        }
        if (p.imagined) {
            c[2] += *p.imagined;
            ++c[3];
            out.imagined.push_back({p.policy, p.task, p.lineage, *p.imagined});
        } else {
            ++fp.imaginedMissing;
            fp.imaginedInvalid += p.imaginedInvalid;
        }
        if (p.physics && p.imagined) {
            ++fp.bothDecisive;
            fp.lenient += *p.imagined && !*p.physics;
            fp.harsh += !*p.imagined && *p.physics;
            ++report.confusion[*p.physics][*p.imagined];
        }
    }
    for (auto &[policy, fp] : perPolicy) {
        const auto &c = counts[policy];
        fp.openLoopReplay =
            std::find(report.openLoopPolicies.begin(), report.openLoopPolicies.end(), policy) !=
            report.openLoopPolicies.end();
        fp.physics = wilson(c[0], c[1]);
        fp.imagined = wilson(c[2], c[3]);
        report.policies.push_back(fp);
    }
    std::stable_sort(report.policies.begin(), report.policies.end(),
                     [](const FidelityPolicy &a, const FidelityPolicy &b) {
                         return a.physics.rate.value_or(-1) > b.physics.rate.value_or(-1);
                     });
    for (const auto &fp : report.policies)
        out.order.push_back(fp.policy);
    return out;
}

// Correlations of the two worlds' rates across policies, with a bootstrap over start lineages
// within tasks (a start brings every policy's pair from it).
void correlations(FidelityReport &report, const std::vector<std::string> &order,
                  const FidelityOptions &options)
{
    std::vector<const FidelityPair *> all;
    for (const auto &p : report.pairs)
        all.push_back(&p);
    const Rates observed = bothKnown(ratesOf(all, order));
    report.policiesWithBothRates = static_cast<int>(observed.physics.size());
    std::map<std::string, std::map<std::string, std::vector<const FidelityPair *>>> byTaskLineage;
    for (const auto &p : report.pairs)
        byTaskLineage[p.task][p.lineage].push_back(&p);
    std::mt19937_64 rng(options.seed);
    std::vector<double> rs, rhos, mmrvs;
    for (int b = 0; b < options.replicates; ++b) {
        std::vector<const FidelityPair *> sample;
        for (const auto &[task, lineages] : byTaskLineage) {
            std::vector<const std::vector<const FidelityPair *> *> list;
            for (const auto &[lineage, pairs] : lineages)
                list.push_back(&pairs);
            std::uniform_int_distribution<std::size_t> pick(0, list.size() - 1);
            for (std::size_t i = 0; i < list.size(); ++i) {
                const auto &chosen = *list[pick(rng)];
                sample.insert(sample.end(), chosen.begin(), chosen.end());
            }
        }
        const Rates r = bothKnown(ratesOf(sample, order));
        if (r.physics.size() < 2) {
            rs.push_back(std::nan(""));
            rhos.push_back(std::nan(""));
            mmrvs.push_back(std::nan(""));
            continue;
        }
        rs.push_back(pearson(r.imagined, r.physics).value_or(std::nan("")));
        rhos.push_back(spearman(r.imagined, r.physics).value_or(std::nan("")));
        mmrvs.push_back(mmrv(r.imagined, r.physics).value_or(std::nan("")));
    }
    report.pearson = withInterval(pearson(observed.imagined, observed.physics), rs);
    report.spearman = withInterval(spearman(observed.imagined, observed.physics), rhos);
    report.mmrv = withInterval(
        observed.physics.size() >= 2 ? mmrv(observed.imagined, observed.physics) : std::nullopt,
        mmrvs);
}

// Ranking agreement: each world's pairwise orders by rankPolicies' rule. Returns physics'.
PolicyRanking rankingAgreement(FidelityReport &report, const WorldOutcomes &outcomes,
                               const FidelityOptions &options)
{
    PolicyRanking physicsRanking = rankPolicies(outcomes.physics, options.replicates, options.seed);
    const PolicyRanking imaginedRanking =
        rankPolicies(outcomes.imagined, options.replicates, options.seed);
    for (const PairOrder &p : physicsRanking.pairs) {
        const auto other = std::find_if(
            imaginedRanking.pairs.begin(), imaginedRanking.pairs.end(), [&](const PairOrder &o) {
                return (o.a == p.a && o.b == p.b) || (o.a == p.b && o.b == p.a);
            });
        if (other == imaginedRanking.pairs.end())
            continue;
        PairOrder::Verdict v = other->verdict;
        if (other->a != p.a && v != PairOrder::Verdict::Indeterminate)
            v = v == PairOrder::Verdict::ABetter ? PairOrder::Verdict::BBetter
                                                 : PairOrder::Verdict::ABetter;
        if (p.verdict == PairOrder::Verdict::Indeterminate ||
            v == PairOrder::Verdict::Indeterminate)
            ++report.pairsIndeterminate;
        else if (p.verdict == v)
            ++report.pairsSameOrder;
        else
            ++report.pairsOppositeOrder;
        report.orderLines.push_back(policyDisplayName(p.a) + " vs " + policyDisplayName(p.b) +
                                    ": physics " + orderName(p.verdict) + ", world model " +
                                    orderName(v));
    }
    return physicsRanking;
}

// The spread physics gives the policies, what would separate what it does not, and how many
// starts would bring Pearson's interval above its target.
void physicsNeeds(FidelityReport &report, const PolicyRanking &physicsRanking)
{
    report.physicsSpread = rateSpread(physicsRanking);
    std::map<std::string, double> physicsRate;
    for (const auto &[policy, rate] : physicsRanking.rates)
        physicsRate[policy] = rate.rate.value_or(0);
    for (const PairOrder &p : physicsRanking.pairs)
        if (p.verdict == PairOrder::Verdict::Indeterminate)
            report.physicsNeeds.push_back(
                {p.a, p.b, episodesToSeparate(physicsRate[p.a], physicsRate[p.b])});
    std::set<std::string> starts;
    for (const auto &p : report.pairs)
        starts.insert(p.lineage);
    report.starts = static_cast<int>(starts.size());
    if (report.pearson.value && report.pearson.lower &&
        *report.pearson.value > report.pearsonTarget &&
        *report.pearson.lower<report.pearsonTarget && * report.pearson.value> *
            report.pearson.lower) {
        const double scale = (*report.pearson.value - *report.pearson.lower) /
                             (*report.pearson.value - report.pearsonTarget);
        report.startsForPearsonTarget = static_cast<int>(std::ceil(report.starts * scale * scale));
    } else if (report.pearson.lower && *report.pearson.lower >= report.pearsonTarget) {
        report.startsForPearsonTarget = report.starts; // already there
    }
}

// Per-episode agreement of the two worlds' verdicts.
void episodeAgreement(FidelityReport &report)
{
    const int agree = report.confusion[0][0] + report.confusion[1][1];
    const int n = agree + report.confusion[0][1] + report.confusion[1][0];
    report.agreement = wilson(agree, n);
    std::vector<std::string> a, b;
    for (const auto &p : report.pairs)
        if (p.physics && p.imagined) {
            a.push_back(*p.physics ? "success" : "failure");
            b.push_back(*p.imagined ? "success" : "failure");
        }
    report.kappa = cohensKappa(a, b);
}

std::string statText(const IntervalStat &s)
{
    std::ostringstream o;
    o << std::fixed << std::setprecision(3);
    if (!s.value)
        return "n/a";
    o << *s.value;
    if (s.lower && s.upper)
        o << " [" << *s.lower << ", " << *s.upper << "]";
    return o.str();
}

// The physics protocol's own judge against the physics labels, run by run, in all and by task.
void judgeAgainstPhysics(FidelityReport &report, const std::vector<EpisodeRow> &physics,
                         const std::vector<EpisodeRow> &judged)
{
    std::map<std::int64_t, std::optional<bool>> verdict;
    for (const auto &e : judged)
        verdict[e.runId] = e.outcome;
    struct Counts
    {
        std::array<int, 4> c{}; // sensitivity k, n; specificity k, n
        int unjudged = 0;
    };
    Counts all;
    std::map<std::string, Counts> byTask;
    for (const auto &e : physics) {
        if (!e.outcome)
            continue;
        const auto it = verdict.find(e.runId);
        for (Counts *counts : {&all, &byTask[e.task]}) {
            if (it == verdict.end() || !it->second) {
                ++counts->unjudged;
            } else if (*e.outcome) {
                counts->c[0] += *it->second;
                ++counts->c[1];
            } else {
                counts->c[2] += !*it->second;
                ++counts->c[3];
            }
        }
    }
    JudgeOnPhysics &j = report.judgeOnPhysics;
    j.sensitivity = wilson(all.c[0], all.c[1]);
    j.specificity = wilson(all.c[2], all.c[3]);
    j.unjudged = all.unjudged;
    if (all.c[1] + all.c[3] == 0)
        return; // no verdicts: nothing by task either
    for (const auto &[task, counts] : byTask)
        j.byTask.push_back({task, wilson(counts.c[0], counts.c[1]),
                            wilson(counts.c[2], counts.c[3]), counts.unjudged});
}

std::string percentText(double v)
{
    std::ostringstream o;
    o << std::fixed << std::setprecision(0) << v * 100 << "%";
    return o.str();
}

// "sensitivity ... n=..., specificity ... n=..." of one task (the report's line and the goal's).
std::string judgeOfTaskText(const JudgeOnPhysicsOfTask &t)
{
    return "sensitivity " + intervalText(t.sensitivity) + " n=" + std::to_string(t.sensitivity.n) +
           ", specificity " + intervalText(t.specificity) + " n=" + std::to_string(t.specificity.n);
}

// "; by task: T sensitivity ... n=..., specificity ... n=...; ..." when there are two tasks or
// more.
std::string judgeByTaskText(const JudgeOnPhysics &j)
{
    if (j.byTask.size() < 2)
        return {};
    std::string out = "; by task:";
    for (std::size_t i = 0; i < j.byTask.size(); ++i)
        out += (i ? "; " : " ") + j.byTask[i].task + " " + judgeOfTaskText(j.byTask[i]);
    return out;
}

} // namespace

std::vector<FidelityGoal> fidelityGoals(const FidelityReport &r)
{
    std::vector<FidelityGoal> goals;
    const RateSpread &spread = r.physicsSpread;
    const std::string uninformative = r.correlationsInformative()
                                          ? std::string()
                                          : "; not informative: " + spread.whyNotInformative();
    {
        FidelityGoal g{"spread",
                       "at least 8 policies; in physics one at or below 15% and one at or above "
                       "80%, and at least 4 whose Wilson 95% intervals are pairwise disjoint",
                       "SIMPLER: 7 policies incl. RT-1 at three checkpoints; SC3-Eval: 7 "
                       "checkpoints; Veo world-model evaluation: 8 checkpoints",
                       "", std::nullopt};
        int low = 0, high = 0;
        std::optional<double> lowest, highest;
        for (const auto &p : r.policies) {
            if (!p.physics.rate)
                continue;
            low += *p.physics.rate <= 0.15;
            high += *p.physics.rate >= 0.80;
            lowest = std::min(lowest.value_or(1.0), *p.physics.rate);
            highest = std::max(highest.value_or(0.0), *p.physics.rate);
        }
        g.measured =
            std::to_string(r.policies.size()) + " policies, physics rates " +
            (lowest ? percentText(*lowest) + " to " + percentText(*highest) : std::string("none")) +
            ", " + std::to_string(spread.levels) + " distinguishable level(s)";
        g.met = r.policies.size() >= 8 && low >= 1 && high >= 1 && spread.levels >= 4;
        goals.push_back(std::move(g));
    }
    {
        FidelityGoal g{"pearson", "Pearson >= 0.93 with the lower bound of its interval >= 0.8",
                       "SIMPLER visual matching 0.924; SC3-Eval 0.929; Veo 0.88; RoboWorld "
                       "0.989; WorldGym 0.78",
                       statText(r.pearson) + uninformative, std::nullopt};
        if (r.pearson.value && r.pearson.lower)
            g.met =
                r.correlationsInformative() && *r.pearson.value >= 0.93 && *r.pearson.lower >= 0.8;
        goals.push_back(std::move(g));
    }
    {
        FidelityGoal g{"mmrv", "MMRV <= 0.05 with the upper bound of its interval <= 0.1",
                       "SIMPLER visual matching 0.056; SC3-Eval 0.119; Veo 0.03",
                       statText(r.mmrv) + uninformative, std::nullopt};
        if (r.mmrv.value && r.mmrv.upper)
            g.met = r.correlationsInformative() && *r.mmrv.value <= 0.05 && *r.mmrv.upper <= 0.1;
        goals.push_back(std::move(g));
    }
    {
        FidelityGoal g{"orders",
                       "at least 60% of the pairwise orders physics states also stated by the "
                       "world model, none opposite",
                       "(the anchors report rank correlations, not stated orders)",
                       std::to_string(r.pairsSameOrder) + " of the " +
                           std::to_string(spread.orderedPairs) +
                           " orders physics states stated the same, " +
                           std::to_string(r.pairsOppositeOrder) + " opposite",
                       std::nullopt};
        if (spread.orderedPairs > 0)
            g.met = 10 * r.pairsSameOrder >= 6 * spread.orderedPairs && r.pairsOppositeOrder == 0;
        goals.push_back(std::move(g));
    }
    {
        FidelityGoal g{"kappa", "per-episode Cohen's kappa >= 0.6 (same start, both worlds)",
                       "(none of the anchors reports per-episode agreement)",
                       "kappa " + statText({r.kappa.kappa, std::nullopt, std::nullopt}) + " over " +
                           std::to_string(r.kappa.n) + " pairs",
                       std::nullopt};
        if (r.kappa.kappa)
            g.met = *r.kappa.kappa >= 0.6;
        goals.push_back(std::move(g));
    }
    {
        const JudgeOnPhysics &j = r.judgeOnPhysics;
        FidelityGoal g{"judge",
                       "the judge on the physics rollouts: sensitivity and specificity with "
                       "lower bounds >= 0.7, on >= 40 simulator successes",
                       "(the anchors judge with humans or the simulator)",
                       "sensitivity " + intervalText(j.sensitivity) +
                           " n=" + std::to_string(j.sensitivity.n) + ", specificity " +
                           intervalText(j.specificity) + " n=" + std::to_string(j.specificity.n) +
                           (j.unjudged ? ", " + std::to_string(j.unjudged) + " without a verdict"
                                       : std::string()) +
                           judgeByTaskText(j),
                       std::nullopt};
        if (j.sensitivity.lower && j.specificity.lower)
            g.met =
                j.sensitivity.n >= 40 && *j.sensitivity.lower >= 0.7 && *j.specificity.lower >= 0.7;
        else
            g.measured = "the physics protocol's rollouts have no judge verdicts";
        goals.push_back(std::move(g));
    }
    return goals;
}

namespace {

using NamedProtocol = std::pair<std::string, std::string>; // (name, SHA-256)

std::vector<NamedProtocol> resolveProtocols(Ledger &ledger, const std::string &first,
                                            const std::vector<std::string> &more)
{
    std::vector<NamedProtocol> out{findRolloutProtocol(ledger, first)};
    for (const std::string &text : more) {
        out.push_back(findRolloutProtocol(ledger, text));
        for (std::size_t i = 0; i + 1 < out.size(); ++i)
            if (out[i].second == out.back().second)
                throw Error(ErrorCode::InvalidInput,
                            "fidelity: protocol " + out.back().first + " is named twice");
    }
    return out;
}

// Protocols joined on one side must agree on `fields` of their frozen documents (the same
// starts; the same world model and judge), named where they do not.
void checkJoinable(Ledger &ledger, const std::vector<NamedProtocol> &protocols,
                   const std::vector<std::string> &fields, const std::string &why)
{
    const auto first = ledger.protocol(protocols.front().second);
    for (std::size_t i = 1; i < protocols.size(); ++i) {
        const auto other = ledger.protocol(protocols[i].second);
        for (const std::string &field : fields)
            if (!first || !other ||
                first->value(field, nlohmann::json()) != other->value(field, nlohmann::json()))
                throw Error(ErrorCode::InvalidInput, "fidelity: " + protocols[i].first +
                                                         " cannot join " + protocols.front().first +
                                                         ": its " + field + " differs (" + why +
                                                         ")");
    }
}

// Imagined protocols joined: a start in two of them has the same start frame.
void checkSameStartFrames(Ledger &ledger, const std::vector<NamedProtocol> &protocols)
{
    std::map<std::string, std::pair<std::string, std::string>> frameOf; // task -> sha, protocol
    for (const auto &[name, sha] : protocols) {
        const auto doc = ledger.protocol(sha);
        for (const auto &task :
             doc ? doc->value("tasks", nlohmann::json::array()) : nlohmann::json::array()) {
            const std::string id = task.value("id", "");
            const nlohmann::json start = task.value("start_state", nlohmann::json::object());
            const std::string frame =
                start.is_object() ? start.value("frame_sha256", std::string()) : std::string();
            const auto [it, inserted] = frameOf.emplace(id, std::pair{frame, name});
            if (!inserted && it->second.first != frame)
                throw Error(ErrorCode::InvalidInput,
                            "fidelity: start " + id + " has another start frame in " + name +
                                " than in " + it->second.second +
                                " (imagined protocols joined must start from the same frames)");
        }
    }
}

// The episodes of every protocol of a side; a policy in two of them is refused (each policy's
// episodes come from one protocol).
std::vector<EpisodeRow> joinedRows(Ledger &ledger, const std::vector<NamedProtocol> &protocols,
                                   const std::string &source,
                                   std::set<std::string> *replayed = nullptr,
                                   ConfigVerdicts *verdicts = nullptr)
{
    std::vector<EpisodeRow> out;
    std::map<std::string, std::string> protocolOf; // policy -> protocol name
    for (const auto &[name, sha] : protocols) {
        auto rows = episodeRows(ledger, sha, source, verdicts);
        if (replayed) // the imagined side: open-loop twins stand for the policies they replay
            pairReplayedPolicies(rows, *replayed);
        for (const auto &row : rows) {
            const auto [it, inserted] = protocolOf.emplace(row.policy, name);
            if (!inserted && it->second != name)
                throw Error(ErrorCode::InvalidInput, "fidelity: " + policyDisplayName(row.policy) +
                                                         " has runs in both " + it->second +
                                                         " and " + name +
                                                         "; joined protocols hold each "
                                                         "policy once");
        }
        out.insert(out.end(), rows.begin(), rows.end());
    }
    return out;
}

std::string joinedName(const std::vector<NamedProtocol> &protocols)
{
    std::string name;
    for (const auto &p : protocols)
        name += (name.empty() ? "" : " + ") + p.first;
    return name;
}

// The split of the per-episode disagreement by the imagined actions replayed in physics
// (ClosedLoopSplit). `physicsSide` fixes the starts the replay protocol must share.
void closedLoopSplit(Ledger &ledger, FidelityReport &report,
                     const std::vector<NamedProtocol> &physicsSide,
                     const std::vector<std::string> &protocols, ConfigVerdicts *verdicts)
{
    ClosedLoopSplit &split = report.closedLoop;
    std::map<std::pair<std::string, std::string>, std::optional<bool>> outcomeOf;
    // The judge's verdicts on the replays' physics frames, where it judged them.
    std::map<std::pair<std::string, std::string>, std::optional<bool>> judgedOf;
    const auto replays =
        resolveProtocols(ledger, protocols.front(), {protocols.begin() + 1, protocols.end()});
    for (const NamedProtocol &replay : replays) {
        for (const auto &sha : report.physicsProtocols)
            if (sha == replay.second)
                throw Error(ErrorCode::InvalidInput,
                            "fidelity: --in-physics names the physics protocol " + replay.first);
        for (const auto &sha : report.imaginedProtocols)
            if (sha == replay.second)
                throw Error(ErrorCode::InvalidInput,
                            "fidelity: --in-physics names the imagined protocol " + replay.first);
        checkJoinable(ledger, {physicsSide.front(), replay},
                      {"seed", "tasks", "episodes_per_task", "world_model"},
                      "the imagined actions replayed in physics need the physics protocol's "
                      "starts (the same seed, tasks, episodes per task and world)");
        split.protocols.push_back(replay.second);
        for (EpisodeRow &e : episodeRows(ledger, replay.second, "physics", nullptr)) {
            const auto [adapter, settings] = adapterAndSettings(e.policy);
            if (adapter != "replay.actions" || !settings.is_object() ||
                settings.value("actions_from", std::string()) != "imagined" ||
                !settings.contains("replays") || !settings["replays"].is_string())
                throw Error(ErrorCode::InvalidInput,
                            "fidelity: " + replay.first + " has a run of " +
                                policyDisplayName(e.policy) +
                                ", not of imagined actions replayed in physics (replay.actions "
                                "with actions_from \"imagined\", as kosmos-cli fidelity prepare "
                                "--in-physics writes it)");
            const auto key = std::pair{settings["replays"].get<std::string>(),
                                       e.task + "#" + std::to_string(e.episode)};
            if (!outcomeOf.emplace(key, e.outcome).second)
                throw Error(ErrorCode::InvalidInput,
                            "fidelity: " + policyDisplayName(key.first) + " from " + key.second +
                                " is replayed in two of the --in-physics protocols (" +
                                replay.first + ")");
        }
        for (EpisodeRow &e : episodeRows(ledger, replay.second, "judge", verdicts)) {
            const auto [adapter, settings] = adapterAndSettings(e.policy);
            judgedOf[{settings.value("replays", std::string()),
                      e.task + "#" + std::to_string(e.episode)}] = e.outcome;
        }
    }
    split.name = joinedName(replays);
    std::map<std::string, std::array<int, 4>> perPolicy; // successes, n, reaction, world
    for (const auto &[key, outcome] : outcomeOf)
        if (outcome) {
            perPolicy[key.first][0] += *outcome ? 1 : 0;
            ++perPolicy[key.first][1];
        }
    // Per pair: the imagined verdict, physics on the policy's own actions, physics on its imagined
    // ones (binaryAgreement leaves out the undecided).
    std::vector<std::optional<bool>> imaginedVerdicts, ownInPhysics, replayedInPhysics;
    for (const FidelityPair &p : report.pairs) {
        const auto it = outcomeOf.find({p.policy, p.lineage});
        // -1: no decisive replay of this start
        const int replayed = it == outcomeOf.end() || !it->second ? -1 : (*it->second ? 1 : 0);
        auto &counts = perPolicy[p.policy];
        imaginedVerdicts.push_back(p.imagined);
        ownInPhysics.push_back(p.physics);
        replayedInPhysics.push_back(replayed < 0 ? std::nullopt
                                                 : std::optional<bool>(replayed == 1));
        if (!p.physics || !p.imagined)
            continue;
        if (replayed < 0) {
            ++split.withoutReplay;
            continue;
        }
        const bool physics = *p.physics;
        const bool imagined = *p.imagined;
        const bool inPhysics = replayed == 1;
        ++split.triples;
        if (physics == imagined) {
            ++(inPhysics == physics ? split.agree : split.cancelled);
        } else if (inPhysics == imagined) {
            ++split.reaction;
            ++counts[2];
        } else {
            ++split.worldJudge;
            ++(imagined ? split.worldLenient : split.worldHarsh);
            ++counts[3];
            // The judge on the physics frames of the same actions: the same call as on the
            // imagined frames (its own error on real frames) or the physics label (the error is
            // in the imagined frames, or in its reading of them alone).
            const auto judged = judgedOf.find({p.policy, p.lineage});
            if (judged != judgedOf.end() && judged->second) {
                ++split.worldJudgeJudged;
                split.judgeRepeats += *judged->second == imagined;
            }
        }
    }
    // The world model and judge against physics on the same actions: [in-physics][imagined].
    const BinaryAgreement own = binaryAgreement(imaginedVerdicts, replayedInPhysics);
    split.confusion[1][1] = own.truePositive;
    split.confusion[0][1] = own.falsePositive;
    split.confusion[1][0] = own.falseNegative;
    split.confusion[0][0] = own.trueNegative;
    split.agreement = own.agreement;
    split.kappa = own.kappa;
    // The policies' reaction: physics on their own actions against on their imagined ones.
    const BinaryAgreement reaction = binaryAgreement(ownInPhysics, replayedInPhysics);
    split.actionsAgreement = reaction.agreement;
    split.actionsKappa = reaction.kappa;
    for (const FidelityPolicy &p : report.policies) {
        const auto &counts = perPolicy[p.policy];
        split.policies.push_back({p.policy, wilson(counts[0], counts[1]), counts[2], counts[3]});
    }
    if (split.triples == 0)
        throw Error(ErrorCode::InvalidInput,
                    "fidelity: no pair decisive in both worlds has a decisive run in " +
                        split.name + " (its runs replay " + report.imaginedName +
                        "'s actions from " + report.physicsName + "'s starts, by policy)");
}

} // namespace

FidelityReport fidelityReport(Ledger &ledger, const FidelityOptions &options)
{
    FidelityReport report;
    const auto physicsSide = resolveProtocols(ledger, options.physicsProtocol, options.alsoPhysics);
    const auto imaginedSide =
        resolveProtocols(ledger, options.imaginedProtocol, options.alsoImagined);
    report.physicsProtocol = physicsSide.front().second;
    report.imaginedProtocol = imaginedSide.front().second;
    report.physicsName = joinedName(physicsSide);
    report.imaginedName = joinedName(imaginedSide);
    for (const auto &p : physicsSide)
        report.physicsProtocols.push_back(p.second);
    for (const auto &p : imaginedSide)
        report.imaginedProtocols.push_back(p.second);
    for (const auto &p : physicsSide)
        for (const auto &q : imaginedSide)
            if (p.second == q.second)
                throw Error(ErrorCode::InvalidInput,
                            "fidelity: the physics and the imagined protocol are the same (" +
                                p.first + ")");
    checkJoinable(ledger, physicsSide,
                  {"seed", "tasks", "episodes_per_task", "horizon", "world_model"},
                  "the same starts need the same seed, tasks, episodes per task, horizon and "
                  "world");
    checkJoinable(ledger, imaginedSide, {"world_model", "judge", "horizon", "feedback_mode"},
                  "one world model and judge, at one horizon");
    checkSameStartFrames(ledger, imaginedSide);
    report.replicates = options.replicates;
    report.seed = options.seed;
    const auto physics = joinedRows(ledger, physicsSide, "physics");
    std::optional<ConfigVerdicts> verdicts;
    if (!options.judgeConfig.empty()) {
        verdicts.emplace();
        verdicts->byRun = outcomesByConfig(ledger, options.judgeConfig);
        report.judgeConfig = options.judgeConfig;
    }
    ConfigVerdicts *byConfig = verdicts ? &*verdicts : nullptr;
    std::set<std::string> replayed;
    const auto imagined = joinedRows(ledger, imaginedSide, "judge", &replayed, byConfig);
    if (verdicts)
        report.imaginedNotJudgedByConfig = std::exchange(verdicts->missing, 0);
    report.openLoopPolicies.assign(replayed.begin(), replayed.end());
    if (std::none_of(physics.begin(), physics.end(), [](const auto &e) { return e.outcome; }))
        throw Error(ErrorCode::InvalidInput,
                    "fidelity: protocol " + report.physicsName +
                        " has no physics labels (its world must be physics.tabletop)");
    pairStarts(report, physics, imagined);
    const WorldOutcomes outcomes = perPolicy(report);
    correlations(report, outcomes.order, options);
    physicsNeeds(report, rankingAgreement(report, outcomes, options));
    episodeAgreement(report);
    judgeAgainstPhysics(report, physics,
                        joinedRows(ledger, physicsSide, "judge", nullptr, byConfig));
    if (verdicts)
        report.physicsNotJudgedByConfig = verdicts->missing;
    if (!options.inPhysicsProtocols.empty())
        closedLoopSplit(ledger, report, physicsSide, options.inPhysicsProtocols, byConfig);
    return report;
}

std::vector<std::string> inPhysicsReplaysOf(Ledger &ledger,
                                            const std::vector<std::string> &imaginedSha256s)
{
    std::map<std::string, std::string> byName; // name -> SHA-256, the newest of a name
    std::map<std::string, std::string> nameOf;
    for (const auto &[name, sha] : rolloutProtocols(ledger)) {
        byName[name] = sha;
        nameOf.emplace(sha, name);
    }
    std::vector<std::string> out;
    for (const std::string &sha : imaginedSha256s) {
        const auto name = nameOf.find(sha);
        const auto replay =
            name == nameOf.end() ? byName.end() : byName.find(name->second + "-in-physics");
        if (replay == byName.end())
            return {};
        out.push_back(replay->second);
    }
    return out;
}

std::vector<FidelityGroup> fidelityGroups(Ledger &ledger)
{
    const auto rollouts = rolloutProtocols(ledger);
    std::map<std::string, std::string> byName; // name -> SHA-256 of the rollout protocols
    for (const auto &[name, sha] : rollouts)
        byName.emplace(name, sha);
    // Physics protocols with an imagined twin, keyed by what fixes their starts.
    std::vector<std::pair<std::string, FidelityGroup>> keyed;
    for (const auto &[name, sha] : physicsProtocols(ledger)) {
        const auto imagined = byName.find(name + "-imagined");
        const auto doc = ledger.protocol(sha);
        if (imagined == byName.end() || !doc)
            continue;
        nlohmann::json key = nlohmann::json::object();
        for (const char *field : {"seed", "tasks", "episodes_per_task", "horizon", "world_model"})
            key[field] = doc->value(field, nlohmann::json());
        const std::string k = key.dump();
        auto it =
            std::find_if(keyed.begin(), keyed.end(), [&](const auto &g) { return g.first == k; });
        if (it == keyed.end()) {
            keyed.push_back({k, {}});
            it = std::prev(keyed.end());
        }
        it->second.physics.push_back({name, sha});
        it->second.imagined.push_back({imagined->first, imagined->second});
    }
    std::vector<FidelityGroup> groups;
    for (auto &[key, group] : keyed)
        if (group.physics.size() >= 2)
            groups.push_back(std::move(group));
    return groups;
}

std::vector<RunRecord> protocolRuns(Ledger &ledger, const std::string &protocolSha256)
{
    std::vector<RunRecord> out;
    for (const LatestRun &latest : latestRuns(ledger, {protocolSha256, true, std::nullopt}))
        if (auto run = ledger.run(latest.runId))
            out.push_back(std::move(*run));
    return out;
}

double framePsnr(const cv::Mat &a, const cv::Mat &b)
{
    const double p = cv::PSNR(a, b);
    return std::isfinite(p) ? std::min(p, 99.0) : 99.0;
}

double frameSsim(const cv::Mat &a, const cv::Mat &b)
{
    constexpr double c1 = (0.01 * 255) * (0.01 * 255);
    constexpr double c2 = (0.03 * 255) * (0.03 * 255);
    cv::Mat x, y;
    a.convertTo(x, CV_64F);
    b.convertTo(y, CV_64F);
    auto blur = [](const cv::Mat &m) {
        cv::Mat out;
        cv::GaussianBlur(m, out, cv::Size(11, 11), 1.5);
        return out;
    };
    const cv::Mat muX = blur(x), muY = blur(y);
    const cv::Mat muX2 = muX.mul(muX), muY2 = muY.mul(muY), muXY = muX.mul(muY);
    const cv::Mat sX = blur(x.mul(x)) - muX2, sY = blur(y.mul(y)) - muY2,
                  sXY = blur(x.mul(y)) - muXY;
    const cv::Scalar k1 = cv::Scalar::all(c1), k2 = cv::Scalar::all(c2);
    cv::Mat num = (2 * muXY + k1).mul(2 * sXY + k2);
    cv::Mat den = (muX2 + muY2 + k1).mul(sX + sY + k2);
    cv::Mat map;
    cv::divide(num, den, map);
    const cv::Scalar m = cv::mean(map);
    double sum = 0;
    for (int c = 0; c < a.channels(); ++c)
        sum += m[c];
    return sum / a.channels();
}

void addReplay(FrameFidelityCurve &curve, const std::vector<cv::Mat> &physics,
               const std::vector<cv::Mat> &predicted)
{
    const std::size_t steps = std::min(physics.size(), predicted.size());
    if (steps < 2)
        return;
    if (curve.psnrMean.size() < steps - 1) {
        curve.psnrMean.resize(steps - 1, 0.0);
        curve.ssimMean.resize(steps - 1, 0.0);
        curve.count.resize(steps - 1, 0);
    }
    for (std::size_t i = 1; i < steps; ++i) {
        cv::Mat truth;
        cv::resize(physics[i], truth, predicted[i].size(), 0, 0, cv::INTER_AREA);
        const double p = framePsnr(truth, predicted[i]);
        const double s = frameSsim(truth, predicted[i]);
        const std::size_t k = i - 1;
        const int c = ++curve.count[k];
        curve.psnrMean[k] += (p - curve.psnrMean[k]) / c;
        curve.ssimMean[k] += (s - curve.ssimMean[k]) / c;
        if (curve.psnrSamples.size() < steps - 1) {
            curve.psnrSamples.resize(steps - 1);
            curve.ssimSamples.resize(steps - 1);
        }
        curve.psnrSamples[k].push_back(p);
        curve.ssimSamples[k].push_back(s);
    }
    ++curve.episodes;
}

void addIntervals(FrameFidelityCurve &curve, int replicates, std::uint64_t seed)
{
    const std::size_t steps = curve.psnrSamples.size();
    const double none = std::numeric_limits<double>::quiet_NaN();
    curve.psnrLower.assign(steps, none);
    curve.psnrUpper.assign(steps, none);
    curve.ssimLower.assign(steps, none);
    curve.ssimUpper.assign(steps, none);
    std::mt19937_64 random(seed);
    std::vector<double> psnr(static_cast<std::size_t>(replicates)),
        ssim(static_cast<std::size_t>(replicates));
    for (std::size_t k = 0; k < steps; ++k) {
        const std::vector<double> &p = curve.psnrSamples[k];
        const std::vector<double> &q = curve.ssimSamples[k];
        const std::size_t n = p.size();
        if (n < 2 || replicates < 2)
            continue;
        std::uniform_int_distribution<std::size_t> pick(0, n - 1);
        for (int r = 0; r < replicates; ++r) {
            double sp = 0, sq = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const std::size_t j = pick(random);
                sp += p[j];
                sq += q[j];
            }
            psnr[static_cast<std::size_t>(r)] = sp / static_cast<double>(n);
            ssim[static_cast<std::size_t>(r)] = sq / static_cast<double>(n);
        }
        std::sort(psnr.begin(), psnr.end());
        std::sort(ssim.begin(), ssim.end());
        const auto at = [&](const std::vector<double> &v, double quantile) {
            return v[std::min(v.size() - 1,
                              static_cast<std::size_t>(quantile * static_cast<double>(v.size())))];
        };
        curve.psnrLower[k] = at(psnr, 0.025);
        curve.psnrUpper[k] = at(psnr, 0.975);
        curve.ssimLower[k] = at(ssim, 0.025);
        curve.ssimUpper[k] = at(ssim, 0.975);
    }
}

FrameFidelityCurve replayInWorldModel(Ledger &ledger, const FidelityReport &report,
                                      WorldModel &world, int replays)
{
    FrameFidelityCurve curve;
    const auto certified = world.frameContract().certifiedChunkLengths;
    const std::size_t chunk = certified.empty() ? 1 : static_cast<std::size_t>(certified[0]);
    auto decode = [&](const std::string &sha) { return ledger.artifacts().readRgb(sha); };
    std::set<std::string> seen; // one replay per start
    for (const auto &pair : report.pairs) {
        if (curve.episodes >= replays || !seen.insert(pair.lineage).second)
            continue;
        const RolloutView view = loadRollout(ledger, pair.physicsRun);
        if (view.frames.size() != view.actions.size() + 1 || view.actions.empty())
            continue;
        std::vector<cv::Mat> physics;
        for (const auto &f : view.frames)
            physics.push_back(decode(f.sha256));
        WorldStart start;
        start.startFrame = physics.front();
        start.instruction = ledger.run(pair.physicsRun)->instruction.value_or("");
        std::vector<cv::Mat> predicted = world.reset(start);
        for (std::size_t t = 0; t + chunk <= view.actions.size(); t += chunk) {
            const ActionChunk actions(view.actions.begin() + static_cast<std::ptrdiff_t>(t),
                                      view.actions.begin() +
                                          static_cast<std::ptrdiff_t>(t + chunk));
            for (auto &frame : world.step(actions))
                predicted.push_back(std::move(frame));
        }
        addReplay(curve, physics, predicted);
    }
    return curve;
}

FrameFidelityCurve frameFidelityFromJson(const nlohmann::json &json)
{
    FrameFidelityCurve curve;
    auto numbers = [&](const char *key) {
        std::vector<double> out;
        if (json.contains(key) && json[key].is_array())
            for (const auto &v : json[key])
                out.push_back(v.is_number() ? v.get<double>() : std::nan(""));
        return out;
    };
    if (!json.is_object())
        return curve;
    curve.episodes = json.value("episodes", 0);
    curve.psnrMean = numbers("psnr_db");
    curve.ssimMean = numbers("ssim");
    for (double c : numbers("count"))
        curve.count.push_back(std::isfinite(c) ? static_cast<int>(c) : 0);
    if (curve.ssimMean.size() != curve.psnrMean.size() ||
        curve.count.size() != curve.psnrMean.size())
        return {};
    curve.psnrLower = numbers("psnr_db_lower");
    curve.psnrUpper = numbers("psnr_db_upper");
    curve.ssimLower = numbers("ssim_lower");
    curve.ssimUpper = numbers("ssim_upper");
    for (const auto *v : {&curve.psnrLower, &curve.psnrUpper, &curve.ssimLower, &curve.ssimUpper})
        if (v->size() != curve.psnrMean.size()) {
            curve.psnrLower.clear();
            curve.psnrUpper.clear();
            curve.ssimLower.clear();
            curve.ssimUpper.clear();
            break;
        }
    return curve;
}

namespace {

nlohmann::json statJson(const IntervalStat &s)
{
    auto opt = [](const std::optional<double> &v) {
        return v ? nlohmann::json(std::round(*v * 1e4) / 1e4) : nlohmann::json();
    };
    return {{"value", opt(s.value)}, {"lower", opt(s.lower)}, {"upper", opt(s.upper)}};
}

nlohmann::json proportionJson(const Proportion &p)
{
    auto opt = [](const std::optional<double> &v) {
        return v ? nlohmann::json(std::round(*v * 1e4) / 1e4) : nlohmann::json();
    };
    return {{"successes", p.successes},
            {"n", p.n},
            {"rate", opt(p.rate)},
            {"lower", opt(p.lower)},
            {"upper", opt(p.upper)}};
}

} // namespace

std::string policyDisplayName(const std::string &policy)
{
    const auto cut = policy.find(",\"resolved\"");
    return cut == std::string::npos ? policy : policy.substr(0, cut) + "}";
}

namespace {

// A policy's display name cut to fit the text report's 60-character column.
std::string columnName(const std::string &policy)
{
    std::string name = policyDisplayName(policy);
    if (name.size() > 60)
        name = name.substr(0, 57) + "...";
    return name;
}

} // namespace

namespace {

nlohmann::json needsJson(const std::vector<FidelityReport::SeparationNeed> &needs)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto &n : needs)
        out.push_back(
            {{"a", policyDisplayName(n.a)},
             {"b", policyDisplayName(n.b)},
             {"episodes_per_policy",
              n.episodesPerPolicy ? nlohmann::json(*n.episodesPerPolicy) : nlohmann::json()}});
    return out;
}

// null when the report has no split (FidelityOptions::inPhysicsProtocols).
nlohmann::json closedLoopJson(const ClosedLoopSplit &cl)
{
    if (cl.protocols.empty())
        return nullptr;
    auto kappa = [](const KappaResult &k) {
        return k.kappa ? nlohmann::json(*k.kappa) : nlohmann::json();
    };
    nlohmann::json policies = nlohmann::json::array();
    for (const auto &p : cl.policies)
        policies.push_back({{"policy", p.policy},
                            {"in_physics", proportionJson(p.inPhysics)},
                            {"reaction", p.reaction},
                            {"world_model_and_judge", p.worldJudge}});
    return {{"protocols", {{"name", cl.name}, {"sha256", cl.protocols}}},
            {"decisive_in_all_three", cl.triples},
            {"agree", cl.agree},
            {"cancelled", cl.cancelled},
            {"reaction", cl.reaction},
            {"world_model_and_judge", cl.worldJudge},
            {"world_model_and_judge_lenient", cl.worldLenient},
            {"world_model_and_judge_harsh", cl.worldHarsh},
            {"without_replay", cl.withoutReplay},
            {"world_model_and_judge_judged_in_physics", cl.worldJudgeJudged},
            {"judge_repeats_in_physics", cl.judgeRepeats},
            {"confusion_in_physics_by_world_model",
             {{"in_physics_failure", {cl.confusion[0][0], cl.confusion[0][1]}},
              {"in_physics_success", {cl.confusion[1][0], cl.confusion[1][1]}}}},
            {"agreement", proportionJson(cl.agreement)},
            {"kappa", kappa(cl.kappa)},
            {"actions_agreement", proportionJson(cl.actionsAgreement)},
            {"actions_kappa", kappa(cl.actionsKappa)},
            {"policies", policies}};
}

} // namespace

nlohmann::json toJson(const FidelityReport &r)
{
    nlohmann::json judgeByTask = nlohmann::json::array();
    for (const auto &t : r.judgeOnPhysics.byTask)
        judgeByTask.push_back({{"task", t.task},
                               {"sensitivity", proportionJson(t.sensitivity)},
                               {"specificity", proportionJson(t.specificity)},
                               {"without_a_verdict", t.unjudged}});
    nlohmann::json policies = nlohmann::json::array();
    for (const auto &p : r.policies)
        policies.push_back({{"policy", p.policy},
                            {"physics", proportionJson(p.physics)},
                            {"world_model", proportionJson(p.imagined)},
                            {"world_model_missing", p.imaginedMissing},
                            {"world_model_invalid", p.imaginedInvalid},
                            {"lenient", p.lenient},
                            {"harsh", p.harsh},
                            {"both_decisive", p.bothDecisive},
                            {"open_loop_replay", p.openLoopReplay}});
    nlohmann::json goals = nlohmann::json::array();
    for (const auto &g : fidelityGoals(r))
        goals.push_back({{"id", g.id},
                         {"goal", g.statement},
                         {"anchors", g.anchors},
                         {"measured", g.measured},
                         {"met", g.met ? nlohmann::json(*g.met) : nlohmann::json()}});
    return {{"schema", "kosmos.fidelity/1"},
            {"physics_protocol", {{"name", r.physicsName}, {"sha256", r.physicsProtocol}}},
            {"imagined_protocol", {{"name", r.imaginedName}, {"sha256", r.imaginedProtocol}}},
            {"physics_protocols", r.physicsProtocols},
            {"imagined_protocols", r.imaginedProtocols},
            // null: each run's own judge (the protocols')
            {"judge_configuration",
             r.judgeConfig.empty()
                 ? nlohmann::json()
                 : nlohmann::json{{"key", r.judgeConfig},
                                  {"imagined_not_judged", r.imaginedNotJudgedByConfig},
                                  {"physics_not_judged", r.physicsNotJudgedByConfig}}},
            {"pairs", r.pairs.size()},
            {"unpaired_physics", r.unpairedPhysics},
            {"unpaired_imagined", r.unpairedImagined},
            {"policies", policies},
            {"policies_with_both_rates", r.policiesWithBothRates},
            {"spread",
             {{"distinguishable_levels", r.physicsSpread.levels},
              {"level_policies", r.physicsSpread.levelPolicies},
              {"tied_at_zero", r.physicsSpread.atZero},
              {"tied_at_hundred", r.physicsSpread.atHundred},
              {"physics_orders_stated", r.physicsSpread.orderedPairs},
              {"pairs", r.physicsSpread.pairs}}},
            {"correlations_informative", r.correlationsInformative()},
            {"not_informative_because", r.physicsSpread.whyNotInformative()},
            {"pearson", statJson(r.pearson)},
            {"spearman", statJson(r.spearman)},
            {"mmrv", statJson(r.mmrv)},
            {"mmrv_rests_on_orders", r.physicsSpread.orderedPairs},
            {"plan",
             {{"separate", needsJson(r.physicsNeeds)},
              {"starts", r.starts},
              {"pearson_lower_target", r.pearsonTarget},
              {"starts_for_pearson_lower_target", r.startsForPearsonTarget
                                                      ? nlohmann::json(*r.startsForPearsonTarget)
                                                      : nlohmann::json()}}},
            {"bootstrap", {{"replicates", r.replicates}, {"seed", r.seed}, {"unit", "start"}}},
            {"pairwise_orders",
             {{"same", r.pairsSameOrder},
              {"opposite", r.pairsOppositeOrder},
              {"indeterminate", r.pairsIndeterminate},
              {"lines", r.orderLines}}},
            {"episodes",
             {{"confusion_physics_by_world_model",
               {{"physics_failure", {r.confusion[0][0], r.confusion[0][1]}},
                {"physics_success", {r.confusion[1][0], r.confusion[1][1]}}}},
              {"agreement", proportionJson(r.agreement)},
              {"kappa", r.kappa.kappa ? nlohmann::json(*r.kappa.kappa) : nlohmann::json()}}},
            {"closed_loop_split", closedLoopJson(r.closedLoop)},
            {"judge_on_physics",
             {{"sensitivity", proportionJson(r.judgeOnPhysics.sensitivity)},
              {"specificity", proportionJson(r.judgeOnPhysics.specificity)},
              {"without_a_verdict", r.judgeOnPhysics.unjudged},
              {"by_task", judgeByTask}}},
            {"goals", goals}};
}

nlohmann::json toJson(const FrameFidelityCurve &c)
{
    auto rounded = [](const std::vector<double> &v) {
        nlohmann::json out = nlohmann::json::array();
        for (double x : v)
            out.push_back(std::round(x * 1000) / 1000);
        return out;
    };
    nlohmann::json out = {{"episodes", c.episodes},
                          {"psnr_db", rounded(c.psnrMean)},
                          {"ssim", rounded(c.ssimMean)},
                          {"count", c.count}};
    if (!c.psnrLower.empty()) { // NaN (fewer than 2 episodes at a step) as null
        auto interval = [](const std::vector<double> &v) {
            nlohmann::json a = nlohmann::json::array();
            for (double x : v)
                a.push_back(std::isfinite(x) ? nlohmann::json(std::round(x * 1000) / 1000)
                                             : nlohmann::json());
            return a;
        };
        out["psnr_db_lower"] = interval(c.psnrLower);
        out["psnr_db_upper"] = interval(c.psnrUpper);
        out["ssim_lower"] = interval(c.ssimLower);
        out["ssim_upper"] = interval(c.ssimUpper);
        out["interval"] = "95%, percentile bootstrap over episodes";
    }
    return out;
}

std::string toText(const FidelityReport &r, const FrameFidelityCurve *frames)
{
    std::ostringstream o;
    o << "Fidelity: " << r.imaginedName << " (world model, judged) against " << r.physicsName
      << " (physics ground truth)\n";
    if (!r.judgeConfig.empty())
        o << "Judged by " << r.judgeConfig
          << " (each run's latest judgment by it, its own or a re-judgment of the recorded "
             "rollout); rollouts it has not judged, without a verdict: "
          << r.imaginedNotJudgedByConfig << " imagined, " << r.physicsNotJudgedByConfig
          << " physics\n";
    o << r.pairs.size()
      << " paired episodes (same policy, same start); unpaired: " << r.unpairedPhysics
      << " physics, " << r.unpairedImagined << " imagined\n\n";
    o << std::left << std::setw(51) << "policy" << std::setw(36) << "physics"
      << "world model\n";
    for (const auto &p : r.policies) {
        const std::string name = columnName(p.policy);
        o << std::left << std::setw(60) << name << "  " << std::setw(34)
          << (intervalText(p.physics) + " n=" + std::to_string(p.physics.n)) << "  "
          << intervalText(p.imagined) << " n=" << p.imagined.n;
        if (p.imaginedMissing)
            o << " (" << p.imaginedMissing << " without a verdict, " << p.imaginedInvalid
              << " of them invalid rollouts)";
        o << "  lenient " << p.lenient << ", harsh " << p.harsh << "\n";
    }
    for (const auto &p : r.policies)
        if (p.openLoopReplay)
            o << "  open loop: " << policyDisplayName(p.policy)
              << ": in the world model its physics actions from each start were replayed (it "
                 "reads the simulator's state, or the imagined protocol was prepared with "
                 "--open-loop), so its world-model rate says whether the world model and judge "
                 "see success in those actions, not how it would react to imagined frames\n";
    const RateSpread &spread = r.physicsSpread;
    o << "\nSpread in physics (read before any correlation): " << spread.levels
      << " distinguishable level(s) of " << spread.policies
      << " policies (Wilson 95% intervals pairwise disjoint), " << spread.atZero << " at 0%, "
      << spread.atHundred << " at 100%; physics states " << spread.orderedPairs << " of "
      << spread.pairs << " pairwise orders\n";
    if (!r.correlationsInformative())
        o << "NOT INFORMATIVE: the correlations and MMRV below say nothing about this world "
             "model's fidelity: "
          << spread.whyNotInformative() << ". They are printed with their intervals only so "
          << "that nothing is hidden.\n";
    o << "\nAcross the " << r.policiesWithBothRates
      << " policies with a rate in both worlds (world-model rate vs physics rate; 95% bootstrap "
         "over starts, "
      << r.replicates << " replicates, seed " << r.seed << "):\n"
      << "  Pearson " << statText(r.pearson) << "\n  Spearman " << statText(r.spearman)
      << "\n  MMRV " << statText(r.mmrv) << " (lower is better; rests on the "
      << spread.orderedPairs << " pairwise order(s) physics states)"
      << (r.correlationsInformative() ? "" : "  [not informative]") << "\n"
      << "  anchors: WorldGym r = 0.78; SC3-Eval Pearson 0.929, MMRV 0.119 (their policies span "
         "wide success ranges by design; SimplerEnv's maintainers advise at least 75 trials per "
         "policy)\n\n";
    o << "How much more data (at the observed rates):\n";
    for (const auto &n : r.physicsNeeds)
        o << "  " << policyDisplayName(n.a) << " vs " << policyDisplayName(n.b) << ": "
          << (n.episodesPerPolicy
                  ? "about " + std::to_string(*n.episodesPerPolicy) +
                        " physics episodes per policy would tell them apart"
                  : std::string("never at these rates (equal, or beyond a million episodes)"))
          << "\n";
    if (r.physicsNeeds.empty())
        o << "  physics orders every pair\n";
    o << "  Pearson's lower bound >= " << r.pearsonTarget << ": "
      << (r.startsForPearsonTarget
              ? "about " + std::to_string(*r.startsForPearsonTarget) + " starts (now " +
                    std::to_string(r.starts) +
                    "; the interval's half-width taken to shrink as "
                    "1/sqrt(starts))"
              : std::string("not reachable by more starts at the observed r (at or below the "
                            "target, or no interval)"))
      << "\n\n";
    o << "Pairwise orders: " << r.pairsSameOrder << " the same, " << r.pairsOppositeOrder
      << " opposite, " << r.pairsIndeterminate << " indeterminate in a world\n";
    for (const auto &line : r.orderLines)
        o << "  " << line << "\n";
    o << "\nPer episode (decisive in both): world model success/failure when physics succeeded "
      << r.confusion[1][1] << "/" << r.confusion[1][0] << ", when physics failed "
      << r.confusion[0][1] << "/" << r.confusion[0][0] << "; agreement "
      << intervalText(r.agreement) << " n=" << r.agreement.n;
    if (r.kappa.kappa)
        o << ", kappa " << std::fixed << std::setprecision(3) << *r.kappa.kappa;
    o << "\n";
    const ClosedLoopSplit &cl = r.closedLoop;
    if (!cl.protocols.empty()) {
        o << "\nWhere the disagreement comes from (the imagined runs' actions replayed in physics "
             "from the same starts: "
          << cl.name << "): of " << cl.triples << " pairs decisive in all three, " << cl.agree
          << " agree; " << cl.reaction
          << " the policy acted otherwise on imagined frames than on physics frames (physics "
             "on its imagined actions says what the world model said); "
          << cl.worldJudge << " the world model or the judge erred on the very actions ("
          << cl.worldLenient << " lenient, " << cl.worldHarsh << " harsh); " << cl.cancelled
          << " agree by two errors that cancel; " << cl.withoutReplay
          << " pairs decisive in both worlds have no decisive replay\n";
        if (cl.worldJudgeJudged > 0)
            o << "  of the world model's and judge's " << cl.worldJudge << ", the judge read "
              << cl.worldJudgeJudged
              << " replays' physics frames: the same call as on the "
                 "imagined frames in "
              << cl.judgeRepeats << " (the judge's error), the physics label in "
              << cl.worldJudgeJudged - cl.judgeRepeats
              << " (not the judge on real frames: the imagined frames, or its reading of them "
                 "alone)\n";
        o << "  the world model and judge on the closed loop's own actions (imagined verdict vs "
             "physics on those actions): agreement "
          << intervalText(cl.agreement) << " n=" << cl.agreement.n;
        if (cl.kappa.kappa)
            o << ", kappa " << std::fixed << std::setprecision(3) << *cl.kappa.kappa;
        o << "\n  the policies' reaction alone (physics on their own actions vs on their imagined "
             "ones): agreement "
          << intervalText(cl.actionsAgreement) << " n=" << cl.actionsAgreement.n;
        if (cl.actionsKappa.kappa)
            o << ", kappa " << std::fixed << std::setprecision(3) << *cl.actionsKappa.kappa;
        o << "\n";
        for (const auto &p : cl.policies) {
            const std::string name = columnName(p.policy);
            o << "  " << std::left << std::setw(60) << name << "  in physics on its imagined "
              << "actions " << intervalText(p.inPhysics) << " n=" << p.inPhysics.n << "; reaction "
              << p.reaction << ", world model and judge " << p.worldJudge << "\n";
        }
    }
    const JudgeOnPhysics &j = r.judgeOnPhysics;
    if (j.sensitivity.n + j.specificity.n > 0)
        o << "\nThe judge on the physics rollouts (against the simulator's labels): sensitivity "
          << intervalText(j.sensitivity) << " n=" << j.sensitivity.n << ", specificity "
          << intervalText(j.specificity) << " n=" << j.specificity.n << " (" << j.unjudged
          << " without a verdict)\n";
    if (j.byTask.size() > 1)
        for (const auto &t : j.byTask)
            o << "  " << t.task << ": " << judgeOfTaskText(t) << " (" << t.unjudged
              << " without a verdict)\n";
    o << "\nGoals (docs/fidelity.md), beside the anchors:\n";
    for (const auto &g : fidelityGoals(r))
        o << "  " << (g.met ? (*g.met ? "[met]     " : "[NOT MET] ") : "[undecided] ") << g.id
          << ": " << g.statement << "\n      measured: " << g.measured
          << "\n      anchors: " << g.anchors << "\n";
    if (frames && frames->episodes > 0) {
        o << "\nFrame fidelity (open-loop replay of " << frames->episodes
          << " physics episodes' actions in the world model):\n  step  PSNR dB  SSIM\n";
        for (std::size_t i = 0; i < frames->psnrMean.size(); ++i)
            if (i == 0 || (i + 1) % 5 == 0 || i + 1 == frames->psnrMean.size())
                o << "  " << std::setw(4) << i + 1 << "  " << std::fixed << std::setprecision(2)
                  << std::setw(7) << frames->psnrMean[i] << "  " << std::setprecision(3)
                  << frames->ssimMean[i] << "\n";
    }
    o << "\nBoth worlds are simulations: this measures agreement between a learned world model "
         "and a physics reference, not real robot-task success.\n";
    return o.str();
}

} // namespace kosmos
