// A stand-in for libnvidia-ml.so.1 with the entry points GpuMonitor uses: two devices with
// fixed figures, and the calling process on device 0 (KOSMOS_NVML_LIBRARY points at it in
// tests; FAKE_NVML_FAIL_INIT=1 makes nvmlInit fail as a broken driver does).

#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace {
struct Memory
{
    unsigned long long total, free, used;
};
struct Utilization
{
    unsigned int gpu, memory;
};
struct ProcessInfo
{
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
};
int devices[2];
constexpr unsigned long long kGiB = 1ull << 30;
} // namespace

extern "C" {

__attribute__((visibility("default"))) int nvmlInit_v2()
{
    const char *fail = std::getenv("FAKE_NVML_FAIL_INIT");
    return fail && *fail == '1' ? 9 : 0; // NVML_ERROR_DRIVER_NOT_LOADED
}
__attribute__((visibility("default"))) int nvmlShutdown()
{
    return 0;
}
__attribute__((visibility("default"))) const char *nvmlErrorString(int r)
{
    return r == 9 ? "Driver Not Loaded" : "Unknown Error";
}
__attribute__((visibility("default"))) int nvmlSystemGetDriverVersion(char *text, unsigned int n)
{
    std::strncpy(text, "999.99-fake", n);
    return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned int *count)
{
    *count = 2;
    return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d)
{
    if (i > 1)
        return 2; // NVML_ERROR_INVALID_ARGUMENT
    *d = &devices[i];
    return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetName(void *d, char *text, unsigned int n)
{
    std::strncpy(text, d == &devices[0] ? "Fake GPU A" : "Fake GPU B", n);
    return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetMemoryInfo(void *d, Memory *m)
{
    m->total = 80 * kGiB;
    m->used = d == &devices[0] ? 60 * kGiB : 2 * kGiB;
    m->free = m->total - m->used;
    return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetUtilizationRates(void *d, Utilization *u)
{
    u->gpu = d == &devices[0] ? 87 : 0;
    u->memory = d == &devices[0] ? 40 : 0;
    return 0;
}
__attribute__((visibility("default"))) int
nvmlDeviceGetComputeRunningProcesses_v3(void *d, unsigned int *count, ProcessInfo *infos)
{
    if (d != &devices[0]) {
        *count = 0;
        return 0;
    }
    if (*count < 1) {
        *count = 1;
        return 7; // NVML_ERROR_INSUFFICIENT_SIZE
    }
    *count = 1;
    infos[0] = {static_cast<unsigned int>(::getpid()), 3 * kGiB, 0, 0};
    return 0;
}
}
