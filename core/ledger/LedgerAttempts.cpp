// The ledger: attempts (claims, leases, heartbeats, ends) and their seals.
#include "ledger/Ledger.h"

#include "ledger/LedgerInternal.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/ProcessIdentity.h"
#include "util/Sha256.h"

namespace kosmos {
namespace fs = std::filesystem;
using namespace ledger_internal;
using sqlite::Statement;
using sqlite::Transaction;

// ---- leases -----------------------------------------------------------------------------------

namespace {

// The process that claimed an attempt, from its attempt_started event (empty for attempts made
// before process identities were recorded: those are never judged dead, only expired).
ProcessIdentity holderOf(sqlite::Database &db, std::int64_t attemptId)
{
    Statement s(db, "SELECT payload_json FROM events WHERE attempt_id = ? AND "
                    "type = 'attempt_started' ORDER BY event_id LIMIT 1");
    s.bind(1, attemptId);
    if (!s.step())
        return {};
    const auto payload = nlohmann::json::parse(s.text(0), nullptr, false);
    if (payload.is_discarded() || !payload.is_object() || !payload.contains("process"))
        return {};
    return ProcessIdentity::fromJson(payload["process"]);
}

// Dead, and no supervisor of it still runs: a supervisor (`run --isolate`) reaps its dead worker
// and records the attempt as failed with the signal or exit status; a sibling that took the
// attempt over first would record only that the holder no longer runs. A supervisor that hangs
// is covered by the lease's expiry.
bool holderIsDead(sqlite::Database &db, std::int64_t attemptId)
{
    const ProcessIdentity holder = holderOf(db, attemptId);
    return provablyDead(holder) && !supervisorRuns(holder);
}

// A run whose running attempt is held by a process that provably died (on this host), so its
// lease can be taken over before it expires.
std::optional<std::int64_t> runOfDeadHolder(sqlite::Database &db)
{
    Statement live(db, "SELECT attempt_id, run_id FROM attempts WHERE state = 'running' "
                       "ORDER BY attempt_id");
    while (live.step())
        if (holderIsDead(db, live.int64(0)))
            return live.int64(1);
    return std::nullopt;
}

} // namespace

std::optional<Lease> Ledger::claim(std::string_view workerId, std::int64_t leaseMs,
                                   std::optional<std::int64_t> runId)
{
    requireNonEmpty(workerId, "worker id");
    if (leaseMs <= 0)
        throw Error(ErrorCode::InvalidInput, "lease duration must be positive");
    const std::int64_t now = nowMs();
    Transaction tx(m_db);

    // Candidates: the requested run, else the oldest queued run, else runs whose lease expired.
    for (int guard = 0; guard < 64; ++guard) {
        std::optional<std::int64_t> candidate;
        if (runId) {
            if (guard > 0)
                break;
            candidate = runId;
        } else {
            Statement queued(m_db, "SELECT run_id FROM runs WHERE status = 'queued' "
                                   "ORDER BY run_id LIMIT 1");
            if (queued.step()) {
                candidate = queued.int64(0);
            } else {
                Statement expired(m_db, "SELECT run_id FROM attempts WHERE state = 'running' AND "
                                        "lease_expires_at_ms < ? ORDER BY lease_expires_at_ms "
                                        "LIMIT 1");
                expired.bind(1, now);
                if (expired.step())
                    candidate = expired.int64(0);
                else
                    candidate = runOfDeadHolder(m_db);
            }
        }
        if (!candidate)
            break;

        Statement runRow(m_db, "SELECT status, cancel_requested_at_ms FROM runs WHERE run_id = ?");
        runRow.bind(1, *candidate);
        if (!runRow.step())
            throw Error(ErrorCode::NotFound, "run " + std::to_string(*candidate) +
                                                 " does not exist in " + m_bundle.string());
        std::string status = runRow.text(0);
        const bool cancelRequested = !runRow.isNull(1);

        Statement live(m_db, "SELECT attempt_id, lease_expires_at_ms, worker_id FROM attempts "
                             "WHERE run_id = ? AND state = 'running'");
        live.bind(1, *candidate);
        if (live.step()) {
            const std::int64_t staleAttempt = live.int64(0);
            const std::int64_t expiresAt = live.int64(1);
            const std::string staleWorker = live.text(2);
            const bool dead = expiresAt >= now && holderIsDead(m_db, staleAttempt);
            if (expiresAt >= now && !dead)
                break; // leased by a live process (only reachable for an explicit runId)
            AttemptOutcome abandoned;
            if (dead) {
                const ProcessIdentity holder = holderOf(m_db, staleAttempt);
                abandoned.errorCode = "worker_died";
                abandoned.errorMessage =
                    "worker " + staleWorker + " (process " + std::to_string(holder.pid) + " on " +
                    holder.host + ") no longer runs; its lease (until " +
                    std::to_string(expiresAt) + " ms) was taken over at once by worker " +
                    std::string(workerId);
            } else {
                abandoned.errorCode = "lease_expired";
                abandoned.errorMessage = "lease of worker " + staleWorker + " expired at " +
                                         std::to_string(expiresAt) + " ms; taken over by worker " +
                                         std::string(workerId);
            }
            const std::string nextStatus = cancelRequested ? "cancelled" : "queued";
            closeAttempt(staleAttempt, *candidate, "abandoned", abandoned, nextStatus, now);
            status = nextStatus;
        }
        if (status != "queued")
            continue;

        Statement number(m_db, "SELECT COALESCE(MAX(attempt_no), 0) + 1 FROM attempts "
                               "WHERE run_id = ?");
        number.bind(1, *candidate);
        number.step();
        Lease lease;
        lease.runId = *candidate;
        lease.attemptNo = static_cast<int>(number.int64(0));
        lease.workerId = std::string(workerId);
        lease.token = randomToken();
        lease.expiresAtMs = now + leaseMs;
        Statement insert(m_db, "INSERT INTO attempts (run_id, attempt_no, worker_id, lease_token, "
                               "state, started_at_ms, heartbeat_at_ms, lease_expires_at_ms) "
                               "VALUES (?, ?, ?, ?, 'running', ?, ?, ?)");
        insert.bind(1, lease.runId)
            .bind(2, lease.attemptNo)
            .bind(3, lease.workerId)
            .bind(4, lease.token)
            .bind(5, now)
            .bind(6, now)
            .bind(7, lease.expiresAtMs)
            .run();
        lease.attemptId = m_db.lastInsertRowId();
        Statement mark(m_db, "UPDATE runs SET status = 'running' WHERE run_id = ?");
        mark.bind(1, lease.runId).run();
        nlohmann::json started = {{"attempt_no", lease.attemptNo},
                                  {"worker_id", lease.workerId},
                                  {"lease_expires_at_ms", lease.expiresAtMs},
                                  {"process", ProcessIdentity::current().toJson()}};
        if (auto slurm = slurmContext(); !slurm.is_null()) // a Slurm task (docs/scale-out.md)
            started["slurm"] = std::move(slurm);
        insertEvent(lease.runId, lease.attemptId, "attempt_started", started, now);
        tx.commit();
        return lease;
    }
    tx.commit(); // abandoned attempts closed on the way stay closed
    return std::nullopt;
}

void Ledger::checkLease(const Lease &lease)
{
    Statement s(m_db, "SELECT state, lease_expires_at_ms, lease_token FROM attempts "
                      "WHERE attempt_id = ?");
    s.bind(1, lease.attemptId);
    const std::string who = "attempt " + std::to_string(lease.attemptNo) + " of run " +
                            std::to_string(lease.runId) + " (worker " + lease.workerId + ")";
    if (!s.step() || s.text(2) != lease.token)
        throw Error(ErrorCode::LeaseLost, who + ": no such lease in " + m_bundle.string());
    if (s.text(0) != "running")
        throw Error(ErrorCode::LeaseLost,
                    who + " is " + s.text(0) + "; writes under its lease are refused");
    const std::int64_t now = nowMs();
    if (s.int64(1) < now)
        throw Error(ErrorCode::LeaseLost, who + ": lease expired " +
                                              std::to_string(now - s.int64(1)) +
                                              " ms ago; writes under it are refused");
}

bool Ledger::heartbeat(Lease &lease, std::int64_t leaseMs)
{
    if (leaseMs <= 0)
        throw Error(ErrorCode::InvalidInput, "lease duration must be positive");
    Transaction tx(m_db);
    checkLease(lease);
    const std::int64_t now = nowMs();
    Statement s(m_db, "UPDATE attempts SET heartbeat_at_ms = ?, lease_expires_at_ms = ? "
                      "WHERE attempt_id = ?");
    s.bind(1, now).bind(2, now + leaseMs).bind(3, lease.attemptId).run();
    Statement cancel(m_db, "SELECT cancel_requested_at_ms FROM runs WHERE run_id = ?");
    cancel.bind(1, lease.runId);
    cancel.step();
    const bool cancelled = !cancel.isNull(0);
    tx.commit();
    lease.expiresAtMs = now + leaseMs;
    return cancelled;
}

bool Ledger::cancelRequested(const Lease &lease)
{
    Statement s(m_db, "SELECT cancel_requested_at_ms FROM runs WHERE run_id = ?");
    s.bind(1, lease.runId);
    return s.step() && !s.isNull(0);
}

void Ledger::closeAttempt(std::int64_t attemptId, std::int64_t runId, std::string_view state,
                          const AttemptOutcome &given, std::string_view runStatus, std::int64_t now)
{
    AttemptOutcome outcome = given;
    outcome.errorMessage = storedTextOpt(outcome.errorMessage);
    outcome.errorCode = storedTextOpt(outcome.errorCode);
    nlohmann::json payload = {{"state", state}};
    if (outcome.errorCode)
        payload["error_code"] = *outcome.errorCode;
    if (outcome.errorMessage)
        payload["error_message"] = *outcome.errorMessage;
    if (outcome.exitSignal)
        payload["exit_signal"] = *outcome.exitSignal;
    insertEvent(runId, attemptId, state == "abandoned" ? "attempt_abandoned" : "attempt_finished",
                payload, now);

    Statement read(m_db, std::string("SELECT ") + kAttemptColumns +
                             " FROM attempts WHERE attempt_id = ?");
    read.bind(1, attemptId);
    read.step();
    AttemptRecord a = readAttempt(read);
    a.state = std::string(state);
    a.finishedAtMs = now;
    a.errorCode = outcome.errorCode;
    a.errorMessage = outcome.errorMessage;
    a.exitSignal = outcome.exitSignal;
    const std::string seal = sealOf(m_db, a, a.runId);

    Statement close(m_db, "UPDATE attempts SET state = ?, finished_at_ms = ?, error_code = ?, "
                          "error_message = ?, exit_signal = ?, seal_sha256 = ? "
                          "WHERE attempt_id = ? AND state = 'running'");
    close.bind(1, state)
        .bind(2, now)
        .bind(3, outcome.errorCode)
        .bind(4, outcome.errorMessage)
        .bind(5, outcome.exitSignal)
        .bind(6, seal)
        .bind(7, attemptId)
        .run();
    const bool terminal = runStatus != "queued" && runStatus != "running";
    Statement runUpdate(m_db, "UPDATE runs SET status = ?, finished_at_ms = ? WHERE run_id = ?");
    runUpdate.bind(1, runStatus);
    if (terminal)
        runUpdate.bind(2, now);
    else
        runUpdate.bindNull(2);
    runUpdate.bind(3, runId).run();
}

void Ledger::finishAttempt(const Lease &lease, const AttemptOutcome &outcome,
                           const std::vector<HumanLabelRecord> &groundTruth)
{
    for (const HumanLabelRecord &label : groundTruth) {
        checkLabel(label);
        if (label.runId != lease.runId || label.source == "human")
            throw Error(ErrorCode::InvalidInput,
                        "an attempt of run " + std::to_string(lease.runId) +
                            " may record only its own world's ground truth, not a " + label.source +
                            " label of run " + std::to_string(label.runId));
    }
    Transaction tx(m_db);
    checkLease(lease);
    for (const HumanLabelRecord &label : groundTruth)
        insertLabel(label);
    const std::string state = attemptStateName(outcome.end);
    closeAttempt(lease.attemptId, lease.runId, state, outcome, state, nowMs());
    tx.commit();
}

std::vector<std::int64_t> Ledger::failAttemptsOfDeadWorker(std::string_view workerIdPrefix,
                                                           const AttemptOutcome &outcome)
{
    requireNonEmpty(workerIdPrefix, "worker id prefix");
    if (outcome.end != AttemptEnd::Failed)
        throw Error(ErrorCode::InvalidInput, "a dead worker's attempts can only end as failed");
    Transaction tx(m_db);
    Statement find(m_db, "SELECT attempt_id, run_id FROM attempts WHERE state = 'running' AND "
                         "substr(worker_id, 1, ?) = ? ORDER BY attempt_id");
    find.bind(1, static_cast<std::int64_t>(workerIdPrefix.size())).bind(2, workerIdPrefix);
    std::vector<std::pair<std::int64_t, std::int64_t>> found;
    while (find.step())
        found.emplace_back(find.int64(0), find.int64(1));
    std::vector<std::int64_t> closed;
    const std::int64_t now = nowMs();
    for (const auto &[attemptId, runId] : found) {
        closeAttempt(attemptId, runId, "failed", outcome, "failed", now);
        closed.push_back(attemptId);
    }
    tx.commit();
    return closed;
}

std::string Ledger::computeSeal(std::int64_t attemptId)
{
    Statement read(m_db, std::string("SELECT ") + kAttemptColumns +
                             " FROM attempts WHERE attempt_id = ?");
    read.bind(1, attemptId);
    if (!read.step())
        throw Error(ErrorCode::NotFound,
                    "attempt " + std::to_string(attemptId) + " does not exist");
    const AttemptRecord attempt = readAttempt(read);
    std::int64_t sealRunId = attempt.runId;
    if (m_schemaVersion >= 5) { // merged from a shard: sealed there, under that ledger's run id
        Statement merged(m_db, "SELECT seal_run_id FROM merged_attempts WHERE attempt_id = ?");
        merged.bind(1, attemptId);
        if (merged.step())
            sealRunId = merged.int64(0);
    }
    return sealOf(m_db, attempt, sealRunId);
}

} // namespace kosmos
