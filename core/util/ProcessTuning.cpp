#include "util/ProcessTuning.h"

#include <nlohmann/json.hpp>

#include <malloc.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kosmos {

namespace {

// What applyProcessTuning did, for processTuningJson.
struct ProcessTuning
{
    bool applied = false;                // false: KOSMOS_PROCESS_TUNING=0
    std::size_t mallocMmapThreshold = 0; // 0: left to glibc (or to the user's setting)
    std::size_t mallocTrimThreshold = 0;
    std::string ompWaitPolicy; // the value in the environment after tuning ("" unset)
};

ProcessTuning g_tuning;
bool g_done = false;

bool envSet(const char *name)
{
    const char *v = std::getenv(name);
    return v && *v;
}

bool userTunesMalloc()
{
    const char *tunables = std::getenv("GLIBC_TUNABLES");
    return (tunables && std::strstr(tunables, "glibc.malloc.")) ||
           envSet("MALLOC_MMAP_THRESHOLD_") || envSet("MALLOC_TRIM_THRESHOLD_");
}

} // namespace

void applyProcessTuning()
{
    if (g_done)
        return;
    g_done = true;
    const char *off = std::getenv("KOSMOS_PROCESS_TUNING");
    if (off && std::strcmp(off, "0") == 0) {
        if (const char *omp = std::getenv("OMP_WAIT_POLICY"))
            g_tuning.ompWaitPolicy = omp;
        return;
    }
    g_tuning.applied = true;
    if (!userTunesMalloc()) {
        // 32 MiB is the largest threshold glibc accepts on 64-bit (half its heaps' size).
        constexpr std::size_t kMmap = std::size_t{32} << 20;
        constexpr std::size_t kTrim = std::size_t{256} << 20;
        if (::mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmap)) == 1)
            g_tuning.mallocMmapThreshold = kMmap;
        if (::mallopt(M_TRIM_THRESHOLD, static_cast<int>(kTrim)) == 1)
            g_tuning.mallocTrimThreshold = kTrim;
    }
    if (!envSet("OMP_WAIT_POLICY"))
        ::setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
    g_tuning.ompWaitPolicy = std::getenv("OMP_WAIT_POLICY");
}

nlohmann::json processTuningJson()
{
    const ProcessTuning &t = g_tuning;
    nlohmann::json out = {{"tuned", t.applied}};
    out["malloc_mmap_threshold"] =
        t.mallocMmapThreshold ? nlohmann::json(t.mallocMmapThreshold) : nlohmann::json(nullptr);
    out["malloc_trim_threshold"] =
        t.mallocTrimThreshold ? nlohmann::json(t.mallocTrimThreshold) : nlohmann::json(nullptr);
    out["omp_wait_policy"] =
        t.ompWaitPolicy.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.ompWaitPolicy);
    return out;
}

} // namespace kosmos
