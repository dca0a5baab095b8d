#include "ledger/LeaseKeeper.h"

#include "ledger/Ledger.h"
#include "util/Error.h"

#include <chrono>

namespace kosmos {

LeaseKeeper::LeaseKeeper(std::filesystem::path bundle, const Lease &lease, std::int64_t leaseMs,
                         std::int64_t everyMs)
    : m_bundle(std::move(bundle)), m_lease(lease), m_leaseMs(leaseMs), m_everyMs(everyMs)
{
    if (leaseMs <= 0 || everyMs <= 0 || everyMs >= leaseMs)
        throw Error(ErrorCode::InvalidInput,
                    "lease keeper: renewal every " + std::to_string(everyMs) +
                        " ms must be positive and shorter than the lease (" +
                        std::to_string(leaseMs) + " ms)");
    m_thread = std::thread([this] { loop(); });
}

LeaseKeeper::~LeaseKeeper()
{
    stop();
}

void LeaseKeeper::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void LeaseKeeper::throwIfLost() const
{
    if (!m_lost)
        return;
    std::lock_guard lock(m_mutex);
    throw Error(ErrorCode::LeaseLost, m_lostReason);
}

void LeaseKeeper::loop()
{
    std::optional<Ledger> ledger;
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        m_wake.wait_for(lock, std::chrono::milliseconds(m_everyMs), [this] { return m_stopping; });
        if (m_stopping)
            break;
        lock.unlock();
        std::string lostReason;
        try {
            if (!ledger)
                ledger.emplace(Ledger::open(m_bundle));
            if (ledger->heartbeat(m_lease, m_leaseMs))
                m_cancel = true;
            ++m_renewals;
        } catch (const Error &e) {
            if (e.code() == ErrorCode::LeaseLost)
                lostReason = e.what();
            // Anything else (a busy database, a full disk for a moment): try again at the next
            // tick; the lease has several renewals' worth of slack.
        } catch (const std::exception &) {
        }
        lock.lock();
        if (!lostReason.empty()) {
            m_lostReason = lostReason;
            m_lost = true;
            break;
        }
    }
}

} // namespace kosmos
