// The one translation unit of the libtorch adapters that includes libtorch. No Qt here (Qt's
// `slots` macro breaks the torch headers; build-notes pitfall 1).
#include "TorchAdapters.h"

#include "Processing.h"
#include "TorchRuntime.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/script.h>
#include <torch/version.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace kosmos::torchadapters {

using namespace detail;

namespace {

// Token ids for a prompt: pre-tokenized prompts in the package (options.prompt_tokens maps the
// prompt text to its ids, as the exporter wrote them with the model's own tokenizer).
std::vector<int64_t> promptTokens(const ModelPackage &p, const std::string &prompt)
{
    const auto &table = p.options.value("prompt_tokens", nlohmann::json::object());
    if (!table.contains(prompt))
        throw Error(ErrorCode::InvalidInput,
                    "the package has no tokens for the prompt \"" + prompt +
                        "\" (options.prompt_tokens; export the protocol's instructions with "
                        "tools/export/kosmos_export.py --instructions)");
    std::vector<int64_t> ids;
    for (const auto &v : table[prompt])
        ids.push_back(v.get<int64_t>());
    return ids;
}

// ---- policies ----------------------------------------------------------------------------------

class TorchPolicyBase : public Policy
{
public:
    TorchPolicyBase(ModelFamily family, const nlohmann::json &settings)
        : m_package(loadModelPackage(requirePackageSetting(settings), family)),
          m_runtime(Runtime::make(runtimeOptions(settings, m_package))), m_settings(settings)
    {
    }
    ActionContract actionContract() const override { return m_contract; }
    nlohmann::json lastCallStats() const override { return m_clock.stats(m_runtime); }

protected:
    // The physical action for a normalized model output, checked to be finite.
    Action physical(const Action &normalized) const
    {
        Action a = m_package.action.unnormalize(normalized);
        for (double v : a)
            if (!std::isfinite(v))
                throw Error(ErrorCode::InvalidInput, "the model produced a non-finite action");
        return a;
    }

    ModelPackage m_package;
    Runtime m_runtime;
    nlohmann::json m_settings;
    ActionContract m_contract; // what act() returns: physical actions, executed chunk length
    CallClock m_clock;
};

// OpenVLA and MiniVLA: greedy decode of 7 action tokens over the exported step function
// (next-token logits), de-tokenization over the last 256 ids, BOUNDS_Q99 unnormalization.
class VlaPolicy final : public TorchPolicyBase
{
public:
    VlaPolicy(ModelFamily family, const nlohmann::json &settings)
        : TorchPolicyBase(family, settings), m_mini(family == ModelFamily::MiniVla)
    {
        m_module = loadModule(m_package, "module", m_runtime);
        m_vocab = m_package.options.value("vocab_size", m_mini ? 151936 : 32000);
        m_bins = m_package.options.value("action_bins", 256);
        // OpenVLA's predict_action appends token 29871 (an empty "▁") when the prompt does not
        // end with it; MiniVLA's Qwen prompt has no such rule.
        if (m_package.options.contains("append_token"))
            m_append = m_package.options["append_token"].get<int64_t>();
        else if (!m_mini)
            m_append = 29871;
        m_contract = m_package.action;
        m_contract.normalization = NormalizationScheme::None;
        m_contract.chunkLength = 1;
        if (m_package.files.count("vq_decoder")) {
            // MiniVLA's VQ action chunking: the 7 decoded tokens are codes (0..255, the bin
            // index of each token) that the exported decoder turns into a normalized chunk.
            m_vqDecoder = loadModule(m_package, "vq_decoder", m_runtime);
            m_contract.chunkLength = m_package.action.chunkLength;
        }
        m_module.warmUp(m_runtime.options.warmup, [&] {
            std::vector<int64_t> ids = {1, 2, 3};
            runStep(torch::zeros({1, 3, 224, 224}).to(m_runtime.device, m_runtime.dtype), ids);
        });
    }

    void reset(std::uint64_t, const std::string &instruction) override
    {
        const std::string prompt =
            m_mini ? miniVlaPrompt(instruction,
                                   m_package.options.value("prompt_template", std::string()))
                   : openVlaPrompt(instruction);
        m_prompt = promptTokens(m_package, prompt);
        if (m_append && (m_prompt.empty() || m_prompt.back() != *m_append))
            m_prompt.push_back(*m_append);
    }

    ActionChunk act(const Observation &observation) override
    {
        const torch::Tensor pixels = imageTensor(openVlaImage(observation.image), m_runtime);
        return m_clock.time([&] {
            std::vector<int64_t> ids = m_prompt;
            std::vector<int64_t> actionTokens;
            const int dims = m_package.action.dimension();
            for (int i = 0; i < dims; ++i) {
                const int64_t next = runStep(pixels, ids);
                if (!isActionToken(next, m_vocab, m_bins))
                    throw Error(ErrorCode::InvalidInput,
                                "decoded token " + std::to_string(next) + " (action value " +
                                    std::to_string(i) + ") is not one of the last " +
                                    std::to_string(m_bins) + " ids of a " +
                                    std::to_string(m_vocab) + "-token vocabulary");
                actionTokens.push_back(next);
                ids.push_back(next);
            }
            if (m_vqDecoder) {
                std::vector<int64_t> codes;
                for (const int64_t t : actionTokens)
                    codes.push_back(m_vocab - 1 - t);
                torch::InferenceMode guard;
                const torch::Tensor out =
                    forward(*m_vqDecoder,
                            {torch::tensor(codes, torch::kLong).view({1, -1}).to(m_runtime.device)},
                            "the VQ decoder");
                expectShape(out, {1, m_contract.chunkLength, 7}, "the VQ decoder");
                ActionChunk chunk;
                for (const auto &normalized : tensorChunk(out))
                    chunk.push_back(physical(normalized));
                return chunk;
            }
            return ActionChunk{physical(decodeActionTokens(actionTokens, m_vocab, m_bins))};
        });
    }

private:
    int64_t runStep(const torch::Tensor &pixels, const std::vector<int64_t> &ids)
    {
        torch::InferenceMode guard;
        const torch::Tensor input =
            torch::tensor(ids, torch::kLong).view({1, -1}).to(m_runtime.device);
        const torch::Tensor logits = forward(m_module, {pixels, input}, "the step module");
        expectShape(logits, {1, m_vocab}, "the step module");
        return logits.argmax(-1).item<int64_t>();
    }

    bool m_mini;
    Module m_module;
    std::optional<Module> m_vqDecoder;
    int m_vocab = 32000;
    int m_bins = 256;
    std::optional<int64_t> m_append;
    std::vector<int64_t> m_prompt;
};

// Octo: primary 256 and wrist 128 images, history window 2 with its pad mask, chunks of 4,
// temporal ensembling, NORMAL unnormalization. The worlds here have one camera: the wrist
// image is the primary image resized (package option wrist_from_primary, default true) or
// zeros (false).
class OctoPolicy final : public TorchPolicyBase
{
public:
    explicit OctoPolicy(const nlohmann::json &settings)
        : TorchPolicyBase(ModelFamily::Octo, settings),
          m_window(m_package.options.value("window", 2)), m_primary(m_window), m_wrist(m_window),
          m_ensembler(m_package.action.chunkLength, settings.value("exp_weight", 0.0))
    {
        m_module = loadModule(m_package, "module", m_runtime);
        m_contract = m_package.action;
        m_contract.normalization = NormalizationScheme::None;
        m_contract.chunkLength = 1; // one ensembled action per call
        m_wristFromPrimary = m_package.options.value("wrist_from_primary", true);
    }

    void reset(std::uint64_t, const std::string &instruction) override
    {
        const auto &table = m_package.options.value("task_tokens", nlohmann::json::object());
        if (!table.contains(instruction))
            throw Error(ErrorCode::InvalidInput,
                        "the package has no T5 tokens for the instruction \"" + instruction +
                            "\" (options.task_tokens)");
        m_task.clear();
        for (const auto &v : table[instruction])
            m_task.push_back(v.get<int64_t>());
        m_primary.reset();
        m_wrist.reset();
        m_ensembler.reset();
    }

    ActionChunk act(const Observation &observation) override
    {
        m_primary.push(squareImage(observation.image, 256));
        cv::Mat wrist = squareImage(observation.image, 128);
        if (!m_wristFromPrimary)
            wrist.setTo(cv::Scalar::all(0));
        m_wrist.push(wrist);
        return m_clock.time([&] {
            torch::InferenceMode guard;
            auto stack = [&](const ObservationHistory &h) {
                std::vector<torch::Tensor> frames;
                for (const auto &f : h.frames())
                    frames.push_back(imageTensor(f, m_runtime));
                return torch::stack(frames, 1); // [1, window, 3, H, W]
            };
            std::vector<uint8_t> maskBytes;
            for (bool b : m_primary.padMask())
                maskBytes.push_back(b);
            const torch::Tensor mask =
                torch::tensor(std::vector<int64_t>(maskBytes.begin(), maskBytes.end()))
                    .to(torch::kBool)
                    .view({1, -1})
                    .to(m_runtime.device);
            const torch::Tensor task =
                torch::tensor(m_task, torch::kLong).view({1, -1}).to(m_runtime.device);
            const torch::Tensor out = forward(
                m_module, {stack(m_primary), stack(m_wrist), mask, task}, "the octo module");
            expectShape(out, {1, m_package.action.chunkLength, 7}, "the octo module");
            ActionChunk normalized = tensorChunk(out);
            return ActionChunk{physical(m_ensembler.push(normalized))};
        });
    }

private:
    int m_window;
    ObservationHistory m_primary;
    ObservationHistory m_wrist;
    TemporalEnsembler m_ensembler;
    Module m_module;
    std::vector<int64_t> m_task;
    bool m_wristFromPrimary = true;
};

// open-pi-zero: one 224 image plus proprio, chunks of 4 (execute a set number), p01/p99
// bounds, gripper not normalized and mapped with the Bridge rule 2(a > 0.5) - 1, then back to
// Bridge's 0 closed / 1 open for the world.
class PiZeroPolicy final : public TorchPolicyBase
{
public:
    explicit PiZeroPolicy(const nlohmann::json &settings)
        : TorchPolicyBase(ModelFamily::OpenPiZero, settings)
    {
        m_module = loadModule(m_package, "module", m_runtime);
        m_execute = settings.value("execute", m_package.action.chunkLength);
        if (m_execute < 1 || m_execute > m_package.action.chunkLength)
            throw Error(ErrorCode::InvalidInput, "settings.execute must be 1.." +
                                                     std::to_string(m_package.action.chunkLength));
        m_contract = m_package.action;
        m_contract.normalization = NormalizationScheme::None;
        m_contract.chunkLength = m_execute;
    }

    void reset(std::uint64_t, const std::string &instruction) override
    {
        m_prompt = promptTokens(m_package, instruction);
    }

    ActionChunk act(const Observation &observation) override
    {
        return m_clock.time([&] {
            torch::InferenceMode guard;
            std::vector<float> proprio(7, 0.0f);
            for (std::size_t i = 0; i < proprio.size() && i < observation.proprio.size(); ++i)
                proprio[i] = static_cast<float>(observation.proprio[i]);
            const torch::Tensor state =
                torch::tensor(proprio).view({1, 7}).to(m_runtime.device, m_runtime.dtype);
            const torch::Tensor tokens =
                torch::tensor(m_prompt, torch::kLong).view({1, -1}).to(m_runtime.device);
            const torch::Tensor out = forward(
                m_module,
                {imageTensor(squareImage(observation.image, 224), m_runtime), state, tokens},
                "the open-pi-zero module");
            expectShape(out, {1, m_package.action.chunkLength, 7}, "the open-pi-zero module");
            ActionChunk chunk;
            for (const auto &normalized : tensorChunk(out)) {
                if (static_cast<int>(chunk.size()) == m_execute)
                    break;
                Action a = physical(normalized);
                if (m_package.action.gripperIndex) {
                    double &g = a[static_cast<std::size_t>(*m_package.action.gripperIndex)];
                    g = plusMinusOneToZeroOne(bridgeGripperPlusMinusOne(g));
                }
                chunk.push_back(a);
            }
            return chunk;
        });
    }

private:
    Module m_module;
    int m_execute = 4;
    std::vector<int64_t> m_prompt;
};

// SuSIE: a subgoal image from the exported image-editing module every N steps (default 40),
// then the goal-conditioned low-level policy (history 2, chunks of 4, mean/std). SuSIE_LL: the
// low-level policy alone with a given goal image (settings.goal_image, a PNG; its SHA-256 is
// part of the settings the identity records). Both use the sticky gripper (2 steps).
class SusiePolicy final : public TorchPolicyBase
{
public:
    SusiePolicy(ModelFamily family, const nlohmann::json &settings)
        : TorchPolicyBase(family, settings), m_lowLevelOnly(family == ModelFamily::SusieLowLevel),
          m_history(2), m_gripper(settings.value("sticky_gripper_steps", 2))
    {
        m_module = loadModule(m_package, "module", m_runtime);
        if (!m_lowLevelOnly)
            m_subgoal = loadModule(m_package, "subgoal", m_runtime);
        m_every = settings.value("subgoal_every", 40);
        if (m_every < 1)
            throw Error(ErrorCode::InvalidInput, "settings.subgoal_every must be 1 or more");
        if (m_lowLevelOnly) {
            const std::string path = settings.value("goal_image", std::string());
            if (path.empty())
                throw Error(ErrorCode::InvalidInput,
                            "settings.goal_image is not set: SuSIE_LL needs a goal image (PNG)");
            cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR);
            if (bgr.empty())
                throw Error(ErrorCode::InvalidInput,
                            "settings.goal_image: cannot read " + path + " as an image");
            cv::cvtColor(bgr, m_goal, cv::COLOR_BGR2RGB);
            m_goal = squareImage(m_goal, 256);
        }
        m_contract = m_package.action;
        m_contract.normalization = NormalizationScheme::None;
    }

    std::vector<std::pair<std::string, cv::Mat>> takeImages() override
    {
        std::vector<std::pair<std::string, cv::Mat>> out;
        for (auto &image : m_subgoals)
            out.emplace_back("subgoal", std::move(image));
        m_subgoals.clear();
        return out;
    }

    void reset(std::uint64_t, const std::string &instruction) override
    {
        if (!m_lowLevelOnly)
            m_prompt = promptTokens(m_package, instruction);
        m_history.reset();
        m_gripper.reset();
        m_step = 0;
    }

    ActionChunk act(const Observation &observation) override
    {
        const cv::Mat image = squareImage(observation.image, 256);
        m_history.push(image);
        return m_clock.time([&] {
            torch::InferenceMode guard;
            if (!m_lowLevelOnly && needsSubgoal(m_step, m_every)) {
                const torch::Tensor tokens =
                    torch::tensor(m_prompt, torch::kLong).view({1, -1}).to(m_runtime.device);
                const torch::Tensor goal = forward(
                    m_subgoal, {imageTensor(image, m_runtime), tokens}, "the subgoal module");
                expectShape(goal, {1, 3, 256, 256}, "the subgoal module");
                m_goal = tensorImage(goal[0]);
                m_subgoals.push_back(m_goal.clone());
            }
            std::vector<torch::Tensor> frames;
            for (const auto &f : m_history.frames())
                frames.push_back(imageTensor(f, m_runtime));
            const torch::Tensor out =
                forward(m_module, {torch::stack(frames, 1), imageTensor(m_goal, m_runtime)},
                        "the low-level policy module");
            expectShape(out, {1, m_package.action.chunkLength, 7}, "the low-level policy module");
            ActionChunk chunk;
            for (const auto &normalized : tensorChunk(out)) {
                Action a = physical(normalized);
                if (m_package.action.gripperIndex) {
                    double &g = a[static_cast<std::size_t>(*m_package.action.gripperIndex)];
                    g = m_gripper.apply(g);
                }
                chunk.push_back(a);
            }
            m_step += static_cast<int>(chunk.size());
            return chunk;
        });
    }

private:
    bool m_lowLevelOnly;
    ObservationHistory m_history;
    StickyGripper m_gripper;
    Module m_module;
    Module m_subgoal;
    int m_every = 40;
    int m_step = 0;
    cv::Mat m_goal;
    std::vector<cv::Mat> m_subgoals;
    std::vector<int64_t> m_prompt;
};

// ---- world models ------------------------------------------------------------------------------

// Cosmos-Predict2 (12 actions -> 12 frames) and IRASim (15 -> 15 at 256x320): one conditioning
// frame; actions scaled by 20 on xyz and rpy inside the adapter (recorded in the identity as
// "action_scale"), then autoregressive chaining from the last generated frame. Sampling steps,
// guidance and seed are settings, so they are part of the component identity.
class TorchWorldModel final : public WorldModel
{
public:
    TorchWorldModel(ModelFamily family, const nlohmann::json &settings)
        : m_package(loadModelPackage(requirePackageSetting(settings), family)),
          m_runtime(Runtime::make(runtimeOptions(settings, m_package)))
    {
        m_module = loadModule(m_package, "module", m_runtime);
        m_frame = *m_package.frame;
        m_frame.certifiedChunkLengths = {m_package.action.chunkLength};
        m_steps = settings.value("sampling_steps", m_package.options.value("sampling_steps", 35));
        m_guidance = settings.value("guidance", m_package.options.value("guidance", 7.0));
        m_seed = settings.value("seed", 0);
        m_scale = m_package.options.value("action_scale", 20.0);
        m_module.warmUp(m_runtime.options.warmup, [&] {
            m_last = cv::Mat(m_frame.height, m_frame.width, CV_8UC3, cv::Scalar::all(127));
            generate(ActionChunk(static_cast<std::size_t>(m_package.action.chunkLength),
                                 Action(7, 0.0)));
        });
    }

    ActionContract actionContract() const override
    {
        ActionContract c = m_package.action;
        c.normalization = NormalizationScheme::None;
        return c;
    }
    FrameContract frameContract() const override { return m_frame; }
    nlohmann::json lastCallStats() const override { return m_clock.stats(m_runtime); }

    std::vector<cv::Mat> reset(const WorldStart &start) override
    {
        cv::Mat frame;
        cv::resize(startFrameOf(start, m_package.spec.name), frame,
                   cv::Size(m_frame.width, m_frame.height), 0, 0, cv::INTER_AREA);
        m_last = frame;
        m_call = 0;
        m_episodeSeed = start.seed;
        return {frame};
    }

    std::vector<cv::Mat> step(const ActionChunk &actions) override
    {
        return m_clock.time([&] { return generate(actions); });
    }

private:
    std::vector<cv::Mat> generate(const ActionChunk &actions)
    {
        torch::InferenceMode guard;
        const int n = m_package.action.chunkLength;
        if (static_cast<int>(actions.size()) != n)
            throw Error(ErrorCode::InvalidInput, m_package.spec.name + " takes chunks of " +
                                                     std::to_string(n) + " actions, got " +
                                                     std::to_string(actions.size()));
        const ActionChunk scaled = scaleForWorld(actions, m_scale);
        std::vector<float> flat;
        for (const auto &a : scaled)
            for (double v : a)
                flat.push_back(static_cast<float>(v));
        const torch::Tensor acts =
            torch::tensor(flat).view({1, n, 7}).to(m_runtime.device, m_runtime.dtype);
        // Each call gets its own seed from the run's seed, the setting and the call index.
        const int64_t seed =
            static_cast<int64_t>((m_episodeSeed ^ (static_cast<std::uint64_t>(m_seed) << 20)) +
                                 static_cast<std::uint64_t>(m_call++));
        const torch::Tensor out =
            forward(m_module,
                    {imageTensor(m_last, m_runtime), acts, torch::tensor({seed}, torch::kLong),
                     torch::tensor({static_cast<int64_t>(m_steps)}, torch::kLong),
                     torch::tensor({m_guidance}).to(m_runtime.device, m_runtime.dtype)},
                    "the " + m_package.spec.name + " module");
        expectShape(out, {1, n, 3, m_frame.height, m_frame.width},
                    "the " + m_package.spec.name + " module");
        std::vector<cv::Mat> frames;
        for (int i = 0; i < n; ++i)
            frames.push_back(tensorImage(out[0][i]));
        m_last = frames.back(); // autoregressive: the next chunk starts from here
        return frames;
    }

    ModelPackage m_package;
    Runtime m_runtime;
    Module m_module;
    FrameContract m_frame;
    int m_steps = 35;
    double m_guidance = 7.0;
    int m_seed = 0;
    double m_scale = 20.0;
    cv::Mat m_last;
    std::uint64_t m_episodeSeed = 0;
    std::uint64_t m_call = 0;
    CallClock m_clock;
};

} // namespace

Availability torchAvailability(ModelFamily family, const nlohmann::json &settings)
{
    try {
        const ModelPackage package = loadModelPackage(requirePackageSetting(settings), family);
        const Runtime runtime = Runtime::make(runtimeOptions(settings, package));
        if (const std::string why = runtimeUnsupportedReason(package, runtime); !why.empty())
            return Availability::no(why);
        return Availability::yes();
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
}

nlohmann::json torchIdentity(ModelFamily family, const nlohmann::json &settings)
{
    const ModelPackage package = loadModelPackage(requirePackageSetting(settings), family);
    const Runtime runtime = Runtime::make(runtimeOptions(settings, package));
    nlohmann::json out = {{"weights_sha256", package.manifestSha256},
                          {"details",
                           {{"package", package.identity()},
                            {"device", runtime.options.device},
                            {"dtype", runtime.options.dtype},
                            {"threads", runtime.threads},
                            {"libtorch", TORCH_VERSION}}}};
    if (runtime.options.optimize) // only where set: other components keep their run keys
        out["details"]["optimized_for_inference"] = true;
    if (package.deviceMemoryBytes) // only where declared: other packages keep their run keys
        out["details"]["device_memory_bytes"] = *package.deviceMemoryBytes;
    return out;
}

std::unique_ptr<Policy> createTorchPolicy(ModelFamily family, const nlohmann::json &settings)
{
    switch (family) {
    case ModelFamily::OpenVla:
    case ModelFamily::MiniVla:
        return std::make_unique<VlaPolicy>(family, settings);
    case ModelFamily::Octo:
        return std::make_unique<OctoPolicy>(settings);
    case ModelFamily::OpenPiZero:
        return std::make_unique<PiZeroPolicy>(settings);
    case ModelFamily::Susie:
    case ModelFamily::SusieLowLevel:
        return std::make_unique<SusiePolicy>(family, settings);
    case ModelFamily::GenericPolicy:
        return createGenericPolicy(settings);
    default:
        throw Error(ErrorCode::InvalidInput, familySpec(family).name + " is not a policy family");
    }
}

std::unique_ptr<WorldModel> createTorchWorldModel(ModelFamily family,
                                                  const nlohmann::json &settings)
{
    if (family == ModelFamily::GenericWorldModel)
        return createGenericWorldModel(settings);
    if (family != ModelFamily::Cosmos && family != ModelFamily::IraSim)
        throw Error(ErrorCode::InvalidInput,
                    familySpec(family).name + " is not a world-model family");
    return std::make_unique<TorchWorldModel>(family, settings);
}

} // namespace kosmos::torchadapters
