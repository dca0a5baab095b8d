// The one translation unit of the libtorch adapters that includes libtorch. No Qt here (Qt's
// `slots` macro breaks the torch headers; build-notes pitfall 1).
#include "TorchAdapters.h"

#include "Processing.h"
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

namespace {

std::string shapeText(const torch::Tensor &t)
{
    std::ostringstream s;
    s << "[";
    for (int64_t i = 0; i < t.dim(); ++i)
        s << (i ? "," : "") << t.size(i);
    s << "]";
    return s.str();
}

std::string requirePackageSetting(const nlohmann::json &settings)
{
    if (!settings.is_object() || !settings.contains("package") ||
        !settings["package"].is_string() || settings["package"].get<std::string>().empty())
        throw Error(ErrorCode::InvalidInput,
                    "settings.package is not set: it must name a model package folder with "
                    "kosmos-model.json (docs/export.md)");
    return settings["package"].get<std::string>();
}

RuntimeOptions runtimeOptions(const nlohmann::json &settings, const ModelPackage &package)
{
    RuntimeOptions o;
    o.device = settings.value("device", package.defaultDevice);
    o.dtype = settings.value("dtype", package.defaultDtype);
    o.threads = settings.value("threads", 0);
    o.warmup = settings.value("warmup", 1);
    if (o.threads < 0 || o.threads > 256)
        throw Error(ErrorCode::InvalidInput, "settings.threads must be 0..256");
    if (o.warmup < 0 || o.warmup > 100)
        throw Error(ErrorCode::InvalidInput, "settings.warmup must be 0..100");
    return o;
}

struct Runtime
{
    torch::Device device = torch::kCPU;
    torch::ScalarType dtype = torch::kFloat;
    int threads = 1;
    RuntimeOptions options;

    static Runtime make(const RuntimeOptions &o)
    {
        Runtime r;
        r.options = o;
        if (o.device == "cpu") {
            r.device = torch::kCPU;
        } else if (o.device == "cuda" || o.device.rfind("cuda:", 0) == 0) {
            if (!torch::cuda::is_available())
                throw Error(ErrorCode::InvalidInput,
                            "device " + o.device +
                                ": no CUDA in this libtorch (Debian's libtorch-dev is CPU-only; "
                                "build against an official CUDA libtorch with -DTorch_DIR=..., "
                                "tools/gpu-check.sh)");
            r.device = torch::Device(o.device);
        } else {
            throw Error(ErrorCode::InvalidInput,
                        "settings.device must be cpu, cuda or cuda:N, not '" + o.device + "'");
        }
        if (o.dtype == "fp32")
            r.dtype = torch::kFloat;
        else if (o.dtype == "bf16")
            r.dtype = torch::kBFloat16;
        else if (o.dtype == "fp16") {
            if (r.device.is_cpu())
                throw Error(ErrorCode::InvalidInput,
                            "settings.dtype fp16 needs a CUDA device (libtorch's CPU kernels do "
                            "not cover half precision); use fp32 or bf16 on the CPU");
            r.dtype = torch::kHalf;
        } else {
            throw Error(ErrorCode::InvalidInput,
                        "settings.dtype must be fp32, bf16 or fp16, not '" + o.dtype + "'");
        }
        if (o.threads > 0)
            at::set_num_threads(o.threads);
        r.threads = at::get_num_threads();
        return r;
    }
};

// Loaded modules are kept for the life of the process, keyed by file hash, device and dtype:
// the engine creates a component per run, and a 7B-parameter module must not be read from disk
// for every episode. Inference does not change a module, so runs share it.
torch::jit::Module loadModule(const ModelPackage &package, const std::string &role,
                              const Runtime &rt)
{
    const PackageFile &f = package.file(role);
    static std::mutex mutex;
    static std::map<std::string, torch::jit::Module> cache;
    const std::string key = f.sha256 + " " + rt.device.str() + " " + c10::toString(rt.dtype);
    std::lock_guard lock(mutex);
    if (const auto it = cache.find(key); it != cache.end())
        return it->second;
    try {
        torch::jit::Module m = torch::jit::load(f.path.string(), rt.device);
        m.eval();
        m.to(rt.device, rt.dtype);
        cache.emplace(key, m);
        return m;
    } catch (const c10::Error &e) {
        throw Error(ErrorCode::InvalidInput,
                    "files." + role + " (" + f.path.filename().string() +
                        ") is not a loadable TorchScript module: " + e.what_without_backtrace());
    }
}

// RGB uint8 HxWx3 -> [1, 3, H, W] in [0, 1] on the runtime's device and dtype.
torch::Tensor imageTensor(const cv::Mat &rgb, const Runtime &rt)
{
    std::vector<float> chw = chwFloat(rgb);
    return torch::from_blob(chw.data(), {1, 3, rgb.rows, rgb.cols}, torch::kFloat)
        .clone()
        .to(rt.device, rt.dtype);
}

// [3, H, W] in [0, 1] -> RGB uint8.
cv::Mat tensorImage(const torch::Tensor &chw)
{
    const torch::Tensor t = (chw.to(torch::kCPU, torch::kFloat).clamp(0, 1) * 255.0)
                                .round()
                                .to(torch::kUInt8)
                                .permute({1, 2, 0})
                                .contiguous();
    cv::Mat image(static_cast<int>(t.size(0)), static_cast<int>(t.size(1)), CV_8UC3);
    std::memcpy(image.data, t.data_ptr<uint8_t>(), static_cast<std::size_t>(t.numel()));
    return image;
}

torch::Tensor forward(torch::jit::Module &module, std::vector<torch::jit::IValue> inputs,
                      const std::string &what)
{
    try {
        return module.forward(std::move(inputs)).toTensor();
    } catch (const c10::Error &e) {
        throw Error(ErrorCode::InvalidInput,
                    what + " failed (does the module follow the signature in docs/export.md?): " +
                        e.what_without_backtrace());
    }
}

void expectShape(const torch::Tensor &t, const std::vector<int64_t> &shape, const std::string &what)
{
    bool ok = t.dim() == static_cast<int64_t>(shape.size());
    for (std::size_t i = 0; ok && i < shape.size(); ++i)
        ok = shape[i] < 0 || t.size(static_cast<int64_t>(i)) == shape[i];
    if (!ok) {
        std::string expected = "[";
        for (std::size_t i = 0; i < shape.size(); ++i)
            expected +=
                (i ? "," : "") + (shape[i] < 0 ? std::string("*") : std::to_string(shape[i]));
        throw Error(ErrorCode::InvalidInput, "output shape mismatch: " + what + " returned " +
                                                 shapeText(t) + ", the signature says " + expected +
                                                 "]");
    }
}

// [1, N, D] -> N actions.
ActionChunk tensorChunk(const torch::Tensor &t)
{
    const torch::Tensor c = t.to(torch::kCPU, torch::kDouble).contiguous();
    ActionChunk out(static_cast<std::size_t>(c.size(1)));
    const double *data = c.data_ptr<double>();
    for (int64_t i = 0; i < c.size(1); ++i)
        out[static_cast<std::size_t>(i)].assign(data + i * c.size(2), data + (i + 1) * c.size(2));
    return out;
}

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

// The process's peak resident set (VmHWM), bytes; 0 where /proc cannot be read.
std::int64_t peakRssBytes()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stoll(line.substr(6)) * 1024;
    return 0;
}

// The component's own view of time: per-call milliseconds, the warm-up excluded.
class CallClock
{
public:
    template<typename F>
    auto time(F &&f)
    {
        const auto start = std::chrono::steady_clock::now();
        auto result = f();
        m_lastMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        ++m_calls;
        m_totalMs += m_lastMs;
        return result;
    }
    // For the step's event: this call, the running mean, peak RSS. CUDA allocator statistics
    // would join here on a CUDA build (Debian's libtorch is CPU-only).
    nlohmann::json stats(const Runtime &rt) const
    {
        if (m_calls == 0)
            return nullptr;
        return {
            {"call_ms", std::round(m_lastMs * 1000) / 1000},
            {"mean_call_ms", std::round(m_totalMs / static_cast<double>(m_calls) * 1000) / 1000},
            {"calls", m_calls},
            {"peak_rss_bytes", peakRssBytes()},
            {"device", rt.device.str()}};
    }

private:
    double m_lastMs = 0;
    double m_totalMs = 0;
    std::int64_t m_calls = 0;
};

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
        for (int i = 0; i < m_runtime.options.warmup; ++i) {
            std::vector<int64_t> ids = {1, 2, 3};
            runStep(torch::zeros({1, 3, 224, 224}).to(m_runtime.device, m_runtime.dtype), ids);
        }
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
    torch::jit::Module m_module;
    std::optional<torch::jit::Module> m_vqDecoder;
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
    torch::jit::Module m_module;
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
    torch::jit::Module m_module;
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
    torch::jit::Module m_module;
    torch::jit::Module m_subgoal;
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
        for (int i = 0; i < m_runtime.options.warmup; ++i) {
            m_last = cv::Mat(m_frame.height, m_frame.width, CV_8UC3, cv::Scalar::all(127));
            generate(ActionChunk(static_cast<std::size_t>(m_package.action.chunkLength),
                                 Action(7, 0.0)));
        }
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
        cv::resize(startFrame(start), frame, cv::Size(m_frame.width, m_frame.height), 0, 0,
                   cv::INTER_AREA);
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
    // The conditioning frame: given by the engine, or the task's start_state names an image
    // ("frame") with its SHA-256 ("frame_sha256"), both part of the frozen protocol.
    cv::Mat startFrame(const WorldStart &start) const
    {
        if (!start.startFrame.empty())
            return start.startFrame;
        const auto &s = start.startState;
        if (!s.is_object() || !s.contains("frame") || !s["frame"].is_string() ||
            !s.contains("frame_sha256") || !s["frame_sha256"].is_string())
            throw Error(ErrorCode::InvalidInput,
                        m_package.spec.name + " needs a start frame: the task's start_state must "
                                              "name \"frame\" (an image file) and "
                                              "\"frame_sha256\"");
        const std::string path = s["frame"].get<std::string>();
        const std::string actual = Sha256::fileHex(path);
        if (actual != s["frame_sha256"].get<std::string>())
            throw Error(ErrorCode::Corrupt,
                        "start_state.frame " + path + ": SHA-256 mismatch (the protocol says " +
                            s["frame_sha256"].get<std::string>().substr(0, 16) +
                            "..., the file has " + actual.substr(0, 16) + "...)");
        cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR);
        if (bgr.empty())
            throw Error(ErrorCode::InvalidInput, "start_state.frame " + path + " is not an image");
        cv::Mat rgb;
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        return rgb;
    }

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
    torch::jit::Module m_module;
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
        Runtime::make(runtimeOptions(settings, package));
        return Availability::yes();
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
}

nlohmann::json torchIdentity(ModelFamily family, const nlohmann::json &settings)
{
    const ModelPackage package = loadModelPackage(requirePackageSetting(settings), family);
    const Runtime runtime = Runtime::make(runtimeOptions(settings, package));
    return {{"weights_sha256", package.manifestSha256},
            {"details",
             {{"package", package.identity()},
              {"device", runtime.options.device},
              {"dtype", runtime.options.dtype},
              {"threads", runtime.threads},
              {"libtorch", TORCH_VERSION}}}};
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
    default:
        throw Error(ErrorCode::InvalidInput, familySpec(family).name + " is not a policy family");
    }
}

std::unique_ptr<WorldModel> createTorchWorldModel(ModelFamily family,
                                                  const nlohmann::json &settings)
{
    if (family != ModelFamily::Cosmos && family != ModelFamily::IraSim)
        throw Error(ErrorCode::InvalidInput,
                    familySpec(family).name + " is not a world-model family");
    return std::make_unique<TorchWorldModel>(family, settings);
}

} // namespace kosmos::torchadapters
