#pragma once

#include <atomic>
#include <functional>
#include <set>
#include <string>
#include <sys/types.h>
#include <vector>

namespace kosmos {

// How one worker process ended.
struct WorkerExit
{
    pid_t pid = 0;
    bool signalled = false;
    int signal = 0;     // when signalled
    int exitStatus = 0; // when it exited
    // "killed by signal 11 (Segmentation fault)" or "exited with status 3".
    std::string how() const;
};

struct WorkerPoolOptions
{
    std::string executable;             // the program every worker runs (execv, no PATH search)
    std::vector<std::string> arguments; // its arguments (argv[1] ...)
    int workers = 1;
    // Exit statuses that are a worker's normal end; any other status, or a signal, is abnormal.
    std::set<int> normalExits{0};
    // The status a worker exits with, before running anything, when its supervisor was already
    // gone by the time it started.
    int orphanExitStatus = 130;
    // How often the pool looks at `stop` while its workers run.
    int pollMs = 50;
};

// Worker processes under one supervisor (`kosmos-cli run --isolate`, the workstation's batches):
// N processes started with fork + execv, each told by the kernel to stop (SIGTERM) when its
// supervisor dies, whatever the reason (PR_SET_PDEATHSIG, with the race of a supervisor that died
// before it closed). A worker that dies by a signal or exits abnormally is reported, and replaced
// when the supervisor says so, until the pool is stopped.
class WorkerPool
{
public:
    explicit WorkerPool(WorkerPoolOptions options);

    // Starts the workers and returns once every one has ended (replacements included). When
    // `stop` becomes true each live worker gets SIGTERM once (a worker cancels its run cleanly),
    // and no replacement starts. onAbnormalExit is called for each abnormal end and returns
    // whether to start a replacement. Throws Error(Io) when no worker process can be started.
    void run(const std::atomic<bool> &stop,
             const std::function<bool(const WorkerExit &)> &onAbnormalExit);

    int started() const { return m_started; }
    int abnormalExits() const { return m_abnormal; }

private:
    pid_t spawn();

    WorkerPoolOptions m_options;
    std::vector<std::string> m_argvText;
    int m_started = 0;
    int m_abnormal = 0;
};

} // namespace kosmos
