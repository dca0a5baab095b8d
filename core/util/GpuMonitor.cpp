#include "GpuMonitor.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <type_traits>

namespace kosmos {

namespace {

// The few NVML entry points used here, as nvml.h (CUDA toolkit) declares them; the _v2/_v3
// suffixes are NVML's ABI versions, so these declarations stay valid across drivers.
using nvmlReturn = int;
using nvmlDevice = struct nvmlDeviceOpaque *;
struct nvmlMemory
{
    unsigned long long total, free, used;
};
struct nvmlUtilization
{
    unsigned int gpu, memory;
};
struct nvmlProcessInfo // nvmlProcessInfo_v2_t, which the _v3 query fills
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
};
constexpr nvmlReturn kSuccess = 0;
constexpr nvmlReturn kInsufficientSize = 7;

std::string gib(std::int64_t bytes)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / (1ll << 30));
    return text;
}

} // namespace

struct GpuMonitor::Api
{
    void *handle = nullptr;
    std::string library;
    nvmlReturn (*init)() = nullptr;
    nvmlReturn (*shutdown)() = nullptr;
    const char *(*errorString)(nvmlReturn) = nullptr;
    nvmlReturn (*driverVersion)(char *, unsigned int) = nullptr;
    nvmlReturn (*count)(unsigned int *) = nullptr;
    nvmlReturn (*byIndex)(unsigned int, nvmlDevice *) = nullptr;
    nvmlReturn (*name)(nvmlDevice, char *, unsigned int) = nullptr;
    nvmlReturn (*memory)(nvmlDevice, nvmlMemory *) = nullptr;
    nvmlReturn (*utilization)(nvmlDevice, nvmlUtilization *) = nullptr;
    nvmlReturn (*processes)(nvmlDevice, unsigned int *, nvmlProcessInfo *) = nullptr; // optional

    std::string error(nvmlReturn r) const
    {
        return errorString ? std::string(errorString(r)) : "NVML error " + std::to_string(r);
    }
};

GpuMonitor::GpuMonitor(const std::string &library)
{
    std::string path = library;
    if (path.empty()) {
        const char *env = std::getenv("KOSMOS_NVML_LIBRARY");
        path = env && *env ? env : "libnvidia-ml.so.1";
    }
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        m_reason = "no NVIDIA driver (" + path + " cannot be loaded)";
        return;
    }
    auto api = std::make_unique<Api>();
    api->handle = handle;
    api->library = path;
    auto bind = [&](auto &fn, const char *symbol) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(handle, symbol));
        return fn != nullptr;
    };
    bind(api->errorString, "nvmlErrorString");
    bind(api->processes, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (!bind(api->init, "nvmlInit_v2") || !bind(api->shutdown, "nvmlShutdown") ||
        !bind(api->driverVersion, "nvmlSystemGetDriverVersion") ||
        !bind(api->count, "nvmlDeviceGetCount_v2") ||
        !bind(api->byIndex, "nvmlDeviceGetHandleByIndex_v2") ||
        !bind(api->name, "nvmlDeviceGetName") || !bind(api->memory, "nvmlDeviceGetMemoryInfo") ||
        !bind(api->utilization, "nvmlDeviceGetUtilizationRates")) {
        m_reason = path + " is not a usable NVML library (an entry point is missing)";
        ::dlclose(handle);
        return;
    }
    if (const nvmlReturn r = api->init(); r != kSuccess) {
        m_reason = "the NVIDIA driver did not start NVML: " + api->error(r);
        ::dlclose(handle);
        return;
    }
    m_api = std::move(api);
}

GpuMonitor::~GpuMonitor()
{
    if (m_api) {
        m_api->shutdown();
        ::dlclose(m_api->handle);
    }
}

GpuMonitor &GpuMonitor::instance()
{
    static GpuMonitor monitor;
    return monitor;
}

GpuSnapshot GpuMonitor::sample() const
{
    GpuSnapshot s;
    if (!m_api) {
        s.reason = m_reason;
        return s;
    }
    std::lock_guard lock(m_mutex);
    char text[96] = {};
    if (m_api->driverVersion(text, sizeof text) == kSuccess)
        s.driverVersion = text;
    unsigned int count = 0;
    if (const nvmlReturn r = m_api->count(&count); r != kSuccess) {
        s.reason = "NVML cannot count the devices: " + m_api->error(r);
        return s;
    }
    for (unsigned int i = 0; i < count && i < 64; ++i) {
        nvmlDevice device = nullptr;
        if (m_api->byIndex(i, &device) != kSuccess)
            continue; // e.g. a device the caller may not see
        GpuDevice d;
        d.index = static_cast<int>(i);
        char name[96] = {};
        if (m_api->name(device, name, sizeof name) == kSuccess)
            d.name = name;
        nvmlMemory memory{};
        if (m_api->memory(device, &memory) == kSuccess) {
            d.totalBytes = static_cast<std::int64_t>(memory.total);
            d.usedBytes = static_cast<std::int64_t>(memory.used);
            d.freeBytes = static_cast<std::int64_t>(memory.free);
        }
        nvmlUtilization busy{};
        if (m_api->utilization(device, &busy) == kSuccess) {
            d.utilizationPercent = static_cast<int>(busy.gpu);
            d.memoryUtilizationPercent = static_cast<int>(busy.memory);
        }
        if (m_api->processes) {
            std::vector<nvmlProcessInfo> infos(64);
            auto n = static_cast<unsigned int>(infos.size());
            const nvmlReturn r = m_api->processes(device, &n, infos.data());
            if (r == kSuccess || r == kInsufficientSize)
                for (unsigned int k = 0; k < n && k < infos.size(); ++k)
                    d.processes.push_back({static_cast<int>(infos[k].pid),
                                           static_cast<std::int64_t>(infos[k].usedGpuMemory)});
        }
        s.devices.push_back(std::move(d));
    }
    s.available = true;
    if (s.devices.empty())
        s.reason = "the NVIDIA driver reports no device";
    return s;
}

nlohmann::json GpuSnapshot::toJson() const
{
    nlohmann::json out = {{"available", available}};
    if (!reason.empty())
        out["reason"] = reason;
    if (!driverVersion.empty())
        out["driver"] = driverVersion;
    nlohmann::json list = nlohmann::json::array();
    for (const GpuDevice &d : devices) {
        nlohmann::json processes = nlohmann::json::array();
        for (const GpuProcess &p : d.processes)
            processes.push_back({{"pid", p.pid}, {"used_bytes", p.usedBytes}});
        list.push_back({{"index", d.index},
                        {"name", d.name},
                        {"total_bytes", d.totalBytes},
                        {"used_bytes", d.usedBytes},
                        {"free_bytes", d.freeBytes},
                        {"utilization_percent", d.utilizationPercent},
                        {"memory_utilization_percent", d.memoryUtilizationPercent},
                        {"processes", processes}});
    }
    out["devices"] = list;
    return out;
}

std::string GpuSnapshot::summary() const
{
    if (!available || devices.empty())
        return "GPU: " + reason;
    std::string out;
    for (const GpuDevice &d : devices) {
        if (!out.empty())
            out += "; ";
        out += "GPU " + std::to_string(d.index) + " " + d.name + ": " + gib(d.usedBytes) + " of " +
               gib(d.totalBytes) + " GiB used";
        if (d.utilizationPercent >= 0)
            out += ", " + std::to_string(d.utilizationPercent) + "% busy";
    }
    return out;
}

std::string gpuBudgetProblem(const std::vector<std::pair<std::string, std::int64_t>> &perDevice,
                             const GpuSnapshot &snapshot)
{
    std::map<int, std::int64_t> wanted;
    std::map<int, std::vector<std::string>> who;
    for (const auto &[device, bytes] : perDevice) {
        if (device.rfind("cuda", 0) != 0)
            continue;
        int index = 0;
        if (device.size() > 5 && device[4] == ':')
            index = std::atoi(device.c_str() + 5);
        wanted[index] += bytes;
    }
    if (wanted.empty())
        return {};
    if (!snapshot.available || snapshot.devices.empty())
        return "the batch runs on CUDA but " +
               (snapshot.reason.empty() ? std::string("no GPU is visible") : snapshot.reason);
    std::string problems;
    for (const auto &[index, bytes] : wanted) {
        const GpuDevice *device = nullptr;
        for (const GpuDevice &d : snapshot.devices)
            if (d.index == index)
                device = &d;
        if (!device) {
            problems += (problems.empty() ? "" : "; ") + std::string("cuda:") +
                        std::to_string(index) + " does not exist (this machine has " +
                        std::to_string(snapshot.devices.size()) + " GPU(s))";
            continue;
        }
        if (bytes > device->freeBytes)
            problems += (problems.empty() ? "" : "; ") + std::string("cuda:") +
                        std::to_string(index) + " (" + device->name + "): the components declare " +
                        gib(bytes) + " GiB, " + gib(device->freeBytes) + " GiB of " +
                        gib(device->totalBytes) + " GiB are free";
    }
    return problems;
}

} // namespace kosmos
