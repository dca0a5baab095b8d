#include "verify/LedgerVerifier.h"

#include "judge/JudgeRequestRecord.h"
#include "judge/JudgeSchema.h"
#include "verify/JudgmentRecheck.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "ledger/Schema.h"
#include "util/BoundedJson.h"
#include "util/CanonicalJson.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <set>

namespace kosmos {

using sqlite::Statement;

namespace {

class Verifier
{
public:
    Verifier(Ledger &ledger, const VerifyProgress &progress)
        : m_ledger(ledger), m_db(LedgerSql::of(ledger)), m_progress(progress)
    {
    }

    VerifyReport run()
    {
        // One read transaction: a consistent snapshot even while other processes write.
        m_db.exec("BEGIN");
        try {
            runChecks();
            m_db.exec("COMMIT");
        } catch (...) {
            m_db.exec("ROLLBACK");
            throw;
        }
        return std::move(m_report);
    }

private:
    void runChecks()
    {
        checkSqlite();
        checkTriggers();
        checkContentHashes("protocol_hash", "protocol",
                           "SELECT protocol_id, protocol_sha256, canonical_json FROM protocols");
        checkContentHashes("component_hash", "component",
                           "SELECT component_id, identity_sha256, identity_json FROM components");
        checkRuns();
        checkEventSequences();
        checkAttempts();
        checkJudgeSamples();
        checkJudgmentFrames();
        checkJudgeRequests();
        for (const auto &p : recheckJudgments(m_ledger, &m_report.judgmentsRechecked))
            problem("judgment_recheck", "judgment " + std::to_string(p.judgmentId), p.message);
        checkArtifacts();
        if (m_ledger.schemaVersion() >= 5) {
            const std::int64_t merged = count("SELECT COUNT(*) FROM merged_attempts");
            if (merged > 0)
                m_report.notes.push_back(
                    std::to_string(merged) + " attempt(s) merged from " +
                    std::to_string(count("SELECT COUNT(DISTINCT source_id) FROM merged_attempts")) +
                    " other ledger(s) (docs/scale-out.md): their seals and judge-sample hashes "
                    "were checked with the ids of the ledger that wrote them");
        }
        checkDuplicateLabels();
        if (const auto strays = strayObjects(m_ledger); !strays.empty())
            m_report.notes.push_back(
                std::to_string(strays.size()) +
                " object file(s) in objects/ that no artifact row names (stored by a writer that "
                "was killed before it recorded them; never visible as artifacts): `kosmos-cli gc " +
                m_ledger.bundle().string() + "` removes them");
        const auto temporaries = m_ledger.artifacts().temporaries();
        if (!temporaries.empty())
            m_report.notes.push_back(std::to_string(temporaries.size()) +
                                     " unfinished temporary file(s) in objects/tmp (left by a "
                                     "writer that stopped; never visible as artifacts)");
    }

    void problem(std::string check, std::string where, std::string message)
    {
        m_report.problems.push_back({std::move(check), std::move(where), std::move(message)});
    }
    void tick(std::string_view stage, std::int64_t done, std::int64_t total)
    {
        if (m_progress)
            m_progress(stage, done, total);
    }
    std::int64_t count(const char *sql)
    {
        Statement s(m_db, sql);
        s.step();
        return s.int64(0);
    }

    void checkSqlite()
    {
        tick("sqlite", 0, 2);
        Statement integrity(m_db, "PRAGMA integrity_check");
        while (integrity.step()) {
            if (integrity.text(0) != "ok")
                problem("sqlite_integrity", "ledger.sqlite", integrity.text(0));
        }
        tick("sqlite", 1, 2);
        Statement fk(m_db, "PRAGMA foreign_key_check");
        while (fk.step())
            problem("dangling_reference", fk.text(0) + " row " + std::to_string(fk.int64(1)),
                    "refers to a missing row of " + fk.text(2));
        tick("sqlite", 2, 2);
    }

    void checkTriggers()
    {
        std::set<std::string> present;
        Statement s(m_db, "SELECT name FROM sqlite_master WHERE type = 'trigger'");
        while (s.step())
            present.insert(s.text(0));
        for (std::string_view name : requiredTriggers()) {
            if (!present.count(std::string(name)))
                problem("schema_trigger", "trigger " + std::string(name),
                        "an immutability trigger is missing: the schema was edited by hand");
        }
        if (m_ledger.schemaVersion() < 6)
            return; // the views came with schema version 6
        std::map<std::string, std::string> views;
        Statement v(m_db, "SELECT name, sql FROM sqlite_master WHERE type = 'view'");
        while (v.step())
            views[v.text(0)] = v.text(1);
        for (const SchemaView &view : requiredViews()) {
            const auto found = views.find(std::string(view.name));
            if (found == views.end())
                problem("schema_view", "view " + std::string(view.name),
                        "a view that defines what runs mean is missing: the schema was edited by "
                        "hand");
            else if (found->second != view.sql)
                problem("schema_view", "view " + std::string(view.name),
                        "the view differs from this build's definition of what runs mean: the "
                        "schema was edited by hand");
        }
    }

    // Rows whose content (canonical JSON, column 2) must hash to their key (column 1).
    void checkContentHashes(const char *check, const char *label, const char *sql)
    {
        Statement s(m_db, sql);
        while (s.step()) {
            const std::string where = std::string(label) + " " + std::to_string(s.int64(0));
            try {
                const std::string actual = canonicalHash(nlohmann::json::parse(s.text(2)));
                if (actual != s.text(1))
                    problem(check, where,
                            "content hashes to " + actual + ", recorded " + s.text(1));
            } catch (const std::exception &e) {
                problem(check, where, std::string("content unreadable: ") + e.what());
            }
        }
    }

    void checkRuns()
    {
        const std::int64_t total = count("SELECT COUNT(*) FROM runs");
        Statement s(m_db, "SELECT r.run_id, r.run_key, r.key_json, p.protocol_sha256, "
                          "r.episode_index FROM runs r JOIN protocols p USING (protocol_id)");
        std::int64_t done = 0;
        while (s.step()) {
            const std::string where = "run " + std::to_string(s.int64(0));
            try {
                const auto key = nlohmann::json::parse(s.text(2));
                const std::string actual = canonicalHash(key);
                if (actual != s.text(1))
                    problem("run_key", where,
                            "key hashes to " + actual + ", recorded " + s.text(1));
                if (key.value("protocol_sha256", "") != s.text(3) ||
                    key.value("episode_index", std::int64_t{-1}) != s.int64(4))
                    problem("run_key", where, "the key does not match the run's protocol/episode");
            } catch (const std::exception &e) {
                problem("run_key", where, std::string("key unreadable: ") + e.what());
            }
            if (++done % 4096 == 0)
                tick("runs", done, total);
        }
        m_report.runsChecked = done;
        tick("runs", done, total);
    }

    void checkEventSequences()
    {
        Statement s(m_db, "SELECT run_id, COUNT(*), MIN(seq), MAX(seq) FROM events GROUP BY run_id "
                          "HAVING COUNT(*) <> MAX(seq) OR MIN(seq) <> 1");
        while (s.step())
            problem("event_sequence", "run " + std::to_string(s.int64(0)),
                    "event sequence has gaps: " + std::to_string(s.int64(1)) + " events numbered " +
                        std::to_string(s.int64(2)) + ".." + std::to_string(s.int64(3)));
        m_report.eventsChecked = count("SELECT COUNT(*) FROM events");
    }

    void checkAttempts()
    {
        const std::int64_t total = count("SELECT COUNT(*) FROM attempts");
        // Latest attempt of each run, for the run-status check below.
        std::map<std::int64_t, std::pair<int, std::string>> latest;
        Statement s(m_db, "SELECT attempt_id, run_id, attempt_no, state, seal_sha256 FROM attempts "
                          "ORDER BY attempt_id");
        Statement events(m_db, "SELECT type, payload_json FROM events WHERE attempt_id = ? "
                               "ORDER BY seq");
        std::int64_t done = 0;
        while (s.step()) {
            const std::int64_t attemptId = s.int64(0);
            const std::int64_t runId = s.int64(1);
            const int attemptNo = static_cast<int>(s.int64(2));
            const std::string state = s.text(3);
            const std::string where = "attempt " + std::to_string(attemptId) + " (run " +
                                      std::to_string(runId) + ", attempt " +
                                      std::to_string(attemptNo) + ")";
            auto &slot = latest[runId];
            if (attemptNo > slot.first)
                slot = {attemptNo, state};
            else if (state == "running")
                problem("attempt_state", where, "an older attempt is still running");

            events.reset();
            events.bind(1, attemptId);
            int terminalEvents = 0;
            std::string firstType;
            std::string lastType;
            std::string terminalState;
            while (events.step()) {
                const std::string type = events.text(0);
                if (firstType.empty())
                    firstType = type;
                lastType = type;
                if (type == "attempt_finished" || type == "attempt_abandoned") {
                    ++terminalEvents;
                    try {
                        terminalState =
                            nlohmann::json::parse(events.text(1)).value("state", std::string());
                    } catch (const std::exception &) {
                        terminalState = "?";
                    }
                }
            }
            if (firstType != "attempt_started")
                problem("attempt_events", where, "its first event is not attempt_started");
            if (state == "running") {
                if (terminalEvents != 0)
                    problem("attempt_events", where,
                            "state is running but an event says it finished");
            } else {
                if (terminalEvents != 1)
                    problem("attempt_events", where,
                            "state is " + state + " but it has " + std::to_string(terminalEvents) +
                                " finishing events (expected 1)");
                else if (terminalState != state)
                    problem("attempt_events", where,
                            "state is " + state + " but its finishing event says " + terminalState);
                else if (lastType != "attempt_finished" && lastType != "attempt_abandoned")
                    problem("attempt_events", where, "events were added after it finished");
                const std::string seal = m_ledger.computeSeal(attemptId);
                if (s.isNull(4) || seal != s.text(4))
                    problem("attempt_seal", where,
                            "what the attempt recorded no longer matches its seal (recorded " +
                                s.optText(4).value_or("none") + ", now " + seal +
                                "): a row was changed after it finished");
            }
            if (++done % 1024 == 0)
                tick("attempts", done, total);
        }
        m_report.attemptsChecked = done;
        tick("attempts", done, total);

        Statement runs(m_db, "SELECT run_id, status FROM runs");
        while (runs.step()) {
            const std::int64_t runId = runs.int64(0);
            const std::string status = runs.text(1);
            const auto it = latest.find(runId);
            const std::string last = it == latest.end() ? std::string() : it->second.second;
            bool ok = true;
            if (status == "queued")
                ok = last.empty() || last == "abandoned" || last == "failed";
            else if (status == "running")
                ok = last == "running";
            else if (status == "cancelled")
                ok = last.empty() || last == "cancelled" || last == "abandoned";
            else
                ok = last == status; // completed, failed
            if (!ok)
                problem("run_status", "run " + std::to_string(runId),
                        "status is " + status + " but its latest attempt is " +
                            (last.empty() ? std::string("absent") : last));
        }
    }

    void checkJudgeSamples()
    {
        // A merged judgment's rows were hashed with the judgment id of the ledger that wrote them.
        const std::string hashedWith = m_ledger.schemaVersion() >= 5
                                           ? "(SELECT seal_judgment_id FROM merged_judgments m "
                                             "WHERE m.judgment_id = js.judgment_id)"
                                           : "NULL";
        Statement s(m_db, "SELECT sample_id, judgment_id, sample_index, try_index, seed, raw_text, "
                          "format_class, parse_error, parsed_json, generated_tokens, decode_ms, "
                          "row_sha256, finish_reason, answer_form, request_sha256, "
                          "server_model, system_fingerprint, " +
                              hashedWith + " FROM judge_samples js");
        while (s.step()) {
            JudgeSampleRecord r;
            r.sampleIndex = static_cast<int>(s.int64(2));
            r.tryIndex = static_cast<int>(s.int64(3));
            r.seed = s.optInt64(4);
            r.rawText = s.optText(5);
            r.formatClass = s.text(6);
            r.parseError = s.optText(7);
            const std::string where = "judge sample " + std::to_string(s.int64(0)) + " (judgment " +
                                      std::to_string(s.int64(1)) + ", sample " +
                                      std::to_string(r.sampleIndex) + ")";
            try {
                if (auto parsed = s.optText(8))
                    r.parsed = nlohmann::json::parse(*parsed);
            } catch (const std::exception &e) {
                problem("judge_sample_hash", where,
                        std::string("parsed JSON unreadable: ") + e.what());
                continue;
            }
            r.generatedTokens = s.optInt64(9);
            r.decodeMs = s.optInt64(10);
            r.finishReason = s.optText(12);
            r.answerForm = s.optText(13);
            r.requestSha256 = s.optText(14);
            r.serverModel = s.optText(15);
            r.systemFingerprint = s.optText(16);
            const std::string actual = r.rowSha256(s.optInt64(17).value_or(s.int64(1)));
            if (actual != s.text(11))
                problem("judge_sample_hash", where,
                        "the stored sample hashes to " + actual + ", recorded " + s.text(11) +
                            ": it was edited after it was written");
            ++m_report.judgeSamplesChecked;
        }
    }

    // Every recorded judge request is in the store, is a kosmos.judge_request/1 document whose
    // frames are in the store, and, when it went over the wire, rebuilds to exactly the bytes
    // that were sent (what `kosmos-cli judge-request` replays).
    void checkJudgeRequests()
    {
        Statement s(m_db, "SELECT DISTINCT request_sha256 FROM judge_samples "
                          "WHERE request_sha256 IS NOT NULL ORDER BY 1");
        const ArtifactStore &store = m_ledger.artifacts();
        while (s.step()) {
            const std::string sha = s.text(0);
            const std::string where = "judge request " + sha;
            if (!store.contains(sha)) {
                problem("judge_request", where, "the request document is not in the store");
                continue;
            }
            try {
                const auto bytes = store.read(sha);
                json::Limits limits; // a request document: the prompt and a body template
                limits.maxDepth = 32;
                limits.maxBytes = 16u << 20;
                const auto doc = json::parseBounded(
                    std::string_view(reinterpret_cast<const char *>(bytes.data()), bytes.size()),
                    where, limits);
                if (doc.value("schema", "") != kJudgeRequestSchema)
                    throw Error(ErrorCode::InvalidInput,
                                std::string("not a ") + kJudgeRequestSchema + " document");
                for (const auto &frame : doc.at("frames_png_sha256")) {
                    if (!frame.is_string() || !store.contains(frame.get<std::string>()))
                        throw Error(ErrorCode::NotFound,
                                    "the frame " + frame.dump() + " it showed is not in the store");
                }
                if (doc.at("wire").is_object())
                    rebuildJudgeWireBody(doc, store);
            } catch (const std::exception &e) {
                problem("judge_request", where, e.what());
            }
        }
    }

    // A judgment's 16 frames lie inside its attempt's rollout, and every sample's evidence
    // indexes those 16.
    void checkJudgmentFrames()
    {
        Statement s(m_db, "SELECT j.judgment_id, j.frame_indices_json, (SELECT COUNT(*) FROM "
                          "attempt_artifacts aa WHERE aa.attempt_id = j.attempt_id AND "
                          "aa.role = 'frame') FROM judgments j ORDER BY j.judgment_id");
        while (s.step()) {
            const std::string where = "judgment " + std::to_string(s.int64(0));
            const auto text = s.optText(1);
            if (!text)
                continue; // judgments without frames (none are written today)
            const auto indices = nlohmann::json::parse(*text, nullptr, false);
            if (const auto issue = judgmentFramesProblem(indices, static_cast<int>(s.int64(2)))) {
                problem("judgment_frames", where, *issue);
                continue;
            }
            Statement samples(m_db, "SELECT sample_index, parsed_json FROM judge_samples WHERE "
                                    "judgment_id = ? AND parsed_json IS NOT NULL");
            samples.bind(1, s.int64(0));
            while (samples.step()) {
                const auto parsed = nlohmann::json::parse(samples.text(1), nullptr, false);
                if (const auto issue = evidenceFramesProblem(parsed, indices))
                    problem("judgment_frames",
                            where + ", sample " + std::to_string(samples.int64(0)), *issue);
            }
        }
    }

    // An answers file is imported once (Ledger::addHumanLabelsOnce): the same annotator's
    // labels of one packet twice on a run were written by two importers racing, before the
    // check and the write shared one transaction.
    void checkDuplicateLabels()
    {
        Statement s(m_db, "SELECT run_id, annotator_id, notes, COUNT(*) FROM human_labels "
                          "WHERE source = 'human' AND notes LIKE 'packet %' "
                          "GROUP BY run_id, annotator_id, notes HAVING COUNT(*) > 1 ORDER BY 1");
        while (s.step())
            problem("duplicate_labels", "run " + std::to_string(s.int64(0)),
                    std::to_string(s.int64(3)) + " labels by " + s.text(1) + " from " +
                        s.optText(2).value_or("") + ": the same answers were imported twice");
    }

    void checkArtifacts()
    {
        const std::int64_t total = count("SELECT COUNT(*) FROM artifacts");
        Statement s(m_db, "SELECT artifact_id, sha256, size_bytes, pixel_sha256 FROM artifacts "
                          "ORDER BY artifact_id");
        std::int64_t done = 0;
        tick("artifacts", 0, total);
        while (s.step()) {
            const std::string sha = s.text(1);
            const ObjectCheck check = m_ledger.artifacts().check(sha, s.int64(2), s.optText(3));
            if (!check.ok()) {
                static constexpr const char *kNames[] = {"ok",
                                                         "artifact_missing",
                                                         "artifact_not_a_file",
                                                         "artifact_size",
                                                         "artifact_hash",
                                                         "artifact_pixels",
                                                         "artifact_unreadable"};
                std::string where = "artifact " + std::to_string(s.int64(0));
                try {
                    where += " (" + m_ledger.artifacts().objectPath(sha).string() + ")";
                } catch (const Error &) {
                    where += " (invalid hash '" + sha + "')";
                }
                problem(kNames[static_cast<int>(check.status)], where, check.detail);
            }
            ++done;
            tick("artifacts", done, total);
        }
        m_report.artifactsChecked = done;
    }

    Ledger &m_ledger;
    sqlite::Database &m_db;
    const VerifyProgress &m_progress;
    VerifyReport m_report;
};

} // namespace

VerifyReport verifyLedger(Ledger &ledger, const VerifyProgress &progress)
{
    return Verifier(ledger, progress).run();
}

std::vector<std::string> strayObjects(Ledger &ledger)
{
    std::set<std::string> named;
    {
        Statement s(LedgerSql::of(ledger), "SELECT sha256 FROM artifacts");
        while (s.step())
            named.insert(s.text(0));
    }
    std::vector<std::string> out;
    for (const auto &file : ledger.artifacts().storedFiles())
        if (!named.count(file.sha256))
            out.push_back(file.sha256);
    std::sort(out.begin(), out.end());
    return out;
}

StrayRemoval removeStrayObjects(Ledger &ledger, std::int64_t minAgeSeconds)
{
    if (ledger.isReadOnly())
        throw Error(ErrorCode::ReadOnly, "gc needs the ledger writable");
    StrayRemoval out;
    const std::int64_t now = static_cast<std::int64_t>(std::time(nullptr));
    // Under the write lock: no writer records a row meanwhile. A writer stores an object before
    // it records its row (and renews the time of one it finds stored), so a young object may be
    // about to be named: only those older than minAgeSeconds are removed.
    sqlite::Transaction tx(LedgerSql::of(ledger));
    Statement named(LedgerSql::of(ledger), "SELECT 1 FROM artifacts WHERE sha256 = ?");
    for (const auto &[sha, modifiedAt] : ledger.artifacts().storedFiles()) {
        named.reset();
        named.bind(1, sha);
        if (named.step())
            continue;
        if (now - modifiedAt < minAgeSeconds) {
            ++out.keptYoung;
            continue;
        }
        if (ledger.artifacts().removeObject(sha))
            out.removed.push_back(sha);
        else
            out.failed.push_back(sha);
    }
    tx.commit();
    return out;
}

} // namespace kosmos
