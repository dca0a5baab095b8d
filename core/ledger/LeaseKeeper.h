#pragma once

#include "ledger/LedgerTypes.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>

namespace kosmos {

// Keeps a lease alive while its holder works: a background thread with its own connection to
// the ledger renews the lease every `everyMs`, however long one policy, world-model or judge
// call takes, and notes a cancel request or the loss of the lease for the holder to read
// between its calls. A lease therefore expires only when its process stops (is killed, hangs
// the whole machine) - never because one call was slow. Stops and joins on destruction.
class LeaseKeeper
{
public:
    LeaseKeeper(std::filesystem::path bundle, const Lease &lease, std::int64_t leaseMs,
                std::int64_t everyMs);
    ~LeaseKeeper();
    LeaseKeeper(const LeaseKeeper &) = delete;
    LeaseKeeper &operator=(const LeaseKeeper &) = delete;

    // A cancel was requested for the run (seen at the last renewal).
    bool cancelRequested() const { return m_cancel.load(); }
    // The lease could not be renewed: expired and taken over, or the attempt ended.
    bool lost() const { return m_lost.load(); }
    // Throws Error(LeaseLost) with the reason when lost().
    void throwIfLost() const;
    // Renewals so far (for tests and diagnostics).
    int renewals() const { return m_renewals.load(); }
    // Stops renewing (idempotent); the destructor calls it.
    void stop();

private:
    void loop();

    std::filesystem::path m_bundle;
    Lease m_lease;
    std::int64_t m_leaseMs;
    std::int64_t m_everyMs;
    std::atomic<bool> m_cancel{false};
    std::atomic<bool> m_lost{false};
    std::atomic<int> m_renewals{0};
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    std::string m_lostReason;
    std::thread m_thread;
};

} // namespace kosmos
