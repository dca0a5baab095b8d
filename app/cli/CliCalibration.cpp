// kosmos-cli calibrate / audit: judge calibration against labels and the paired judge audit.
#include "CliCommands.h"

#include "evaluation/AnnotationPacket.h"
#include "evaluation/Calibration.h"
#include "evaluation/EvaluationRecord.h"
#include "ledger/Ledger.h"
#include "pipeline/Rejudge.h"
#include "queries/LatestRuns.h"
#include "util/Error.h"
#include "util/NumberText.h"

#include <cstdio>
#include <iostream>
#include <random>

using namespace kosmos;

namespace {

std::string rate(int k, int n)
{
    return std::to_string(k) + "/" + std::to_string(n);
}

void listConfigs(const std::vector<JudgeConfig> &configs)
{
    std::cout << configs.size() << " judge configuration(s):\n";
    for (std::size_t i = 0; i < configs.size(); ++i)
        std::cout << "  " << i + 1 << "  " << configs[i].key << "  (" << configs[i].judgments
                  << " judgments)\n";
}

} // namespace

// A judge configuration named on the command line: its number in the listing (1-based) or its
// full key.
std::string resolveJudgeConfig(const std::vector<JudgeConfig> &configs, const std::string &text)
{
    try {
        std::size_t used = 0;
        const int index = std::stoi(text, &used);
        if (used == text.size() && index >= 1 && index <= static_cast<int>(configs.size()))
            return configs[static_cast<std::size_t>(index - 1)].key;
    } catch (const std::exception &) {
    }
    for (const auto &c : configs)
        if (c.key == text)
            return c.key;
    throw Error(ErrorCode::InvalidInput,
                "no judge configuration '" + text + "' (" + std::to_string(configs.size()) +
                    " in this ledger; `kosmos-cli audit BUNDLE` lists them by number)");
}

int runAudit(const std::string &bundle, const std::vector<std::string> &configsGiven, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto configs = judgeConfigs(ledger);
        if (configsGiven.empty()) {
            if (json) {
                nlohmann::json out = nlohmann::json::array();
                for (const auto &c : configs)
                    out.push_back({{"key", c.key}, {"judgments", c.judgments}});
                std::cout << out.dump(2) << "\n";
            } else {
                listConfigs(configs);
            }
            return ExitCode::Ok;
        }
        const PairedAudit a = pairedAudit(ledger, resolveJudgeConfig(configs, configsGiven[0]),
                                          resolveJudgeConfig(configs, configsGiven[1]));
        if (json) {
            std::cout << toJson(a).dump(2) << "\n";
            return ExitCode::Ok;
        }
        std::cout << "paired judge audit on " << a.clips << " clips judged by both\n"
                  << "  A: " << a.a.key << "\n  B: " << a.b.key << "\n\n";
        std::printf("%-34s %-18s %-18s\n", "metric", "A", "B");
        auto row = [](const char *metric, const std::string &x, const std::string &y) {
            std::printf("%-34s %-18s %-18s\n", metric, x.c_str(), y.c_str());
        };
        for (const AuditRow &r : auditRows(a)) // per-field agreement: modal value over
            row(r.metric.c_str(), r.a, r.b);   // schema-valid answers
        std::cout << "\nexact McNemar on " << a.decisivePairs
                  << " decisive pairs: A success / B failure " << a.mcnemar.b
                  << ", A failure / B success " << a.mcnemar.c
                  << ", p = " << numberText(a.mcnemar.pValue, "%.4g") << "\n\nflips ("
                  << a.flips.size() << "):\n";
        for (const auto &f : a.flips)
            std::cout << "  run " << f.runId << "  " << f.field << ": " << f.a << " -> " << f.b
                      << "\n";
        std::cout << "\nA format or latency gain is an engineering result; agreement with human "
                     "labels (kosmos-cli calibrate) is what an evaluation-quality claim needs.\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runCalibrate(const std::string &bundle, const std::string &config, const std::string &labels,
                 int minLabels, int minPerClass, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto configs = judgeConfigs(ledger);
        if (configs.empty())
            throw Error(ErrorCode::InvalidInput, "no judgments in " + bundle + " to calibrate");
        const std::string key =
            config.empty() ? configs.front().key : resolveJudgeConfig(configs, config);
        CalibrationGate gate;
        gate.minLabels = minLabels;
        gate.minSuccesses = gate.minFailures = minPerClass;
        const std::string source = labels == "reference" ? "synthetic_reference" : labels;
        const CalibrationReport r = calibrate(ledger, key, source, gate);
        const auto &b = r.binary;
        if (json) {
            std::cout << toJson(r).dump(2) << "\n";
            return ExitCode::Ok;
        }
        std::cout << "judge " << r.judgeKey << "\nagainst "
                  << (r.labelSource == "human" ? "human labels"
                      : r.labelSource == "physics"
                          ? "physics ground truth (a simulator's state; NOT human labels)"
                          : "synthetic reference labels (a world that knows its state; NOT human "
                            "labels)")
                  << ": " << r.labeledClips << " labelled clips, " << b.pairs << " decisive, "
                  << b.indecisive << " indecisive\n";
        if (!r.emptyReason.empty())
            std::cout << r.emptyReason << "\n";
        std::cout << "confusion (judge x label): TP " << b.truePositive << ", FP "
                  << b.falsePositive << ", TN " << b.trueNegative << ", FN " << b.falseNegative
                  << "\n  agreement    " << intervalText(b.agreement) << "\n  sensitivity  "
                  << intervalText(b.sensitivity) << "\n  specificity  "
                  << intervalText(b.specificity) << "\n  kappa        "
                  << numberText(b.kappa.kappa, "%.3f") << " (n = " << b.pairs
                  << ")\n  progress weighted kappa " << numberText(r.progressKappa.kappa, "%.3f")
                  << " (n = " << r.progressKappa.n << ")\n  leniency offset "
                  << numberText(b.leniencyOffset, "%+.3f")
                  << "\nreliability (judge success-vote share "
                  << "-> label success):\n";
        for (const auto &bin : r.reliability)
            std::printf("  [%.1f, %.1f%s  %s\n", bin.from, bin.to, bin.to >= 1.0 ? "]" : ")",
                        intervalText(bin.labelSuccess).c_str());
        std::cout << "calibration gate: " << gateVerdictTitle(r.gateVerdict) << "\n";
        for (const auto &line : r.gate)
            std::cout << "  " << gateVerdictName(line.verdict) << "  " << gateLineText(line)
                      << "\n";
        std::cout << "  (" << pointValuesText(r) << ")\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runPacketExport(const std::string &bundle, const std::vector<std::string> &runs, bool all,
                    const std::string &directory)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        std::vector<std::int64_t> ids;
        if (all) {
            ids = judgeableRuns(ledger);
        } else {
            for (const auto &text : runs) {
                const auto run = ledger.resolveRun(text);
                if (!run)
                    throw Error(ErrorCode::InvalidInput, "no run '" + text + "' in " + bundle);
                ids.push_back(run->runId);
            }
        }
        const PacketExport p =
            exportAnnotationPacket(ledger, ids, directory, std::random_device{}());
        std::cout << "annotation packet " << p.directory.string() << ": " << p.clips
                  << " clips, packet.json sha256 " << p.packetSha256.substr(0, 16)
                  << "...\n  send the folder; the annotator fills answers.json\n  keep "
                  << p.keyFile.string()
                  << " (maps clips to runs; never send it)\n  then: kosmos-cli packet import "
                  << bundle << " ANSWERS.json --key " << p.keyFile.string() << "\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runPacketImport(const std::string &bundle, const std::string &answers,
                    const std::string &keyFile)
{
    try {
        Ledger ledger = Ledger::open(bundle);
        const PacketImport r = importAnnotationAnswers(ledger, answers, keyFile);
        std::cout << r.labels << " human label(s) by " << r.annotator << " recorded (" << r.heldOut
                  << " on held-out lineages)\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runRank(const std::string &bundle, const std::string &protocol, const std::string &source,
            const std::string &referenceCsv, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        // One protocol, the newest match: rates are never pooled across protocols.
        const std::string sha = findRolloutProtocol(ledger, protocol).second;
        const std::string src = source == "reference" ? "synthetic_reference" : source;
        const ProtocolOutcomes outcomes = protocolOutcomes(ledger, sha, src);
        if (outcomes.episodes.empty())
            throw Error(ErrorCode::InvalidInput, "no decisive outcome of source '" + source +
                                                     "' in protocol " + sha.substr(0, 12) + " (" +
                                                     std::to_string(outcomes.missing) +
                                                     " episodes without one)");
        const PolicyRanking ranking = rankPolicies(outcomes.episodes);
        // Reference success rates (e.g. real-robot results): CSV lines "policy,rate".
        std::optional<ReferenceComparison> reference;
        if (!referenceCsv.empty())
            reference = compareWithReference(ranking, readReferenceRates(referenceCsv));
        if (json) {
            nlohmann::json out = toJson(ranking);
            out["protocol_sha256"] = sha;
            out["source"] = src;
            out["missing"] = outcomes.missing;
            out["header"] = rankingHeader(ranking);
            if (reference)
                out["reference"] = toJson(*reference);
            std::cout << out.dump(2) << "\n";
            return ExitCode::Ok;
        }
        std::cout << "protocol " << sha.substr(0, 16) << "..., success by " << src << "; "
                  << outcomes.missing << " episode(s) without a decisive outcome\n"
                  << rankingHeader(ranking) << "\n";
        for (const auto &[name, p] : ranking.rates)
            std::cout << "  " << intervalText(p) << "  " << name << "\n";
        for (const auto &pair : ranking.pairs) {
            const char *verdict = pair.verdict == PairOrder::Verdict::ABetter   ? "first better"
                                  : pair.verdict == PairOrder::Verdict::BBetter ? "second better"
                                                                                : "indeterminate";
            std::printf("  %s: difference %.3f [%.3f, %.3f]; %s\n    %s\n    %s\n", verdict,
                        pair.difference.observed, pair.difference.lower, pair.difference.upper,
                        pairTestText(pair).c_str(), pair.a.c_str(), pair.b.c_str());
            if (const std::string more = separationText(ranking, pair); !more.empty())
                std::printf("    to separate: %s\n", more.c_str());
        }
        if (reference)
            std::cout << "against " << referenceCsv << " (" << reference->matched.size()
                      << " policies matched, " << reference->unmatched.size()
                      << " unmatched): Pearson " << numberText(reference->pearson, "%.3f")
                      << ", Spearman " << numberText(reference->spearman, "%.3f") << ", MMRV "
                      << numberText(reference->mmrv, "%.3f") << "\n";
        std::cout << "These are rollouts in a generated, synthetic or simulated world, not "
                     "evidence of real robot-task success.\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runAgreement(const std::string &bundle, const std::vector<std::string> &annotators,
                 const std::string &split, int minClips, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        if (annotators.empty()) {
            const auto all = humanAnnotators(ledger);
            if (json) {
                nlohmann::json out = nlohmann::json::array();
                for (const auto &[who, clips] : all)
                    out.push_back({{"annotator", who}, {"clips", clips}});
                std::cout << out.dump(2) << "\n";
                return ExitCode::Ok;
            }
            std::cout << all.size() << " human annotator(s):\n";
            for (const auto &[who, clips] : all)
                std::cout << "  " << who << "  (" << clips << " clips)\n";
            return ExitCode::Ok;
        }
        const AnnotatorAgreement a =
            annotatorAgreement(ledger, annotators[0], annotators[1], split, minClips);
        if (json) {
            std::cout << toJson(a).dump(2) << "\n";
            return ExitCode::Ok;
        }
        const auto &c = a.completion;
        std::cout << "annotators " << a.annotatorA << " (A) and " << a.annotatorB << " (B), "
                  << a.split << " clips: " << a.clips << " labelled by both\n";
        if (!a.emptyReason.empty())
            std::cout << a.emptyReason << "\n";
        std::cout << "completion: " << c.pairs << " decisive pairs, " << c.indecisive
                  << " indecisive\n  agreement " << intervalText(c.agreement) << "\n  kappa "
                  << numberText(c.kappa.kappa, "%.3f") << " (n = " << c.pairs
                  << ")\n  A met / B not met " << c.falsePositive << ", A not met / B met "
                  << c.falseNegative << "\nprogress weighted kappa "
                  << numberText(a.progressKappa.kappa, "%.3f") << " (n = " << a.progressKappa.n
                  << ")\nper-field agreement:\n";
        for (const auto &[field, counts] : a.fieldAgreement)
            std::cout << "  " << field << ": " << rate(counts.first, counts.second) << "\n";
        std::cout << "disagreements (" << a.disagreements.size() << "):\n";
        for (const auto &d : a.disagreements)
            std::cout << "  run " << d.runId << "  " << d.field << ": " << d.a << " / " << d.b
                      << "\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}
