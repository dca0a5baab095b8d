#pragma once

// The signature of a generic model package (families generic_policy, generic_world_model,
// generic_judge): what the TorchScript module's forward() takes, in order, and what it returns,
// declared in kosmos-model.json's "io" block, so a user can bring a small exported policy,
// predictor or success classifier without a new plugin (docs/export.md, "Generic families").
// Plain C++ (no libtorch): parsed and checked when the package loads; every mistake is an Error
// naming the key.

#include <opencv2/core/mat.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos::torchadapters {

// Where an input tensor comes from.
enum class IoSource
{
    Image,         // [1, 3, H, W] float: the current observation (policy), the last frame (world)
    History,       // [1, K, 3, H, W] float: the last K observations (policy), first frame repeated
    Frames,        // [1, K, 3, H, W] float: world: the last K frames; judge: the last K of its 16
    InstructionId, // [1] int64: the instruction's index in io.vocabulary
    Proprio,       // policy: [1, D] float, the end-effector state the world reports; world model:
                   // [1, N, D], the state it keeps (io.proprio) after each action of the chunk
    Actions,       // [1, N, D] float: world model: the chunk, normalized by the action contract
};
std::string ioSourceName(IoSource source);

struct IoInput
{
    std::string name;
    IoSource source = IoSource::Image;
    std::vector<std::int64_t> shape; // as the module receives it, batch 1 first
    int imageHeight() const;         // image sources: H
    int imageWidth() const;          // image sources: W
    int count() const;               // History/Frames: K
};

// How pixels become floats: (value / 255 - mean) / std per channel; "unit" is mean 0, std 1.
struct PixelScale
{
    std::array<float, 3> mean{0.f, 0.f, 0.f};
    std::array<float, 3> std{1.f, 1.f, 1.f};
    // RGB uint8 image (resized to width x height with area or linear interpolation) -> CHW floats.
    std::vector<float> chw(const cv::Mat &rgb, int width, int height) const;
    // CHW floats back to an RGB uint8 image (clamped to 0..255).
    cv::Mat image(const float *chw, int width, int height) const;
};

// A world model's end-effector state, the proprio a policy reads (declared in io.proprio): kept
// from the commanded actions, not predicted. It starts at `start`; after each action,
// state[s] = clamp(state[s] + action[a], min, max) for every `integrate` entry and
// state[s] = action[a] for every `copy` entry (actions in physical units, before normalization).
struct ProprioModel
{
    struct Integrate
    {
        int state = 0;
        int action = 0;
        double min = 0.0;
        double max = 0.0;
    };
    struct Copy
    {
        int state = 0;
        int action = 0;
    };
    std::vector<double> start;
    std::vector<Integrate> integrate;
    std::vector<Copy> copy;

    void apply(std::vector<double> &state, const std::vector<double> &action) const;
};

struct GenericIo
{
    std::string kind; // "policy", "world_model", "judge"
    std::vector<IoInput> inputs;
    std::vector<std::int64_t> output;
    std::vector<std::string> vocabulary; // instructions, for InstructionId
    PixelScale pixels;
    std::optional<ProprioModel> proprio; // world models only: the state they report

    // The instruction's index in the vocabulary; Error(InvalidInput) naming it when absent.
    std::int64_t instructionId(const std::string &instruction) const;
    const IoInput *find(IoSource source) const;
    // The number of progress classes a judge's output holds (6: progress 0..5).
    static constexpr int kJudgeClasses = 6;
};

// Parses and checks "io" for a package of this kind: sources allowed for the kind, shapes (batch
// 1, image channels 3, K <= 16 judge frames, no zero or negative sizes), input names unique, a
// vocabulary when an input takes the instruction, and the output shape against the contracts:
// A world model may declare io.proprio (ProprioModel; indices within the state and the action).
// policy [1, chunk, dims]; world model [1, chunk, 3, frame height, frame width]; judge [1, 6].
// actionDims/chunk/frameH/frameW: what the package's contracts declare (0 where none).
GenericIo parseGenericIo(const nlohmann::json &io, const std::string &kind,
                         const std::string &where, int actionDims, int chunk, int frameHeight,
                         int frameWidth);

} // namespace kosmos::torchadapters
