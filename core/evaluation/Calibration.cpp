#include "evaluation/Calibration.h"

#include "evaluation/AnnotationPacket.h"
#include "ledger/Ledger.h"
#include "queries/JudgmentQuery.h"
#include "queries/LatestRuns.h"
#include "util/Error.h"
#include "util/NumberText.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>

namespace kosmos {

namespace {

// The judge component's configuration (plugin settings, quorum, prompt); for a judgment of an
// unknown component, its quorum settings without the per-sample seeds.
nlohmann::json configSettings(const nlohmann::json &judgeConfig, const nlohmann::json &settings)
{
    if (judgeConfig.is_object())
        return judgeConfig;
    nlohmann::json out = settings;
    if (out.is_object())
        out.erase("seeds");
    return out;
}

nlohmann::json configSettings(const StoredJudgment &j)
{
    return configSettings(j.judgeConfig, j.settings);
}

std::string keyOf(const std::string &judge, const nlohmann::json &config)
{
    return judge + " " + config.dump();
}

std::string keyOf(const StoredJudgment &j)
{
    return keyOf(j.judge, configSettings(j));
}

// A run's judgments, its own and its re-judgments' (`rejudging`: rejudgingRunsByKey, read once).
std::vector<StoredJudgment>
judgmentsOf(Ledger &ledger, const std::map<std::string, std::vector<std::int64_t>> &rejudging,
            std::int64_t runId)
{
    const auto run = ledger.run(runId);
    const auto it = run ? rejudging.find(run->runKey) : rejudging.end();
    return judgmentsOfRun(ledger, runId,
                          it == rejudging.end() ? std::vector<std::int64_t>{} : it->second);
}

// Visits every rollout run with a judgment, with its judgments (a run's own and its
// re-judgments), in run order. Runs are read a page at a time and their judgments one run at a
// time, so a ledger of 100k runs is never held in memory at once.
template<typename Visit>
void forEachJudgedRun(Ledger &ledger, Visit &&visit)
{
    constexpr int pageSize = 512;
    std::int64_t after = 0;
    const auto rejudging = rejudgingRunsByKey(ledger);
    for (;;) {
        // Rollout runs only: a re-judging run's judgments are found through its source run.
        const std::vector<std::int64_t> page =
            judgedRolloutRuns(ledger, std::nullopt, after, pageSize);
        for (const std::int64_t runId : page)
            visit(runId, judgmentsOf(ledger, rejudging, runId));
        if (static_cast<int>(page.size()) < pageSize)
            return;
        after = page.back();
    }
}

const StoredJudgment *latestOf(const std::vector<StoredJudgment> &judgments, const std::string &key)
{
    const StoredJudgment *found = nullptr;
    for (const auto &j : judgments)
        if (keyOf(j) == key)
            found = &j; // oldest first: the last one is the latest
    return found;
}

std::string fieldText(const nlohmann::json &v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

// The most frequent value of a field over the schema-valid samples (first seen wins a tie).
std::optional<std::string> modalField(const StoredJudgment &j, const std::string &field)
{
    std::vector<std::pair<std::string, int>> counts;
    for (const auto &s : j.samples) {
        if (!s.parsed.is_object() || !s.parsed.contains(field))
            continue;
        const std::string v = fieldText(s.parsed[field]);
        auto it = std::find_if(counts.begin(), counts.end(), [&](auto &c) { return c.first == v; });
        if (it == counts.end())
            counts.emplace_back(v, 1);
        else
            ++it->second;
    }
    if (counts.empty())
        return std::nullopt;
    return std::max_element(counts.begin(), counts.end(),
                            [](auto &x, auto &y) { return x.second < y.second; })
        ->first;
}

void addSide(AuditSide &side, const StoredJudgment &j)
{
    ++side.clips;
    (j.outcome == "success"   ? side.success
     : j.outcome == "failure" ? side.failure
                              : side.unknown)++;
    double tokens = side.meanTokens.value_or(0) * side.samples;
    double decode = side.meanDecodeMs.value_or(0) * side.samples;
    int withTokens = side.meanTokens ? side.samples : 0;
    int withDecode = side.meanDecodeMs ? side.samples : 0;
    for (const auto &s : j.samples) {
        if (s.tryIndex != 0)
            continue;
        ++side.samples;
        side.schemaValid += s.parsed.is_object();
        side.bareJson += s.answerForm == "bare_json"; // written so, valid or not
        if (s.generatedTokens) {
            tokens += static_cast<double>(*s.generatedTokens);
            ++withTokens;
        }
        if (s.decodeMs) {
            decode += static_cast<double>(*s.decodeMs);
            ++withDecode;
        }
    }
    if (withTokens > 0)
        side.meanTokens = tokens / withTokens;
    if (withDecode > 0)
        side.meanDecodeMs = decode / withDecode;
}

} // namespace

std::vector<JudgeConfig> judgeConfigs(Ledger &ledger)
{
    // The judgments of rollout runs whose latest attempt was judged (forEachJudgedRun's runs),
    // theirs and their re-judgments', in one query without the samples: a configuration's number
    // is its first use, so a new one never renumbers those listed before it.
    const std::vector<std::int64_t> judgedRuns = judgedRolloutRuns(ledger, std::nullopt);
    const std::set<std::int64_t> judged(judgedRuns.begin(), judgedRuns.end());
    std::vector<JudgeConfig> out;
    forEachJudgmentOutcome(ledger, [&](const JudgmentOutcome &o) {
        if (!judged.contains(o.rolloutRunId))
            return;
        const nlohmann::json config = configSettings(o.judgeConfig, o.settings);
        const std::string key = keyOf(o.judge, config);
        auto it = std::find_if(out.begin(), out.end(), [&](auto &c) { return c.key == key; });
        if (it == out.end())
            out.push_back({key, o.judge, config, 1});
        else
            ++it->judgments;
    });
    return out;
}

std::string judgeConfigLabel(const JudgeConfig &config)
{
    const nlohmann::json &c = config.settings;
    if (!c.is_object() || !c.contains("settings"))
        return config.key;
    return config.judge + " " + c["settings"].dump() + " quorum " +
           c.value("quorum", nlohmann::json::object()).dump();
}

std::map<std::int64_t, std::string> outcomesByConfig(Ledger &ledger, const std::string &key)
{
    std::map<std::int64_t, std::string> out;
    bool any = false;
    forEachJudgmentOutcome(ledger, [&](const JudgmentOutcome &o) {
        if (keyOf(o.judge, configSettings(o.judgeConfig, o.settings)) != key)
            return;
        any = true;
        out[o.rolloutRunId] = o.outcome; // oldest first: the last one is the latest
    });
    if (!any)
        throw Error(ErrorCode::NotFound,
                    "no judgment in this ledger has the judge configuration '" + key + "'");
    return out;
}

PairedAudit pairedAudit(Ledger &ledger, const std::string &keyA, const std::string &keyB)
{
    const auto configs = judgeConfigs(ledger);
    for (const auto &key : {keyA, keyB})
        if (std::none_of(configs.begin(), configs.end(), [&](auto &c) { return c.key == key; }))
            throw Error(ErrorCode::NotFound, "no judgment in this ledger has the judge "
                                             "configuration '" +
                                                 key + "'");
    PairedAudit audit;
    audit.a.key = keyA;
    audit.b.key = keyB;
    int b = 0, c = 0;
    // The audit adapts the fields of the judge schema (docs/judge.md).
    const std::vector<std::string> fields = {"integrity", "collision", "progress",
                                             "completion_evidence"};
    forEachJudgedRun(ledger, [&](std::int64_t runId, const std::vector<StoredJudgment> &judgments) {
        const StoredJudgment *ja = latestOf(judgments, keyA);
        const StoredJudgment *jb = latestOf(judgments, keyB);
        if (!ja || !jb)
            return;
        ++audit.clips;
        addSide(audit.a, *ja);
        addSide(audit.b, *jb);
        if (ja->outcome != jb->outcome)
            audit.flips.push_back({runId, "outcome", ja->outcome, jb->outcome});
        if (ja->outcome != "unknown" && jb->outcome != "unknown") {
            ++audit.decisivePairs;
            b += ja->outcome == "success" && jb->outcome == "failure";
            c += ja->outcome == "failure" && jb->outcome == "success";
        }
        bool compared = true, allAgree = true;
        for (const auto &field : fields) {
            const auto va = modalField(*ja, field), vb = modalField(*jb, field);
            if (!va || !vb) {
                compared = false;
                continue;
            }
            auto &[agree, total] = audit.fieldAgreement[field];
            ++total;
            if (*va == *vb) {
                ++agree;
            } else {
                allAgree = false;
                audit.flips.push_back({runId, field, *va, *vb});
            }
        }
        if (compared) {
            ++audit.fullCompared;
            audit.fullAgreement += allAgree;
        }
    });
    audit.mcnemar = mcnemarExact(b, c);
    return audit;
}

std::string gateFigure(const Proportion &p, double minimum)
{
    std::string text = intervalText(p);
    if (p.rate && p.lower && p.upper) {
        if (*p.rate >= minimum && *p.lower < minimum)
            text += "; the interval reaches below the bound: a pass on the point value";
        else if (*p.rate < minimum && *p.upper >= minimum)
            text += "; the interval reaches the bound: a fail on the point value";
    }
    return text;
}

nlohmann::json CalibrationGate::toJson() const
{
    return {{"min_decisive_labels", minLabels},
            {"min_labelled_successes", minSuccesses},
            {"min_labelled_failures", minFailures},
            {"min_sensitivity", minSensitivity},
            {"min_specificity", minSpecificity},
            {"max_leniency_offset", maxLeniency},
            {"rule", "a bound passes when the Wilson 95% interval clears it, fails when the "
                     "interval lies wholly on the wrong side, and is inconclusive otherwise"}};
}

std::string_view gateVerdictName(GateVerdict verdict)
{
    switch (verdict) {
    case GateVerdict::Pass:
        return "pass";
    case GateVerdict::Fail:
        return "fail";
    case GateVerdict::Inconclusive:
        return "inconclusive";
    }
    return "inconclusive";
}

GateVerdict overallVerdict(const std::vector<GateVerdict> &lines)
{
    if (std::find(lines.begin(), lines.end(), GateVerdict::Fail) != lines.end())
        return GateVerdict::Fail;
    if (!lines.empty() && std::all_of(lines.begin(), lines.end(),
                                      [](GateVerdict v) { return v == GateVerdict::Pass; }))
        return GateVerdict::Pass;
    return GateVerdict::Inconclusive;
}

std::string gateVerdictTitle(GateVerdict verdict)
{
    switch (verdict) {
    case GateVerdict::Pass:
        return "PASS";
    case GateVerdict::Fail:
        return "FAIL";
    case GateVerdict::Inconclusive:
        return "INCONCLUSIVE";
    }
    return "INCONCLUSIVE";
}

std::string gateLineText(const GateLine &line)
{
    return line.name + ": " + line.figure + (line.needed.empty() ? "" : "; needs " + line.needed);
}

std::string pointValuesText(const CalibrationReport &report)
{
    return std::string("point values only (the original system's reading; not the verdict): ") +
           (report.pointValuesPass ? "PASS" : "FAIL");
}

namespace {

constexpr int kMostClips = 1000000; // beyond this the helper says "more than a million"

std::string percent(double rate)
{
    char text[16];
    std::snprintf(text, sizeof text, "%.0f%%", rate * 100);
    return text;
}

// The fewest clips n' >= n at which an interval made by `interval(n')` (the observed rates kept)
// settles `settled`; nullopt beyond kMostClips. Grows geometrically, then bisects: settling is
// monotone in n for a fixed rate off the bound.
template<typename Interval, typename Settled>
std::optional<int> clipsToSettle(int n, const Interval &interval, const Settled &settled)
{
    int lo = std::max(n, 1);
    if (settled(interval(lo)))
        return lo;
    int hi = lo;
    while (!settled(interval(hi))) {
        if (hi >= kMostClips)
            return std::nullopt;
        lo = hi;
        hi = std::min(kMostClips, hi * 2);
    }
    while (hi - lo > 1) {
        const int mid = lo + (hi - lo) / 2;
        (settled(interval(mid)) ? hi : lo) = mid;
    }
    return hi;
}

std::string moreText(std::optional<int> total, int now, const std::string &what,
                     const std::string &at)
{
    if (!total)
        return "more than a million " + what + " " + at;
    return "about " + std::to_string(*total - now) + " more " + what + " " + at;
}

} // namespace

GateLine rateGateLine(const std::string &name, const Proportion &p, double minimum,
                      const std::string &what)
{
    GateLine line;
    line.name = name;
    line.figure = gateFigure(p, minimum);
    line.rate = p;
    line.bound = minimum;
    if (!p.rate) {
        line.needed = what + " to measure it";
        line.need = GateNeed::Measure;
        return line;
    }
    line.pointPass = *p.rate >= minimum;
    if (*p.lower >= minimum) {
        line.verdict = GateVerdict::Pass;
    } else if (*p.upper < minimum) {
        line.verdict = GateVerdict::Fail;
    } else if (*p.rate == minimum) {
        line.needed = "the observed rate lies on the bound: no number of " + what + " settles it";
        line.need = GateNeed::OnBound;
    } else {
        const double rate = *p.rate;
        const bool above = rate > minimum;
        const auto total = clipsToSettle(
            p.n, [&](int n) { return wilson(static_cast<int>(std::lround(rate * n)), n); },
            [&](const Proportion &q) { return above ? *q.lower >= minimum : *q.upper < minimum; });
        line.needed = moreText(total, p.n, what,
                               "(at the observed " + percent(rate) + ") for the interval to " +
                                   (above ? "clear" : "fall below") + " the bound");
        line.need = GateNeed::More;
        line.more = total ? std::optional<int>(*total - p.n) : std::nullopt;
        line.towardPass = above;
    }
    return line;
}

GateLine countGateLine(const std::string &name, int count, int minimum, const std::string &what)
{
    GateLine line;
    line.name = name;
    line.figure = std::to_string(count);
    line.count = count;
    line.bound = minimum;
    line.pointPass = count >= minimum;
    line.verdict = count >= minimum ? GateVerdict::Pass : GateVerdict::Inconclusive;
    if (count < minimum) {
        line.needed = std::to_string(minimum - count) + " more " + what;
        line.need = GateNeed::More;
        line.more = minimum - count;
    }
    return line;
}

GateLine leniencyGateLine(const std::string &name, int falsePositive, int falseNegative, int pairs,
                          double maxOffset)
{
    GateLine line;
    line.name = name;
    line.check = GateCheck::Leniency;
    line.bound = maxOffset;
    line.pairs = pairs;
    if (pairs <= 0) {
        line.figure = "n = 0";
        line.needed = "decisive labelled clips to measure it";
        line.need = GateNeed::Measure;
        return line;
    }
    // Given d discordant pairs, FP ~ Binomial(d, pi) and the offset (FP - FN) / n is
    // (2 pi - 1) d / n: its interval from the Wilson interval of pi (d / n held fixed).
    auto interval = [&](int n) {
        const double scale = static_cast<double>(n) / pairs;
        const int fp = static_cast<int>(std::lround(falsePositive * scale));
        const int fn = static_cast<int>(std::lround(falseNegative * scale));
        const int d = fp + fn;
        if (d == 0)
            return std::pair<double, double>{0.0, 0.0};
        const Proportion share = wilson(fp, d);
        return std::pair<double, double>{(2 * *share.lower - 1) * d / n,
                                         (2 * *share.upper - 1) * d / n};
    };
    const double offset = static_cast<double>(falsePositive - falseNegative) / pairs;
    const auto [lower, upper] = interval(pairs);
    char figure[128];
    std::snprintf(figure, sizeof figure, "%+.3f [95%% CI %+.3f, %+.3f] over %d pairs", offset,
                  lower, upper, pairs);
    line.figure = figure;
    line.offset = offset;
    line.offsetLower = lower;
    line.offsetUpper = upper;
    line.pointPass = std::abs(offset) <= maxOffset;
    if (lower >= -maxOffset && upper <= maxOffset) {
        line.verdict = GateVerdict::Pass;
    } else if (lower > maxOffset || upper < -maxOffset) {
        line.verdict = GateVerdict::Fail;
    } else if (std::abs(offset) == maxOffset) {
        line.needed = "the observed offset lies on the bound: no number of clips settles it";
        line.need = GateNeed::OnBound;
    } else {
        const bool inside = std::abs(offset) < maxOffset;
        const auto total = clipsToSettle(pairs, interval, [&](const std::pair<double, double> &i) {
            return inside ? (i.first >= -maxOffset && i.second <= maxOffset)
                          : (i.first > maxOffset || i.second < -maxOffset);
        });
        line.needed = moreText(total, pairs, "decisive labelled clips",
                               "(at the observed offset) for the interval to " +
                                   std::string(inside ? "clear" : "fall outside") + " the bound");
        line.need = GateNeed::More;
        line.more = total ? std::optional<int>(*total - pairs) : std::nullopt;
        line.towardPass = inside;
    }
    return line;
}

GateResult evaluateGate(const BinaryAgreement &b, const CalibrationGate &gate)
{
    GateResult out;
    GateLine decisive =
        countGateLine("decisive labelled clips >= " + std::to_string(gate.minLabels), b.pairs,
                      gate.minLabels, "decisive labelled clips");
    decisive.figure += " (" + std::to_string(b.indecisive) + " indecisive)";
    decisive.indecisive = b.indecisive;
    out.lines.push_back(decisive);
    const int successes = b.truePositive + b.falseNegative;
    const int failures = b.trueNegative + b.falsePositive;
    out.lines.push_back(countGateLine("labelled successes >= " + std::to_string(gate.minSuccesses),
                                      successes, gate.minSuccesses, "labelled successes"));
    out.lines.push_back(countGateLine("labelled failures >= " + std::to_string(gate.minFailures),
                                      failures, gate.minFailures, "labelled failures"));
    char bound[64];
    std::snprintf(bound, sizeof bound, "sensitivity >= %.2f", gate.minSensitivity);
    out.lines.push_back(
        rateGateLine(bound, b.sensitivity, gate.minSensitivity, "labelled successes"));
    std::snprintf(bound, sizeof bound, "specificity >= %.2f", gate.minSpecificity);
    out.lines.push_back(
        rateGateLine(bound, b.specificity, gate.minSpecificity, "labelled failures"));
    std::snprintf(bound, sizeof bound, "|leniency offset| <= %.2f", gate.maxLeniency);
    out.lines.push_back(
        leniencyGateLine(bound, b.falsePositive, b.falseNegative, b.pairs, gate.maxLeniency));
    // A rate over a class with less than the minimum evidence says nothing either way.
    auto belowMinimum = [](GateLine &rate, int count, int minimum, const std::string &what) {
        if (count >= minimum)
            return;
        rate.verdict = GateVerdict::Inconclusive;
        rate.needed = std::to_string(minimum - count) + " more " + what +
                      " (fewer than the gate's " + std::to_string(minimum) + " " + what + ")";
        rate.need = GateNeed::ClassBelowMinimum;
        rate.more = minimum - count;
        rate.classMinimum = minimum;
    };
    belowMinimum(out.lines[3], successes, gate.minSuccesses, "labelled successes");
    belowMinimum(out.lines[4], failures, gate.minFailures, "labelled failures");
    const GateCheck checks[] = {GateCheck::DecisiveClips,    GateCheck::LabelledSuccesses,
                                GateCheck::LabelledFailures, GateCheck::Sensitivity,
                                GateCheck::Specificity,      GateCheck::Leniency};
    for (std::size_t i = 0; i < out.lines.size(); ++i)
        out.lines[i].check = checks[i];
    std::vector<GateVerdict> verdicts;
    verdicts.reserve(out.lines.size());
    for (const GateLine &line : out.lines)
        verdicts.push_back(line.verdict);
    out.verdict = overallVerdict(verdicts);
    // The original system's reading: the total count and the three point values.
    out.pointValuesPass = b.pairs >= gate.minLabels && out.lines[3].pointPass &&
                          out.lines[4].pointPass && out.lines[5].pointPass;
    return out;
}

CalibrationReport calibrate(Ledger &ledger, const std::string &judgeKey,
                            const std::string &labelSource, const CalibrationGate &gate)
{
    if (labelSource != "human" && labelSource != "synthetic_reference" && labelSource != "physics")
        throw Error(ErrorCode::InvalidInput,
                    "label source must be human, synthetic_reference or physics, "
                    "not '" +
                        labelSource + "'");
    CalibrationReport report;
    report.judgeKey = judgeKey;
    report.labelSource = labelSource;
    std::vector<std::optional<bool>> judge, label;
    std::vector<int> judgeProgress, labelProgress;
    std::vector<std::pair<double, bool>> votes; // judge success-vote share, label success
    bool keyFound = false;
    forEachJudgedRun(ledger, [&](std::int64_t runId, const std::vector<StoredJudgment> &judgments) {
        const StoredJudgment *j = latestOf(judgments, judgeKey);
        if (!j)
            return;
        keyFound = true;
        std::optional<HumanLabelRecord> latest;
        for (const auto &l : ledger.labels(runId))
            if (l.source == labelSource)
                latest = l; // oldest first
        if (!latest)
            return;
        ++report.labeledClips;
        const std::optional<bool> labelled = latest->completion == "met" ? std::optional<bool>(true)
                                             : latest->completion == "not_met"
                                                 ? std::optional<bool>(false)
                                                 : std::nullopt;
        const std::optional<bool> judged = j->outcome == "success"   ? std::optional<bool>(true)
                                           : j->outcome == "failure" ? std::optional<bool>(false)
                                                                     : std::nullopt;
        judge.push_back(judged);
        label.push_back(labelled);
        if (j->progress && latest->progress) {
            judgeProgress.push_back(*j->progress);
            labelProgress.push_back(*latest->progress);
        }
        int valid = 0, met = 0;
        for (const auto &s : j->samples)
            if (s.parsed.is_object()) {
                ++valid;
                met += s.parsed.value("completion_evidence", "") == "met";
            }
        if (valid > 0 && labelled)
            votes.emplace_back(static_cast<double>(met) / valid, *labelled);
    });
    if (!keyFound)
        throw Error(ErrorCode::NotFound,
                    "no judgment in this ledger has the judge configuration '" + judgeKey + "'");
    report.binary = binaryAgreement(judge, label);
    if (!judgeProgress.empty())
        report.progressKappa = weightedKappa(judgeProgress, labelProgress, 0, 5);
    for (int bin = 0; bin < 5; ++bin) {
        ReliabilityBin r;
        r.from = bin / 5.0;
        r.to = (bin + 1) / 5.0;
        int successes = 0;
        for (const auto &[share, success] : votes)
            if (share >= r.from && (share < r.to || (bin == 4 && share <= 1.0))) {
                ++r.n;
                successes += success;
            }
        r.labelSuccess = wilson(successes, r.n);
        report.reliability.push_back(r);
    }
    const auto &b = report.binary;
    if (b.pairs < gate.minLabels)
        report.emptyReason = "not enough labels: " + std::to_string(b.pairs) + " decisive of the " +
                             std::to_string(gate.minLabels) + " needed";
    report.gateSettings = gate;
    GateResult result = evaluateGate(b, gate);
    report.gate = std::move(result.lines);
    report.gateVerdict = result.verdict;
    report.pointValuesPass = result.pointValuesPass;
    return report;
}

ProtocolOutcomes protocolOutcomes(Ledger &ledger, const std::string &protocolSha256,
                                  const std::string &source)
{
    if (source != "judge" && source != "human" && source != "synthetic_reference" &&
        source != "physics")
        throw Error(ErrorCode::InvalidInput,
                    "outcome source must be judge, human, synthetic_reference or physics, not '" +
                        source + "'");
    ProtocolOutcomes out;
    out.protocolSha256 = protocolSha256;
    for (const LatestRun &run : latestRuns(ledger, {protocolSha256, true, source})) {
        const auto verdict = outcomeBy(run, source);
        const bool success = verdict == "success" || verdict == "met";
        const bool failure = verdict == "failure" || verdict == "not_met";
        if (!success && !failure) {
            ++out.missing;
            out.missingEpisodes.push_back({run.policyLabel, run.task,
                                           run.task + "#" + std::to_string(run.episodeIndex),
                                           false});
            continue;
        }
        out.episodes.push_back({run.policyLabel, run.task,
                                run.task + "#" + std::to_string(run.episodeIndex), success});
    }
    return out;
}

namespace {

// Each annotator's latest human label per run: annotator -> run -> label.
std::map<std::string, std::map<std::int64_t, HumanLabelRecord>> latestHumanLabels(Ledger &ledger)
{
    std::map<std::string, std::map<std::int64_t, HumanLabelRecord>> out;
    for (const std::int64_t runId : runsWithLabels(ledger, "human"))
        for (auto &label : ledger.labels(runId))
            if (label.source == "human")
                out[label.annotatorId][label.runId] = label; // oldest first: the last wins
    return out;
}

} // namespace

std::vector<std::pair<std::string, int>> humanAnnotators(Ledger &ledger)
{
    std::vector<std::pair<std::string, int>> out;
    for (const auto &[annotator, labels] : latestHumanLabels(ledger))
        out.emplace_back(annotator, static_cast<int>(labels.size()));
    return out;
}

AnnotatorAgreement annotatorAgreement(Ledger &ledger, const std::string &annotatorA,
                                      const std::string &annotatorB, const std::string &split,
                                      int minClips)
{
    if (split != "held_out" && split != "development" && split != "all")
        throw Error(ErrorCode::InvalidInput,
                    "split must be held_out, development or all, not '" + split + "'");
    if (annotatorA == annotatorB)
        throw Error(ErrorCode::InvalidInput,
                    "annotator agreement needs two different annotators, not '" + annotatorA +
                        "' twice");
    const auto labels = latestHumanLabels(ledger);
    for (const auto &who : {annotatorA, annotatorB})
        if (!labels.count(who))
            throw Error(ErrorCode::InvalidInput, "annotator '" + who + "' has no human label here");
    AnnotatorAgreement out;
    out.annotatorA = annotatorA;
    out.annotatorB = annotatorB;
    out.split = split;
    std::vector<std::optional<bool>> a, b;
    std::vector<int> progressA, progressB;
    const auto &byB = labels.at(annotatorB);
    auto verdict = [](const std::optional<std::string> &c) -> std::optional<bool> {
        if (c == "met")
            return true;
        if (c == "not_met")
            return false;
        return std::nullopt;
    };
    for (const auto &[runId, la] : labels.at(annotatorA)) {
        const auto it = byB.find(runId);
        if (it == byB.end())
            continue;
        const HumanLabelRecord &lb = it->second;
        if (split != "all") {
            const std::string s =
                la.split.value_or(lb.split.value_or(splitOfLineage(lineageOfRun(ledger, runId))));
            if (s != split)
                continue;
        }
        ++out.clips;
        a.push_back(verdict(la.completion));
        b.push_back(verdict(lb.completion));
        if (la.progress && lb.progress) {
            progressA.push_back(*la.progress);
            progressB.push_back(*lb.progress);
        }
        const std::int64_t clip = runId; // clang < 16 cannot capture a structured binding
        auto compare = [&, clip](const char *field, const std::optional<std::string> &x,
                                 const std::optional<std::string> &y) {
            if (!x || !y)
                return;
            auto &[agree, compared] = out.fieldAgreement[field];
            ++compared;
            if (*x == *y)
                ++agree;
            else
                out.disagreements.push_back({clip, field, *x, *y});
        };
        auto text = [](const std::optional<int> &v) {
            return v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt;
        };
        compare("completion", la.completion, lb.completion);
        compare("integrity", la.integrity, lb.integrity);
        compare("collision", la.collision, lb.collision);
        compare("progress", text(la.progress), text(lb.progress));
    }
    out.completion = binaryAgreement(a, b);
    if (!progressA.empty())
        out.progressKappa = weightedKappa(progressA, progressB, 0, 5);
    if (out.clips < minClips)
        out.emptyReason = "not enough doubly labelled clips: " + std::to_string(out.clips) +
                          " of the " + std::to_string(minClips) + " needed (" + split + ")";
    return out;
}

std::pair<std::string, std::string> findRolloutProtocol(Ledger &ledger, const std::string &text)
{
    const auto protocols = rolloutProtocols(ledger);
    if (protocols.empty())
        throw Error(ErrorCode::InvalidInput, "no protocol with rollouts in this ledger");
    std::pair<std::string, std::string> found;
    for (const auto &[name, sha] : protocols)
        if (text.empty() || name == text || sha.rfind(text, 0) == 0)
            found = {name, sha}; // oldest first: the last match is the newest
    if (found.second.empty())
        throw Error(ErrorCode::InvalidInput, "no protocol '" + text +
                                                 "' with rollouts in this ledger (" +
                                                 std::to_string(protocols.size()) + " protocols)");
    return found;
}

std::string primaryJudgeConfig(Ledger &ledger, const std::string &protocolSha256)
{
    const std::vector<std::int64_t> runIds = judgedRolloutRuns(ledger, protocolSha256);
    const auto rejudging = rejudgingRunsByKey(ledger);
    std::vector<std::pair<std::string, int>> counts;
    for (const std::int64_t runId : runIds) {
        const auto judgments = judgmentsOf(ledger, rejudging, runId);
        if (judgments.empty())
            continue;
        const std::string key = keyOf(judgments.front());
        auto it =
            std::find_if(counts.begin(), counts.end(), [&](auto &c) { return c.first == key; });
        if (it == counts.end())
            counts.emplace_back(key, 1);
        else
            ++it->second;
    }
    if (counts.empty())
        return {};
    return std::max_element(counts.begin(), counts.end(),
                            [](auto &x, auto &y) { return x.second < y.second; })
        ->first;
}

std::vector<std::pair<std::string, double>> readReferenceRates(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw Error(ErrorCode::NotFound, "reference CSV " + path + " not found");
    std::vector<std::pair<std::string, double>> out;
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const auto comma = line.rfind(',');
        if (line.empty() || comma == std::string::npos)
            continue;
        double rate = 0;
        try {
            std::size_t used = 0;
            const std::string field = line.substr(comma + 1);
            rate = std::stod(field, &used);
            if (used != field.size() || rate < 0 || rate > 1)
                throw std::invalid_argument("range");
        } catch (const std::exception &) {
            if (lineNo == 1)
                continue; // a header row
            throw Error(ErrorCode::InvalidInput,
                        path + ":" + std::to_string(lineNo) + ": the rate is not a number in 0..1");
        }
        std::string policy = line.substr(0, comma);
        if (policy.size() >= 2 && policy.front() == '"' && policy.back() == '"') {
            policy = policy.substr(1, policy.size() - 2);
            for (auto at = policy.find("\"\""); at != std::string::npos;
                 at = policy.find("\"\"", at + 1))
                policy.erase(at, 1);
        }
        out.emplace_back(policy, rate);
    }
    return out;
}

std::vector<AuditRow> auditRows(const PairedAudit &a)
{
    auto ratio = [](int k, int n) { return std::to_string(k) + "/" + std::to_string(n); };
    auto outcomes = [](const AuditSide &s) {
        return std::to_string(s.success) + "/" + std::to_string(s.failure) + "/" +
               std::to_string(s.unknown);
    };
    std::vector<AuditRow> rows = {
        {"schema-valid answers", ratio(a.a.schemaValid, a.a.samples),
         ratio(a.b.schemaValid, a.b.samples)},
        {"bare JSON answers", ratio(a.a.bareJson, a.a.samples), ratio(a.b.bareJson, a.b.samples)},
        {"mean generated tokens", numberText(a.a.meanTokens, "%.1f"),
         numberText(a.b.meanTokens, "%.1f")},
        {"mean decode time (ms)", numberText(a.a.meanDecodeMs, "%.0f"),
         numberText(a.b.meanDecodeMs, "%.0f")},
        {"quorum outcomes s/f/unknown", outcomes(a.a), outcomes(a.b)},
    };
    for (const auto &[field, counts] : a.fieldAgreement)
        rows.push_back({"agreement: " + field, ratio(counts.first, counts.second), ""});
    rows.push_back({"full semantic agreement", ratio(a.fullAgreement, a.fullCompared), ""});
    rows.push_back({"exact McNemar (decisive pairs)",
                    "p = " + numberText(a.mcnemar.pValue, "%.4g") +
                        " (n = " + std::to_string(a.decisivePairs) + "; " +
                        std::to_string(a.mcnemar.b) + " vs " + std::to_string(a.mcnemar.c) + ")",
                    ""});
    return rows;
}

} // namespace kosmos
