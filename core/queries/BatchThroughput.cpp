#include "queries/BatchThroughput.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

namespace kosmos {

namespace {

double number(const nlohmann::json &j, const char *a, const char *b)
{
    if (!j.contains(a) || !j[a].is_object() || !j[a].contains(b) || !j[a][b].is_number())
        return 0;
    return j[a][b].get<double>();
}

// "kosmos-cli-123-0.2" -> "kosmos-cli-123-0": the lanes of one worker are one worker.
std::string workerOf(const std::string &id)
{
    const auto dash = id.rfind('-');
    const auto dot = id.rfind('.');
    return dot != std::string::npos && (dash == std::string::npos || dot > dash) ? id.substr(0, dot)
                                                                                 : id;
}

void addAttempt(WorkerThroughput &w, std::int64_t startMs, std::int64_t endMs)
{
    w.firstStartMs = w.firstStartMs == 0 ? startMs : std::min(w.firstStartMs, startMs);
    w.lastEndMs = std::max(w.lastEndMs, endMs);
}

std::string percent(double part, double whole)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.0f%%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buffer;
}

std::string line(const WorkerThroughput &w)
{
    const StageTimes &s = w.stages;
    char head[160];
    std::snprintf(head, sizeof head, "%-22s %4d runs%s  %8.1f steps/s  %8.1f frames/s  ",
                  w.worker.c_str(), w.attempts,
                  w.running ? (" (+" + std::to_string(w.running) + " running)").c_str() : "",
                  w.stepsPerS(), w.framesPerS());
    // Shares of the work, not of the attempts' wall time: with --batch N a lane's wall time
    // holds the whole shared call while its stage time holds its share, and N lanes' wall times
    // overlap, so only the work itself adds up to a whole.
    const double work = s.workMs();
    std::string out = head;
    out += "work: policy " + percent(s.policyMs, work) + ", world model " +
           percent(s.worldModelMs, work) + ", judge " + percent(s.judgeMs, work) + ", validation " +
           percent(s.validationMs, work) + ", store " + percent(s.storeMs, work);
    if (w.attempts > 0) {
        char perRun[48];
        std::snprintf(perRun, sizeof perRun, " (%.0f ms a run)", work / w.attempts);
        out += perRun;
    }
    if (s.lockstepWaitMs > 0)
        out += "; lanes waited " + percent(s.lockstepWaitMs, s.attemptMs) +
               " of their time for the others";
    return out;
}

} // namespace

void StageTimes::add(const StageTimes &o)
{
    policyMs += o.policyMs;
    worldModelMs += o.worldModelMs;
    storeMs += o.storeMs;
    validationMs += o.validationMs;
    judgeMs += o.judgeMs;
    lockstepWaitMs += o.lockstepWaitMs;
    attemptMs += o.attemptMs;
}

BatchThroughputReader::BatchThroughputReader(std::string protocolSha256, std::int64_t sinceMs)
    : m_protocolSha256(std::move(protocolSha256)), m_sinceMs(sinceMs)
{
}

BatchThroughput BatchThroughputReader::read(Ledger &ledger, std::int64_t nowMs)
{
    // Only attempts not seen before, and those that were still running: an ended attempt's
    // timings and frames never change, so each is read once.
    nlohmann::json running = nlohmann::json::array();
    for (const auto &[id, attempt] : m_attempts)
        if (!attempt.endMs)
            running.push_back(id);
    sqlite::Statement s(LedgerSql::of(ledger), R"sql(
        SELECT a.attempt_id, a.worker_id, a.started_at_ms, a.finished_at_ms,
               (SELECT e.payload_json FROM events e
                 WHERE e.attempt_id = a.attempt_id AND e.type = 'timings' LIMIT 1),
               (SELECT count(*) FROM attempt_artifacts aa
                 WHERE aa.attempt_id = a.attempt_id AND aa.role = 'frame'),
               (SELECT json_extract(e.payload_json, '$.step') FROM events e
                 WHERE e.attempt_id = a.attempt_id AND e.type = 'step'
                 ORDER BY e.seq DESC LIMIT 1)
          FROM attempts a
          JOIN runs r ON r.run_id = a.run_id
          JOIN protocols p ON p.protocol_id = r.protocol_id
         WHERE p.protocol_sha256 = ? AND a.started_at_ms >= ?
           AND (a.attempt_id > ? OR a.attempt_id IN (SELECT value FROM json_each(?))))sql");
    s.bind(1, m_protocolSha256).bind(2, m_sinceMs).bind(3, m_lastAttemptId).bind(4, running.dump());
    while (s.step()) {
        const std::int64_t id = s.int64(0);
        m_lastAttemptId = std::max(m_lastAttemptId, id);
        Attempt &a = m_attempts[id];
        a.worker = workerOf(s.text(1));
        a.startMs = s.int64(2);
        a.endMs = s.optInt64(3);
        a.frames = s.int64(5);
        if (!a.endMs) { // still running: its steps so far
            a.steps = s.isNull(6) ? 0 : s.int64(6);
            continue;
        }
        const auto timings =
            s.isNull(4) ? nlohmann::json() : nlohmann::json::parse(s.text(4), nullptr, false);
        a.timed = timings.is_object(); // not: ended without timings (a dead worker's attempt)
        if (!a.timed)
            continue;
        a.steps = static_cast<std::int64_t>(number(timings, "critical_path", "steps"));
        a.stages.policyMs = number(timings, "stage_ms", "policy");
        a.stages.worldModelMs = number(timings, "stage_ms", "world_model");
        a.stages.storeMs = number(timings, "stage_ms", "encode_and_store");
        a.stages.validationMs = number(timings, "stage_ms", "validation");
        a.stages.judgeMs = number(timings, "stage_ms", "judge");
        a.stages.lockstepWaitMs = number(timings, "critical_path", "lockstep_wait_ms");
        a.stages.attemptMs = timings.value("total_ms", 0.0);
    }

    // Workers in the order they first started.
    std::vector<const Attempt *> byStart;
    byStart.reserve(m_attempts.size());
    for (const auto &[id, attempt] : m_attempts)
        byStart.push_back(&attempt);
    std::stable_sort(byStart.begin(), byStart.end(),
                     [](const Attempt *x, const Attempt *y) { return x->startMs < y->startMs; });
    std::map<std::string, WorkerThroughput> byWorker;
    std::vector<std::string> order;
    for (const Attempt *a : byStart) {
        if (!byWorker.count(a->worker))
            order.push_back(a->worker);
        WorkerThroughput &w = byWorker[a->worker];
        w.worker = a->worker;
        w.frames += a->frames;
        addAttempt(w, a->startMs, a->endMs.value_or(nowMs));
        if (!a->endMs) {
            ++w.running;
            w.steps += a->steps;
        } else if (a->timed) {
            ++w.attempts;
            w.steps += a->steps;
            w.stages.add(a->stages);
        }
    }
    BatchThroughput out;
    out.all.worker = "all";
    for (const std::string &name : order) {
        const WorkerThroughput &w = byWorker[name];
        out.workers.push_back(w);
        out.all.attempts += w.attempts;
        out.all.running += w.running;
        out.all.steps += w.steps;
        out.all.frames += w.frames;
        out.all.stages.add(w.stages);
        addAttempt(out.all, w.firstStartMs, w.lastEndMs);
    }
    return out;
}

BatchThroughput batchThroughput(Ledger &ledger, const std::string &protocolSha256,
                                std::int64_t sinceMs, std::int64_t nowMs)
{
    return BatchThroughputReader(protocolSha256, sinceMs).read(ledger, nowMs);
}

std::string BatchThroughput::text() const
{
    std::string out;
    for (const auto &w : workers)
        out += line(w) + "\n";
    if (workers.size() > 1)
        out += line(all) + "\n";
    return out;
}

} // namespace kosmos
