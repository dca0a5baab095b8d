#pragma once

#include "contracts/ActionContract.h"
#include "contracts/FrameContract.h"
#include "ledger/LedgerTypes.h"

#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>

#include <string>
#include <vector>

namespace kosmos {

// Thresholds of the deterministic checks. They are part of the validator's identity: the
// values used are stored with every result.
struct ValidationThresholds
{
    double blackMeanMax = 8.0;           // mean intensity (0-255) at or below: a black frame
    double constantStdMax = 2.0;         // intensity std dev at or below: a constant frame
    int changedPixelDelta = 12;          // a pixel changed when its grey value moved more than this
    double identicalChangedMax = 0.0005; // changed-pixel fraction at or below: identical frames
    int frozenRunMin = 3;               // identical transitions in a row while motion was commanded
    double commandedMotionMin = 0.005;  // |dxyz| (m), or a position target's change, above which an
                                        // action commands visible motion
    double discontinuityDiffMin = 40.0; // mean |difference| at or above: a jump
    double motionCorrelationMin = 0.2;  // Pearson r (commanded vs observed motion) below: mismatch
    int motionMinSamples = 6;           // transitions with commanded motion needed for that check
    int flowWidth = 64;                 // optical flow runs on frames resized to this width (128
                                        // before version 3: kosmos-bench-validation-flow)

    nlohmann::json toJson() const;
};

// What the validator looks at: the decoded frames (RGB uint8 or float32), their timestamps,
// how many stored frames did not decode, and the actions in the world model's space.
struct RolloutEvidence
{
    std::vector<cv::Mat> frames;
    std::vector<double> timestamps; // seconds; empty: not checked
    int undecodableFrames = 0;
    ActionChunk actions;
    ActionContract actionContract;
    FrameContract frameContract;
};

// One check: its status, the value it measured and the reasons it failed.
struct CheckOutcome
{
    std::string name;
    std::string status; // pass | fail | not_applicable
    nlohmann::json measured;
    std::vector<Reason> reasons;
    std::string detail;
};

struct ValidationReport
{
    std::string verdict; // valid | invalid | unknown
    std::vector<Reason> reasons;
    std::vector<CheckOutcome> checks;
    ValidationThresholds thresholds;

    nlohmann::json toJson() const;
    // The ledger record (validator "kosmos.stage_a", its version, reasons, every measurement).
    ValidationRecord toRecord() const;
};

inline constexpr const char *kValidatorId = "kosmos.stage_a";
// 2: for actions that are not translations (joint targets) the motion check is not applicable and
// the frozen check counts motion as commanded when a position target (rad or m) changes.
// 3: optical flow at 64 px wide (was 128): 4.6 times cheaper, the motion check's verdict unchanged
// on the benchmark's rollouts (docs/benchmarks.md, "Validation's optical flow").
inline constexpr const char *kValidatorVersion = "3";

// The pixel measurements the checks use, taken frame by frame as a rollout produces them: each
// usable frame's grey mean and spread, and each transition's mean difference, changed-pixel
// fraction and observed motion (dense optical flow, the costly part). The rollout engine takes
// them beside the rollout, on a background thread, so that validation at the end only combines
// them. One caller at a time.
class FrameMeasurements
{
public:
    struct FrameStats
    {
        double mean = 0;
        double stddev = 0;
    };
    struct TransitionStats
    {
        double diff = 255.0;   // mean |difference| of the grey images
        double changed = 1.0;  // fraction of pixels that changed by more than the delta
        bool sameSize = false; // the two frames have one size (else nothing more was measured)
        double motion = 0;     // mean of the top 1% optical-flow magnitudes, full-size pixels
    };

    explicit FrameMeasurements(const ValidationThresholds &thresholds = {});
    // The next frame of the rollout; an empty (undecodable) frame is skipped, as the checks do.
    void add(const cv::Mat &frame);

    const std::vector<FrameStats> &frameStats() const { return m_frames; }
    const std::vector<TransitionStats> &transitionStats() const { return m_steps; }
    // True when these are the measurements of `evidence`'s usable frames under `thresholds`.
    bool describes(const RolloutEvidence &evidence, const ValidationThresholds &thresholds) const;

private:
    ValidationThresholds m_thresholds;
    std::vector<FrameStats> m_frames;
    std::vector<TransitionStats> m_steps;
    cv::Mat m_lastGrey;
    cv::Mat m_lastSmall; // m_lastGrey at flowWidth
    double m_lastScale = 1;
};

// Runs every deterministic check of domain.md section 3 on a rollout. Verdict: invalid when any
// check failed; unknown when none failed but a required check could not run (too few frames);
// valid otherwise. `measured`: the pixel measurements taken beside the rollout (the engine's
// frame pipeline), used when they describe `evidence`'s frames (else measured here): the same
// report either way.
ValidationReport validateRollout(const RolloutEvidence &evidence,
                                 const ValidationThresholds &thresholds = {},
                                 const FrameMeasurements *measured = nullptr);

// Observed motion from a dense optical flow field (CV_32FC2) computed at 1/`scale` of the
// frame's width: the mean of its top 1% magnitudes, in full-size pixels (the moving gripper or
// object covers a small part of a fixed camera's view).
double topFlowMagnitude(const cv::Mat &flow, double scale);

} // namespace kosmos
