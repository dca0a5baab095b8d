#include "queries/BatchProgress.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"

#include <nlohmann/json.hpp>

namespace kosmos {

BatchProgress batchProgress(Ledger &ledger, const std::string &protocolSha256, std::int64_t nowMs)
{
    BatchProgress p;
    p.protocolSha256 = protocolSha256;
    auto &db = LedgerSql::of(ledger);
    int horizon = 0;
    {
        sqlite::Statement protocol(
            db, "SELECT name, canonical_json FROM protocols WHERE protocol_sha256 = ?");
        protocol.bind(1, protocolSha256);
        if (!protocol.step())
            return p;
        p.protocolName = protocol.text(0);
        const auto document = nlohmann::json::parse(protocol.text(1), nullptr, false);
        if (document.is_object() && document.contains("horizon") &&
            document["horizon"].is_number_integer())
            horizon = document["horizon"].get<int>();
    }
    sqlite::Statement runs(db, R"sql(
        SELECT r.run_id, r.task, COALESCE(c.adapter_id, ''), r.status,
               r.cancel_requested_at_ms IS NOT NULL,
               a.started_at_ms, a.finished_at_ms, COALESCE(a.worker_id, ''),
               (SELECT json_extract(e.payload_json, '$.step') FROM events e
                 WHERE e.attempt_id = a.attempt_id AND e.type = 'step'
                 ORDER BY e.seq DESC LIMIT 1),
               (SELECT json_extract(e.payload_json, '$.stage') FROM events e
                 WHERE e.attempt_id = a.attempt_id AND e.type = 'stage'
                 ORDER BY e.seq DESC LIMIT 1),
               COALESCE(json_extract(c.identity_json, '$.config'), '')
          FROM runs r
          JOIN protocols pr ON pr.protocol_id = r.protocol_id
          LEFT JOIN components c ON c.component_id = r.policy_id
          LEFT JOIN attempts a ON a.attempt_id =
               (SELECT MAX(attempt_id) FROM attempts WHERE run_id = r.run_id)
         WHERE pr.protocol_sha256 = ?
         ORDER BY r.run_id)sql");
    runs.bind(1, protocolSha256);
    while (runs.step()) {
        RunProgress r;
        r.runId = runs.int64(0);
        r.task = runs.text(1);
        r.policy = runs.text(2);
        r.policyIdentity = r.policy + " " + runs.text(10);
        r.status = runs.text(3);
        r.cancelRequested = runs.int64(4) != 0;
        r.startedAtMs = runs.optInt64(5);
        r.finishedAtMs = runs.optInt64(6);
        r.workerId = runs.text(7);
        // Worker ids are "<name>-<pid>-<index>" (RolloutEngine): the pid is the middle number.
        const auto last = r.workerId.rfind('-');
        const auto before =
            last == std::string::npos ? std::string::npos : r.workerId.rfind('-', last - 1);
        if (before != std::string::npos) {
            try {
                r.workerPid = std::stoi(r.workerId.substr(before + 1, last - before - 1));
            } catch (const std::exception &) {
                // another naming scheme: no pid to sample
            }
        }
        r.horizon = horizon;
        r.stepsDone = static_cast<int>(runs.optInt64(8).value_or(0));
        r.stage = runs.optText(9).value_or("");
        if (r.status == "completed")
            r.stepsDone = horizon; // the last step events may be batched with the finish
        else if (r.status == "queued")
            r.stepsDone = 0; // back in the queue (interrupted): its next attempt starts over
        if (r.status == "queued")
            ++p.queued;
        else if (r.status == "running")
            ++p.running;
        else if (r.status == "completed")
            ++p.completed;
        else if (r.status == "failed")
            ++p.failed;
        else if (r.status == "cancelled")
            ++p.cancelled;
        // A run that ended without completing (cancelled, failed) did the steps it did: they are
        // done, and the rest of its horizon will never be, so neither counts toward the bar.
        const bool endedShort = r.status == "cancelled" || r.status == "failed";
        p.stepsDone += r.stepsDone;
        p.stepsTotal += endedShort ? r.stepsDone : horizon;
        if (r.startedAtMs && (!p.startedAtMs || *r.startedAtMs < *p.startedAtMs))
            p.startedAtMs = r.startedAtMs;
        p.runs.push_back(std::move(r));
    }
    p.total = static_cast<int>(p.runs.size());
    if (p.startedAtMs) {
        std::int64_t end = nowMs;
        if (!p.active()) {
            end = *p.startedAtMs;
            for (const auto &r : p.runs)
                end = std::max(end, r.finishedAtMs.value_or(end));
        }
        p.elapsedMs = std::max<std::int64_t>(0, end - *p.startedAtMs);
    }
    if (p.active() && p.stepsDone > 0 && p.elapsedMs > 0)
        p.remainingMs = (p.stepsTotal - p.stepsDone) * p.elapsedMs / p.stepsDone;
    return p;
}

std::vector<std::string> activeProtocols(Ledger &ledger)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT pr.protocol_sha256 FROM protocols pr WHERE EXISTS (SELECT 1 FROM "
                        "runs r WHERE r.protocol_id = pr.protocol_id AND r.status IN ('queued', "
                        "'running')) ORDER BY pr.protocol_id DESC");
    std::vector<std::string> out;
    while (s.step())
        out.push_back(s.text(0));
    return out;
}

std::string BatchProgress::summary() const
{
    std::string text =
        std::to_string(completed) + " of " + std::to_string(total) + " runs completed";
    if (failed > 0)
        text += ", " + std::to_string(failed) + " failed";
    if (cancelled > 0)
        text += ", " + std::to_string(cancelled) + " cancelled";
    return text;
}

} // namespace kosmos
