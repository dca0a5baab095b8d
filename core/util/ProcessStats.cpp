#include "util/ProcessStats.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace kosmos {

std::optional<ProcessSample> sampleProcess(int pid)
{
    const std::string base = "/proc/" + std::to_string(pid);
    std::ifstream stat(base + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return std::nullopt;
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const auto close = line.rfind(')');
    if (close == std::string::npos)
        return std::nullopt;
    std::istringstream fields(line.substr(close + 2));
    std::string field;
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14)
            utime = std::stoull(field);
        if (i == 15)
            stime = std::stoull(field);
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
