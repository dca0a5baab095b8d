#include "validation/RolloutValidator.h"

#include "stats/Agreement.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

namespace kosmos {

namespace {

cv::Mat grey(const cv::Mat &frame)
{
    cv::Mat g;
    if (frame.channels() == 1)
        g = frame;
    else if (frame.channels() == 4)
        cv::cvtColor(frame, g, cv::COLOR_RGBA2GRAY);
    else
        cv::cvtColor(frame, g, cv::COLOR_RGB2GRAY);
    if (g.depth() != CV_8U)
        g.convertTo(g, CV_8U, 255.0);
    return g;
}

double meanAbsDiff(const cv::Mat &a, const cv::Mat &b)
{
    if (a.size() != b.size())
        return 255.0;
    cv::Mat d;
    cv::absdiff(a, b, d);
    return cv::mean(d)[0];
}

double translation(const Action &a)
{
    double s = 0;
    for (std::size_t i = 0; i < 3 && i < a.size(); ++i)
        s += a[i] * a[i];
    return std::sqrt(s);
}

// Whether the actions' first three dimensions are translations (metres): the end-effector deltas
// of Bridge and the tabletops, whose size says how far the picture should move. Joint targets
// (ALOHA's 14-D, radians) are positions: motion is commanded when they change.
bool translationActions(const ActionContract &contract)
{
    return contract.dimension() < 3 ||
           std::all_of(contract.dimensions.begin(), contract.dimensions.begin() + 3,
                       [](const ActionDimension &d) { return d.unit == "m"; });
}

// The largest change of a position target (a dimension in rad or m) from the action before (0
// for the first). Openings without a unit (a gripper's 0-1) are left out: fingers closing on an
// object are commanded and do not move.
double targetChange(const Action *a, const Action *before, const ActionContract &contract)
{
    if (!a || !before || a->size() != before->size())
        return 0;
    double m = 0;
    for (std::size_t i = 0; i < a->size() && i < contract.dimensions.size(); ++i) {
        const std::string &unit = contract.dimensions[i].unit;
        if (unit == "rad" || unit == "m")
            m = std::max(m, std::abs((*a)[i] - (*before)[i]));
    }
    return m;
}

CheckOutcome fromContract(const std::string &name, const ContractCheck &check,
                          nlohmann::json measured)
{
    CheckOutcome out{name, check.ok() ? "pass" : "fail", std::move(measured), {}, check.summary()};
    for (const auto &v : check.violations) {
        if (std::find(out.reasons.begin(), out.reasons.end(), v.reason) == out.reasons.end())
            out.reasons.push_back(v.reason);
    }
    return out;
}

// The measurements of a rollout's usable frames, with the action that produced each
// transition: what the pixel checks below share.
class Transitions
{
public:
    Transitions(const RolloutEvidence &e, const FrameMeasurements &m)
        : frames(m.frameStats()), steps(m.transitionStats()), m_e(e)
    {
    }

    // The action that produced transition i -> i+1 (frame i+1), if any.
    const Action *actionOf(std::size_t i) const
    {
        const int perAction = std::max(1, m_e.frameContract.framesPerAction);
        const int offset =
            m_e.frameContract.resultIncludesConditioning ? m_e.frameContract.conditioningFrames : 0;
        const int frame = static_cast<int>(i) + 1 - offset;
        if (frame < 0)
            return nullptr;
        const int a = frame / perAction;
        return a < static_cast<int>(m_e.actions.size()) ? &m_e.actions[static_cast<std::size_t>(a)]
                                                        : nullptr;
    }

    const std::vector<FrameMeasurements::FrameStats> &frames;
    const std::vector<FrameMeasurements::TransitionStats> &steps;

private:
    const RolloutEvidence &m_e;
};

// Black or constant frames. Not applicable (and required) without usable frames.
CheckOutcome blackOrConstantCheck(const Transitions &tr, const ValidationThresholds &t)
{
    std::vector<int> black;
    std::vector<int> constant;
    nlohmann::json means = nlohmann::json::array();
    nlohmann::json stds = nlohmann::json::array();
    for (std::size_t i = 0; i < tr.frames.size(); ++i) {
        const double mean = tr.frames[i].mean;
        const double stddev = tr.frames[i].stddev;
        means.push_back(std::round(mean * 100) / 100);
        stds.push_back(std::round(stddev * 100) / 100);
        if (mean <= t.blackMeanMax)
            black.push_back(static_cast<int>(i));
        else if (stddev <= t.constantStdMax)
            constant.push_back(static_cast<int>(i));
    }
    CheckOutcome c{"black_or_constant", "pass", {{"mean", means}, {"std", stds}}, {}, ""};
    if (tr.frames.empty())
        c.status = "not_applicable";
    if (!black.empty()) {
        c.status = "fail";
        c.reasons.push_back(Reason::FrameBlack);
        c.measured["black_frames"] = black;
    }
    if (!constant.empty()) {
        c.status = "fail";
        c.reasons.push_back(Reason::FrameConstant);
        c.measured["constant_frames"] = constant;
    }
    return c;
}

// The longest run of identical transitions while motion was commanded. Not applicable (and
// required) without transitions.
CheckOutcome frozenSequenceCheck(const Transitions &tr, const ActionContract &contract,
                                 const ValidationThresholds &t)
{
    int run = 0;
    int longest = 0;
    const bool deltas = translationActions(contract);
    for (std::size_t i = 0; i < tr.steps.size(); ++i) {
        const Action *a = tr.actionOf(i);
        const bool commanded = a && (deltas ? translation(*a)
                                            : targetChange(a, i > 0 ? tr.actionOf(i - 1) : nullptr,
                                                           contract)) > t.commandedMotionMin;
        if (!commanded)
            continue; // a still world is expected when nothing moves
        run = tr.steps[i].changed <= t.identicalChangedMax ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    CheckOutcome c{"frozen_sequence", "pass", {{"longest_frozen_run", longest}}, {}, ""};
    if (tr.steps.empty()) {
        c.status = "not_applicable";
    } else if (longest >= t.frozenRunMin) {
        c.status = "fail";
        c.reasons.push_back(Reason::FrozenSequence);
        c.detail =
            std::to_string(longest) + " identical transitions in a row while motion was commanded";
    }
    return c;
}

// Transitions whose mean difference is a jump.
CheckOutcome discontinuityCheck(const Transitions &tr, const ValidationThresholds &t)
{
    std::vector<int> jumps;
    double maxDiff = 0;
    for (std::size_t i = 0; i < tr.steps.size(); ++i) {
        maxDiff = std::max(maxDiff, tr.steps[i].diff);
        if (tr.steps[i].diff >= t.discontinuityDiffMin)
            jumps.push_back(static_cast<int>(i + 1));
    }
    CheckOutcome c{
        "discontinuity", "pass", {{"max_mean_abs_diff", std::round(maxDiff * 100) / 100}}, {}, ""};
    if (tr.steps.empty())
        c.status = "not_applicable";
    else if (!jumps.empty()) {
        c.status = "fail";
        c.reasons.push_back(Reason::FrameDiscontinuity);
        c.measured["jump_frames"] = jumps;
    }
    return c;
}

// A grey frame at flowWidth, for the optical flow; `scale` is flowWidth / its width.
cv::Mat flowInput(const cv::Mat &grey, const ValidationThresholds &t, double &scale)
{
    scale = static_cast<double>(t.flowWidth) / grey.cols;
    cv::Mat small;
    cv::resize(grey, small, cv::Size(), scale, scale, cv::INTER_AREA);
    return small;
}

// Observed motion of a transition: Farneback's dense optical flow between two frames at
// flowWidth (flowInput), read by topFlowMagnitude.
double observedMotion(const cv::Mat &from, const cv::Mat &to, double scale)
{
    cv::Mat flow;
    cv::calcOpticalFlowFarneback(from, to, flow, 0.5, 3, 15, 3, 5, 1.2, 0);
    return topFlowMagnitude(flow, scale);
}

// Commanded translation against observed motion (Pearson over the transitions).
// Applies only to translations (translationActions): absolute joint targets say nothing about how
// far the picture should move.
CheckOutcome motionCheck(const Transitions &tr, const ActionContract &contract,
                         const ValidationThresholds &t)
{
    if (!translationActions(contract)) {
        const ActionDimension &d = contract.dimensions.front();
        return {"commanded_vs_observed_motion",
                "not_applicable",
                {{"first_dimension", d.name}, {"unit", d.unit}},
                {},
                "the actions are not end-effector translations (dimension 0 is '" + d.name +
                    "' in " + d.unit + ")"};
    }
    std::vector<double> commanded;
    std::vector<double> observed;
    for (std::size_t i = 0; i < tr.steps.size(); ++i) {
        const Action *a = tr.actionOf(i);
        if (!a || a->size() < 3 || !std::isfinite(translation(*a)) || !tr.steps[i].sameSize)
            continue;
        commanded.push_back(translation(*a));
        observed.push_back(tr.steps[i].motion);
    }
    int moving = 0;
    for (double c : commanded)
        moving += c > t.commandedMotionMin;
    CheckOutcome c{"commanded_vs_observed_motion",
                   "pass",
                   {{"samples", commanded.size()}, {"moving_samples", moving}},
                   {},
                   ""};
    if (moving < t.motionMinSamples) {
        c.status = "not_applicable";
        c.detail = "fewer than " + std::to_string(t.motionMinSamples) +
                   " transitions with commanded motion";
        return c;
    }
    // NaN when undefined (fewer than 2 points, no variance): fails the check below.
    const double r = pearson(commanded, observed).value_or(std::nan(""));
    c.measured["pearson_r"] =
        std::isfinite(r) ? nlohmann::json(std::round(r * 1000) / 1000) : nlohmann::json();
    if (!std::isfinite(r) || r < t.motionCorrelationMin) {
        c.status = "fail";
        c.reasons.push_back(Reason::MotionMismatch);
        c.detail = "commanded translation and observed optical flow do not agree";
    }
    return c;
}

} // namespace

nlohmann::json ValidationThresholds::toJson() const
{
    return {{"black_mean_max", blackMeanMax},
            {"constant_std_max", constantStdMax},
            {"changed_pixel_delta", changedPixelDelta},
            {"identical_changed_max", identicalChangedMax},
            {"frozen_run_min", frozenRunMin},
            {"commanded_motion_min", commandedMotionMin},
            {"discontinuity_diff_min", discontinuityDiffMin},
            {"motion_correlation_min", motionCorrelationMin},
            {"motion_min_samples", motionMinSamples},
            {"flow_width", flowWidth}};
}

FrameMeasurements::FrameMeasurements(const ValidationThresholds &thresholds)
    : m_thresholds(thresholds)
{
}

void FrameMeasurements::add(const cv::Mat &frame)
{
    if (frame.empty())
        return; // not usable: counted by the frame contract, not measured
    cv::Mat g = grey(frame);
    cv::Scalar mean, stddev;
    cv::meanStdDev(g, mean, stddev);
    m_frames.push_back({mean[0], stddev[0]});
    double scale = 1;
    cv::Mat small = flowInput(g, m_thresholds, scale); // resized once, used by two transitions
    if (!m_lastGrey.empty()) {
        TransitionStats step;
        step.diff = meanAbsDiff(m_lastGrey, g);
        step.sameSize = m_lastGrey.size() == g.size();
        if (step.sameSize) {
            cv::Mat d;
            cv::absdiff(m_lastGrey, g, d);
            step.changed = cv::countNonZero(d > m_thresholds.changedPixelDelta) /
                           static_cast<double>(d.total());
            step.motion = observedMotion(m_lastSmall, small, m_lastScale);
        }
        m_steps.push_back(step);
    }
    m_lastGrey = g.data == frame.data ? g.clone() : g; // never a view of the caller's frame
    m_lastSmall = std::move(small);
    m_lastScale = scale;
}

bool FrameMeasurements::describes(const RolloutEvidence &e, const ValidationThresholds &t) const
{
    const auto usable = std::count_if(e.frames.begin(), e.frames.end(),
                                      [](const cv::Mat &f) { return !f.empty(); });
    return static_cast<std::size_t>(usable) == m_frames.size() &&
           m_thresholds.toJson() == t.toJson();
}

ValidationReport validateRollout(const RolloutEvidence &e, const ValidationThresholds &t,
                                 const FrameMeasurements *measured)
{
    ValidationReport report;
    report.thresholds = t;
    auto &checks = report.checks;
    const int nActions = static_cast<int>(e.actions.size());

    // 1. Decodability.
    checks.push_back({"decodable",
                      e.undecodableFrames == 0 ? "pass" : "fail",
                      {{"undecodable_frames", e.undecodableFrames}},
                      e.undecodableFrames == 0 ? std::vector<Reason>{}
                                               : std::vector<Reason>{Reason::FrameUndecodable},
                      ""});

    // 2. Frame count, geometry, dtype, finite values, order (the frame contract).
    const ContractCheck frames = e.frameContract.checkResult(e.frames, nActions, e.timestamps);
    checks.push_back(
        fromContract("frame_contract", frames,
                     {{"frames", e.frames.size()},
                      {"expected_frames", e.frameContract.expectedFrameCount(nActions)},
                      {"timestamps_checked", !e.timestamps.empty()}}));

    // 3. Actions: dimension, finite, bounds, gripper convention.
    const ContractCheck actions = e.actionContract.checkChunk(e.actions, false);
    checks.push_back(fromContract("action_contract", actions, {{"actions", nActions}}));

    // 4. Pixels: black or constant frames, frozen runs, discontinuities, commanded vs observed
    // motion. The first two need frames; without them the verdict cannot be "valid".
    std::optional<FrameMeasurements> own;
    if (!measured || !measured->describes(e, t)) {
        own.emplace(t);
        for (const auto &f : e.frames)
            own->add(f);
        measured = &*own;
    }
    const Transitions transitions(e, *measured);
    const bool requiredMissing = transitions.frames.empty() || transitions.steps.empty();
    checks.push_back(blackOrConstantCheck(transitions, t));
    checks.push_back(frozenSequenceCheck(transitions, e.actionContract, t));
    checks.push_back(discontinuityCheck(transitions, t));
    checks.push_back(motionCheck(transitions, e.actionContract, t));

    for (const auto &c : checks) {
        for (Reason r : c.reasons) {
            if (std::find(report.reasons.begin(), report.reasons.end(), r) == report.reasons.end())
                report.reasons.push_back(r);
        }
    }
    if (!report.reasons.empty())
        report.verdict = "invalid";
    else if (requiredMissing) {
        report.verdict = "unknown";
        report.reasons.push_back(Reason::NotEnoughFrames);
    } else
        report.verdict = "valid";
    return report;
}

nlohmann::json ValidationReport::toJson() const
{
    nlohmann::json list = nlohmann::json::array();
    for (const auto &c : checks)
        list.push_back({{"name", c.name},
                        {"status", c.status},
                        {"measured", c.measured},
                        {"reasons", reasonNames(c.reasons)},
                        {"detail", c.detail}});
    return {{"verdict", verdict},
            {"reasons", reasonNames(reasons)},
            {"checks", list},
            {"thresholds", thresholds.toJson()}};
}

ValidationRecord ValidationReport::toRecord() const
{
    return {kValidatorId, kValidatorVersion, verdict, reasonNames(reasons), toJson()};
}

double topFlowMagnitude(const cv::Mat &flow, double scale)
{
    std::vector<cv::Mat> parts;
    cv::split(flow, parts);
    cv::Mat magnitude;
    cv::magnitude(parts[0], parts[1], magnitude);
    std::vector<float> values(magnitude.begin<float>(), magnitude.end<float>());
    const std::size_t top = std::max<std::size_t>(1, values.size() / 100);
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(top),
                     values.end(), std::greater<>());
    double sum = 0;
    for (std::size_t k = 0; k < top; ++k)
        sum += values[k];
    return sum / static_cast<double>(top) / scale;
}

} // namespace kosmos
