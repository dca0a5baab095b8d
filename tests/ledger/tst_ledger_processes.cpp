// Tests with real child processes: crash safety under SIGKILL, concurrent submission and
// lease takeover. The child is tests/tools/LedgerTool.cpp.
#include "ledger/Ledger.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/ProcessIdentity.h"
#include "util/Sha256.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <csignal>
#include <random>
#include <sstream>
#include <sys/wait.h>
#include <thread>

using namespace kosmos;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

std::string dump(const VerifyReport &r)
{
    std::string out;
    for (const auto &p : r.problems)
        out += p.check + " | " + p.where + " | " + p.message + "\n";
    return out;
}

// Every file under objects/ (outside tmp/) must hold exactly the content its name says.
void expectNoPartialObjects(const fs::path &objects)
{
    for (const auto &entry : fs::recursive_directory_iterator(objects)) {
        if (!entry.is_regular_file() || entry.path().parent_path().filename() == "tmp")
            continue;
        const std::string name =
            entry.path().parent_path().filename().string() + entry.path().filename().string();
        EXPECT_EQ(Sha256::fileHex(entry.path()), name)
            << "partial object visible: " << entry.path();
    }
}

} // namespace

TEST(LedgerProcesses, SurvivesSigkillAtAHundredRandomMoments)
{
    TempDir dir;
    const fs::path bundle = dir / "crash.kosmos";
    {
        Ledger::create(bundle);
    }
    std::mt19937 rng(20261202);
    // The kill lands at a random moment of the child's writing: the timer starts when the child
    // reports that its ledger is open (process start-up is not what is being tested).
    std::uniform_int_distribution<int> delayMs(5, 200);
    std::size_t committedTotal = 0;

    for (int round = 0; round < 100; ++round) {
        const fs::path log = dir / ("committed-" + std::to_string(round) + ".log");
        const pid_t pid = test::startProcess(
            {test::toolPath(), "write", bundle.string(), log.string(), std::to_string(round)});
        for (int wait = 0; wait < 1000 && test::readFile(log).find("ready") == std::string::npos;
             ++wait)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::this_thread::sleep_for(std::chrono::milliseconds(delayMs(rng)));
        ::kill(pid, SIGKILL);
        const auto result = test::waitProcess(pid);
        ASSERT_TRUE(result.signal == SIGKILL || result.exitCode == 0)
            << "round " << round << ": writer failed on its own (exit " << result.exitCode << ")";

        Ledger ledger = Ledger::open(bundle);
        const VerifyReport report = verifyLedger(ledger);
        ASSERT_TRUE(report.clean()) << "round " << round << ":\n" << dump(report);

        // Every attempt the child reported as committed is intact: finished, sealed, its
        // artifacts present and verified.
        std::istringstream lines(test::readFile(log));
        std::string word;
        std::int64_t attemptId = 0;
        std::int64_t runId = 0;
        while (lines >> word) {
            if (word == "ready")
                continue;
            ASSERT_EQ(word, "committed");
            lines >> attemptId >> runId;
            const auto attempts = ledger.attempts(runId);
            const auto it =
                std::find_if(attempts.begin(), attempts.end(),
                             [&](const AttemptRecord &a) { return a.attemptId == attemptId; });
            ASSERT_NE(it, attempts.end()) << "committed attempt " << attemptId << " is gone";
            EXPECT_EQ(it->state, "completed");
            ASSERT_TRUE(it->sealSha256);
            EXPECT_EQ(*it->sealSha256, ledger.computeSeal(attemptId));
            ++committedTotal;
        }
        if (round % 10 == 9)
            expectNoPartialObjects(bundle / "objects");
    }
    expectNoPartialObjects(bundle / "objects");
    Ledger ledger = Ledger::open(bundle);
    const auto info = ledger.info();
    EXPECT_GT(committedTotal, 20u) << "the writer hardly committed anything; the test is too weak";
    EXPECT_GT(info.artifacts, 20);
    std::cout << "[ crash ] " << committedTotal << " committed attempts, " << info.runs << " runs, "
              << info.attempts << " attempts, " << info.events << " events, " << info.artifacts
              << " artifacts survived 100 SIGKILLs\n";
}

TEST(LedgerProcesses, TwoWritersAndAFollowerLoseNothing)
{
    TempDir dir;
    const fs::path bundle = dir / "busy.kosmos";
    {
        Ledger::create(bundle);
    }
    Ledger follower = Ledger::open(bundle, {OpenMode::ReadOnly});
    const pid_t a = test::startProcess(
        {test::toolPath(), "write", bundle.string(), (dir / "a.log").string(), "1"});
    const pid_t b = test::startProcess(
        {test::toolPath(), "write", bundle.string(), (dir / "b.log").string(), "2"});

    // Follow the global event stream while both write: at least 2.5 s, and until the writers
    // have committed enough for the checks below to mean something (a sanitizer build on a
    // loaded machine commits far fewer attempts a second), at most 60 s.
    auto committedSoFar = [&] {
        std::size_t n = 0;
        for (const char *log : {"a.log", "b.log"}) {
            std::istringstream lines(test::readFile(dir / log));
            for (std::string line; std::getline(lines, line);)
                n += line.rfind("committed ", 0) == 0;
        }
        return n;
    };
    std::int64_t last = 0;
    std::int64_t seen = 0;
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() < start + std::chrono::milliseconds(2500) ||
           (committedSoFar() <= 12 &&
            std::chrono::steady_clock::now() < start + std::chrono::seconds(60))) {
        for (const auto &e : follower.eventsSince(last)) {
            ASSERT_GT(e.eventId, last) << "event ids went backwards";
            last = e.eventId;
            ++seen;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::kill(a, SIGKILL);
    ::kill(b, SIGKILL);
    test::waitProcess(a);
    test::waitProcess(b);
    for (const auto &e : follower.eventsSince(last)) {
        ASSERT_GT(e.eventId, last);
        last = e.eventId;
        ++seen;
    }

    Ledger ledger = Ledger::open(bundle);
    const auto info = ledger.info();
    EXPECT_EQ(seen, info.events) << "the follower missed events";
    std::size_t committed = 0;
    for (const char *log : {"a.log", "b.log"}) {
        std::istringstream lines(test::readFile(dir / log));
        std::string word;
        std::int64_t attemptId = 0, runId = 0;
        while (lines >> word) {
            if (word == "ready")
                continue;
            lines >> attemptId >> runId;
            const auto attempts = ledger.attempts(runId);
            const bool found =
                std::any_of(attempts.begin(), attempts.end(), [&](const AttemptRecord &x) {
                    return x.attemptId == attemptId && x.state == "completed";
                });
            EXPECT_TRUE(found) << "committed attempt " << attemptId << " lost";
            ++committed;
        }
    }
    EXPECT_GT(committed, 10u);
    const auto report = verifyLedger(ledger);
    EXPECT_TRUE(report.clean()) << dump(report);
}

TEST(LedgerProcesses, TwoProcessesSubmittingTheSameRunGetOneRun)
{
    TempDir dir;
    const fs::path bundle = dir / "race.kosmos";
    std::string protocol;
    {
        Ledger ledger = Ledger::create(bundle);
        protocol = ledger.freezeProtocol("p", test::testProtocol());
    }
    for (int episode = 0; episode < 5; ++episode) {
        const std::int64_t startAt = nowMs() + 300;
        const fs::path outA = dir / "a.out";
        const fs::path outB = dir / "b.out";
        const std::vector<std::string> common = {test::toolPath(),        "submit",
                                                 bundle.string(),         protocol,
                                                 std::to_string(episode), std::to_string(startAt)};
        const pid_t a = test::startProcess(common, outA);
        const pid_t b = test::startProcess(common, outB);
        ASSERT_EQ(test::waitProcess(a).exitCode, 0);
        ASSERT_EQ(test::waitProcess(b).exitCode, 0);
        std::int64_t runA = 0, runB = 0;
        int createdA = 0, createdB = 0;
        std::istringstream(test::readFile(outA)) >> runA >> createdA;
        std::istringstream(test::readFile(outB)) >> runB >> createdB;
        EXPECT_GT(runA, 0);
        EXPECT_EQ(runA, runB) << "episode " << episode;
        EXPECT_EQ(createdA + createdB, 1) << "exactly one process creates the run";
    }
    Ledger ledger = Ledger::open(bundle);
    EXPECT_EQ(ledger.info().runs, 5);
    EXPECT_TRUE(verifyLedger(ledger).clean());
}

TEST(LedgerProcesses, AnExpiredLeaseIsTakenOverByAnotherProcessAndLateWritesAreRefused)
{
    TempDir dir;
    const fs::path bundle = dir / "lease.kosmos";
    Ledger ledger = Ledger::create(bundle);
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    const auto run = ledger.submitRun(test::testRunSpec(protocol, 0));

    auto mine = ledger.claim("worker-a", 2000);
    ASSERT_TRUE(mine);
    ledger.appendEvent(*mine, "progress", {{"step", 1}});
    ledger.putArtifact(*mine, "frame", "f0.png", test::testImage(8, 8, 1), "image/png");

    // While the lease is alive, another process cannot take the run.
    auto early = test::runProcess({test::toolPath(), "claim", bundle.string(), "worker-b", "5000"});
    EXPECT_EQ(early.exitCode, 3) << early.output;

    std::this_thread::sleep_for(std::chrono::milliseconds(2200)); // worker-a stalls
    auto taken = test::runProcess({test::toolPath(), "claim", bundle.string(), "worker-b", "5000"});
    ASSERT_EQ(taken.exitCode, 0) << taken.output;
    std::int64_t runId = 0, attemptId = 0;
    int attemptNo = 0;
    std::istringstream(taken.output) >> runId >> attemptId >> attemptNo;
    EXPECT_EQ(runId, run.runId);
    EXPECT_EQ(attemptNo, 2);

    // worker-a wakes up: every write is refused.
    for (const auto &write : std::vector<std::function<void()>>{
             [&] { ledger.appendEvent(*mine, "late"); }, [&] { ledger.heartbeat(*mine, 1000); },
             [&] {
                 ledger.putArtifact(*mine, "frame", "f1.png", test::testImage(8, 8, 2),
                                    "image/png");
             },
             [&] { ledger.finishAttempt(*mine, AttemptOutcome::completed()); }}) {
        try {
            write();
            ADD_FAILURE() << "a late write under the lost lease was accepted";
        } catch (const Error &e) {
            EXPECT_EQ(e.code(), ErrorCode::LeaseLost) << e.what();
        }
    }
    const auto attempts = ledger.attempts(run.runId);
    ASSERT_EQ(attempts.size(), 2u);
    EXPECT_EQ(attempts[0].state, "abandoned");
    EXPECT_EQ(attempts[1].state, "running");
    EXPECT_EQ(attempts[1].workerId, "worker-b");
    // The abandoned attempt keeps its events and artifacts.
    int kept = 0;
    for (const auto &e : ledger.events(run.runId))
        kept += e.attemptId == attempts[0].attemptId;
    EXPECT_EQ(kept, 3) << "attempt_started, progress, attempt_abandoned";
    EXPECT_EQ(ledger.info().artifacts, 1);
    EXPECT_TRUE(verifyLedger(ledger).clean());
}

TEST(LedgerProcesses, ALeaseOfAProcessThatDiedIsTakenOverAtOnceNotAfterExpiry)
{
    TempDir dir;
    const fs::path bundle = dir / "dead.kosmos";
    Ledger ledger = Ledger::create(bundle);
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    const auto run = ledger.submitRun(test::testRunSpec(protocol, 0));

    // A worker in another process claims the run with a 10-minute lease and stays alive.
    const fs::path out = dir / "hold.out";
    const pid_t holder = test::startProcess(
        {test::toolPath(), "hold", bundle.string(), "worker-dies", "600000"}, out);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (test::readFile(out).empty() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_FALSE(test::readFile(out).empty()) << "the holder never claimed";

    // Alive: nobody else may take it, not even by naming the run.
    EXPECT_FALSE(ledger.claim("worker-next", 5000));
    EXPECT_FALSE(ledger.claim("worker-next", 5000, run.runId));

    // Killed: the next claim takes it over at once, 10 minutes before the lease would expire.
    ::kill(holder, SIGKILL);
    test::waitProcess(holder);
    const auto taken = ledger.claim("worker-next", 5000);
    ASSERT_TRUE(taken) << "a dead process's lease was not taken over";
    EXPECT_EQ(taken->runId, run.runId);
    EXPECT_EQ(taken->attemptNo, 2);
    const auto attempts = ledger.attempts(run.runId);
    ASSERT_EQ(attempts.size(), 2u);
    EXPECT_EQ(attempts[0].state, "abandoned");
    EXPECT_EQ(attempts[0].errorCode, "worker_died");
    EXPECT_NE(attempts[0].errorMessage.value_or("").find("no longer runs"), std::string::npos)
        << attempts[0].errorMessage.value_or("");
    ledger.finishAttempt(*taken, AttemptOutcome::completed());
    EXPECT_TRUE(verifyLedger(ledger).clean());
}

TEST(LedgerProcesses, ADeadWorkerWhoseSupervisorRunsIsLeftToTheSupervisor)
{
    TempDir dir;
    const fs::path bundle = dir / "supervised.kosmos";
    Ledger ledger = Ledger::create(bundle);
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    const auto run = ledger.submitRun(test::testRunSpec(protocol, 0));

    // A worker declared supervised by its parent (this test, as `run --isolate` is for its
    // worker processes) claims the run with a 10-minute lease.
    const fs::path out = dir / "hold.out";
    const pid_t holder = test::startProcess(
        {test::toolPath(), "hold-supervised", bundle.string(), "kosmos-cli-w-", "600000"}, out);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (test::readFile(out).empty() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_FALSE(test::readFile(out).empty()) << "the holder never claimed";

    // Killed and not yet reaped (a zombie), then reaped: either way its supervisor still runs,
    // so a sibling does not take the attempt over (the race that lost the crash's signal).
    ProcessIdentity held = ProcessIdentity::current();
    held.pid = holder;
    held.startTicks = processStartTicks(holder);
    ::kill(holder, SIGKILL);
    while (!provablyDead(held) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(provablyDead(held));
    EXPECT_FALSE(ledger.claim("sibling", 5000)) << "taken over from a zombie with a supervisor";
    int status = 0;
    ASSERT_EQ(::waitpid(holder, &status, 0), holder);
    EXPECT_FALSE(ledger.claim("sibling", 5000)) << "taken over before the supervisor recorded";

    // The supervisor records how it ended; the run can then be retried as any failed run.
    const auto closed = ledger.failAttemptsOfDeadWorker(
        "kosmos-cli-w-",
        AttemptOutcome::failed("worker_crashed", "worker process killed by signal 9", SIGKILL));
    ASSERT_EQ(closed.size(), 1u);
    const auto attempts = ledger.attempts(run.runId);
    ASSERT_EQ(attempts.size(), 1u);
    EXPECT_EQ(attempts[0].state, "failed");
    EXPECT_EQ(attempts[0].errorCode, "worker_crashed");
    EXPECT_EQ(attempts[0].exitSignal, SIGKILL);
    EXPECT_EQ(ledger.run(run.runId)->status, "failed");
    EXPECT_TRUE(verifyLedger(ledger).clean());

    // A supervisor that is itself gone no longer protects its worker's lease.
    ProcessIdentity orphan = ProcessIdentity::current();
    orphan.pid = 999999999;
    orphan.supervisorPid = 999999998;
    orphan.supervisorStartTicks = 1;
    EXPECT_TRUE(provablyDead(orphan));
    EXPECT_FALSE(supervisorRuns(orphan));
    ProcessIdentity guarded = orphan;
    guarded.supervisorPid = ProcessIdentity::current().pid;
    guarded.supervisorStartTicks = ProcessIdentity::current().startTicks;
    EXPECT_TRUE(supervisorRuns(guarded));
    EXPECT_TRUE(supervisorRuns(ProcessIdentity::fromJson(guarded.toJson())));
}

TEST(LedgerProcesses, AProcessIdentityIsDeadOnlyWhenProvablySo)
{
    const ProcessIdentity &self = ProcessIdentity::current();
    EXPECT_GT(self.pid, 0);
    EXPECT_GT(self.startTicks, 0);
    EXPECT_FALSE(self.bootId.empty());
    EXPECT_FALSE(provablyDead(self));
    EXPECT_FALSE(provablyDead(ProcessIdentity::fromJson(self.toJson())));

    ProcessIdentity reused = self;
    reused.startTicks += 1; // the same PID, started at another time: another process
    EXPECT_TRUE(provablyDead(reused));

    ProcessIdentity elsewhere = self;
    elsewhere.host = "another-host";
    elsewhere.pid = 999999999;
    EXPECT_FALSE(provablyDead(elsewhere)) << "nothing is proven about another host";
    ProcessIdentity rebooted = elsewhere;
    rebooted.host = self.host;
    rebooted.bootId = "00000000-0000-0000-0000-000000000000";
    EXPECT_FALSE(provablyDead(rebooted)) << "nor about another boot";
    EXPECT_FALSE(provablyDead(ProcessIdentity::fromJson(nlohmann::json::object())))
        << "an attempt recorded without an identity only expires";
    ProcessIdentity gone = self;
    gone.pid = 999999999; // above pid_max: no such process
    EXPECT_TRUE(provablyDead(gone));
}
