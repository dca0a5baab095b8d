#pragma once

// What the libtorch adapters share (TorchAdapters.cpp: the named families; TorchGeneric.cpp: the
// generic ones): the runtime (device, dtype, threads), the module cache, image and action
// tensors, checked forward calls and the per-call clock. Includes libtorch: only those two
// translation units include this header (build-notes pitfalls 1-3; no Qt here).

#include "ModelPackage.h"
#include "Processing.h"
#include "TorchAdapters.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/script.h>

#include <opencv2/core/mat.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

namespace kosmos::torchadapters::detail {

inline std::string shapeText(const torch::Tensor &t)
{
    std::ostringstream s;
    s << "[";
    for (int64_t i = 0; i < t.dim(); ++i)
        s << (i ? "," : "") << t.size(i);
    s << "]";
    return s.str();
}

inline std::string requirePackageSetting(const nlohmann::json &settings)
{
    if (!settings.is_object() || !settings.contains("package") ||
        !settings["package"].is_string() || settings["package"].get<std::string>().empty())
        throw Error(ErrorCode::InvalidInput,
                    "settings.package is not set: it must name a model package folder with "
                    "kosmos-model.json (docs/export.md)");
    return settings["package"].get<std::string>();
}

inline RuntimeOptions runtimeOptions(const nlohmann::json &settings, const ModelPackage &package)
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
inline torch::jit::Module loadModule(const ModelPackage &package, const std::string &role,
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
inline torch::Tensor imageTensor(const cv::Mat &rgb, const Runtime &rt)
{
    std::vector<float> chw = chwFloat(rgb);
    return torch::from_blob(chw.data(), {1, 3, rgb.rows, rgb.cols}, torch::kFloat)
        .clone()
        .to(rt.device, rt.dtype);
}

// [3, H, W] in [0, 1] -> RGB uint8.
inline cv::Mat tensorImage(const torch::Tensor &chw)
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

inline torch::Tensor forward(torch::jit::Module &module, std::vector<torch::jit::IValue> inputs,
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

inline void expectShape(const torch::Tensor &t, const std::vector<int64_t> &shape,
                        const std::string &what)
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
inline ActionChunk tensorChunk(const torch::Tensor &t)
{
    const torch::Tensor c = t.to(torch::kCPU, torch::kDouble).contiguous();
    ActionChunk out(static_cast<std::size_t>(c.size(1)));
    const double *data = c.data_ptr<double>();
    for (int64_t i = 0; i < c.size(1); ++i)
        out[static_cast<std::size_t>(i)].assign(data + i * c.size(2), data + (i + 1) * c.size(2));
    return out;
}

// The process's peak resident set (VmHWM), bytes; 0 where /proc cannot be read.
inline std::int64_t peakRssBytes()
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

// The conditioning frame of a world model: given by the engine, or the task's start_state names
// an image ("frame") with its SHA-256 ("frame_sha256"), both part of the frozen protocol.
inline cv::Mat startFrameOf(const WorldStart &start, const std::string &who)
{
    if (!start.startFrame.empty())
        return start.startFrame;
    const auto &s = start.startState;
    if (!s.is_object() || !s.contains("frame") || !s["frame"].is_string() ||
        !s.contains("frame_sha256") || !s["frame_sha256"].is_string())
        throw Error(ErrorCode::InvalidInput,
                    who + " needs a start frame: the task's start_state must name \"frame\" (an "
                          "image file) and \"frame_sha256\"");
    const std::string path = s["frame"].get<std::string>();
    const std::string actual = Sha256::fileHex(path);
    if (actual != s["frame_sha256"].get<std::string>())
        throw Error(ErrorCode::Corrupt, "start_state.frame " + path +
                                            ": SHA-256 mismatch (the protocol says " +
                                            s["frame_sha256"].get<std::string>().substr(0, 16) +
                                            "..., the file has " + actual.substr(0, 16) + "...)");
    cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR);
    if (bgr.empty())
        throw Error(ErrorCode::InvalidInput, "start_state.frame " + path + " is not an image");
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

} // namespace kosmos::torchadapters::detail
