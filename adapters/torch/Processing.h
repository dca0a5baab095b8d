#pragma once

// Everything around the exported tensor work of the libtorch adapters, in plain C++ (OpenCV for
// images): image preprocessing, prompts, action-token decoding, gripper mappings, observation
// history, temporal ensembling, chunk and subgoal scheduling, world-model action scaling. Each
// function is golden-tested by hand (tests/torch/tst_processing.cpp) and cites its source.

#include "contracts/ActionContract.h"

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace kosmos::torchadapters {

// ---- images ----------------------------------------------------------------------------------

// OpenVLA's reference client (SimplerEnv's OpenVLAInference / openvla deploy): the 256x256
// camera image is JPEG-encoded and decoded (quality 95, as TF's encode_jpeg default), then
// resized to size x size with Lanczos. An input that is not 256x256 is first resized to 256x256
// (area). TF's "lanczos3 with antialias" and OpenCV's Lanczos-4 differ in the kernel's support:
// values agree to within a few grey levels, not bit for bit (documented in docs/export.md).
cv::Mat openVlaImage(const cv::Mat &rgb, int size = 224);
// A square resize to size x size (Octo primary 256, wrist 128; SuSIE 256; open-pi-zero 224),
// area interpolation when shrinking, Lanczos when growing.
cv::Mat squareImage(const cv::Mat &rgb, int size);
// Row-major HWC uint8 RGB -> CHW float in [0, 1] (what the exported modules take), flattened.
std::vector<float> chwFloat(const cv::Mat &rgb);

// ---- prompts ---------------------------------------------------------------------------------

// "In: What action should the robot take to {instruction, lower case}?\nOut:" (openvla:
// prismatic/vla/... PurePromptBuilder as used by OpenVLA's predict_action).
std::string openVlaPrompt(const std::string &instruction);
// MiniVLA (openvla-mini, Qwen2.5 backbone): the same question in Qwen's ChatML turns. The
// package may override it with options.prompt_template ("{instruction}" is replaced).
std::string miniVlaPrompt(const std::string &instruction, const std::string &tmpl = {});

// ---- action tokens ---------------------------------------------------------------------------

// OpenVLA's ActionTokenizer: bins = linspace(-1, 1, nBins) (nBins - 1 centres); a token id t
// of a vocabulary of vocabSize decodes to idx = vocabSize - t - 1, clipped to [0, nBins - 2],
// value = centre[idx]. MiniVLA's 256 extra Qwen tokens sit at the end of its vocabulary in the
// same way, so the same decoding applies with its vocabulary size.
double binCentre(int index, int nBins = 256);
std::vector<double> decodeActionTokens(const std::vector<std::int64_t> &tokens, int vocabSize,
                                       int nBins = 256);
// Whether a token id is one of the action tokens (the last nBins ids).
bool isActionToken(std::int64_t token, int vocabSize, int nBins = 256);

// ---- grippers and ensembling -----------------------------------------------------------------

// open-pi-zero's Bridge gripper mapping: a -> 2 (a > 0.5) - 1 (so -1 closed, +1 open).
double bridgeGripperPlusMinusOne(double a);
// Back to Bridge's 0 closed / 1 open.
double plusMinusOneToZeroOne(double a);

// Octo's TemporalEnsembleWrapper: keeps the last `horizon` predicted chunks; the action for now
// averages, for each kept chunk, its prediction for this step (the newest chunk's first action,
// the one before's second, ...), with weights exp(-k * i), i = 0 for the oldest prediction,
// normalized to sum 1 (k = 0: a plain mean; Octo's default k = 0).
class TemporalEnsembler
{
public:
    TemporalEnsembler(int horizon, double expWeight);
    Action push(const ActionChunk &chunk);
    void reset() { m_history.clear(); }
    // The weights used for n predictions, oldest first.
    std::vector<double> weights(int n) const;

private:
    int m_horizon;
    double m_k;
    std::deque<ActionChunk> m_history;
};

// An observation history of `window` frames with its timestep pad mask: at the first step the
// window is filled with copies of the first frame and the mask marks them false (Octo: history
// window 2, pad mask [false, true] at t = 0).
class ObservationHistory
{
public:
    explicit ObservationHistory(int window);
    void push(const cv::Mat &frame);
    const std::deque<cv::Mat> &frames() const { return m_frames; }
    std::vector<bool> padMask() const;
    void reset();

private:
    int m_window;
    int m_seen = 0;
    std::deque<cv::Mat> m_frames;
};

// SuSIE's subgoal schedule: a new subgoal image at step 0 and every `every` policy steps.
bool needsSubgoal(int step, int every);

// SuSIE_LL (SimplerEnv's sticky gripper): the gripper only changes state after the policy has
// asked for the other state on `repeat` consecutive steps; the state is Bridge 0 closed / 1
// open, decided at 0.5.
class StickyGripper
{
public:
    explicit StickyGripper(int repeat = 2) : m_repeat(repeat) {}
    double apply(double requested);
    void reset();

private:
    int m_repeat;
    double m_state = 1.0; // open
    int m_asking = 0;
};

// ---- world models ----------------------------------------------------------------------------

// IRASim and Cosmos-Predict2 action conditioning (Bridge): the first six values (xyz, rpy
// deltas) multiplied by `scale` (20), the gripper passed through.
ActionChunk scaleForWorld(const ActionChunk &chunk, double scale = 20.0, int scaledDims = 6);

} // namespace kosmos::torchadapters
