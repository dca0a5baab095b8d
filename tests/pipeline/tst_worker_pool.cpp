// The supervisor of worker processes (core/pipeline/WorkerPool): workers started and waited for,
// abnormal ends reported and replaced on request, a stop forwarded, and workers that outlive a
// dead supervisor told to stop by the kernel. The workers are /bin/sh scripts.
#include "pipeline/WorkerPool.h"
#include "util/Error.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {

WorkerPoolOptions shell(const std::string &script, int workers)
{
    WorkerPoolOptions options;
    options.executable = "/bin/sh";
    options.arguments = {"-c", script};
    options.workers = workers;
    return options;
}

bool waitForFile(const fs::path &path, std::chrono::milliseconds limit)
{
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
        if (fs::exists(path))
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

} // namespace

TEST(WorkerPool, NormalEndsAreNotReported)
{
    WorkerPoolOptions options = shell("exit 3", 3);
    options.normalExits = {0, 3};
    WorkerPool pool(options);
    std::atomic<bool> stop{false};
    int reported = 0;
    pool.run(stop, [&](const WorkerExit &) { return ++reported, true; });
    EXPECT_EQ(pool.started(), 3);
    EXPECT_EQ(pool.abnormalExits(), 0);
    EXPECT_EQ(reported, 0);
}

TEST(WorkerPool, ACrashIsReportedWithItsSignalAndReplacedWhileTheSupervisorAsks)
{
    test::TempDir dir;
    // The first two workers to start crash (SIGSEGV), every later one ends normally.
    const std::string counter = (dir / "n").string();
    WorkerPool pool(shell("echo x >> '" + counter + "'; n=$(wc -l < '" + counter +
                              "'); [ \"$n\" -le 2 ] && kill -SEGV $$; exit 0",
                          1));
    std::atomic<bool> stop{false};
    std::vector<WorkerExit> exits;
    pool.run(stop, [&](const WorkerExit &exit) {
        exits.push_back(exit);
        return true;
    });
    ASSERT_EQ(exits.size(), 2u);
    EXPECT_TRUE(exits[0].signalled);
    EXPECT_EQ(exits[0].signal, SIGSEGV);
    EXPECT_NE(exits[0].how().find("killed by signal 11"), std::string::npos) << exits[0].how();
    EXPECT_EQ(pool.started(), 3) << "two replacements, the last one ended normally";
}

TEST(WorkerPool, AnAbnormalStatusIsReportedAndNotReplacedWhenTheSupervisorSaysNo)
{
    WorkerPool pool(shell("exit 7", 2));
    std::atomic<bool> stop{false};
    std::vector<WorkerExit> exits;
    pool.run(stop, [&](const WorkerExit &exit) {
        exits.push_back(exit);
        return false;
    });
    ASSERT_EQ(exits.size(), 2u);
    EXPECT_FALSE(exits[0].signalled);
    EXPECT_EQ(exits[0].exitStatus, 7);
    EXPECT_EQ(exits[0].how(), "exited with status 7");
    EXPECT_EQ(pool.started(), 2);
}

TEST(WorkerPool, AStopIsForwardedToEveryWorkerAndNothingIsReplaced)
{
    test::TempDir dir;
    const std::string marks = (dir / "stopped").string();
    WorkerPool pool(shell("trap 'echo $$ >> \"" + marks +
                              "\"; exit 0' TERM; "
                              "while :; do sleep 0.05; done",
                          3));
    std::atomic<bool> stop{false};
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        stop = true;
    });
    pool.run(stop, [](const WorkerExit &) { return true; });
    stopper.join();
    std::ifstream in(marks);
    int lines = 0;
    for (std::string line; std::getline(in, line);)
        ++lines;
    EXPECT_EQ(lines, 3) << "each worker got SIGTERM once and stopped cleanly";
    EXPECT_EQ(pool.started(), 3);
}

TEST(WorkerPool, WorkersOfASupervisorThatDiedAreToldToStop)
{
    test::TempDir dir;
    const fs::path mark = dir / "orphan-stopped";
    const pid_t supervisor = ::fork();
    ASSERT_GE(supervisor, 0);
    if (supervisor == 0) {
        WorkerPool pool(shell("trap 'touch \"" + mark.string() +
                                  "\"; exit 0' TERM; "
                                  "while :; do sleep 0.05; done",
                              1));
        std::atomic<bool> stop{false};
        pool.run(stop, {});
        ::_exit(0);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the worker is running
    ::kill(supervisor, SIGKILL);
    int status = 0;
    ::waitpid(supervisor, &status, 0);
    EXPECT_TRUE(waitForFile(mark, std::chrono::seconds(10)))
        << "the kernel's SIGTERM reached the worker of a killed supervisor";
}

TEST(WorkerPool, BadOptionsAreRefusedWithTheReason)
{
    WorkerPoolOptions none = shell("exit 0", 0);
    try {
        WorkerPool pool(none);
        FAIL() << "no workers was accepted";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("at least one worker"), std::string::npos);
    }
    WorkerPoolOptions noProgram;
    EXPECT_THROW(WorkerPool pool(noProgram), Error);
}
