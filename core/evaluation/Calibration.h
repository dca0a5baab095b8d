#pragma once

#include "queries/LedgerFacts.h"
#include "stats/Agreement.h"
#include "stats/Ranking.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kosmos {

class Ledger;

// A judge configuration as the ledger records it: adapter id + version and settings. Its key is
// "<judge> <settings as compact JSON>"; judgments of one key are comparable with each other.
// judgeConfigs lists those of the judged rollouts' judgments (their own and re-judgments), in the
// order of each one's first judgment, with how many judgments it has.
struct JudgeConfig
{
    std::string key;
    std::string judge;
    nlohmann::json settings;
    int judgments = 0;
};
std::vector<JudgeConfig> judgeConfigs(Ledger &ledger);
// What tells configurations apart, for a list a person reads: the judge, its plugin settings and
// its quorum ("<judge> <settings> quorum <quorum>"); the key when it has no plugin settings.
std::string judgeConfigLabel(const JudgeConfig &config);

// The outcome (success, failure or unknown) of the latest judgment by the configuration `key`
// (JudgeConfig::key) of each rollout run it judged, as the run's own judge or re-judging it
// (`kosmos-cli judge`): rollout run id -> outcome. Throws Error(NotFound) when no judgment has
// that configuration.
std::map<std::int64_t, std::string> outcomesByConfig(Ledger &ledger, const std::string &key);

// ---- paired judge audit (domain.md section 7) ----------------------------------------------

struct AuditSide
{
    std::string key;
    int clips = 0;
    int samples = 0;     // first tries of every sample of the clips' judgments
    int schemaValid = 0; // answers that parsed into the judge schema
    int bareJson = 0;    // answers written as bare JSON, whether schema-valid or not
    std::optional<double> meanTokens;
    std::optional<double> meanDecodeMs;
    int success = 0, failure = 0, unknown = 0; // quorum outcomes
};

struct AuditFlip
{
    std::int64_t runId = 0;
    std::string field; // outcome, integrity, collision, progress, completion_evidence
    std::string a;
    std::string b;
};

struct PairedAudit
{
    AuditSide a;
    AuditSide b;
    int clips = 0; // runs judged by both configurations
    // Per field: (pairs that agree, pairs where both sides had a schema-valid answer). A side's
    // field is the most frequent value over its schema-valid samples (first seen wins a tie).
    std::map<std::string, std::pair<int, int>> fieldAgreement;
    int fullAgreement = 0; // clips where every field agrees
    int fullCompared = 0;  // clips where both sides had a schema-valid answer
    std::vector<AuditFlip> flips;
    McNemarResult mcnemar; // on the clips where both quorum outcomes are decisive
    int decisivePairs = 0;
};

// Two judge configurations on the same clips (e.g. a base model and a LoRA adapter, re-judged
// with `kosmos-cli judge`). Throws Error(NotFound) for an unknown key.
PairedAudit pairedAudit(Ledger &ledger, const std::string &keyA, const std::string &keyB);

// The audit's table (metric, A, B; B is empty for a row about both), defined once for the CLI,
// the evaluation record, the workstation's view and the report: "schema-valid answers",
// "bare JSON answers", "mean generated tokens", "mean decode time (ms)", "quorum outcomes
// s/f/unknown", "agreement: FIELD" per field, "full semantic agreement", "exact McNemar
// (decisive pairs)".
struct AuditRow
{
    std::string metric;
    std::string a;
    std::string b;
};
std::vector<AuditRow> auditRows(const PairedAudit &audit);

// ---- calibration against labels ---------------------------------------------------------------

// The gate a judge must pass before its verdicts are trusted (docs/statistics.md, "The calibration
// gate"). Recorded with every report that applies it.
struct CalibrationGate
{
    int minLabels = 20;
    // Minimum evidence per class: labelled successes and labelled failures among the decisive
    // pairs. Below either the gate cannot say anything (INCONCLUSIVE), whatever the rates.
    int minSuccesses = 20;
    int minFailures = 20;
    double minSensitivity = 0.8;
    double minSpecificity = 0.8;
    double maxLeniency = 0.1; // |judge rate - label rate|
    nlohmann::json toJson() const;
};

// A gate line's (and the gate's) verdict: passed only when the 95% interval clears the bound,
// failed only when it lies wholly on the wrong side, inconclusive otherwise (or with too little
// evidence).
enum class GateVerdict
{
    Pass,
    Fail,
    Inconclusive
};
std::string_view gateVerdictName(GateVerdict verdict); // pass | fail | inconclusive

// PASS when every line passes, FAIL when any fails, INCONCLUSIVE otherwise.
GateVerdict overallVerdict(const std::vector<GateVerdict> &lines);
std::string gateVerdictTitle(GateVerdict verdict); // PASS | FAIL | INCONCLUSIVE

struct ReliabilityBin
{
    double from = 0, to = 0; // judge success-vote share in [from, to)
    Proportion labelSuccess; // the labels' success rate in the bin, Wilson
    int n = 0;
};

// Which check a gate line is, and what would settle it, as data (GateLine).
enum class GateCheck
{
    DecisiveClips,
    LabelledSuccesses,
    LabelledFailures,
    Sensitivity,
    Specificity,
    Leniency
};
enum class GateNeed
{
    Nothing,
    Measure,          // nothing measured yet
    OnBound,          // the observed value lies on the bound: no number of clips settles it
    More,             // `more` clips (at the observed value) settle it, `towardPass` or not
    ClassBelowMinimum // the rate's class has fewer clips than the gate's minimum for it
};

struct GateLine
{
    std::string name;
    GateVerdict verdict = GateVerdict::Inconclusive;
    std::string figure; // the value behind the line, with its n and interval
    // What would settle an inconclusive line: "about 37 more labelled successes (at the observed
    // 80%) for the interval to clear the bound", "14 more labelled failures". Empty otherwise.
    std::string needed;
    // The point value against the bound (the original system's reading): never the verdict.
    bool pointPass = false;

    // The same line as data, for a view that words it in its own language (the workstation; the
    // CLI and the record print the English text above, gateLineText).
    GateCheck check = GateCheck::DecisiveClips;
    double bound = 0;   // the check's minimum (a count or a rate), or the leniency's maximum
    int count = 0;      // count checks: the count (DecisiveClips: the decisive ones)
    int indecisive = 0; // DecisiveClips: the indecisive ones beside
    Proportion rate;    // Sensitivity, Specificity
    double offset = 0, offsetLower = 0, offsetUpper = 0; // Leniency, 95% interval
    int pairs = 0;                                       // Leniency: decisive labelled clips
    GateNeed need = GateNeed::Nothing;
    std::optional<int> more; // More, ClassBelowMinimum; More without it: over a million
    bool towardPass = false; // More: the interval would clear the bound (else leave it)
    int classMinimum = 0;    // ClassBelowMinimum: the gate's minimum for the rate's class
};

// How every view writes a line after its verdict: "name: figure", and for an inconclusive line
// "; needs about 37 more labelled successes ...".
std::string gateLineText(const GateLine &line);

// A line for a rate that must be at least `minimum`, by its Wilson 95% interval; `what` names the
// clips it counts (e.g. "labelled successes") for `needed`.
GateLine rateGateLine(const std::string &name, const Proportion &p, double minimum,
                      const std::string &what);
// A line for a count that must reach `minimum` (never failed: more clips can be labelled).
GateLine countGateLine(const std::string &name, int count, int minimum, const std::string &what);
// The leniency line: offset (FP - FN) / pairs, |offset| <= maxOffset, with the interval of the
// offset given the discordant pairs (Wilson on FP of FP + FN, docs/statistics.md).
GateLine leniencyGateLine(const std::string &name, int falsePositive, int falseNegative, int pairs,
                          double maxOffset);

struct CalibrationReport
{
    std::string judgeKey;
    std::string labelSource; // human | synthetic_reference
    int labeledClips = 0;    // clips with a judgment of this key and a label of this source
    BinaryAgreement binary;
    KappaResult progressKappa; // quadratic-weighted, 0-5, where both gave a progress
    std::vector<ReliabilityBin> reliability;
    CalibrationGate gateSettings; // the gate these lines apply
    std::vector<GateLine> gate;
    GateVerdict gateVerdict = GateVerdict::Inconclusive;
    // Every line's point value against its bound, as the original system read its gate: shown as
    // a labelled secondary line, never as the verdict.
    bool pointValuesPass = false;
    std::string emptyReason; // set when there is too little to say anything
};

// The gate applied to a judge's agreement with labels: its lines (decisive clips, labelled
// successes, labelled failures, sensitivity, specificity, leniency), the verdict, and the
// point-value reading. A rate line of a class below the gate's minimum is inconclusive whatever
// its interval, and so is the gate.
struct GateResult
{
    std::vector<GateLine> lines;
    GateVerdict verdict = GateVerdict::Inconclusive;
    bool pointValuesPass = false;
};
GateResult evaluateGate(const BinaryAgreement &agreement, const CalibrationGate &gate);

// The secondary line every view shows under the gate: "point values only (the original system's
// reading; not the verdict): PASS".
std::string pointValuesText(const CalibrationReport &report);

// A gate line's figure for a rate that must be at least `minimum`: its intervalText, and where
// the 95% interval reaches across the bound, what the point value alone would say ("; the
// interval reaches below the bound: a pass on the point value", or "... a fail ..."): such a line
// is inconclusive.
std::string gateFigure(const Proportion &p, double minimum);

// The judge configuration `judgeKey` against the latest label of `labelSource` per run.
// Labels "met" / "not_met" are success / failure; anything else is indecisive.
CalibrationReport calibrate(Ledger &ledger, const std::string &judgeKey,
                            const std::string &labelSource, const CalibrationGate &gate = {});

// ---- outcomes for rankings ---------------------------------------------------------------------

// The episodes of one frozen protocol as ranking inputs: policy (adapter id + settings), task,
// start lineage (the episode index: every policy starts episode k of a task from the same
// state), and success by `source`: "judge" (the rollout's own judgment), "synthetic_reference"
// or "human" (the latest label). Episodes without a decisive outcome of that source are counted
// in `missing`, never silently dropped.
struct ProtocolOutcomes
{
    std::string protocolSha256;
    std::vector<EpisodeOutcome> episodes;
    int missing = 0;
    std::vector<EpisodeOutcome> missingEpisodes; // policy, task, lineage; success meaningless
};
ProtocolOutcomes protocolOutcomes(Ledger &ledger, const std::string &protocolSha256,
                                  const std::string &source);

// rolloutProtocols, physicsProtocols, hasHumanLabels, hasLabels: queries/LedgerFacts.h.
// The protocol a user names (its name or a SHA-256 prefix; empty: any), the newest match:
// (name, SHA-256). Throws Error(InvalidInput) when none has rollouts or none matches.
std::pair<std::string, std::string> findRolloutProtocol(Ledger &ledger, const std::string &text);
// Reference success rates (e.g. real-robot results) from a CSV of "policy,rate" lines, an
// optional header row, policy names optionally quoted ("" for a quote). Throws Error naming the
// file and line of a rate that is not a number in 0..1.
std::vector<std::pair<std::string, double>> readReferenceRates(const std::string &path);

// ---- agreement between two human annotators ---------------------------------------------------

// Human annotators and how many clips each labelled (latest label per clip), by id.
std::vector<std::pair<std::string, int>> humanAnnotators(Ledger &ledger);

struct AnnotatorDisagreement
{
    std::int64_t runId = 0;
    std::string field; // completion, integrity, collision, progress
    std::string a;
    std::string b;
};

// Two annotators on the clips both labelled (each one's latest human label of the clip), of one
// split ("held_out", "development", or "all"; a label without a recorded split gets the split
// of its run's start lineage). The completion verdicts of A against B as a binary agreement
// (A in the judge's place), quadratic-weighted kappa of progress, and per-field agreement.
struct AnnotatorAgreement
{
    std::string annotatorA;
    std::string annotatorB;
    std::string split;
    int clips = 0;
    BinaryAgreement completion;
    KappaResult progressKappa;
    std::map<std::string, std::pair<int, int>> fieldAgreement; // field -> (agree, compared)
    std::vector<AnnotatorDisagreement> disagreements;
    std::string emptyReason; // e.g. "not enough doubly labelled clips: 3 of the 20 needed"
};
// Throws Error(InvalidInput) for an annotator with no human label, an unknown split or the
// same annotator twice.
AnnotatorAgreement annotatorAgreement(Ledger &ledger, const std::string &annotatorA,
                                      const std::string &annotatorB,
                                      const std::string &split = "held_out", int minClips = 20);

// The judge configuration that gave the most of a protocol's rollouts their own (first)
// judgment; empty when none of them was judged.
std::string primaryJudgeConfig(Ledger &ledger, const std::string &protocolSha256);

} // namespace kosmos
