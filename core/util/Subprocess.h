#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace kosmos {

// What a finished command said and how it ended.
struct CommandResult
{
    bool started = false; // false: it could not be started (not installed); see error
    int exitCode = -1;    // -1: killed by a signal or timed out
    int signal = 0;
    bool timedOut = false;
    std::string out;
    std::string err;
    std::string error; // why it could not be started, or how it ended abnormally
    bool ok() const { return started && exitCode == 0; }
    // What it said about itself, for a message: why it could not start, else its stderr (or
    // stdout when stderr is empty), first line.
    std::string said() const;
};

// Runs argv[0] (searched in PATH) with the arguments, without a shell, and collects its output
// (each stream capped at 16 MiB). After timeoutMs it is killed (SIGKILL) and timedOut is set.
CommandResult runCommand(const std::vector<std::string> &argv, int timeoutMs = 60000);

// Starts argv[0] (searched in PATH) with stdout and stderr appended to logPath (or inherited
// when empty); returns its pid. Throws Error(Io) when it cannot be started.
pid_t startCommand(const std::vector<std::string> &argv, const std::string &logPath = {});

// Waits for a child started by startCommand: its exit status (0-255), or 128 + signal.
int waitCommand(pid_t pid);

} // namespace kosmos
