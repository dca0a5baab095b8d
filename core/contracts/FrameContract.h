#pragma once

#include "contracts/ActionContract.h"
#include "contracts/ContractCheck.h"

#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>

#include <string>
#include <vector>

namespace kosmos {

// What fills a chunk that the episode's end leaves short (domain.md section 2).
enum class PaddingRule
{
    None,                 // no padding allowed: a short chunk is a contract violation
    ZeroDeltaHoldGripper, // zero motion, the gripper keeps its last value
    RepeatLastAction,     // the last action again
};
std::string paddingRuleName(PaddingRule rule);

// What a world model consumes and produces: frame geometry and rate, how many frames condition
// it and how many it returns per action, which chunk lengths it is certified for.
struct FrameContract
{
    int width = 320;
    int height = 256;
    int channels = 3;            // RGB
    std::string dtype = "uint8"; // "uint8" or "float32"
    double fps = 5.0;
    int conditioningFrames = 1;
    int framesPerAction = 1;
    bool resultIncludesConditioning = true; // N actions -> N * framesPerAction + conditioning
    std::vector<int> certifiedChunkLengths; // empty: every length is certified
    PaddingRule padding = PaddingRule::None;
    // The camera(s) the frames come from, when the world declares them (the physics world's
    // fixed cameras: {"name", "pos" [m], "xyaxes", "fovy_deg"}); an array, empty when not
    // declared (a learned model's frames come from wherever its conditioning frame did).
    nlohmann::json cameras = nlohmann::json::array();

    // Frames a result must hold for `actions` actions.
    int expectedFrameCount(int actions) const;
    ContractCheck checkFrame(const cv::Mat &frame, int index) const;
    // Geometry of every frame, the N+1 count, strictly increasing timestamps (when given).
    ContractCheck checkResult(const std::vector<cv::Mat> &frames, int actions,
                              const std::vector<double> &timestamps = {}) const;
    ContractCheck checkChunkLength(int length) const;
    // Pads a chunk to `length` with the declared rule; a violation when no rule is declared.
    ContractCheck pad(ActionChunk &chunk, int length, std::optional<int> gripperIndex) const;

    nlohmann::json toJson() const;
    static FrameContract fromJson(const nlohmann::json &json, const std::string &where);
};

// The explicit, recorded mapping from a policy's physical action space to a world model's.
struct ActionConversion
{
    std::vector<int> sourceIndex; // world dimension i takes policy dimension sourceIndex[i]
    std::vector<double> scale;    // then multiplies by scale[i] (IRASim/Cosmos: 20 on xyz+rpy)
    std::optional<int> policyGripperIndex;
    std::optional<int> worldGripperIndex;
    GripperConvention from = GripperConvention::ZeroClosedOneOpen;
    GripperConvention to = GripperConvention::ZeroClosedOneOpen;
    bool binarizeGripper = false; // open-pi-zero's Bridge mapping 2(a > 0.5) - 1
    std::string poseFrame = "delta_in_previous_end_effector_frame";
    std::string normalization = "outside_backend"; // or "inside_backend"

    // The identity conversion between two contracts of the same dimension.
    static ActionConversion identity(const ActionContract &policy, const ActionContract &world);
    ContractCheck checkAgainst(const ActionContract &policy, const ActionContract &world) const;
    Action apply(const Action &policyAction) const;

    nlohmann::json toJson() const;
};

} // namespace kosmos
