#include "pipeline/WorkerPool.h"

#include "util/Error.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace kosmos {

std::string WorkerExit::how() const
{
    if (signalled)
        return "killed by signal " + std::to_string(signal) + " (" + ::strsignal(signal) + ")";
    return "exited with status " + std::to_string(exitStatus);
}

WorkerPool::WorkerPool(WorkerPoolOptions options) : m_options(std::move(options))
{
    if (m_options.executable.empty())
        throw Error(ErrorCode::InvalidInput, "a worker pool needs the program its workers run");
    if (m_options.workers < 1)
        throw Error(ErrorCode::InvalidInput, "a worker pool needs at least one worker, not " +
                                                 std::to_string(m_options.workers));
    m_argvText.push_back(m_options.executable);
    m_argvText.insert(m_argvText.end(), m_options.arguments.begin(), m_options.arguments.end());
}

pid_t WorkerPool::spawn()
{
    // Everything the child needs is made before fork: after it, only async-signal-safe calls.
    std::vector<char *> argv;
    for (std::string &arg : m_argvText)
        argv.push_back(arg.data());
    argv.push_back(nullptr);
    const pid_t supervisor = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != supervisor)
            ::_exit(m_options.orphanExitStatus);
        ::execv(argv[0], argv.data());
        static constexpr char kFailed[] = "kosmos: exec of a worker process failed\n";
        [[maybe_unused]] const auto written = ::write(STDERR_FILENO, kFailed, sizeof kFailed - 1);
        ::_exit(127);
    }
    if (pid < 0)
        throw Error(ErrorCode::Io, std::string("cannot start a worker process (fork failed: ") +
                                       std::strerror(errno) + ")");
    ++m_started;
    return pid;
}

void WorkerPool::run(const std::atomic<bool> &stop,
                     const std::function<bool(const WorkerExit &)> &onAbnormalExit)
{
    std::set<pid_t> live;
    for (int i = 0; i < m_options.workers; ++i)
        live.insert(spawn());
    bool forwarded = false;
    while (!live.empty()) {
        if (stop && !forwarded) { // each worker cancels its run and stops
            for (const pid_t pid : live)
                ::kill(pid, SIGTERM);
            forwarded = true;
        }
        int status = 0;
        const pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(m_options.pollMs));
            continue;
        }
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break; // no child left to wait for
        }
        if (!live.erase(pid))
            continue; // a child this pool did not start
        WorkerExit exit;
        exit.pid = pid;
        exit.signalled = WIFSIGNALED(status);
        exit.signal = exit.signalled ? WTERMSIG(status) : 0;
        exit.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
        const bool abnormal = exit.signalled || !m_options.normalExits.count(exit.exitStatus);
        if (!abnormal)
            continue;
        ++m_abnormal;
        const bool replace = onAbnormalExit ? onAbnormalExit(exit) : false;
        if (replace && !stop)
            live.insert(spawn());
    }
}

} // namespace kosmos
