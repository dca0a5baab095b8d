#pragma once

#include "ledger/LeaseKeeper.h"
#include "ledger/Ledger.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kosmos {

// How an attempt ended, as its holder saw it.
enum class AttemptResult
{
    Completed,
    Failed,
    Cancelled,
    Interrupted, // stopped by its process (a signal): failed as 'interrupted', run requeued
    LeaseLost    // the lease was lost (expired and taken over): nothing more was written
};
std::string_view attemptResultName(AttemptResult result);

// One attempt at one run, from claim to end: the only way the engine, the importer and
// re-judging write a run. It claims the run, keeps the lease alive from a background thread
// (LeaseKeeper) however long a call takes, buffers events and writes them in one transaction at
// flush() and before the end, and ends the attempt exactly once: complete() seals it, cancel()
// and fail() record why. If the scope is left without an end (an exception, an early return), the
// destructor records the attempt as failed (`internal`) with everything it wrote kept and sealed:
// a scope never leaks a `running` attempt. Not thread-safe: one holder thread.
class AttemptScope
{
public:
    struct Options
    {
        std::string workerId;
        std::int64_t leaseMs = 30000;
        std::int64_t heartbeatEveryMs = 5000; // well inside leaseMs
    };

    // Claims `runId` (or the oldest claimable run); nullptr when it cannot be claimed (finished,
    // or held by another live worker).
    static std::unique_ptr<AttemptScope> claim(Ledger &ledger, const Options &options,
                                               std::optional<std::int64_t> runId = std::nullopt);
    ~AttemptScope();
    AttemptScope(const AttemptScope &) = delete;
    AttemptScope &operator=(const AttemptScope &) = delete;

    Ledger &ledger() { return m_ledger; }
    const Lease &lease() const { return m_lease; }
    std::int64_t runId() const { return m_lease.runId; }
    const LeaseKeeper &keeper() const { return *m_keeper; }

    // Buffered until flush() or the end.
    void bufferEvent(std::string type, nlohmann::json payload = nlohmann::json::object());
    std::size_t bufferedEvents() const { return m_events.size(); }
    // Ground truth the attempt's world reported about its run: written with the attempt's end
    // (Ledger::finishAttempt), never by an attempt that does not end (killed, abandoned).
    void bufferGroundTruth(HumanLabelRecord label) { m_groundTruth.push_back(std::move(label)); }
    void flush();

    // Between calls. throwIfLost: Error(LeaseLost) once the lease is gone. cancelRequested: a
    // cancel was asked for the run (seen by the keeper or asked of the ledger now).
    void throwIfLost() const { m_keeper->throwIfLost(); }
    bool cancelRequested();

    // The end, once (a second end throws Error(InvalidInput)). Buffered events are written
    // first. Each returns LeaseLost instead when the lease was lost meanwhile.
    AttemptResult complete();
    AttemptResult cancel(const std::string &reason);
    AttemptResult fail(const std::string &code, const std::string &message,
                       std::optional<int> exitSignal = std::nullopt);
    // The holder's process was stopped (Ctrl-C, SIGTERM, a scheduler's cancel): stopping never
    // ends a run for good. The attempt fails as 'interrupted', keeping what it recorded, and the
    // run goes back to the queue, so the same command again finishes it. Returns Interrupted (or
    // LeaseLost).
    AttemptResult interrupt(const std::string &message);
    bool ended() const { return m_ended; }

private:
    AttemptScope(Ledger &ledger, Lease lease, const Options &options);
    AttemptResult end(const AttemptOutcome &outcome, AttemptResult result);

    Ledger &m_ledger;
    Lease m_lease;
    std::unique_ptr<LeaseKeeper> m_keeper;
    std::vector<std::pair<std::string, nlohmann::json>> m_events;
    std::vector<HumanLabelRecord> m_groundTruth;
    bool m_ended = false;
    int m_uncaughtAtStart = 0;
};

} // namespace kosmos
