// kosmos-cli calibrate / audit: judge calibration against labels and the paired judge audit.
#include "CliCommands.h"

#include "judge/AnnotationPacket.h"
#include "judge/Calibration.h"
#include "ledger/Ledger.h"
#include "pipeline/Rejudge.h"
#include "util/Error.h"

#include <cstdio>
#include <iostream>
#include <random>

using namespace kosmos;

namespace {

// A judge configuration named on the command line: its number in the listing (1-based) or its
// full key.
std::string resolveConfig(const std::vector<JudgeConfig> &configs, const std::string &text)
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

std::string rate(int k, int n)
{
    return std::to_string(k) + "/" + std::to_string(n);
}

std::string number(const std::optional<double> &v, const char *format)
{
    if (!v)
        return "n/a";
    char text[32];
    std::snprintf(text, sizeof text, format, *v);
    return text;
}

std::string interval(const Proportion &p)
{
    if (!p.rate)
        return "n = 0 (no rate)";
    char text[96];
    std::snprintf(text, sizeof text, "%d/%d = %.0f%% [95%% CI %.0f-%.0f%%]", p.successes, p.n,
                  *p.rate * 100, *p.lower * 100, *p.upper * 100);
    return text;
}

nlohmann::json proportionJson(const Proportion &p)
{
    return {{"successes", p.successes},
            {"n", p.n},
            {"rate", p.rate ? nlohmann::json(*p.rate) : nlohmann::json()},
            {"wilson_95", p.rate ? nlohmann::json({*p.lower, *p.upper}) : nlohmann::json()}};
}

void listConfigs(const std::vector<JudgeConfig> &configs)
{
    std::cout << configs.size() << " judge configuration(s):\n";
    for (std::size_t i = 0; i < configs.size(); ++i)
        std::cout << "  " << i + 1 << "  " << configs[i].key << "  (" << configs[i].judgments
                  << " judgments)\n";
}

} // namespace

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
        const PairedAudit a = pairedAudit(ledger, resolveConfig(configs, configsGiven[0]),
                                          resolveConfig(configs, configsGiven[1]));
        if (json) {
            auto side = [](const AuditSide &s) {
                return nlohmann::json{
                    {"key", s.key},
                    {"clips", s.clips},
                    {"samples", s.samples},
                    {"schema_valid", s.schemaValid},
                    {"bare_json", s.bareJson},
                    {"mean_tokens",
                     s.meanTokens ? nlohmann::json(*s.meanTokens) : nlohmann::json()},
                    {"mean_decode_ms",
                     s.meanDecodeMs ? nlohmann::json(*s.meanDecodeMs) : nlohmann::json()},
                    {"outcomes",
                     {{"success", s.success}, {"failure", s.failure}, {"unknown", s.unknown}}}};
            };
            nlohmann::json fields = nlohmann::json::object();
            for (const auto &[field, counts] : a.fieldAgreement)
                fields[field] = {{"agree", counts.first}, {"compared", counts.second}};
            nlohmann::json flips = nlohmann::json::array();
            for (const auto &f : a.flips)
                flips.push_back({{"run", f.runId}, {"field", f.field}, {"a", f.a}, {"b", f.b}});
            std::cout << nlohmann::json{{"clips", a.clips},
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
                                          {"p_exact", a.mcnemar.pValue}}}}
                             .dump(2)
                      << "\n";
            return ExitCode::Ok;
        }
        std::cout << "paired judge audit on " << a.clips << " clips judged by both\n"
                  << "  A: " << a.a.key << "\n  B: " << a.b.key << "\n\n";
        std::printf("%-34s %-18s %-18s\n", "metric", "A", "B");
        auto row = [](const char *metric, const std::string &x, const std::string &y) {
            std::printf("%-34s %-18s %-18s\n", metric, x.c_str(), y.c_str());
        };
        row("schema-valid answers", rate(a.a.schemaValid, a.a.samples),
            rate(a.b.schemaValid, a.b.samples));
        row("bare JSON answers", rate(a.a.bareJson, a.a.samples), rate(a.b.bareJson, a.b.samples));
        row("mean generated tokens", number(a.a.meanTokens, "%.1f"),
            number(a.b.meanTokens, "%.1f"));
        row("mean decode time (ms)", number(a.a.meanDecodeMs, "%.0f"),
            number(a.b.meanDecodeMs, "%.0f"));
        row("quorum outcomes s/f/unknown",
            std::to_string(a.a.success) + "/" + std::to_string(a.a.failure) + "/" +
                std::to_string(a.a.unknown),
            std::to_string(a.b.success) + "/" + std::to_string(a.b.failure) + "/" +
                std::to_string(a.b.unknown));
        std::cout << "\nper-field agreement (modal value over schema-valid answers):\n";
        for (const auto &[field, counts] : a.fieldAgreement)
            std::cout << "  " << field << ": " << rate(counts.first, counts.second) << "\n";
        std::cout << "  full semantic agreement: " << rate(a.fullAgreement, a.fullCompared)
                  << "\n\nexact McNemar on " << a.decisivePairs
                  << " decisive pairs: A success / B failure " << a.mcnemar.b
                  << ", A failure / B success " << a.mcnemar.c
                  << ", p = " << number(a.mcnemar.pValue, "%.4g") << "\n\nflips (" << a.flips.size()
                  << "):\n";
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
                 int minLabels, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto configs = judgeConfigs(ledger);
        if (configs.empty())
            throw Error(ErrorCode::InvalidInput, "no judgments in " + bundle + " to calibrate");
        const std::string key =
            config.empty() ? configs.front().key : resolveConfig(configs, config);
        CalibrationGate gate;
        gate.minLabels = minLabels;
        const std::string source = labels == "reference" ? "synthetic_reference" : labels;
        const CalibrationReport r = calibrate(ledger, key, source, gate);
        const auto &b = r.binary;
        if (json) {
            nlohmann::json bins = nlohmann::json::array();
            for (const auto &bin : r.reliability)
                bins.push_back({{"from", bin.from},
                                {"to", bin.to},
                                {"label_success", proportionJson(bin.labelSuccess)}});
            nlohmann::json gateJson = nlohmann::json::array();
            for (const auto &line : r.gate)
                gateJson.push_back(
                    {{"check", line.name}, {"pass", line.pass}, {"figure", line.figure}});
            std::cout << nlohmann::json{{"judge", r.judgeKey},
                                        {"labels", r.labelSource},
                                        {"labelled_clips", r.labeledClips},
                                        {"decisive_pairs", b.pairs},
                                        {"indecisive_pairs", b.indecisive},
                                        {"confusion",
                                         {{"tp", b.truePositive},
                                          {"fp", b.falsePositive},
                                          {"tn", b.trueNegative},
                                          {"fn", b.falseNegative}}},
                                        {"agreement", proportionJson(b.agreement)},
                                        {"sensitivity", proportionJson(b.sensitivity)},
                                        {"specificity", proportionJson(b.specificity)},
                                        {"kappa", b.kappa.kappa ? nlohmann::json(*b.kappa.kappa)
                                                                : nlohmann::json()},
                                        {"progress_weighted_kappa",
                                         r.progressKappa.kappa
                                             ? nlohmann::json(*r.progressKappa.kappa)
                                             : nlohmann::json()},
                                        {"leniency_offset", b.leniencyOffset
                                                                ? nlohmann::json(*b.leniencyOffset)
                                                                : nlohmann::json()},
                                        {"reliability", bins},
                                        {"gate", gateJson},
                                        {"gate_passed", r.gatePassed},
                                        {"empty_reason", r.emptyReason}}
                             .dump(2)
                      << "\n";
            return ExitCode::Ok;
        }
        std::cout << "judge " << r.judgeKey << "\nagainst "
                  << (r.labelSource == "human"
                          ? "human labels"
                          : "synthetic reference labels (a world that knows its state; NOT human "
                            "labels)")
                  << ": " << r.labeledClips << " labelled clips, " << b.pairs << " decisive, "
                  << b.indecisive << " indecisive\n";
        if (!r.emptyReason.empty())
            std::cout << r.emptyReason << "\n";
        std::cout << "confusion (judge x label): TP " << b.truePositive << ", FP "
                  << b.falsePositive << ", TN " << b.trueNegative << ", FN " << b.falseNegative
                  << "\n  agreement    " << interval(b.agreement) << "\n  sensitivity  "
                  << interval(b.sensitivity) << "\n  specificity  " << interval(b.specificity)
                  << "\n  kappa        " << number(b.kappa.kappa, "%.3f") << " (n = " << b.pairs
                  << ")\n  progress weighted kappa " << number(r.progressKappa.kappa, "%.3f")
                  << " (n = " << r.progressKappa.n << ")\n  leniency offset "
                  << number(b.leniencyOffset, "%+.3f") << "\nreliability (judge success-vote share "
                  << "-> label success):\n";
        for (const auto &bin : r.reliability)
            std::printf("  [%.1f, %.1f%s  %s\n", bin.from, bin.to, bin.to >= 1.0 ? "]" : ")",
                        interval(bin.labelSuccess).c_str());
        std::cout << "calibration gate: " << (r.gatePassed ? "PASS" : "FAIL") << "\n";
        for (const auto &line : r.gate)
            std::cout << "  " << (line.pass ? "pass  " : "FAIL  ") << line.name << ": "
                      << line.figure << "\n";
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
        const auto protocols = rolloutProtocols(ledger);
        if (protocols.empty())
            throw Error(ErrorCode::InvalidInput, "no protocol with rollouts in " + bundle);
        std::string sha;
        for (const auto &[name, s] : protocols)
            if (protocol.empty() ? true : (name == protocol || s.rfind(protocol, 0) == 0))
                sha = s; // the newest match; rates are never pooled across protocols
        if (sha.empty())
            throw Error(ErrorCode::InvalidInput, "no protocol '" + protocol + "' in " + bundle);
        const std::string src = source == "reference" ? "synthetic_reference" : source;
        const ProtocolOutcomes outcomes = protocolOutcomes(ledger, sha, src);
        if (outcomes.episodes.empty())
            throw Error(ErrorCode::InvalidInput, "no decisive outcome of source '" + source +
                                                     "' in protocol " + sha.substr(0, 12) + " (" +
                                                     std::to_string(outcomes.missing) +
                                                     " episodes without one)");
        const PolicyRanking ranking = rankPolicies(outcomes.episodes);
        // Reference success rates (e.g. real-robot results): CSV lines "policy,rate".
        std::vector<double> sim, real;
        std::vector<std::string> matched;
        if (!referenceCsv.empty()) {
            for (const auto &[policy, rate] : readReferenceRates(referenceCsv))
                for (const auto &[name, p] : ranking.rates)
                    if (name == policy || name.rfind(policy + " ", 0) == 0) {
                        sim.push_back(*p.rate);
                        real.push_back(rate);
                        matched.push_back(name);
                    }
        }
        if (json) {
            nlohmann::json rates = nlohmann::json::array(), pairs = nlohmann::json::array();
            for (const auto &[name, p] : ranking.rates)
                rates.push_back({{"policy", name}, {"success", proportionJson(p)}});
            for (const auto &pair : ranking.pairs)
                pairs.push_back(
                    {{"a", pair.a},
                     {"b", pair.b},
                     {"verdict", pair.verdict == PairOrder::Verdict::ABetter   ? "a_better"
                                 : pair.verdict == PairOrder::Verdict::BBetter ? "b_better"
                                                                               : "indeterminate"},
                     {"bootstrap_difference",
                      {pair.difference.observed, pair.difference.lower, pair.difference.upper}},
                     {"exact_separated", pair.exactSeparated}});
            auto opt = [](const std::optional<double> &v) {
                return v ? nlohmann::json(*v) : nlohmann::json();
            };
            nlohmann::json out = {{"protocol_sha256", sha},
                                  {"source", src},
                                  {"missing", outcomes.missing},
                                  {"rates", rates},
                                  {"pairs", pairs}};
            if (!referenceCsv.empty())
                out["reference"] = {{"matched", matched},
                                    {"pearson", opt(pearson(sim, real))},
                                    {"spearman", opt(spearman(sim, real))},
                                    {"mmrv", opt(mmrv(sim, real))}};
            std::cout << out.dump(2) << "\n";
            return ExitCode::Ok;
        }
        std::cout << "protocol " << sha.substr(0, 16) << "..., success by " << src << "; "
                  << outcomes.missing << " episode(s) without a decisive outcome\n";
        for (const auto &[name, p] : ranking.rates)
            std::cout << "  " << interval(p) << "  " << name << "\n";
        for (const auto &pair : ranking.pairs) {
            const char *verdict = pair.verdict == PairOrder::Verdict::ABetter   ? "first better"
                                  : pair.verdict == PairOrder::Verdict::BBetter ? "second better"
                                                                                : "indeterminate";
            std::printf("  %s: difference %.3f [%.3f, %.3f], exact bounds %s\n    %s\n    %s\n",
                        verdict, pair.difference.observed, pair.difference.lower,
                        pair.difference.upper, pair.exactSeparated ? "separate" : "overlap",
                        pair.a.c_str(), pair.b.c_str());
        }
        if (!referenceCsv.empty())
            std::cout << "against " << referenceCsv << " (" << matched.size()
                      << " policies matched): Pearson " << number(pearson(sim, real), "%.3f")
                      << ", Spearman " << number(spearman(sim, real), "%.3f") << ", MMRV "
                      << number(mmrv(sim, real), "%.3f") << "\n";
        std::cout << "These are rollouts in a generated or synthetic world, not evidence of real "
                     "robot-task success.\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}
