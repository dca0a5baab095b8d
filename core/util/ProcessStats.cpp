#include "util/ProcessStats.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace kosmos {

std::optional<std::vector<std::string>> procStatFields(std::int64_t pid)
{
    if (pid <= 0)
        return std::nullopt;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return std::nullopt;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream in(line.substr(close + 1));
    std::vector<std::string> fields;
    for (std::string field; in >> field;)
        fields.push_back(field);
    return fields;
}

std::optional<ProcessSample> sampleProcess(int pid)
{
    const std::string base = "/proc/" + std::to_string(pid);
    const auto fields = procStatFields(pid);
    if (!fields || fields->size() < 13)
        return std::nullopt;
    unsigned long long utime = 0, stime = 0;
    try {
        utime = std::stoull((*fields)[11]); // field 14
        stime = std::stoull((*fields)[12]); // field 15
    } catch (const std::exception &) {
        return std::nullopt;
    }
    std::ifstream statm(base + "/statm");
    long long pages = 0, resident = 0;
    if (!(statm >> pages >> resident))
        return std::nullopt;
    ProcessSample s;
    s.pid = pid;
    s.cpuSeconds = static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    s.rssBytes = resident * ::sysconf(_SC_PAGESIZE);
    s.takenAtMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
    return s;
}

double cpuPercent(const ProcessSample &before, const ProcessSample &after)
{
    const double wall = static_cast<double>(after.takenAtMs - before.takenAtMs) / 1000.0;
    if (wall <= 0)
        return 0;
    return 100.0 * (after.cpuSeconds - before.cpuSeconds) / wall;
}

} // namespace kosmos
