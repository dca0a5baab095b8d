#include "contracts/FrameContract.h"

#include "util/JsonFields.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>

namespace kosmos {

std::string paddingRuleName(PaddingRule rule)
{
    switch (rule) {
    case PaddingRule::None:
        return "none";
    case PaddingRule::ZeroDeltaHoldGripper:
        return "zero_delta_hold_gripper";
    case PaddingRule::RepeatLastAction:
        return "repeat_last_action";
    }
    return "none";
}

int FrameContract::expectedFrameCount(int actions) const
{
    return actions * framesPerAction + (resultIncludesConditioning ? conditioningFrames : 0);
}

ContractCheck FrameContract::checkFrame(const cv::Mat &frame, int index) const
{
    ContractCheck check;
    const std::string at = "frame " + std::to_string(index);
    if (frame.empty()) {
        check.add(Reason::FrameUndecodable, at + " is empty");
        return check;
    }
    if (frame.cols != width || frame.rows != height)
        check.add(Reason::FrameSizeMismatch,
                  at + " is " + std::to_string(frame.cols) + "x" + std::to_string(frame.rows) +
                      ", the contract " + std::to_string(width) + "x" + std::to_string(height));
    if (frame.channels() != channels)
        check.add(Reason::FrameChannelMismatch, at + " has " + std::to_string(frame.channels()) +
                                                    " channels, the contract " +
                                                    std::to_string(channels));
    const bool wantFloat = dtype == "float32";
    if ((wantFloat && frame.depth() != CV_32F) || (!wantFloat && frame.depth() != CV_8U))
        check.add(Reason::FrameDtypeMismatch, at + " element type differs from " + dtype);
    else if (wantFloat && !cv::checkRange(frame))
        check.add(Reason::FrameNonFinite, at + " holds NaN or infinite values");
    return check;
}

ContractCheck FrameContract::checkResult(const std::vector<cv::Mat> &frames, int actions,
                                         const std::vector<double> &timestamps) const
{
    ContractCheck check;
    const int expected = expectedFrameCount(actions);
    if (static_cast<int>(frames.size()) != expected)
        check.add(Reason::FrameCountMismatch, std::to_string(actions) + " actions need " +
                                                  std::to_string(expected) + " frames, got " +
                                                  std::to_string(frames.size()));
    for (std::size_t i = 0; i < frames.size(); ++i)
        check.merge(checkFrame(frames[i], static_cast<int>(i)));
    for (std::size_t i = 1; i < timestamps.size(); ++i) {
        if (!(timestamps[i] > timestamps[i - 1])) {
            check.add(Reason::FrameOrderInvalid,
                      "timestamp " + std::to_string(i) + " does not increase");
            break;
        }
    }
    return check;
}

ContractCheck FrameContract::checkChunkLength(int length) const
{
    ContractCheck check;
    if (!certifiedChunkLengths.empty() &&
        std::find(certifiedChunkLengths.begin(), certifiedChunkLengths.end(), length) ==
            certifiedChunkLengths.end()) {
        std::string allowed;
        for (int n : certifiedChunkLengths)
            allowed += (allowed.empty() ? "" : ", ") + std::to_string(n);
        check.add(Reason::ChunkLengthUncertified,
                  "chunk of " + std::to_string(length) + " actions; certified lengths: " + allowed);
    }
    return check;
}

ContractCheck FrameContract::pad(ActionChunk &chunk, int length,
                                 std::optional<int> gripperIndex) const
{
    ContractCheck check;
    if (static_cast<int>(chunk.size()) >= length || chunk.empty())
        return check;
    if (padding == PaddingRule::None) {
        check.add(Reason::PaddingRuleMissing, "a chunk of " + std::to_string(chunk.size()) +
                                                  " must be padded to " + std::to_string(length) +
                                                  " but no padding rule is declared");
        return check;
    }
    const Action last = chunk.back();
    while (static_cast<int>(chunk.size()) < length) {
        Action a = last;
        if (padding == PaddingRule::ZeroDeltaHoldGripper) {
            for (std::size_t i = 0; i < a.size(); ++i) {
                if (!gripperIndex || static_cast<int>(i) != *gripperIndex)
                    a[i] = 0.0;
            }
        }
        chunk.push_back(a);
    }
    return check;
}

nlohmann::json FrameContract::toJson() const
{
    return {{"width", width},
            {"height", height},
            {"channels", channels},
            {"dtype", dtype},
            {"fps", fps},
            {"conditioning_frames", conditioningFrames},
            {"frames_per_action", framesPerAction},
            {"result_includes_conditioning", resultIncludesConditioning},
            {"certified_chunk_lengths", certifiedChunkLengths},
            {"padding_rule", paddingRuleName(padding)},
            {"cameras", cameras}};
}

FrameContract FrameContract::fromJson(const nlohmann::json &j, const std::string &where)
{
    FrameContract c;
    c.width = static_cast<int>(json::requireInt(j, "width", where, 1, 16384));
    c.height = static_cast<int>(json::requireInt(j, "height", where, 1, 16384));
    c.channels = static_cast<int>(json::requireInt(j, "channels", where, 1, 4));
    c.dtype = json::requireString(j, "dtype", where);
    if (c.dtype != "uint8" && c.dtype != "float32")
        json::fail(where + ".dtype", "must be uint8 or float32, got '" + c.dtype + "'");
    c.fps = json::requireNumber(j, "fps", where);
    if (c.fps <= 0)
        json::fail(where + ".fps", "must be positive");
    c.conditioningFrames =
        static_cast<int>(json::requireInt(j, "conditioning_frames", where, 0, 64));
    c.framesPerAction = static_cast<int>(json::requireInt(j, "frames_per_action", where, 1, 64));
    if (j.contains("result_includes_conditioning"))
        c.resultIncludesConditioning = j["result_includes_conditioning"].get<bool>();
    if (j.contains("certified_chunk_lengths")) {
        for (const auto &n : json::requireArray(j, "certified_chunk_lengths", where)) {
            if (!n.is_number_integer() || n.get<int>() < 1)
                json::fail(where + ".certified_chunk_lengths", "expected positive integers");
            c.certifiedChunkLengths.push_back(n.get<int>());
        }
    }
    const std::string padding = json::optString(j, "padding_rule", where).value_or("none");
    if (padding == "none")
        c.padding = PaddingRule::None;
    else if (padding == "zero_delta_hold_gripper")
        c.padding = PaddingRule::ZeroDeltaHoldGripper;
    else if (padding == "repeat_last_action")
        c.padding = PaddingRule::RepeatLastAction;
    else
        json::fail(where + ".padding_rule",
                   "unknown rule '" + padding +
                       "' (allowed: none, zero_delta_hold_gripper, repeat_last_action)");
    if (j.contains("cameras")) {
        for (const auto &camera : json::requireArray(j, "cameras", where)) {
            if (!camera.is_object() || !camera.value("name", nlohmann::json()).is_string())
                json::fail(where + ".cameras", "each camera must be an object with a name");
            c.cameras.push_back(camera);
        }
    }
    return c;
}

// ---- ActionConversion ------------------------------------------------------------------------

ActionConversion ActionConversion::identity(const ActionContract &policy,
                                            const ActionContract &world)
{
    ActionConversion c;
    for (int i = 0; i < world.dimension(); ++i) {
        c.sourceIndex.push_back(i);
        c.scale.push_back(1.0);
    }
    c.policyGripperIndex = policy.gripperIndex;
    c.worldGripperIndex = world.gripperIndex;
    c.from = policy.gripper;
    c.to = world.gripper;
    return c;
}

ContractCheck ActionConversion::checkAgainst(const ActionContract &policy,
                                             const ActionContract &world) const
{
    ContractCheck check;
    if (static_cast<int>(sourceIndex.size()) != world.dimension() ||
        scale.size() != sourceIndex.size())
        check.add(Reason::ConversionDimensionMismatch,
                  "the conversion maps " + std::to_string(sourceIndex.size()) +
                      " dimensions, the world model's contract has " +
                      std::to_string(world.dimension()));
    for (std::size_t i = 0; i < sourceIndex.size(); ++i) {
        if (sourceIndex[i] < 0 || sourceIndex[i] >= policy.dimension())
            check.add(Reason::ConversionDimensionMismatch,
                      "world dimension " + std::to_string(i) + " reads policy dimension " +
                          std::to_string(sourceIndex[i]) + " of " +
                          std::to_string(policy.dimension()));
    }
    if (policyGripperIndex != policy.gripperIndex || worldGripperIndex != world.gripperIndex)
        check.add(Reason::ConversionDimensionMismatch,
                  "the conversion's gripper indices do not match the contracts");
    return check;
}

namespace {
double openness(double v, GripperConvention c)
{
    switch (c) {
    case GripperConvention::ZeroClosedOneOpen:
        return v;
    case GripperConvention::ZeroOpenOneClosed:
        return 1.0 - v;
    case GripperConvention::MinusOneClosedPlusOneOpen:
        return (v + 1.0) / 2.0;
    }
    return v;
}
double fromOpenness(double open, GripperConvention c)
{
    switch (c) {
    case GripperConvention::ZeroClosedOneOpen:
        return open;
    case GripperConvention::ZeroOpenOneClosed:
        return 1.0 - open;
    case GripperConvention::MinusOneClosedPlusOneOpen:
        return 2.0 * open - 1.0;
    }
    return open;
}
} // namespace

Action ActionConversion::apply(const Action &policyAction) const
{
    Action out(sourceIndex.size(), 0.0);
    for (std::size_t i = 0; i < sourceIndex.size(); ++i) {
        const double v = policyAction.at(static_cast<std::size_t>(sourceIndex[i]));
        if (worldGripperIndex && static_cast<int>(i) == *worldGripperIndex) {
            double open = openness(v, from);
            if (binarizeGripper)
                open = open > 0.5 ? 1.0 : 0.0;
            out[i] = fromOpenness(open, to);
        } else {
            out[i] = v * scale[i];
        }
    }
    return out;
}

nlohmann::json ActionConversion::toJson() const
{
    auto opt = [](const std::optional<int> &v) {
        return v ? nlohmann::json(*v) : nlohmann::json();
    };
    return {{"source_index", sourceIndex},
            {"scale", scale},
            {"policy_gripper_index", opt(policyGripperIndex)},
            {"world_gripper_index", opt(worldGripperIndex)},
            {"gripper_from", gripperConventionName(from)},
            {"gripper_to", gripperConventionName(to)},
            {"binarize_gripper", binarizeGripper},
            {"pose_frame", poseFrame},
            {"normalization", normalization}};
}

} // namespace kosmos
