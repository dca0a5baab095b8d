#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

// What Linux reports about a running process (/proc/<pid>/stat and statm): for the
// workstation's resource view of its worker processes.
struct ProcessSample
{
    int pid = 0;
    double cpuSeconds = 0;      // user + system time so far
    std::int64_t rssBytes = 0;  // resident set size now
    std::int64_t takenAtMs = 0; // steady clock
};

// nullopt when the process does not exist (any more) or /proc cannot be read.
std::optional<ProcessSample> sampleProcess(int pid);

// The fields of /proc/<pid>/stat after the command name (which may hold spaces and
// parentheses): element 0 is field 3 (state), element 19 field 22 (start time in clock ticks).
// nullopt when the process does not exist or its stat cannot be read.
std::optional<std::vector<std::string>> procStatFields(std::int64_t pid);

// CPU use between two samples of one process, in percent of one core.
double cpuPercent(const ProcessSample &before, const ProcessSample &after);

} // namespace kosmos
