#pragma once

// What the libtorch adapters share (TorchAdapters.cpp: the named families; TorchGeneric.cpp: the
// generic ones): the runtime (device, dtype, threads), the module cache, image and action
// tensors, checked forward calls and the per-call clock. Includes libtorch: only those two
// translation units include this header (build-notes pitfalls 1-3; no Qt here).

#include "ModelPackage.h"
#include "Processing.h"
#include "TorchAdapters.h"
#include "artifacts/StartFrame.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/script.h>
#include <torch/version.h>
#if KOSMOS_TORCH_AOTI
#include <torch/csrc/inductor/aoti_package/model_package_loader.h>
#endif
#if KOSMOS_TORCH_CUDA
// Device-generic: events, streams and allocator statistics without CUDA headers in this TU.
#include <ATen/DeviceAccelerator.h>
#include <c10/core/Event.h>
#endif

#include <dlfcn.h>

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
    if (settings.contains("optimize")) {
        if (!settings["optimize"].is_boolean())
            throw Error(ErrorCode::InvalidInput, "settings.optimize must be true or false, not " +
                                                     settings["optimize"].dump());
        o.optimize = settings["optimize"].get<bool>();
    }
    if (o.threads < 0 || o.threads > 256)
        throw Error(ErrorCode::InvalidInput, "settings.threads must be 0..256");
    if (o.warmup < 0 || o.warmup > 100)
        throw Error(ErrorCode::InvalidInput, "settings.warmup must be 0..100");
    return o;
}

// A tensor against a declared shape (-1: any size), and the shape as the errors write it.
inline bool shapeMatches(const torch::Tensor &t, const std::vector<int64_t> &shape)
{
    bool ok = t.dim() == static_cast<int64_t>(shape.size());
    for (std::size_t i = 0; ok && i < shape.size(); ++i)
        ok = shape[i] < 0 || t.size(static_cast<int64_t>(i)) == shape[i];
    return ok;
}

inline std::string shapeSpecText(const std::vector<int64_t> &shape)
{
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? "," : "") + (shape[i] < 0 ? std::string("*") : std::to_string(shape[i]));
    return text + "]";
}

inline std::string libtorchVersion()
{
    return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
           std::to_string(TORCH_VERSION_PATCH);
}

// Why cuda cannot be used here, in words; empty when it can.
inline std::string cudaUnavailableReason(const std::string &device)
{
#if !KOSMOS_TORCH_CUDA
    return "device " + device + ": this plugin's libtorch " + libtorchVersion() +
           " is CPU-only (Debian's libtorch-dev); build the cuda preset against the CUDA libtorch "
           "(scripts/setup-cuda.sh, docs/gpu.md)";
#else
    if (!torch::cuda::is_available()) {
        // libtorch says only "no"; the driver library tells which of the two it is.
        if (void *driver = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL)) {
            ::dlclose(driver);
            return "device " + device +
                   ": the NVIDIA driver is installed but reports no CUDA device (check "
                   "nvidia-smi and CUDA_VISIBLE_DEVICES)";
        }
        return "device " + device +
               ": no NVIDIA driver (libcuda.so.1 cannot be loaded); this CUDA build runs on the "
               "CPU only here";
    }
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (device.rfind("cuda:", 0) == 0) {
        int index = -1;
        try {
            index = std::stoi(device.substr(5));
        } catch (const std::exception &) {
        }
        if (index < 0 || index >= count)
            return "device " + device + ": this machine has " + std::to_string(count) +
                   " CUDA device(s), cuda:0..cuda:" + std::to_string(count - 1);
    }
    return {};
#endif
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
            if (const std::string why = cudaUnavailableReason(o.device); !why.empty())
                throw Error(ErrorCode::InvalidInput, why);
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
        // Measured on the CPU in fp32 only (docs/benchmarks.md, "Modules optimized for
        // inference"); on another device or dtype the setting is refused, not ignored.
        if (o.optimize && (!r.device.is_cpu() || r.dtype != torch::kFloat))
            throw Error(ErrorCode::InvalidInput,
                        "settings.optimize is for the CPU in fp32 (where it was measured); this "
                        "component runs on " +
                            o.device + " in " + o.dtype + ": leave settings.optimize out");
        // at::set_num_threads is process-wide, and each call also rebuilds libtorch's
        // pthreadpool, whose threads spin while they start: the engine creates components per
        // run, and setting an unchanged count each time was 13.5 % of an imagined batch's CPU
        // samples (docs/benchmarks.md, "Batched episodes").
        if (o.threads > 0 && at::get_num_threads() != o.threads)
            at::set_num_threads(o.threads);
        r.threads = at::get_num_threads();
        return r;
    }
};

// The device time of the calls on this thread since the component's clock started one (CUDA
// events around each forward pass; 0 on the CPU, where the wall clock is the device's clock).
inline thread_local double t_deviceMs = 0;

inline std::string dtypeName(torch::ScalarType t)
{
    switch (t) {
    case torch::kFloat:
        return "float32";
    case torch::kBFloat16:
        return "bfloat16";
    case torch::kHalf:
        return "float16";
    case torch::kLong:
        return "int64";
    case torch::kBool:
        return "bool";
    default:
        return c10::toString(t);
    }
}

// A loaded module, TorchScript or AOTInductor, behind one call: tensors in, one tensor out.
class Module
{
public:
    Module() = default;

    torch::Tensor forward(std::vector<torch::Tensor> inputs, const std::string &what)
    {
#if KOSMOS_TORCH_CUDA
        std::optional<c10::Event> start, stop;
        std::optional<c10::Stream> stream;
        if (m_device.is_cuda()) {
            stream = at::accelerator::getCurrentStream(m_device.index());
            start.emplace(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT);
            stop.emplace(c10::DeviceType::CUDA, c10::EventFlag::BACKEND_DEFAULT);
            start->record(*stream);
        }
#endif
        torch::Tensor out = m_aoti ? runAoti(std::move(inputs), what) : runScript(inputs, what);
#if KOSMOS_TORCH_CUDA
        if (stop) {
            stop->record(*stream);
            stop->synchronize();
            t_deviceMs += start->elapsedTime(*stop);
        }
#endif
        return out;
    }

    // Warm-up passes (settings.warmup) belong to the module, not to a component: modules are
    // cached for the process and the engine creates components per run, so the first component
    // to use a module makes them and later ones skip them (one forward pass of the world model
    // a run, ~8 % of an imagined run's CPU time). A component created meanwhile waits for them;
    // a warm-up that throws is made again by the next component.
    template<class Pass>
    void warmUp(int times, Pass &&pass)
    {
        if (times > 0)
            std::call_once(*m_warm, [&] {
                for (int i = 0; i < times; ++i)
                    pass();
            });
    }

    static Module script(torch::jit::Module m, torch::Device device)
    {
        Module out;
        out.m_script = std::make_shared<torch::jit::Module>(std::move(m));
        out.m_device = device;
        return out;
    }

#if KOSMOS_TORCH_AOTI
    static Module aoti(std::shared_ptr<torch::inductor::AOTIModelPackageLoader> loader,
                       const PackageFile &file, torch::Device device)
    {
        Module out;
        out.m_aoti = std::move(loader);
        out.m_inputs = file.inputs;
        out.m_file = file.path.filename().string();
        out.m_device = device;
        return out;
    }
#endif

private:
    torch::Tensor runScript(const std::vector<torch::Tensor> &inputs, const std::string &what)
    {
        try {
            std::vector<torch::jit::IValue> values(inputs.begin(), inputs.end());
            return m_script->forward(std::move(values)).toTensor();
        } catch (const c10::Error &e) {
            throw Error(ErrorCode::InvalidInput,
                        what +
                            " failed (does the module follow the signature in docs/export.md?): " +
                            e.what_without_backtrace());
        }
    }

    torch::Tensor runAoti([[maybe_unused]] std::vector<torch::Tensor> inputs,
                          [[maybe_unused]] const std::string &what)
    {
#if KOSMOS_TORCH_AOTI
        // A compiled module reads its inputs as laid out at export: check before it runs.
        if (inputs.size() != m_inputs.size())
            throw Error(ErrorCode::InvalidInput,
                        what + " (" + m_file + ", AOTInductor) takes " +
                            std::to_string(m_inputs.size()) + " inputs; the adapter gives " +
                            std::to_string(inputs.size()) + " (docs/export.md)");
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const TensorSpec &spec = m_inputs[i];
            const torch::Tensor &t = inputs[i];
            if (!shapeMatches(t, spec.shape) || dtypeName(t.scalar_type()) != spec.dtype)
                throw Error(ErrorCode::InvalidInput,
                            what + " (" + m_file + ", AOTInductor) input " + std::to_string(i) +
                                " is " + shapeText(t) + " " + dtypeName(t.scalar_type()) +
                                "; the module was compiled for " + shapeSpecText(spec.shape) + " " +
                                spec.dtype + " (export it again for this signature)");
            inputs[i] = inputs[i].contiguous();
        }
        try {
            std::vector<torch::Tensor> out = m_aoti->boxed_run(std::move(inputs));
            if (out.size() != 1)
                throw Error(ErrorCode::InvalidInput,
                            what + " (" + m_file + ", AOTInductor) returned " +
                                std::to_string(out.size()) + " outputs; the signature has one");
            return out.front();
        } catch (const c10::Error &e) {
            throw Error(ErrorCode::InvalidInput, what + " (" + m_file + ", AOTInductor) failed: " +
                                                     e.what_without_backtrace());
        }
#else
        throw Error(ErrorCode::InvalidInput, what + ": AOTInductor is not in this build");
#endif
    }

    std::shared_ptr<torch::jit::Module> m_script;
#if KOSMOS_TORCH_AOTI
    std::shared_ptr<torch::inductor::AOTIModelPackageLoader> m_aoti;
#else
    std::shared_ptr<void> m_aoti;
#endif
    std::vector<TensorSpec> m_inputs;
    std::string m_file;
    torch::Device m_device = torch::kCPU;
    std::shared_ptr<std::once_flag> m_warm = std::make_shared<std::once_flag>();
};

// An AOTInductor package is a shared object that the loader dlopens; it resolves libtorch's C
// shim (aoti_torch_*) from the global scope. A plugin loaded by the host (QPluginLoader) brings
// libtorch in with local scope, so the package would not find those symbols ("undefined symbol:
// aoti_torch_dtype_float32"): libtorch's libraries, already loaded, are promoted to global scope
// once (RTLD_NOLOAD loads nothing new).
inline void exposeLibtorchGlobally()
{
    static std::once_flag once;
    std::call_once(once, [] {
        for (const char *name :
             {"libc10.so", "libtorch_cpu.so", "libtorch.so", "libc10_cuda.so", "libtorch_cuda.so"})
            ::dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    });
}

// Whether this build can run a package's modules on the resolved device and dtype, and why not
// (checked by availability before any run, and again at load).
inline std::string runtimeUnsupportedReason(const ModelPackage &package, const Runtime &rt)
{
    for (const auto &[role, f] : package.files) {
        if (f.runtime != "aoti")
            continue;
        const std::string file = "files." + role + " (" + f.path.filename().string() + ")";
#if !KOSMOS_TORCH_AOTI
        return file + " is an AOTInductor package; this plugin's libtorch " + libtorchVersion() +
               " cannot load those (AOTInductor needs torch 2.6 or newer): build the cuda preset "
               "(scripts/setup-cuda.sh, docs/gpu.md) or export the module as TorchScript";
#endif
        const std::string &dtype = rt.options.dtype; // "fp32", "bf16" or "fp16", checked by make()
        if (f.compiledDevice != (rt.device.is_cuda() ? "cuda" : "cpu") || f.compiledDtype != dtype)
            return file + " is an AOTInductor package compiled for " + f.compiledDevice + " " +
                   f.compiledDtype + "; it cannot run on " + rt.device.str() + " " + dtype +
                   " (export it again for that device and dtype: tools/export/kosmos_export.py "
                   "--runtime aoti, docs/export.md)";
    }
    return {};
}

// settings.optimize: the module frozen (parameters and attributes folded into the graph as
// constants) and rewritten for inference (convolutions with their weights prepacked for oneDNN,
// adjacent operations fused). On this project's CPUs a batch-1 forward pass of the shipped
// policy takes a third of the time and the world model's 0.7-0.8 of it: libtorch's own heuristic
// runs small convolutions without oneDNN. Outputs move within float rounding (tested against the
// module as exported). AOTInductor packages are compiled already and are not touched.
inline torch::jit::Module optimizedForInference(const torch::jit::Module &m,
                                                const std::string &role, const PackageFile &f)
{
    try {
        torch::jit::Module frozen = torch::jit::freeze(m);
        return torch::jit::optimize_for_inference(frozen);
    } catch (const c10::Error &e) {
        throw Error(ErrorCode::InvalidInput,
                    "files." + role + " (" + f.path.filename().string() +
                        ") could not be optimized for inference (settings.optimize; leave it out "
                        "to run the module as exported): " +
                        e.what_without_backtrace());
    }
}

// Loaded modules are kept for the life of the process, keyed by file hash, device and dtype:
// the engine creates a component per run, and a 7B-parameter module must not be read from disk
// for every episode. Inference does not change a module, so runs share it.
inline Module loadModule(const ModelPackage &package, const std::string &role, const Runtime &rt)
{
    const PackageFile &f = package.file(role);
    static std::mutex mutex;
    static std::map<std::string, Module> cache;
    // An AOTInductor module's inputs come from the manifest: the manifest is part of its key.
    const std::string key = f.sha256 + " " + rt.device.str() + " " + c10::toString(rt.dtype) +
                            (f.runtime == "aoti" ? " " + package.manifestSha256 : "") +
                            (rt.options.optimize && f.runtime != "aoti" ? " optimized" : "");
    std::lock_guard lock(mutex);
    if (const auto it = cache.find(key); it != cache.end())
        return it->second;
    if (f.runtime == "aoti") {
        if (const std::string why = runtimeUnsupportedReason(package, rt); !why.empty())
            throw Error(ErrorCode::InvalidInput, why);
#if KOSMOS_TORCH_AOTI
        exposeLibtorchGlobally();
        try {
            auto loader = std::make_shared<torch::inductor::AOTIModelPackageLoader>(
                f.path.string(), "model", false, 1,
                rt.device.is_cuda() ? rt.device.index() : c10::DeviceIndex(-1));
            Module m = Module::aoti(std::move(loader), f, rt.device);
            cache.emplace(key, m);
            return m;
        } catch (const c10::Error &e) {
            throw Error(
                ErrorCode::InvalidInput,
                "files." + role + " (" + f.path.filename().string() +
                    ") is not a loadable AOTInductor package: " + e.what_without_backtrace());
        } catch (const std::exception &e) {
            throw Error(ErrorCode::InvalidInput,
                        "files." + role + " (" + f.path.filename().string() +
                            ") is not a loadable AOTInductor package: " + e.what());
        }
#endif
    }
    try {
        torch::jit::Module m = torch::jit::load(f.path.string(), rt.device);
        m.eval();
        m.to(rt.device, rt.dtype);
        if (rt.options.optimize)
            m = optimizedForInference(m, role, f);
        Module module = Module::script(std::move(m), rt.device);
        cache.emplace(key, module);
        return module;
    } catch (const c10::Error &e) {
        throw Error(ErrorCode::InvalidInput,
                    "files." + role + " (" + f.path.filename().string() +
                        ") is not a loadable TorchScript module: " + e.what_without_backtrace());
    }
}

// RGB uint8 HxWx3 -> [1, 3, H, W] in [0, 1] on the runtime's device and dtype.
// On CUDA through pinned host memory, so the copy is a DMA the stream orders, not a staged one.
inline torch::Tensor imageTensor(const cv::Mat &rgb, const Runtime &rt)
{
    std::vector<float> chw = chwFloat(rgb);
    const torch::Tensor host =
        torch::from_blob(chw.data(), {1, 3, rgb.rows, rgb.cols}, torch::kFloat);
    if (rt.device.is_cuda())
        return host.pin_memory().to(rt.device, rt.dtype, /*non_blocking=*/true);
    return host.clone().to(rt.device, rt.dtype);
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

inline torch::Tensor forward(Module &module, std::vector<torch::Tensor> inputs,
                             const std::string &what)
{
    return module.forward(std::move(inputs), what);
}

inline void expectShape(const torch::Tensor &t, const std::vector<int64_t> &shape,
                        const std::string &what)
{
    if (!shapeMatches(t, shape))
        throw Error(ErrorCode::InvalidInput, "output shape mismatch: " + what + " returned " +
                                                 shapeText(t) + ", the signature says " +
                                                 shapeSpecText(shape));
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
        t_deviceMs = 0;
        const auto start = std::chrono::steady_clock::now();
        auto result = f();
        m_lastMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        m_lastDeviceMs = t_deviceMs;
        ++m_calls;
        m_totalMs += m_lastMs;
        return result;
    }
    // For the step's event: this call (wall clock, the host's work and the synchronising copy
    // back included), the running mean, peak RSS; on CUDA also the device time of the forward
    // passes (events on the stream) and the caching allocator's statistics.
    nlohmann::json stats(const Runtime &rt) const
    {
        if (m_calls == 0)
            return nullptr;
        nlohmann::json out = {
            {"call_ms", std::round(m_lastMs * 1000) / 1000},
            {"mean_call_ms", std::round(m_totalMs / static_cast<double>(m_calls) * 1000) / 1000},
            {"calls", m_calls},
            {"peak_rss_bytes", peakRssBytes()},
            {"device", rt.device.str()}};
#if KOSMOS_TORCH_CUDA
        if (rt.device.is_cuda()) {
            const c10::DeviceIndex index = rt.device.has_index() ? rt.device.index() : 0;
            const auto memory = at::accelerator::getDeviceStats(index);
            constexpr std::size_t all = 0; // StatType::AGGREGATE
            out["device_ms"] = std::round(m_lastDeviceMs * 1000) / 1000;
            out["cuda_allocated_bytes"] = memory.allocated_bytes[all].current;
            out["cuda_reserved_bytes"] = memory.reserved_bytes[all].current;
            out["cuda_peak_allocated_bytes"] = memory.allocated_bytes[all].peak;
        }
#endif
        return out;
    }

    // A call made for several episodes at once (actBatch, stepBatch): each episode's clock
    // counts it as its own last call.
    void shareLast(const CallClock &from)
    {
        m_lastMs = from.m_lastMs;
        m_lastDeviceMs = from.m_lastDeviceMs;
        ++m_calls;
        m_totalMs += m_lastMs;
    }

private:
    double m_lastMs = 0;
    double m_lastDeviceMs = 0;
    double m_totalMs = 0;
    std::int64_t m_calls = 0;
};

// Inputs of several episodes stacked along the batch dimension (each [1, ...]).
inline std::vector<torch::Tensor> stackInputs(const std::vector<std::vector<torch::Tensor>> &each)
{
    std::vector<torch::Tensor> out;
    for (std::size_t k = 0; k < each.front().size(); ++k) {
        std::vector<torch::Tensor> parts;
        for (const auto &inputs : each)
            parts.push_back(inputs[k]);
        out.push_back(torch::cat(parts, 0));
    }
    return out;
}

// The output shape of a signature ([1, ...]) for a batch of n.
inline std::vector<int64_t> batchedShape(std::vector<int64_t> shape, std::size_t n)
{
    if (!shape.empty())
        shape[0] = static_cast<int64_t>(n);
    return shape;
}

// The conditioning frame of a world model: given by the engine, or the task's start_state names
// an image ("frame") with its SHA-256 ("frame_sha256"), both part of the frozen protocol.
inline cv::Mat startFrameOf(const WorldStart &start, const std::string &who)
{
    return start.startFrame.empty() ? startFrameFromState(start.startState, who) : start.startFrame;
}

} // namespace kosmos::torchadapters::detail
