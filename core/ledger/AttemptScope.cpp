#include "ledger/AttemptScope.h"

#include "util/Error.h"

#include <exception>

namespace kosmos {

std::string_view attemptResultName(AttemptResult result)
{
    switch (result) {
    case AttemptResult::Completed:
        return "completed";
    case AttemptResult::Failed:
        return "failed";
    case AttemptResult::Cancelled:
        return "cancelled";
    case AttemptResult::Interrupted:
        return "interrupted";
    case AttemptResult::LeaseLost:
        return "lease_lost";
    }
    return "failed";
}

std::unique_ptr<AttemptScope> AttemptScope::claim(Ledger &ledger, const Options &options,
                                                  std::optional<std::int64_t> runId)
{
    auto lease = ledger.claim(options.workerId, options.leaseMs, runId);
    if (!lease)
        return nullptr;
    return std::unique_ptr<AttemptScope>(new AttemptScope(ledger, std::move(*lease), options));
}

AttemptScope::AttemptScope(Ledger &ledger, Lease lease, const Options &options)
    : m_ledger(ledger), m_lease(std::move(lease)),
      m_keeper(std::make_unique<LeaseKeeper>(ledger.bundle(), m_lease, options.leaseMs,
                                             options.heartbeatEveryMs)),
      m_uncaughtAtStart(std::uncaught_exceptions())
{
}

AttemptScope::~AttemptScope()
{
    if (m_ended)
        return;
    // Left without an end: record it, keeping what was written. Never throws.
    const bool unwinding = std::uncaught_exceptions() > m_uncaughtAtStart;
    const std::string why = "run " + std::to_string(m_lease.runId) +
                            (unwinding ? ": its holder stopped with an exception before ending "
                                         "the attempt"
                                       : ": its holder returned without ending the attempt");
    try {
        end(AttemptOutcome::failed("internal", why), AttemptResult::Failed);
        return;
    } catch (...) {
    }
    // What was buffered could not be written (an event the ledger refuses): end without it.
    const std::size_t dropped = m_events.size() + m_groundTruth.size();
    m_events.clear();
    m_groundTruth.clear();
    try {
        end(AttemptOutcome::failed("internal", why + "; " + std::to_string(dropped) +
                                                   " buffered record(s) could not be written"),
            AttemptResult::Failed);
    } catch (...) { // the ledger is unusable (disk gone): the lease expires and the run is taken
    }               // over by the next claim
}

void AttemptScope::bufferEvent(std::string type, nlohmann::json payload)
{
    m_events.emplace_back(std::move(type), std::move(payload));
}

void AttemptScope::flush()
{
    if (m_events.empty())
        return;
    m_ledger.appendEvents(m_lease, m_events);
    m_events.clear();
}

bool AttemptScope::cancelRequested()
{
    return m_keeper->cancelRequested() || m_ledger.cancelRequested(m_lease);
}

AttemptResult AttemptScope::complete()
{
    return end(AttemptOutcome::completed(), AttemptResult::Completed);
}

AttemptResult AttemptScope::cancel(const std::string &reason)
{
    return end(AttemptOutcome::cancelled(reason), AttemptResult::Cancelled);
}

AttemptResult AttemptScope::fail(const std::string &code, const std::string &message,
                                 std::optional<int> exitSignal)
{
    return end(AttemptOutcome::failed(code, message, exitSignal), AttemptResult::Failed);
}

AttemptResult AttemptScope::interrupt(const std::string &message)
{
    if (end(AttemptOutcome::failed("interrupted", message), AttemptResult::Failed) ==
        AttemptResult::LeaseLost)
        return AttemptResult::LeaseLost;
    m_ledger.retryRun(m_lease.runId);
    return AttemptResult::Interrupted;
}

AttemptResult AttemptScope::end(const AttemptOutcome &outcome, AttemptResult result)
{
    if (m_ended)
        throw Error(ErrorCode::InvalidInput,
                    "attempt " + std::to_string(m_lease.attemptId) + " has already ended");
    m_ended = true;
    m_keeper->stop();
    try {
        flush();
        m_ledger.finishAttempt(m_lease, outcome, m_groundTruth);
    } catch (const Error &e) {
        if (e.code() == ErrorCode::LeaseLost)
            return AttemptResult::LeaseLost;
        // Not ended: the destructor records the attempt as failed (internal) with what could be
        // kept, so that an end that could not be written never leaves the run `running`.
        m_ended = false;
        throw;
    }
    return result;
}

} // namespace kosmos
