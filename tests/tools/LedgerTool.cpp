// kosmos-test-ledger-tool: a child process for the multi-process ledger tests.
//   write BUNDLE LOG ROUND            write runs, events, artifacts, judgments until killed;
//                                     once the ledger is open, append "ready" to LOG; after
//                                     each finished attempt commits, "committed ATTEMPT_ID RUN_ID"
//   submit BUNDLE PROTOCOL EPISODE T  at wall-clock time T (ms) submit the test run spec;
//                                     print "RUN_ID CREATED(0/1)"
//   claim BUNDLE WORKER LEASE_MS      claim a run and leave the attempt running;
//                                     print "RUN_ID ATTEMPT_ID ATTEMPT_NO", exit 3 if none
//   emit BUNDLE COUNT DELAY_MS        claim a run, append COUNT events DELAY_MS apart, finish
//   hold BUNDLE WORKER LEASE_MS [RUN] claim a run (or RUN), print as claim does, then sleep
//                                     without renewing until killed (a worker that dies)
//   hold-supervised BUNDLE WORKER LEASE_MS   the same, declared supervised by its parent
#include "ledger/Ledger.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/ProcessIdentity.h"

#include "TestSupport.h"

#include <fcntl.h>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <unistd.h>

using namespace kosmos;

namespace {

int write(const std::string &bundle, const std::string &log, int round)
{
    Ledger ledger = Ledger::open(bundle);
    const std::string protocol = ledger.freezeProtocol("crash", test::testProtocol());
    const int logFd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    const std::string worker = "writer-" + std::to_string(round);
    const std::string ready = "ready\n"; // the parent starts its kill timer from here
    if (::write(logFd, ready.data(), ready.size()) < 0)
        return 4;
    for (int i = 0;; ++i) {
        const auto seed = static_cast<std::uint32_t>(round * 100000 + i);
        ledger.submitRun(test::testRunSpec(protocol, round * 100000 + i));
        auto lease = ledger.claim(worker, 1000); // may take over a run a killed writer left
        if (!lease)
            continue;
        ledger.appendEvent(*lease, "stage", {{"stage", "policy"}});
        ledger.appendEvents(*lease,
                            {{"step", {{"i", 0}}}, {"step", {{"i", 1}}}, {"step", {{"i", 2}}}});
        const auto frame =
            ledger.putArtifact(*lease, "frame", "frame_0000.png",
                               test::testImage(24, 24, static_cast<int>(seed % 50)), "image/png");
        const auto blob = ledger.putArtifact(*lease, "actions", "actions.bin",
                                             test::randomBytes(1000 + seed % 150000, seed),
                                             "application/octet-stream");
        ledger.addProvenance(*lease, frame, blob, "conditioned_on");
        ledger.recordValidation(*lease, {"stage_a", "1", "valid", {}, nullptr});
        ledger.recordJudgment(*lease, test::testJudgment());
        ledger.appendEvent(*lease, "stage", {{"stage", "done"}});
        ledger.finishAttempt(*lease, AttemptOutcome::completed());
        const std::string line = "committed " + std::to_string(lease->attemptId) + " " +
                                 std::to_string(lease->runId) + "\n";
        if (::write(logFd, line.data(), line.size()) < 0)
            return 4;
    }
}

int submit(const std::string &bundle, const std::string &protocol, std::int64_t episode,
           std::int64_t startAtMs)
{
    Ledger ledger = Ledger::open(bundle);
    while (nowMs() < startAtMs) {
    }
    const auto result = ledger.submitRun(test::testRunSpec(protocol, episode));
    std::cout << result.runId << " " << (result.created ? 1 : 0) << "\n";
    return 0;
}

int claim(const std::string &bundle, const std::string &worker, std::int64_t leaseMs)
{
    Ledger ledger = Ledger::open(bundle);
    const auto lease = ledger.claim(worker, leaseMs);
    if (!lease) {
        std::cout << "nothing to claim\n";
        return 3;
    }
    ledger.appendEvent(*lease, "claimed_by_tool");
    std::cout << lease->runId << " " << lease->attemptId << " " << lease->attemptNo << "\n";
    return 0;
}

// Claims the oldest claimable run (or the given one) and holds its lease without renewing it
// until killed: a worker that dies mid-run.
int hold(const std::string &bundle, const std::string &worker, std::int64_t leaseMs,
         std::optional<std::int64_t> runId)
{
    Ledger ledger = Ledger::open(bundle);
    const auto lease = ledger.claim(worker, leaseMs, runId);
    if (!lease) {
        std::cout << "nothing to claim" << std::endl;
        return 3;
    }
    std::cout << lease->runId << " " << lease->attemptId << " " << lease->attemptNo << std::endl;
    for (;;)
        std::this_thread::sleep_for(std::chrono::seconds(1));
}

int emit(const std::string &bundle, int count, int delayMs)
{
    Ledger ledger = Ledger::open(bundle);
    auto lease = ledger.claim("emitter", 60000);
    if (!lease)
        return 3;
    for (int i = 0; i < count; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
        ledger.appendEvent(*lease, "tick", {{"i", i}});
    }
    ledger.finishAttempt(*lease, AttemptOutcome::completed());
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    const std::vector<std::string> a(argv + 1, argv + argc);
    try {
        if (a.size() == 4 && a[0] == "write")
            return write(a[1], a[2], std::stoi(a[3]));
        if (a.size() == 5 && a[0] == "submit")
            return submit(a[1], a[2], std::stoll(a[3]), std::stoll(a[4]));
        if (a.size() == 4 && a[0] == "claim")
            return claim(a[1], a[2], std::stoll(a[3]));
        if ((a.size() == 4 || a.size() == 5) && a[0] == "hold")
            return hold(a[1], a[2], std::stoll(a[3]),
                        a.size() == 5 ? std::optional<std::int64_t>(std::stoll(a[4]))
                                      : std::nullopt);
        if (a.size() == 4 && a[0] == "hold-supervised") {
            ProcessIdentity::declareSupervisedByParent();
            return hold(a[1], a[2], std::stoll(a[3]), std::nullopt);
        }
        if (a.size() == 4 && a[0] == "emit")
            return emit(a[1], std::stoi(a[2]), std::stoi(a[3]));
    } catch (const Error &e) {
        std::cerr << "ledger tool: " << e.what() << "\n";
        return 4;
    }
    std::cerr << "usage: see the comment at the top of tests/tools/LedgerTool.cpp\n";
    return 2;
}
