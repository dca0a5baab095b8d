#pragma once

// NVIDIA GPUs as the driver reports them (NVML), for the progress dock, the attempt events,
// the launcher's device list and the budget check before a batch. libnvidia-ml.so.1 is loaded at
// run time with dlopen, so a machine without the NVIDIA driver still starts: it is told "no
// NVIDIA driver" instead. KOSMOS_NVML_LIBRARY names another library (the tests' fake NVML).

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kosmos {

struct GpuProcess
{
    int pid = 0;
    std::int64_t usedBytes = 0; // device memory this process holds on the device
};

struct GpuDevice
{
    int index = 0;
    std::string name;
    std::int64_t totalBytes = 0;
    std::int64_t usedBytes = 0;
    std::int64_t freeBytes = 0;
    int utilizationPercent = -1;       // kernels running, last sample period; -1 unknown
    int memoryUtilizationPercent = -1; // memory controller busy; -1 unknown
    std::vector<GpuProcess> processes; // compute processes, where the driver says
};

struct GpuSnapshot
{
    bool available = false;
    std::string reason; // why not, in words ("no NVIDIA driver (...)")
    std::string driverVersion;
    std::vector<GpuDevice> devices;

    // {"available": ..., "reason"|"driver", "devices": [{index, name, total_bytes, ...}]}
    nlohmann::json toJson() const;
    // One line for people: "GPU 0 NVIDIA H200: 12.0 of 139.8 GiB used, 45% busy; ..."
    std::string summary() const;
};

class GpuMonitor
{
public:
    // library: empty for $KOSMOS_NVML_LIBRARY, else libnvidia-ml.so.1.
    explicit GpuMonitor(const std::string &library = {});
    ~GpuMonitor();
    GpuMonitor(const GpuMonitor &) = delete;
    GpuMonitor &operator=(const GpuMonitor &) = delete;

    // Never throws: a failure is a snapshot with available = false and the reason.
    GpuSnapshot sample() const;

    // The process's shared monitor (NVML is initialised once per process).
    static GpuMonitor &instance();

private:
    struct Api;
    std::unique_ptr<Api> m_api;
    std::string m_reason;
    mutable std::mutex m_mutex;
};

// The memory a batch declares (model packages' "requirements") against the free memory of the
// devices it names. Empty when it fits or nothing runs on CUDA; otherwise the refusal with the
// numbers. perDevice: "cuda:0" -> declared bytes.
std::string gpuBudgetProblem(const std::vector<std::pair<std::string, std::int64_t>> &perDevice,
                             const GpuSnapshot &snapshot);

} // namespace kosmos
