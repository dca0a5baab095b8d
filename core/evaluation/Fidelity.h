#pragma once

// The fidelity report: does evaluating policies inside a learned world model agree with the
// physics reference? (SIMPLER's and WorldGym's question.) A physics protocol's episodes (success
// from the simulator's state, label source "physics") are paired with the same policies' runs of
// an "imagined" protocol in a world model, started from the same physics start frame (prepared by
// kosmos-cli fidelity prepare: one imagined task per physics start, named "<task>#<episode>"),
// whose success is the judge's verdict. Everything here is read from one ledger; nothing is
// written.

#include "components/Components.h"
#include "ledger/LedgerTypes.h"
#include "stats/Agreement.h"
#include "stats/Proportion.h"
#include "stats/Ranking.h"

#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

struct FidelityOptions
{
    std::string physicsProtocol;  // SHA-256 or name (prefix), as kosmos-cli rank takes it
    std::string imaginedProtocol; // the same
    // More protocols whose episodes join these: a policy evaluated later on the same starts
    // (physics: the same seed, tasks, episodes per task, horizon and world, so the same starts;
    // imagined: the same world model, judge and horizon, and the same start frame wherever a
    // start is in both). Anything else, or a policy in two of them, is refused naming it.
    std::vector<std::string> alsoPhysics;
    std::vector<std::string> alsoImagined;
    int replicates = 2000; // bootstrap over start lineages
    std::uint64_t seed = 20261203;
    // The judge configuration whose verdicts count on both sides (JudgeConfig::key, as
    // kosmos-cli calibrate and report take it): each run's latest judgment by it, the run's own
    // or a re-judgment of its recorded rollout (`kosmos-cli judge`). Empty: each run's own judge
    // (the protocols'). Unknown: Error(NotFound).
    std::string judgeConfig;
    // Protocols of the imagined runs' actions replayed in physics from the same starts
    // (kosmos-cli fidelity prepare --in-physics; replay.actions with actions_from "imagined"),
    // names or SHA-256s, one per imagined protocol joined: the report then splits the per-episode
    // disagreement (ClosedLoopSplit). Empty: no split.
    std::vector<std::string> inPhysicsProtocols;
};

// One start, one policy: physics ground truth and the world model's judged outcome.
struct FidelityPair
{
    std::string policy;
    std::string task;    // the physics task
    std::string lineage; // "<task>#<episode>": the start
    std::int64_t physicsRun = 0;
    std::int64_t imaginedRun = 0;
    std::optional<bool> physics;  // the physics label (null: none, e.g. a failed attempt)
    std::optional<bool> imagined; // the judge's outcome (null: unknown or not judged)
    bool imaginedInvalid = false; // the imagined rollout failed validation (never judged)
};

struct FidelityPolicy
{
    std::string policy;
    Proportion physics;  // Wilson over the episodes with a physics label
    Proportion imagined; // Wilson over the decisive imagined episodes
    int imaginedMissing = 0;
    int imaginedInvalid = 0; // of the missing: rollouts that failed validation
    int lenient = 0;         // imagined success where physics failed
    int harsh = 0;           // imagined failure where physics succeeded
    int bothDecisive = 0;
    // Its imagined runs replay the actions it took in physics, open loop (replay.actions by seed):
    // a policy that reads the simulator's state, which a world model does not give, or any policy
    // of a protocol prepared with `kosmos-cli fidelity prepare --open-loop`. Its imagined rate says
    // whether the world model and judge see success in those actions, not how the policy reacts to
    // imagined frames.
    bool openLoopReplay = false;
};

struct IntervalStat
{
    std::optional<double> value;
    std::optional<double> lower; // percentile bootstrap over start lineages (within tasks)
    std::optional<double> upper;
};

// Where the closed loop's per-episode disagreement comes from (FidelityOptions::
// inPhysicsProtocol). Per pair there are three outcomes: physics (the policy in physics), imagined
// (the judge on the world model's rollout) and in-physics (physics on the very actions the policy
// took in the world model). When physics and imagined disagree, exactly one of the two others
// differs: in-physics == imagined means the world model and judge read the policy's imagined
// actions right and the policy acted otherwise on imagined frames than on physics frames
// ("reaction"); in-physics == physics means the actions would have done in physics what they did
// there, and the world model or the judge erred on them ("world and judge").
struct ClosedLoopSplitPolicy
{
    std::string policy;
    Proportion inPhysics; // physics on its imagined actions (Wilson), over the decisive replays
    int reaction = 0;
    int worldJudge = 0;
};

struct ClosedLoopSplit
{
    std::vector<std::string> protocols; // SHA-256s (empty: no split asked for)
    std::string name;                   // their names, joined with " + "
    int triples = 0;                    // pairs decisive in all three
    int agree = 0;                      // physics == imagined, and in-physics the same
    int cancelled = 0;     // physics == imagined, in-physics differs from both (two errors cancel)
    int reaction = 0;      // physics != imagined == in-physics
    int worldJudge = 0;    // physics == in-physics != imagined
    int worldLenient = 0;  // of worldJudge: imagined success where the actions fail in physics
    int worldHarsh = 0;    // of worldJudge: imagined failure where the actions succeed in physics
    int withoutReplay = 0; // pairs decisive in both worlds without a decisive in-physics outcome
    // Of worldJudge: the replays the judge also read (the in-physics protocol has a judge, or
    // `kosmos-cli judge` re-judged them; FidelityOptions::judgeConfig's verdicts where given), and
    // of those, how often it made on the physics frames the call it made on the imagined ones: the
    // judge's own error. The rest it read right: the error is in the imagined frames, or in the
    // judge's reading of them alone.
    int worldJudgeJudged = 0;
    int judgeRepeats = 0;
    // The world model and judge on the closed loop's own actions: imagined verdict against
    // in-physics, over the pairs decisive in both ([in-physics][imagined], 0 = failure).
    int confusion[2][2] = {{0, 0}, {0, 0}};
    Proportion agreement;
    KappaResult kappa;
    // The policies' reaction alone: physics against in-physics (both physics), over the pairs
    // decisive in both.
    Proportion actionsAgreement;
    KappaResult actionsKappa;
    std::vector<ClosedLoopSplitPolicy> policies; // in the report's policy order
};

// The judge on the physics rollouts (the physics protocol's own judge): how it reads the
// simulator's outcomes. Sensitivity over the physics successes it judged, specificity over the
// physics failures; a physics episode without a verdict is counted apart.
struct JudgeOnPhysicsOfTask
{
    std::string task;
    Proportion sensitivity;
    Proportion specificity;
    int unjudged = 0;
};

struct JudgeOnPhysics
{
    Proportion sensitivity; // judged success among physics successes
    Proportion specificity; // judged failure among physics failures
    int unjudged = 0;       // physics-labelled episodes without a decisive verdict
    // The same for each task (in task order): a judge that reads one task and not another shows
    // here, not in the totals.
    std::vector<JudgeOnPhysicsOfTask> byTask;
};

struct FidelityReport
{
    std::string physicsProtocol; // SHA-256
    std::string imaginedProtocol;
    std::string physicsName; // joined protocols: their names with " + "
    std::string imaginedName;
    std::vector<std::string> physicsProtocols; // every SHA-256 (the first is physicsProtocol)
    std::vector<std::string> imaginedProtocols;
    // FidelityOptions::judgeConfig (empty: the protocols' own judge), and the valid rollouts
    // it has not judged, which count as without a verdict.
    std::string judgeConfig;
    int physicsNotJudgedByConfig = 0;
    int imaginedNotJudgedByConfig = 0;
    std::vector<FidelityPair> pairs;
    std::vector<FidelityPolicy> policies; // by physics rate, descending
    int policiesWithBothRates = 0;        // the correlations are over these (n/a under 2)
    IntervalStat pearson;
    IntervalStat spearman;
    IntervalStat mmrv;
    // Pairwise orders (rankPolicies' rule in each world): same, opposite, or indeterminate in one
    // of them (or both).
    int pairsSameOrder = 0;
    int pairsOppositeOrder = 0;
    int pairsIndeterminate = 0;
    std::vector<std::string> orderLines; // "A vs B: physics first better, world model ..."
    // Per-episode paired agreement over the pairs decisive in both: [physics][imagined].
    int confusion[2][2] = {{0, 0}, {0, 0}}; // [0 = fail, 1 = success]
    Proportion agreement;
    KappaResult kappa;
    int unpairedPhysics = 0;  // physics episodes without an imagined run of the same start
    int unpairedImagined = 0; // imagined runs whose start is not a physics episode
    std::vector<std::string> openLoopPolicies; // FidelityPolicy::openLoopReplay, by physics label
    int replicates = 0;
    std::uint64_t seed = 0;

    // Before any correlation is read: how far apart physics puts the policies (RateSpread). The
    // correlations and MMRV are informative only when physics forms 3 levels or more and states
    // at least half of the pairwise orders; otherwise they are still given, under a sentence
    // saying why they mean nothing here.
    RateSpread physicsSpread;
    bool correlationsInformative() const { return physicsSpread.informative(); }
    // How much more data would make them mean something (docs/statistics.md, "Ordering policies
    // with honest uncertainty"): per pair physics leaves indeterminate, the episodes per policy at
    // which its observed rates would be told apart; and the starts at which the Pearson interval's
    // lower bound would reach pearsonTarget (the interval's half-width shrinking as
    // 1/sqrt(starts)).
    struct SeparationNeed
    {
        std::string a;
        std::string b;
        std::optional<int> episodesPerPolicy; // nullopt: equal rates, or beyond a million
    };
    std::vector<SeparationNeed> physicsNeeds;
    int starts = 0; // start lineages of the physics protocol that were paired
    double pearsonTarget = 0.5;
    std::optional<int> startsForPearsonTarget; // nullopt: r at or below the target, or no interval
    // The judge against physics on the physics rollouts (empty when that protocol had no judge).
    JudgeOnPhysics judgeOnPhysics;
    ClosedLoopSplit closedLoop; // FidelityOptions::inPhysicsProtocols' split (empty without)
};

// One of [benchmark-fidelity]'s goals, stated beside its anchors, and whether this report meets
// it (nullopt: it cannot be decided, e.g. no interval or no judge; the reason in `measured`).
struct FidelityGoal
{
    std::string id;        // spread | pearson | mmrv | orders | kappa | judge
    std::string statement; // what is asked
    std::string anchors;   // the published figures it stands beside
    std::string measured;  // what this report measured
    std::optional<bool> met;
};

// Physics protocols of a ledger that share their starts (FidelityOptions::alsoPhysics's rule)
// and were each prepared into "<name>-imagined": a study with policies added later on the same
// starts, offered as one comparison by the Fidelity tab. Groups of two or more, in ledger order.
struct FidelityGroup
{
    std::vector<std::pair<std::string, std::string>> physics;  // (name, SHA-256)
    std::vector<std::pair<std::string, std::string>> imagined; // the same order
};
std::vector<FidelityGroup> fidelityGroups(Ledger &ledger);

// The protocols of each imagined protocol's runs replayed in physics, as kosmos-cli fidelity
// prepare --in-physics names them ("<imagined name>-in-physics", the newest of that name), in the
// order of `imaginedSha256s`; empty unless every one has them. For FidelityOptions::
// inPhysicsProtocols wherever the split is offered without being asked for (the Fidelity tab).
std::vector<std::string> inPhysicsReplaysOf(Ledger &ledger,
                                            const std::vector<std::string> &imaginedSha256s);

// The goals docs/fidelity.md states, decided on this report.
std::vector<FidelityGoal> fidelityGoals(const FidelityReport &report);

FidelityReport fidelityReport(Ledger &ledger, const FidelityOptions &options);

// The rollout runs of a protocol (re-judgings left out), in run order.
std::vector<RunRecord> protocolRuns(Ledger &ledger, const std::string &protocolSha256);

// Frame fidelity: the same actions replayed open loop in the world model, frame by frame against
// physics (physics frames resized to the model's size with area interpolation).
struct FrameFidelityCurve
{
    std::vector<double> psnrMean; // per step (1 = after the first action)
    std::vector<double> ssimMean;
    std::vector<int> count; // episodes that reached the step
    int episodes = 0;
    // 95% intervals of the per-step means over episodes (percentile bootstrap over episodes,
    // addIntervals); empty until computed, NaN at a step fewer than 2 episodes reached.
    std::vector<double> psnrLower, psnrUpper, ssimLower, ssimUpper;
    // Each episode's value at each step (what the intervals are drawn from).
    std::vector<std::vector<double>> psnrSamples, ssimSamples;
};
// Fills the curve's 95% intervals: per step, the 2.5th and 97.5th percentiles of the mean over
// `replicates` resamples of the episodes that reached it (fixed seed: the same curve gives the
// same intervals).
void addIntervals(FrameFidelityCurve &curve, int replicates = 2000, std::uint64_t seed = 20261205);
// PSNR (dB, 8-bit peak; 99 for identical images) and SSIM (Wang et al. 2004: 11x11 Gaussian,
// sigma 1.5, K1 0.01, K2 0.03, mean over channels) of two RGB uint8 images of one size.
double framePsnr(const cv::Mat &a, const cv::Mat &b);
double frameSsim(const cv::Mat &a, const cv::Mat &b);
// Adds one replay (physics frames and predicted frames, both starting at the start frame).
void addReplay(FrameFidelityCurve &curve, const std::vector<cv::Mat> &physics,
               const std::vector<cv::Mat> &predicted);

// A policy's adapter and settings without its resolved runtime identity (the ledger's policy text
// is "<adapter> {settings, "resolved": {...}}"), for tables.
std::string policyDisplayName(const std::string &policy);

// Replays the recorded actions of up to `replays` physics starts (one episode per start) open
// loop in `world` from the physics start frame, in chunks of its certified length, and adds each
// to a curve. Nothing is written to the ledger.
FrameFidelityCurve replayInWorldModel(Ledger &ledger, const FidelityReport &report,
                                      WorldModel &world, int replays);
// The curve back from toJson (as kosmos-cli fidelity --json prints it under "frame_fidelity");
// an empty curve for anything else.
FrameFidelityCurve frameFidelityFromJson(const nlohmann::json &json);

nlohmann::json toJson(const FidelityReport &report);
nlohmann::json toJson(const FrameFidelityCurve &curve);
std::string toText(const FidelityReport &report, const FrameFidelityCurve *frames);

} // namespace kosmos
