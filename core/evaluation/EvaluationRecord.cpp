#include "evaluation/EvaluationRecord.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/NumberText.h"

#include <cstdio>
#include <iomanip>
#include <sstream>
#include <tuple>

#ifndef KOSMOS_VERSION
#define KOSMOS_VERSION "unknown"
#endif

namespace kosmos {

namespace {

nlohmann::json optional(const std::optional<double> &v)
{
    return v ? nlohmann::json(*v) : nlohmann::json();
}

std::vector<ComponentUse> componentsOf(Ledger &ledger, const std::string &protocolSha256)
{
    sqlite::Statement s(LedgerSql::of(ledger), R"sql(
        SELECT c.family, c.adapter_id, c.adapter_version, c.identity_sha256, c.weights_sha256,
               c.identity_json, COUNT(*)
          FROM runs r JOIN protocols p ON p.protocol_id = r.protocol_id
          JOIN components c ON c.component_id IN (r.policy_id, r.world_model_id, r.judge_id)
         WHERE p.protocol_sha256 = ?1
           AND json_extract(r.key_json, '$.seeds.rejudge_of') IS NULL
         GROUP BY c.component_id
         ORDER BY CASE c.family WHEN 'policy' THEN 0 WHEN 'world_model' THEN 1 ELSE 2 END,
                  c.adapter_id, c.component_id)sql");
    s.bind(1, protocolSha256);
    std::vector<ComponentUse> out;
    while (s.step()) {
        ComponentUse c;
        c.family = s.text(0);
        c.adapterId = s.text(1);
        c.adapterVersion = s.text(2);
        c.identitySha256 = s.text(3);
        c.weightsSha256 = s.optText(4);
        const auto identity = nlohmann::json::parse(s.text(5), nullptr, false);
        if (identity.is_object() && identity.contains("config"))
            c.config = identity["config"];
        c.runs = static_cast<int>(s.int64(6));
        out.push_back(std::move(c));
    }
    return out;
}

std::string percent(double v)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.0f%%", v * 100);
    return text;
}

void writeStatement(EvaluationRecord &r)
{
    std::string world;
    for (const auto &c : r.components)
        if (c.family == "world_model")
            world += (world.empty() ? "" : ", ") + c.adapterId;
    const std::string source = r.outcomeSource == "judge"   ? "the judge's verdicts"
                               : r.outcomeSource == "human" ? "human labels"
                               : r.outcomeSource == "physics"
                                   ? "physics ground truth (the simulator's state, not a human)"
                                   : "synthetic reference labels (not human)";
    r.supports.push_back(
        "The success rates above, each with its n and Wilson 95% interval, describe these "
        "policies on this frozen protocol (" +
        r.protocolSha256.substr(0, 12) + ") in the world model" +
        (world.empty() ? std::string(" recorded with the runs") : " " + world) + ", scored by " +
        source + ".");
    int ordered = 0, indeterminate = 0;
    for (const auto &pair : r.ranking.pairs) {
        if (pair.verdict == PairOrder::Verdict::Indeterminate) {
            ++indeterminate;
            continue;
        }
        ++ordered;
        const bool aFirst = pair.verdict == PairOrder::Verdict::ABetter;
        r.supports.push_back("Within this protocol, " + (aFirst ? pair.a : pair.b) +
                             " scores higher than " + (aFirst ? pair.b : pair.a) +
                             ": the lineage bootstrap and the exact bounds both separate them.");
    }
    r.doesNotSupport.push_back(
        "Any claim of real robot-task success: these are rollouts in a generated or synthetic "
        "world, not recordings of a robot.");
    if (r.fidelity && r.fidelity->pearson.value) {
        const auto &f = *r.fidelity;
        auto fixed = [](double v) {
            std::ostringstream o;
            o << std::fixed << std::setprecision(3) << v;
            return o.str();
        };
        r.supports.push_back(
            "For these " + std::to_string(f.policies.size()) + " policies from the same " +
            "starts, the learned world model's judged rates agree with physics to Pearson " +
            fixed(*f.pearson.value) +
            (f.pearson.lower ? " [" + fixed(*f.pearson.lower) + ", " + fixed(*f.pearson.upper) + "]"
                             : std::string()) +
            ", MMRV " + (f.mmrv.value ? fixed(*f.mmrv.value) : std::string("n/a")) + " (" +
            std::to_string(f.pairs.size()) + " paired episodes; see the fidelity section).");
        r.doesNotSupport.push_back(
            "That the learned world model ranks other policies, tasks or starts as physics "
            "would: the fidelity figures hold for the policies and starts measured.");
    }
    if (indeterminate > 0)
        r.doesNotSupport.push_back(
            "An order between the " + std::to_string(indeterminate) +
            " pair(s) marked indeterminate: their difference is within the uncertainty.");
    r.doesNotSupport.push_back("Comparison with rates of any other protocol: rates are never "
                               "pooled across frozen protocols.");
    if (r.outcomes.missing > 0)
        r.doesNotSupport.push_back(
            std::to_string(r.outcomes.missing) +
            " episode(s) have no decisive outcome; the rates assume those are missing at "
            "random. Without that assumption only the worst/best-case bounds per cell hold.");
    if (r.outcomeSource == "judge") {
        if (!r.humanCalibration) {
            r.doesNotSupport.push_back(
                "Reading the judge's verdicts as human judgments: the judge has no human labels "
                "to be calibrated against in this ledger.");
        } else if (r.humanCalibration->gateVerdict != GateVerdict::Pass) {
            r.doesNotSupport.push_back(
                "Reading the judge's verdicts as human judgments: the calibration gate against "
                "human labels " +
                std::string(r.humanCalibration->gateVerdict == GateVerdict::Fail
                                ? "failed"
                                : "is inconclusive (its intervals do not clear the bounds, or "
                                  "there are too few labelled clips of a class)") +
                (r.humanCalibration->emptyReason.empty()
                     ? std::string()
                     : " (" + r.humanCalibration->emptyReason + ")") +
                ".");
        } else {
            r.supports.push_back(
                "The judge agrees with human labels within the calibration gate on " +
                std::to_string(r.humanCalibration->binary.pairs) + " decisive clips (sensitivity " +
                intervalText(r.humanCalibration->binary.sensitivity) + ", specificity " +
                intervalText(r.humanCalibration->binary.specificity) + ").");
        }
        if (r.referenceCalibration && !r.humanCalibration)
            r.doesNotSupport.push_back(
                "Treating agreement with the synthetic reference labels as human agreement: "
                "those labels come from a world that knows its true state.");
    }
    if (r.reference) {
        const auto n = r.reference->matched.size();
        if (n < 5)
            r.doesNotSupport.push_back("A firm sim-to-reference correlation: it rests on " +
                                       std::to_string(n) + " matched policies.");
        else
            r.supports.push_back("Sim-to-reference agreement as measured on " + std::to_string(n) +
                                 " matched policies (Pearson " + numberText(r.reference->pearson) +
                                 ", MMRV " + numberText(r.reference->mmrv) + ").");
    }
    if (r.audit)
        r.doesNotSupport.push_back(
            "Reading a format or latency gain in the paired audit as an evaluation-quality gain: "
            "that needs agreement with human labels.");
    (void)ordered;
}

} // namespace

EvaluationRecord buildEvaluationRecord(Ledger &ledger, const EvaluationRecordOptions &options)
{
    EvaluationRecord r;
    r.kosmosVersion = KOSMOS_VERSION;
    r.generatedAtMs = nowMs();
    r.ledgerPath = ledger.bundle().string();
    std::tie(r.protocolName, r.protocolSha256) = findRolloutProtocol(ledger, options.protocol);
    r.components = componentsOf(ledger, r.protocolSha256);
    r.outcomeSource = options.outcomeSource;
    r.outcomes = protocolOutcomes(ledger, r.protocolSha256, options.outcomeSource);
    r.episodes = static_cast<int>(r.outcomes.episodes.size()) + r.outcomes.missing;
    r.replicates = options.replicates;
    r.seed = options.seed;
    if (!r.outcomes.episodes.empty())
        r.ranking = rankPolicies(r.outcomes.episodes, options.replicates, options.seed);
    r.cells = cellRates(r.outcomes.episodes, r.outcomes.missingEpisodes);

    r.judgeKey =
        options.judgeKey.empty() ? primaryJudgeConfig(ledger, r.protocolSha256) : options.judgeKey;
    if (!r.judgeKey.empty()) {
        if (hasHumanLabels(ledger))
            r.humanCalibration = calibrate(ledger, r.judgeKey, "human", options.gate);
        if (hasLabels(ledger, "physics"))
            r.referenceCalibration = calibrate(ledger, r.judgeKey, "physics", options.gate);
        else if (hasLabels(ledger, "synthetic_reference"))
            r.referenceCalibration =
                calibrate(ledger, r.judgeKey, "synthetic_reference", options.gate);
    }
    const auto annotators = humanAnnotators(ledger);
    for (std::size_t i = 0; i < annotators.size(); ++i)
        for (std::size_t j = i + 1; j < annotators.size() && r.annotatorAgreements.size() < 6; ++j)
            r.annotatorAgreements.push_back(annotatorAgreement(ledger, annotators[i].first,
                                                               annotators[j].first, "held_out",
                                                               options.gate.minLabels));
    if (options.auditKeys.size() == 2)
        r.audit = pairedAudit(ledger, options.auditKeys[0], options.auditKeys[1]);
    else if (!options.auditKeys.empty())
        throw Error(ErrorCode::InvalidInput, "a paired audit needs two judge configurations, not " +
                                                 std::to_string(options.auditKeys.size()));
    if (!options.referenceRates.empty()) {
        r.reference = compareWithReference(r.ranking, options.referenceRates);
        r.referenceName = options.referenceName;
    }
    for (const auto &[name, sha] : rolloutProtocols(ledger))
        if (name == r.protocolName + "-imagined") {
            FidelityOptions fidelity;
            fidelity.physicsProtocol = r.protocolSha256;
            fidelity.imaginedProtocol = sha;
            fidelity.replicates = 2000;
            r.fidelity = fidelityReport(ledger, fidelity);
        }
    writeStatement(r);
    return r;
}

nlohmann::json toJson(const Proportion &p)
{
    return {{"successes", p.successes},
            {"n", p.n},
            {"rate", optional(p.rate)},
            {"wilson_95", p.rate ? nlohmann::json({*p.lower, *p.upper}) : nlohmann::json()}};
}

nlohmann::json toJson(const CalibrationReport &r)
{
    const auto &b = r.binary;
    nlohmann::json bins = nlohmann::json::array();
    for (const auto &bin : r.reliability)
        bins.push_back(
            {{"from", bin.from}, {"to", bin.to}, {"label_success", toJson(bin.labelSuccess)}});
    nlohmann::json gate = nlohmann::json::array();
    for (const auto &line : r.gate)
        gate.push_back({{"check", line.name},
                        {"verdict", gateVerdictName(line.verdict)},
                        {"pass", line.verdict == GateVerdict::Pass},
                        {"point_value_pass", line.pointPass},
                        {"figure", line.figure},
                        {"needed", line.needed}});
    return {{"judge", r.judgeKey},
            {"labels", r.labelSource},
            {"labelled_clips", r.labeledClips},
            {"decisive_pairs", b.pairs},
            {"indecisive_pairs", b.indecisive},
            {"confusion",
             {{"tp", b.truePositive},
              {"fp", b.falsePositive},
              {"tn", b.trueNegative},
              {"fn", b.falseNegative}}},
            {"agreement", toJson(b.agreement)},
            {"sensitivity", toJson(b.sensitivity)},
            {"specificity", toJson(b.specificity)},
            {"kappa", optional(b.kappa.kappa)},
            {"progress_weighted_kappa", optional(r.progressKappa.kappa)},
            {"progress_pairs", r.progressKappa.n},
            {"leniency_offset", optional(b.leniencyOffset)},
            {"reliability", bins},
            {"gate", gate},
            {"gate_settings", r.gateSettings.toJson()},
            {"gate_verdict", gateVerdictName(r.gateVerdict)},
            {"gate_passed", r.gateVerdict == GateVerdict::Pass}, // record version 1's field
            {"point_values_pass", r.pointValuesPass},
            {"empty_reason", r.emptyReason}};
}

nlohmann::json toJson(const PairedAudit &a)
{
    auto side = [](const AuditSide &s) {
        return nlohmann::json{
            {"key", s.key},
            {"clips", s.clips},
            {"samples", s.samples},
            {"schema_valid", s.schemaValid},
            {"bare_json", s.bareJson},
            {"mean_tokens", optional(s.meanTokens)},
            {"mean_decode_ms", optional(s.meanDecodeMs)},
            {"outcomes", {{"success", s.success}, {"failure", s.failure}, {"unknown", s.unknown}}}};
    };
    nlohmann::json fields = nlohmann::json::object();
    for (const auto &[field, counts] : a.fieldAgreement)
        fields[field] = {{"agree", counts.first}, {"compared", counts.second}};
    nlohmann::json flips = nlohmann::json::array();
    for (const auto &f : a.flips)
        flips.push_back({{"run", f.runId}, {"field", f.field}, {"a", f.a}, {"b", f.b}});
    return {{"clips", a.clips},
            {"a", side(a.a)},
            {"b", side(a.b)},
            {"field_agreement", fields},
            {"full_agreement", a.fullAgreement},
            {"full_compared", a.fullCompared},
            {"flips", flips},
            {"mcnemar",
             {{"decisive_pairs", a.decisivePairs},
              {"b", a.mcnemar.b},
              {"c", a.mcnemar.c},
              {"p_exact", a.mcnemar.pValue}}}};
}

nlohmann::json toJson(const AnnotatorAgreement &a)
{
    nlohmann::json fields = nlohmann::json::object();
    for (const auto &[field, counts] : a.fieldAgreement)
        fields[field] = {{"agree", counts.first}, {"compared", counts.second}};
    nlohmann::json disagreements = nlohmann::json::array();
    for (const auto &d : a.disagreements)
        disagreements.push_back({{"run", d.runId}, {"field", d.field}, {"a", d.a}, {"b", d.b}});
    const auto &c = a.completion;
    return {{"annotator_a", a.annotatorA},
            {"annotator_b", a.annotatorB},
            {"split", a.split},
            {"clips", a.clips},
            {"decisive_pairs", c.pairs},
            {"indecisive_pairs", c.indecisive},
            {"agreement", toJson(c.agreement)},
            {"kappa", optional(c.kappa.kappa)},
            {"progress_weighted_kappa", optional(a.progressKappa.kappa)},
            {"progress_pairs", a.progressKappa.n},
            {"field_agreement", fields},
            {"disagreements", disagreements},
            {"empty_reason", a.emptyReason}};
}

nlohmann::json toJson(const EvaluationRecord &r)
{
    nlohmann::json components = nlohmann::json::array();
    for (const auto &c : r.components)
        components.push_back({{"family", c.family},
                              {"adapter_id", c.adapterId},
                              {"adapter_version", c.adapterVersion},
                              {"identity_sha256", c.identitySha256},
                              {"weights_sha256", c.weightsSha256 ? nlohmann::json(*c.weightsSha256)
                                                                 : nlohmann::json()},
                              {"config", c.config},
                              {"runs", c.runs}});
    nlohmann::json cells = nlohmann::json::array(), agreements = nlohmann::json::array();
    const nlohmann::json ranking = toJson(r.ranking);
    for (const auto &c : r.cells)
        cells.push_back({{"policy", c.policy},
                         {"task", c.task},
                         {"decisive", toJson(c.decisive)},
                         {"missing", c.missing},
                         {"worst_case", c.worstCase},
                         {"best_case", c.bestCase}});
    for (const auto &a : r.annotatorAgreements)
        agreements.push_back(toJson(a));
    nlohmann::json out = {
        // 2: the gate's three-way verdict (gate_verdict, per line `verdict` and `needed`), the
        // gate's settings, pairwise orders by a paired test with Holm's adjustment, the header
        // count of separated pairs. Version 1's fields are kept (gate_passed: true only on PASS).
        {"record_version", 2},
        {"kosmos_version", r.kosmosVersion},
        {"generated_at_ms", r.generatedAtMs},
        {"ledger", r.ledgerPath},
        {"protocol", {{"name", r.protocolName}, {"sha256", r.protocolSha256}}},
        {"components", components},
        {"outcome_source", r.outcomeSource},
        {"episodes", r.episodes},
        {"missing", r.outcomes.missing},
        {"rates", ranking["rates"]},
        {"pairs", ranking["pairs"]},
        {"bootstrap", {{"replicates", r.replicates}, {"seed", r.seed}}},
        {"cells", cells},
        {"judge", r.judgeKey},
        {"calibration_human", r.humanCalibration ? toJson(*r.humanCalibration) : nlohmann::json()},
        {"calibration_reference",
         r.referenceCalibration ? toJson(*r.referenceCalibration) : nlohmann::json()},
        {"fidelity", r.fidelity ? toJson(*r.fidelity) : nlohmann::json()},
        {"annotator_agreement", agreements},
        {"audit", r.audit ? toJson(*r.audit) : nlohmann::json()},
        {"statement", {{"supports", r.supports}, {"does_not_support", r.doesNotSupport}}}};
    if (r.reference) {
        out["reference"] = toJson(*r.reference);
        out["reference"]["source"] = r.referenceName;
    }
    return out;
}

nlohmann::json toJson(const PolicyRanking &ranking)
{
    nlohmann::json rates = nlohmann::json::array(), pairs = nlohmann::json::array();
    for (const auto &[name, p] : ranking.rates)
        rates.push_back({{"policy", name}, {"success", toJson(p)}});
    for (const auto &pair : ranking.pairs)
        pairs.push_back(
            {{"a", pair.a},
             {"b", pair.b},
             {"verdict", pair.verdict == PairOrder::Verdict::ABetter   ? "a_better"
                         : pair.verdict == PairOrder::Verdict::BBetter ? "b_better"
                                                                       : "indeterminate"},
             {"bootstrap_difference",
              {pair.difference.observed, pair.difference.lower, pair.difference.upper}},
             {"exact_separated", pair.exactSeparated},
             {"test", pair.test},
             {"shared_starts", pair.sharedStarts},
             {"a_only", pair.aOnly},
             {"b_only", pair.bOnly},
             {"p", pair.pValue},
             {"p_holm", pair.adjustedP},
             {"to_separate", separationText(ranking, pair)}});
    return {{"rates", rates},
            {"pairs", pairs},
            {"pairs_separated", ranking.separatedPairs()},
            {"rule", kPairOrderRule}};
}

nlohmann::json toJson(const ReferenceComparison &c)
{
    return {{"matched", c.matched},           {"simulated", c.simulated},
            {"reference", c.reference},       {"unmatched", c.unmatched},
            {"pearson", optional(c.pearson)}, {"spearman", optional(c.spearman)},
            {"mmrv", optional(c.mmrv)}};
}

std::string toText(const EvaluationRecord &r)
{
    std::ostringstream o;
    o << "Evaluation record: protocol " << r.protocolName << "\n  sha256 " << r.protocolSha256
      << "\n  ledger " << r.ledgerPath << "\n  Kosmos " << r.kosmosVersion << "\n\nComponents:\n";
    for (const auto &c : r.components)
        o << "  " << c.family << "  " << c.adapterId << " " << c.adapterVersion << "  identity "
          << c.identitySha256.substr(0, 16) << "  weights "
          << (c.weightsSha256 ? c.weightsSha256->substr(0, 16) : std::string("none")) << "  ("
          << c.runs << " runs)\n";
    o << "\nSuccess by " << r.outcomeSource << ": " << r.episodes << " episodes, "
      << r.outcomes.missing << " without a decisive outcome\n";
    for (const auto &[name, p] : r.ranking.rates)
        o << "  " << intervalText(p) << "  " << name << "\n";
    o << "Pairwise: " << rankingHeader(r.ranking) << "; difference by the lineage bootstrap ("
      << r.replicates << " replicates, seed " << r.seed << "):\n";
    for (const auto &pair : r.ranking.pairs) {
        char diff[96];
        std::snprintf(diff, sizeof diff, "%.3f [%.3f, %.3f]", pair.difference.observed,
                      pair.difference.lower, pair.difference.upper);
        o << "  "
          << (pair.verdict == PairOrder::Verdict::ABetter   ? "first better "
              : pair.verdict == PairOrder::Verdict::BBetter ? "second better"
                                                            : "indeterminate")
          << "  " << diff << "  " << pair.a << "  vs  " << pair.b << "\n    " << pairTestText(pair)
          << "\n";
    }
    o << "Per policy and task (worst/best case counts the missing outcomes as failures/"
         "successes):\n";
    for (const auto &c : r.cells)
        o << "  " << c.task << "  " << intervalText(c.decisive) << "  missing " << c.missing
          << "  bounds [" << percent(c.worstCase) << ", " << percent(c.bestCase) << "]  "
          << c.policy << "\n";
    auto calibration = [&](const char *title, const std::optional<CalibrationReport> &cal) {
        o << "\n" << title << ": ";
        if (!cal) {
            o << "no labels of this kind in the ledger\n";
            return;
        }
        const auto &b = cal->binary;
        o << cal->labeledClips << " labelled clips, " << b.pairs << " decisive, " << b.indecisive
          << " indecisive\n";
        if (!cal->emptyReason.empty())
            o << "  " << cal->emptyReason << "\n";
        o << "  confusion TP " << b.truePositive << " FP " << b.falsePositive << " TN "
          << b.trueNegative << " FN " << b.falseNegative << "\n  agreement   "
          << intervalText(b.agreement) << "\n  sensitivity " << intervalText(b.sensitivity)
          << "\n  specificity " << intervalText(b.specificity) << "\n  kappa "
          << numberText(b.kappa.kappa) << " (n = " << b.pairs << "), progress weighted kappa "
          << numberText(cal->progressKappa.kappa) << " (n = " << cal->progressKappa.n
          << "), leniency offset " << numberText(b.leniencyOffset, "%+.3f") << "\n  gate "
          << gateVerdictTitle(cal->gateVerdict) << "\n";
        for (const auto &line : cal->gate)
            o << "    " << std::string(gateVerdictName(line.verdict)) << "  " << gateLineText(line)
              << "\n";
        o << "    (" << pointValuesText(*cal) << ")\n";
    };
    o << "\nJudge: " << (r.judgeKey.empty() ? std::string("(none)") : r.judgeKey) << "\n";
    calibration("Calibration against human labels", r.humanCalibration);
    calibration("Calibration against synthetic reference labels (NOT human)",
                r.referenceCalibration);
    for (const auto &a : r.annotatorAgreements) {
        o << "\nAnnotators " << a.annotatorA << " / " << a.annotatorB << " (" << a.split
          << "): " << a.clips << " clips labelled by both\n";
        if (!a.emptyReason.empty())
            o << "  " << a.emptyReason << "\n";
        o << "  completion agreement " << intervalText(a.completion.agreement) << ", kappa "
          << numberText(a.completion.kappa.kappa) << ", progress weighted kappa "
          << numberText(a.progressKappa.kappa) << " (n = " << a.progressKappa.n << ")\n";
    }
    if (r.audit) {
        const auto &a = *r.audit;
        o << "\nPaired judge audit on " << a.clips << " clips\n  A " << a.a.key << "\n  B "
          << a.b.key << "\n";
        for (const AuditRow &row : auditRows(a))
            o << "  " << row.metric << ": " << row.a << (row.b.empty() ? "" : " / " + row.b)
              << "\n";
        o << "  flips " << a.flips.size() << "\n";
    }
    if (r.reference)
        o << "\nAgainst reference rates " << r.referenceName << ": " << r.reference->matched.size()
          << " matched, " << r.reference->unmatched.size() << " unmatched; Pearson "
          << numberText(r.reference->pearson) << ", Spearman " << numberText(r.reference->spearman)
          << ", MMRV " << numberText(r.reference->mmrv) << "\n";
    if (r.fidelity)
        o << "\n" << toText(*r.fidelity, nullptr);
    o << "\nWhat these numbers support:\n";
    for (const auto &line : r.supports)
        o << "  - " << line << "\n";
    o << "What they do not support:\n";
    for (const auto &line : r.doesNotSupport)
        o << "  - " << line << "\n";
    return o.str();
}

} // namespace kosmos
