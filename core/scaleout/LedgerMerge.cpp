#include "scaleout/LedgerMerge.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "util/BoundedJson.h"
#include "util/CanonicalJson.h"
#include "util/Clock.h"
#include "util/Error.h"

#include <map>
#include <memory>

namespace kosmos {

namespace fs = std::filesystem;
using sqlite::Statement;

int MergeReport::runsUnfinished() const
{
    int n = 0;
    for (const auto &s : sources)
        n += s.runsUnfinished;
    return n;
}

namespace {

// A refusal of one run: its savepoint is rolled back, the merge goes on.
struct RunConflict
{
    std::string message;
};

// file:...?mode=ro for ATTACH (the connection is opened with SQLITE_OPEN_URI).
std::string readOnlyUri(const fs::path &database)
{
    std::string out = "file:";
    for (const char c : fs::absolute(database).lexically_normal().string()) {
        if (c == '%' || c == '?' || c == '#') {
            static constexpr char kHex[] = "0123456789ABCDEF";
            out += '%';
            out += kHex[static_cast<unsigned char>(c) >> 4];
            out += kHex[static_cast<unsigned char>(c) & 0xf];
        } else {
            out += c;
        }
    }
    return out + "?mode=ro";
}

class SourceMerge
{
public:
    SourceMerge(Ledger &target, const fs::path &sourceBundle, MergeSourceReport &report,
                std::vector<MergeConflict> &conflicts, const MergeOptions &options)
        : m_target(target), m_db(LedgerSql::of(target)), m_source(sourceBundle),
          m_srcObjects(sourceBundle / "objects"), m_report(report), m_conflicts(conflicts),
          m_options(options)
    {
    }

    void run(const std::function<void(std::int64_t, std::int64_t)> &progress)
    {
        identifySource();
        Statement attach(m_db, "ATTACH DATABASE ? AS src");
        attach.bind(1, readOnlyUri(m_source / "ledger.sqlite")).run();
        try {
            m_db.exec("CREATE TEMP TABLE IF NOT EXISTS merge_amap (src_id INTEGER PRIMARY KEY, "
                      "out_id INTEGER NOT NULL, is_new INTEGER NOT NULL)");
            m_db.exec("CREATE TEMP TABLE IF NOT EXISTS merge_jmap (src_id INTEGER PRIMARY KEY, "
                      "out_id INTEGER NOT NULL)");
            mergeAll(progress);
        } catch (...) {
            m_cache.clear();
            detach();
            throw;
        }
        m_cache.clear(); // prepared statements name src: finalized before it is detached
        detach();
    }

private:
    // Prepared once per source (a merge of 10,000 runs runs each of these 10,000 times), reset
    // (and unbound) before each use.
    Statement &stmt(const std::string &sql)
    {
        auto &slot = m_cache[sql];
        if (!slot)
            slot = std::make_unique<Statement>(m_db, sql);
        else
            slot->reset();
        return *slot;
    }
    // No statement left mid-way before a savepoint ends or a transaction commits.
    void resetAll()
    {
        for (auto &entry : m_cache)
            entry.second->reset();
    }
    std::int64_t scalar(const std::string &sql, std::initializer_list<std::int64_t> args)
    {
        Statement &s = stmt(sql);
        int index = 0;
        for (const std::int64_t a : args)
            s.bind(++index, a);
        const std::int64_t value = s.step() ? s.optInt64(0).value_or(0) : 0;
        s.reset();
        return value;
    }

    void detach()
    {
        try {
            m_db.exec("DETACH DATABASE src");
        } catch (const Error &) {
        }
    }

    // Opens the source read-only first: a clear error for a missing, foreign, newer or
    // unmigrated ledger before anything is attached.
    void identifySource()
    {
        Ledger source = Ledger::open(m_source, {OpenMode::ReadOnly});
        const auto id = source.meta("ledger_id");
        std::error_code ec;
        if ((id && id == m_target.meta("ledger_id")) ||
            fs::equivalent(source.databasePath(), m_target.databasePath(), ec))
            throw Error(ErrorCode::InvalidInput,
                        m_source.string() + " is the target ledger itself; nothing was merged");
        m_sourceUuid = id ? *id : "path:" + fs::weakly_canonical(m_source).string();
        m_shardJson = source.meta("shard");
        if (m_shardJson)
            m_report.shard = ShardSpec::fromMetaJson(*m_shardJson);
    }

    void mergeAll(const std::function<void(std::int64_t, std::int64_t)> &progress)
    {
        {
            sqlite::Transaction tx(m_db);
            registerSource();
            copyFrozen("protocols", "protocol_id", "protocol_sha256", "canonical_json",
                       "name, canonical_json, created_at_ms");
            copyFrozen("components", "component_id", "identity_sha256", "identity_json",
                       "family, adapter_id, adapter_version, config_sha256, weights_sha256, "
                       "identity_json, created_at_ms");
            resetAll();
            tx.commit();
        }
        std::vector<std::int64_t> runs;
        {
            Statement &s = stmt("SELECT run_id FROM src.runs ORDER BY run_id");
            while (s.step())
                runs.push_back(s.int64(0));
        }
        const auto total = static_cast<std::int64_t>(runs.size());
        m_report.runs = static_cast<int>(total);
        std::size_t next = 0;
        while (next < runs.size()) {
            sqlite::Transaction tx(m_db);
            const std::size_t end = std::min(
                runs.size(),
                next + static_cast<std::size_t>(std::max(1, m_options.runsPerTransaction)));
            for (; next < end; ++next)
                mergeRunGuarded(runs[next]);
            // The objects copied for these runs are durable before a row names them.
            m_target.artifacts().syncFilesystem();
            resetAll();
            tx.commit();
            if (progress)
                progress(static_cast<std::int64_t>(next), total);
        }
    }

    void registerSource()
    {
        Statement &find = stmt("SELECT source_id FROM main.merge_sources WHERE source_uuid = ?");
        find.bind(1, m_sourceUuid);
        if (find.step()) {
            m_sourceId = find.int64(0);
            return;
        }
        Statement &add = stmt("INSERT INTO main.merge_sources (source_uuid, path, shard_json, "
                              "created_at_ms) VALUES (?, ?, ?, ?)");
        add.bind(1, m_sourceUuid)
            .bind(2, fs::absolute(m_source).lexically_normal().string())
            .bind(3, m_shardJson)
            .bind(4, nowMs())
            .run();
        m_sourceId = m_db.lastInsertRowId();
    }

    // Protocols and component identities: content-addressed; each is re-hashed before it is
    // taken, and one the target holds under the same hash must be the same text.
    void copyFrozen(const std::string &table, const std::string &idColumn,
                    const std::string &hashColumn, const std::string &contentColumn,
                    const std::string &columns)
    {
        Statement &s = stmt("SELECT " + idColumn + ", " + hashColumn + ", " + contentColumn +
                            " FROM src." + table);
        while (s.step()) {
            const std::string hash = s.text(1);
            const std::string content = s.text(2);
            std::string actual;
            try {
                actual = canonicalHash(json::parseBounded(content, table));
            } catch (const std::exception &e) {
                throw Error(ErrorCode::Corrupt, m_source.string() + ": " + table + " row " +
                                                    std::to_string(s.int64(0)) +
                                                    " is unreadable: " + e.what());
            }
            if (actual != hash)
                throw Error(ErrorCode::Corrupt, m_source.string() + ": " + table + " row " +
                                                    std::to_string(s.int64(0)) + " hashes to " +
                                                    actual + ", recorded " + hash +
                                                    "; nothing was merged from it");
            Statement &have = stmt("SELECT " + contentColumn + " FROM main." + table + " WHERE " +
                                   hashColumn + " = ?");
            have.bind(1, hash);
            if (have.step()) {
                if (have.text(0) != content)
                    throw Error(ErrorCode::Corrupt, "the target's " + table + " row " + hash +
                                                        " differs from " + m_source.string() +
                                                        "'s; run kosmos-cli verify on both");
                continue;
            }
            Statement &copy = stmt("INSERT INTO main." + table + " (" + hashColumn + ", " +
                                   columns + ") SELECT " + hashColumn + ", " + columns +
                                   " FROM src." + table + " WHERE " + idColumn + " = ?");
            copy.bind(1, s.int64(0)).run();
        }
    }

    void mergeRunGuarded(std::int64_t srcRun)
    {
        m_db.exec("SAVEPOINT merge_run");
        const MergeSourceReport before = m_report;
        try {
            mergeRun(srcRun);
            resetAll();
            m_db.exec("RELEASE merge_run");
        } catch (const RunConflict &c) {
            rollbackRun(before);
            refuse(srcRun, c.message);
        } catch (const Error &e) {
            // A rule of the target refused a row (a trigger, a CHECK or UNIQUE constraint): that
            // run's records do not fit; anything else (I/O, a full disk) stops the merge.
            const bool refusal =
                e.code() == ErrorCode::Immutable || e.code() == ErrorCode::Corrupt ||
                e.code() == ErrorCode::NotFound ||
                (e.code() == ErrorCode::Database &&
                 std::string_view(e.what()).find("constraint failed") != std::string_view::npos);
            if (!refusal) {
                rollbackRun(before);
                throw; // I/O, a full disk, a locked database: the whole merge stops
            }
            rollbackRun(before);
            refuse(srcRun, e.what());
        }
    }

    void rollbackRun(const MergeSourceReport &before)
    {
        resetAll();
        m_db.exec("ROLLBACK TO merge_run");
        m_db.exec("RELEASE merge_run");
        m_report = before;
    }

    void refuse(std::int64_t srcRun, const std::string &message)
    {
        Statement &key = stmt("SELECT run_key FROM src.runs WHERE run_id = ?");
        key.bind(1, srcRun);
        m_conflicts.push_back(
            {m_source.string(), key.step() ? key.text(0) : std::string(), message});
        ++m_report.conflicts;
    }

    struct AttemptRow
    {
        std::int64_t id = 0;
        int no = 0;
        std::string token;
        std::string state;
        std::optional<std::string> seal;
    };

    std::vector<AttemptRow> attemptsOf(const char *schema, std::int64_t runId)
    {
        Statement &s = stmt(std::string("SELECT attempt_id, attempt_no, lease_token, state, "
                                        "seal_sha256 FROM ") +
                            schema + ".attempts WHERE run_id = ? ORDER BY attempt_no");
        s.bind(1, runId);
        std::vector<AttemptRow> out;
        while (s.step())
            out.push_back(
                {s.int64(0), static_cast<int>(s.int64(1)), s.text(2), s.text(3), s.optText(4)});
        return out;
    }

    struct PlacedRun
    {
        std::int64_t outRun = 0;
        std::string outStatus; // in the target, before this merge
        std::string srcStatus;
    };

    // The run itself, by run key: checked against its key JSON and the shard, found in the target
    // or added there as queued.
    PlacedRun placeRun(std::int64_t srcRun)
    {
        Statement &src = stmt("SELECT r.run_key, r.key_json, p.protocol_sha256, r.status, "
                              "r.finished_at_ms, r.cancel_requested_at_ms, r.cancel_reason "
                              "FROM src.runs r JOIN src.protocols p USING (protocol_id) "
                              "WHERE r.run_id = ?");
        src.bind(1, srcRun);
        if (!src.step())
            throw RunConflict{"the run vanished from the source"};
        const std::string runKey = src.text(0);
        const std::string keyJson = src.text(1);
        const std::string srcStatus = src.text(3);
        if (m_report.shard && !m_report.shard->contains(runKey))
            throw RunConflict{
                "the run belongs to shard " +
                ShardSpec{shardOf(runKey, m_report.shard->count), m_report.shard->count}.text() +
                ", not to this ledger's shard " + m_report.shard->text() +
                " (its shard record or its runs were changed)"};
        std::string keyHash;
        try {
            keyHash = canonicalHash(json::parseBounded(keyJson, "key_json"));
        } catch (const Error &e) {
            throw RunConflict{std::string("the source's key JSON is unreadable: ") + e.what()};
        }
        if (keyHash != runKey)
            throw RunConflict{"the source's run key does not match its key JSON (run " +
                              std::to_string(srcRun) + "); verify the source"};

        std::int64_t outRun = 0;
        std::string outStatus;
        {
            Statement &out = stmt("SELECT r.run_id, r.key_json, p.protocol_sha256, r.status FROM "
                                  "main.runs r JOIN main.protocols p USING (protocol_id) "
                                  "WHERE r.run_key = ?");
            out.bind(1, runKey);
            if (out.step()) {
                outRun = out.int64(0);
                outStatus = out.text(3);
                if (out.text(2) != src.text(2))
                    throw RunConflict{"the same run key under another protocol (target " +
                                      out.text(2).substr(0, 16) + "..., source " +
                                      src.text(2).substr(0, 16) + "...)"};
                if (out.text(1) != keyJson)
                    throw RunConflict{"the same run key with another key JSON"};
            }
        }
        if (outRun == 0) {
            Statement &add =
                stmt("INSERT INTO main.runs (run_key, key_json, protocol_id, episode_index, task, "
                     "instruction, policy_id, world_model_id, judge_id, status, created_at_ms) "
                     "SELECT r.run_key, r.key_json, "
                     "(SELECT protocol_id FROM main.protocols WHERE protocol_sha256 = "
                     "p.protocol_sha256), "
                     "r.episode_index, r.task, r.instruction, " +
                     componentOf("r.policy_id") + ", " + componentOf("r.world_model_id") + ", " +
                     componentOf("r.judge_id") +
                     ", 'queued', r.created_at_ms FROM src.runs r JOIN src.protocols p "
                     "USING (protocol_id) WHERE r.run_id = ?");
            add.bind(1, srcRun).run();
            outRun = m_db.lastInsertRowId();
            outStatus = "queued";
            ++m_report.runsAdded;
        }
        return {outRun, outStatus, srcStatus};
    }

    // The source's attempts the target lacks, up to one still running (always the last): it is
    // taken once it has ended there, and its events (from limitSeq on) with it.
    struct NewAttempts
    {
        std::vector<AttemptRow> fresh;
        bool unfinished = false;
        std::int64_t limitSeq = std::numeric_limits<std::int64_t>::max();
    };

    // The target's attempts must be the source's first ones, unchanged (mapped in
    // temp.merge_amap); returns the source's attempts to add.
    NewAttempts matchAttempts(std::int64_t srcRun, std::int64_t outRun)
    {
        const auto srcAttempts = attemptsOf("src", srcRun);
        const auto outAttempts = attemptsOf("main", outRun);
        m_db.exec("DELETE FROM temp.merge_amap");
        m_db.exec("DELETE FROM temp.merge_jmap");
        for (const AttemptRow &o : outAttempts) {
            const auto s = std::find_if(srcAttempts.begin(), srcAttempts.end(),
                                        [&](const AttemptRow &a) { return a.no == o.no; });
            if (s == srcAttempts.end() || s->token != o.token)
                throw RunConflict{"attempt " + std::to_string(o.no) +
                                  " in the target was not made by this source (another shard "
                                  "or process ran the same run)"};
            if (s->seal != o.seal)
                throw RunConflict{"attempt " + std::to_string(o.no) +
                                  " is sealed differently in the target and the source"};
            Statement &map = stmt("INSERT INTO temp.merge_amap VALUES (?, ?, 0)");
            map.bind(1, s->id).bind(2, o.id).run();
            ++m_report.attemptsPresent;
        }
        NewAttempts out;
        for (const AttemptRow &s : srcAttempts) {
            if (!outAttempts.empty() && s.no <= outAttempts.back().no)
                continue;
            if (s.state == "running" || !s.seal) {
                out.unfinished = true;
                const std::int64_t first = scalar(
                    "SELECT COALESCE(MIN(seq), 0) FROM src.events WHERE attempt_id = ?", {s.id});
                if (first > 0)
                    out.limitSeq = first;
                break;
            }
            out.fresh.push_back(s);
        }
        return out;
    }

    // The events: the target's must be a prefix of the source's; the new attempts are added
    // (running, until their records are copied) and the source's further events copied.
    void copyEvents(std::int64_t srcRun, std::int64_t outRun, const NewAttempts &attempts)
    {
        const std::int64_t outSeq =
            scalar("SELECT MAX(seq) FROM main.events WHERE run_id = ?", {outRun});
        if (outSeq > 0) {
            const std::int64_t same =
                scalar("SELECT COUNT(*) FROM main.events o JOIN src.events s ON s.run_id = ? AND "
                       "s.seq = o.seq AND s.type = o.type AND s.payload_json = o.payload_json AND "
                       "s.created_at_ms = o.created_at_ms WHERE o.run_id = ?",
                       {srcRun, outRun});
            if (same != outSeq)
                throw RunConflict{"the target's events of this run differ from the source's"};
        }
        for (const AttemptRow &a : attempts.fresh) {
            Statement &add = stmt("INSERT INTO main.attempts (run_id, attempt_no, worker_id, "
                                  "lease_token, state, started_at_ms, heartbeat_at_ms, "
                                  "lease_expires_at_ms) SELECT ?, attempt_no, worker_id, "
                                  "lease_token, 'running', started_at_ms, heartbeat_at_ms, "
                                  "lease_expires_at_ms FROM src.attempts WHERE attempt_id = ?");
            add.bind(1, outRun).bind(2, a.id).run();
            Statement &map = stmt("INSERT INTO temp.merge_amap VALUES (?, ?, 1)");
            map.bind(1, a.id).bind(2, m_db.lastInsertRowId()).run();
        }
        const std::int64_t strays =
            scalar("SELECT COUNT(*) FROM src.events WHERE run_id = ? AND seq > ? AND seq < ? "
                   "AND attempt_id IS NOT NULL AND attempt_id NOT IN "
                   "(SELECT src_id FROM temp.merge_amap WHERE is_new = 1)",
                   {srcRun, outSeq, attempts.limitSeq});
        if (strays > 0)
            throw RunConflict{"the source has events after the target's for attempts the target "
                              "already closed"};
        {
            Statement &copy =
                stmt("INSERT INTO main.events (run_id, attempt_id, seq, type, "
                     "payload_json, created_at_ms) SELECT ?, m.out_id, e.seq, e.type, "
                     "e.payload_json, e.created_at_ms FROM src.events e LEFT JOIN "
                     "temp.merge_amap m ON m.src_id = e.attempt_id WHERE e.run_id = ? "
                     "AND e.seq > ? AND e.seq < ? ORDER BY e.seq");
            copy.bind(1, outRun).bind(2, srcRun).bind(3, outSeq).bind(4, attempts.limitSeq).run();
        }
    }

    void mergeRun(std::int64_t srcRun)
    {
        const PlacedRun placed = placeRun(srcRun);
        const NewAttempts attempts = matchAttempts(srcRun, placed.outRun);
        copyEvents(srcRun, placed.outRun, attempts);
        if (!attempts.fresh.empty())
            copyAttemptRecords(srcRun);

        // ---- the run's status: the source's once every attempt of it is here ----
        const std::string target = attempts.unfinished ? "queued" : placed.srcStatus;
        updateRunStatus(srcRun, placed.outRun, placed.outStatus,
                        target == "running" ? "queued" : target);
        if (attempts.unfinished || placed.srcStatus == "queued" || placed.srcStatus == "running")
            ++m_report.runsUnfinished;

        copyLabels(srcRun, placed.outRun);
    }

    static std::string componentOf(const std::string &column)
    {
        return "(SELECT m.component_id FROM main.components m JOIN src.components s ON "
               "s.identity_sha256 = m.identity_sha256 WHERE s.component_id = " +
               column + ")";
    }

    // Everything the new attempts recorded, then their end and seal, checked against the source.
    void copyAttemptRecords(std::int64_t srcRun)
    {
        copyArtifacts();
        const char *newAttempts = "(SELECT src_id FROM temp.merge_amap WHERE is_new = 1)";
        stmt(std::string("INSERT INTO main.attempt_artifacts (attempt_id, artifact_id, role, name, "
                         "created_at_ms) SELECT m.out_id, x.artifact_id, aa.role, aa.name, "
                         "aa.created_at_ms FROM src.attempt_artifacts aa JOIN temp.merge_amap m ON "
                         "m.src_id = aa.attempt_id AND m.is_new = 1 JOIN src.artifacts s ON "
                         "s.artifact_id = aa.artifact_id JOIN main.artifacts x ON x.sha256 = "
                         "s.sha256 ORDER BY aa.attempt_id, aa.role, aa.name"))
            .run();
        stmt("INSERT INTO main.provenance (parent_artifact_id, child_artifact_id, relation, "
             "attempt_id, details_json, created_at_ms) SELECT xp.artifact_id, "
             "xc.artifact_id, e.relation, m.out_id, e.details_json, e.created_at_ms FROM "
             "src.provenance e JOIN temp.merge_amap m ON m.src_id = e.attempt_id AND "
             "m.is_new = 1 JOIN src.artifacts sp ON sp.artifact_id = e.parent_artifact_id "
             "JOIN main.artifacts xp ON xp.sha256 = sp.sha256 JOIN src.artifacts sc ON "
             "sc.artifact_id = e.child_artifact_id JOIN main.artifacts xc ON xc.sha256 = "
             "sc.sha256 ORDER BY e.edge_id")
            .run();
        stmt("INSERT INTO main.validation_results (attempt_id, validator, "
             "validator_version, verdict, reason_codes_json, details_json, created_at_ms) "
             "SELECT m.out_id, v.validator, v.validator_version, v.verdict, "
             "v.reason_codes_json, v.details_json, v.created_at_ms FROM "
             "src.validation_results v JOIN temp.merge_amap m ON m.src_id = v.attempt_id "
             "AND m.is_new = 1 ORDER BY v.validation_id")
            .run();
        {
            Statement &judgments = stmt(std::string("SELECT judgment_id FROM src.judgments WHERE "
                                                    "attempt_id IN ") +
                                        newAttempts + " ORDER BY judgment_id");
            while (judgments.step()) {
                const std::int64_t srcJudgment = judgments.int64(0);
                Statement &add =
                    stmt("INSERT INTO main.judgments (attempt_id, judge_id, settings_json, "
                         "outcome, unknown_reason, progress, decisive_votes, "
                         "frame_indices_json, prompt_sha256, created_at_ms) SELECT m.out_id, " +
                         componentOf("j.judge_id") +
                         ", j.settings_json, j.outcome, j.unknown_reason, j.progress, "
                         "j.decisive_votes, j.frame_indices_json, j.prompt_sha256, "
                         "j.created_at_ms FROM src.judgments j JOIN temp.merge_amap m ON "
                         "m.src_id = j.attempt_id WHERE j.judgment_id = ?");
                add.bind(1, srcJudgment).run();
                const std::int64_t outJudgment = m_db.lastInsertRowId();
                Statement &map = stmt("INSERT INTO temp.merge_jmap VALUES (?, ?)");
                map.bind(1, srcJudgment).bind(2, outJudgment).run();
                Statement &keep = stmt("INSERT INTO main.merged_judgments (judgment_id, "
                                       "seal_judgment_id) VALUES (?, COALESCE((SELECT "
                                       "seal_judgment_id FROM src.merged_judgments WHERE "
                                       "judgment_id = ?), ?))");
                keep.bind(1, outJudgment).bind(2, srcJudgment).bind(3, srcJudgment).run();
            }
        }
        stmt("INSERT INTO main.judge_samples (judgment_id, sample_index, try_index, seed, "
             "raw_text, format_class, parse_error, parsed_json, generated_tokens, decode_ms, "
             "finish_reason, answer_form, request_sha256, server_model, system_fingerprint, "
             "row_sha256, created_at_ms) SELECT m.out_id, s.sample_index, s.try_index, "
             "s.seed, s.raw_text, s.format_class, s.parse_error, s.parsed_json, "
             "s.generated_tokens, s.decode_ms, s.finish_reason, s.answer_form, "
             "s.request_sha256, s.server_model, s.system_fingerprint, s.row_sha256, "
             "s.created_at_ms FROM src.judge_samples s JOIN temp.merge_jmap m ON m.src_id = "
             "s.judgment_id ORDER BY s.judgment_id, s.sample_index, s.try_index")
            .run();

        // Their ends, as the source recorded them, and where they ran.
        Statement &fresh = stmt("SELECT src_id, out_id FROM temp.merge_amap WHERE is_new = 1 "
                                "ORDER BY src_id");
        while (fresh.step()) {
            const std::int64_t srcAttempt = fresh.int64(0);
            const std::int64_t outAttempt = fresh.int64(1);
            Statement &close = stmt("UPDATE main.attempts SET (state, heartbeat_at_ms, "
                                    "lease_expires_at_ms, finished_at_ms, error_code, "
                                    "error_message, exit_signal, seal_sha256) = (SELECT state, "
                                    "heartbeat_at_ms, lease_expires_at_ms, finished_at_ms, "
                                    "error_code, error_message, exit_signal, seal_sha256 FROM "
                                    "src.attempts WHERE attempt_id = ?) WHERE attempt_id = ?");
            close.bind(1, srcAttempt).bind(2, outAttempt).run();
            Statement &origin = stmt(
                "INSERT INTO main.merged_attempts (attempt_id, source_id, source_attempt_id, "
                "seal_run_id, host, slurm_json, merged_at_ms) SELECT ?, ?, ?, COALESCE((SELECT "
                "seal_run_id FROM src.merged_attempts WHERE attempt_id = ?), ?), "
                "json_extract(e.payload_json, '$.process.host'), "
                "json_extract(e.payload_json, '$.slurm'), ? FROM (SELECT NULL) LEFT JOIN "
                "src.events e ON e.attempt_id = ? AND e.type = 'attempt_started'");
            origin.bind(1, outAttempt)
                .bind(2, m_sourceId)
                .bind(3, srcAttempt)
                .bind(4, srcAttempt)
                .bind(5, srcRun)
                .bind(6, nowMs())
                .bind(7, srcAttempt)
                .run();
            Statement &seal = stmt("SELECT seal_sha256 FROM src.attempts WHERE attempt_id = ?");
            seal.bind(1, srcAttempt);
            seal.step();
            const std::string expected = seal.text(0);
            const std::string actual = m_target.computeSeal(outAttempt);
            if (actual != expected)
                throw RunConflict{"attempt " + std::to_string(srcAttempt) +
                                  " of the source does not match its seal (recorded " +
                                  expected.substr(0, 16) + "..., its content hashes to " +
                                  actual.substr(0, 16) +
                                  "...): it was changed after it was sealed; verify the source"};
            ++m_report.attemptsCopied;
        }
    }

    // Objects the new attempts refer to (attached, in provenance, judge requests) that the
    // target lacks: copied from the source's store, hashed while copied; a mismatch refuses the
    // run (the copy, stored under its actual hash, is never referenced).
    void copyArtifacts()
    {
        Statement &need = stmt(
            "SELECT s.artifact_id, s.sha256 FROM src.artifacts s WHERE "
            "(s.artifact_id IN (SELECT aa.artifact_id FROM src.attempt_artifacts aa JOIN "
            "temp.merge_amap m ON m.src_id = aa.attempt_id AND m.is_new = 1) OR s.artifact_id IN "
            "(SELECT e.parent_artifact_id FROM src.provenance e JOIN temp.merge_amap m ON "
            "m.src_id = e.attempt_id AND m.is_new = 1) OR s.artifact_id IN (SELECT "
            "e.child_artifact_id FROM src.provenance e JOIN temp.merge_amap m ON m.src_id = "
            "e.attempt_id AND m.is_new = 1) OR s.sha256 IN (SELECT js.request_sha256 FROM "
            "src.judge_samples js JOIN src.judgments j ON j.judgment_id = js.judgment_id JOIN "
            "temp.merge_amap m ON m.src_id = j.attempt_id AND m.is_new = 1)) AND s.sha256 NOT IN "
            "(SELECT sha256 FROM main.artifacts)");
        ArtifactStore &store = m_target.artifacts();
        while (need.step()) {
            const std::string sha = need.text(1);
            // Absent, or left by a merge stopped before its transaction committed and not whole
            // (a machine that lost power before the sync): copied from the source.
            bool whole = store.contains(sha);
            if (whole) {
                Statement &size =
                    stmt("SELECT size_bytes FROM src.artifacts WHERE artifact_id = ?");
                size.bind(1, need.int64(0));
                size.step();
                whole = store.check(sha, size.int64(0), std::nullopt).ok();
            }
            if (!whole)
                copyObject(store, sha);
            Statement &add =
                stmt("INSERT INTO main.artifacts (sha256, size_bytes, media_type, "
                     "pixel_sha256, width, height, channels, created_at_ms) SELECT "
                     "sha256, size_bytes, media_type, pixel_sha256, width, height, "
                     "channels, created_at_ms FROM src.artifacts WHERE artifact_id = ?");
            add.bind(1, need.int64(0)).run();
        }
    }

    // One object from the source's store, hashed while it is copied (as opaque bytes: the row,
    // with its media type and pixel digest, is the source's; verify re-checks pixels). A
    // mismatch refuses the run; the copy, stored under its actual hash, is never referenced.
    void copyObject(ArtifactStore &store, const std::string &sha)
    {
        const fs::path from = m_srcObjects.objectPath(sha);
        if (!fs::exists(from))
            throw RunConflict{"artifact " + sha + " is missing from the source's store"};
        std::error_code ec;
        fs::remove(store.objectPath(sha), ec); // a partial copy is replaced, never trusted
        const StoredObject stored = store.putFile(from, "application/octet-stream");
        if (stored.sha256 != sha)
            throw RunConflict{"artifact " + sha + " in the source's store hashes to " +
                              stored.sha256 + ": it is corrupt; verify the source"};
        ++m_report.artifactsCopied;
        m_report.bytesCopied += stored.sizeBytes;
    }

    void updateRunStatus(std::int64_t srcRun, std::int64_t outRun, const std::string &current,
                         const std::string &target)
    {
        auto set = [&](const std::string &status, bool finished) {
            Statement &s = stmt("UPDATE main.runs SET status = ?, finished_at_ms = " +
                                std::string(finished ? "(SELECT finished_at_ms FROM src.runs "
                                                       "WHERE run_id = ?2)"
                                                     : "NULL") +
                                ", cancel_requested_at_ms = (SELECT cancel_requested_at_ms "
                                "FROM src.runs WHERE run_id = ?2), cancel_reason = (SELECT "
                                "cancel_reason FROM src.runs WHERE run_id = ?2) WHERE run_id "
                                "= ?3");
            s.bind(1, status).bind(2, srcRun).bind(3, outRun).run();
        };
        const bool finished = target == "completed" || target == "failed" || target == "cancelled";
        if (current == target) {
            if (!finished)
                set(target, false); // a cancel request may have arrived since
            return;
        }
        if (current == "completed" || current == "cancelled")
            throw RunConflict{"the run is " + current + " in the target but " + target +
                              " in the source"};
        if (current == "failed" && target != "queued")
            set("queued", false); // a failed run goes back to the queue before it ends again
        set(target, finished);
    }

    void copyLabels(std::int64_t srcRun, std::int64_t outRun)
    {
        Statement &labels = stmt("SELECT label_id, supersedes_label_id FROM src.human_labels WHERE "
                                 "run_id = ? AND label_id NOT IN (SELECT source_label_id FROM "
                                 "main.merged_labels WHERE source_id = ?) ORDER BY label_id");
        labels.bind(1, srcRun).bind(2, m_sourceId);
        while (labels.step()) {
            std::optional<std::int64_t> supersedes;
            if (const auto old = labels.optInt64(1)) {
                Statement &find =
                    stmt("SELECT label_id FROM main.merged_labels WHERE source_id = ? "
                         "AND source_label_id = ?");
                find.bind(1, m_sourceId).bind(2, *old);
                if (!find.step())
                    throw RunConflict{"label " + std::to_string(labels.int64(0)) +
                                      " corrects label " + std::to_string(*old) +
                                      ", which is not in the target"};
                supersedes = find.int64(0);
            }
            Statement &add =
                stmt("INSERT INTO main.human_labels (run_id, annotator_id, source, "
                     "split, integrity, collision, progress, completion, notes, "
                     "labeled_at_ms, supersedes_label_id) SELECT ?, annotator_id, "
                     "source, split, integrity, collision, progress, completion, "
                     "notes, labeled_at_ms, ? FROM src.human_labels WHERE label_id = ?");
            add.bind(1, outRun).bind(2, supersedes).bind(3, labels.int64(0)).run();
            Statement &keep = stmt("INSERT INTO main.merged_labels (label_id, source_id, "
                                   "source_label_id) VALUES (?, ?, ?)");
            keep.bind(1, m_db.lastInsertRowId()).bind(2, m_sourceId).bind(3, labels.int64(0)).run();
            ++m_report.labelsCopied;
        }
    }

    Ledger &m_target;
    sqlite::Database &m_db;
    fs::path m_source;
    ArtifactStore m_srcObjects;
    MergeSourceReport &m_report;
    std::vector<MergeConflict> &m_conflicts;
    const MergeOptions &m_options;
    std::string m_sourceUuid;
    std::optional<std::string> m_shardJson;
    std::int64_t m_sourceId = 0;
    std::map<std::string, std::unique_ptr<Statement>> m_cache;
};

} // namespace

MergeReport mergeLedgers(const fs::path &target, const std::vector<fs::path> &sources,
                         const MergeOptions &options, const MergeProgress &progress)
{
    MergeReport report;
    // A bundle folder without its database (a creation that was killed) is created again.
    const fs::path bundle = target.filename() == "ledger.sqlite" ? target.parent_path() : target;
    std::error_code ec;
    Ledger out =
        fs::exists(bundle / "ledger.sqlite", ec) ? Ledger::open(bundle) : Ledger::create(bundle);
    report.target = out.bundle().string();
    out.artifacts().setDeferredSync(true); // one syncfs per transaction (SourceMerge)
    for (std::size_t i = 0; i < sources.size(); ++i) {
        report.sources.push_back({});
        report.sources.back().path = sources[i].string();
        SourceMerge merge(out, Ledger::bundleDirectory(sources[i]), report.sources.back(),
                          report.conflicts, options);
        merge.run([&](std::int64_t done, std::int64_t total) {
            if (progress)
                progress(i, done, total);
        });
    }
    return report;
}

} // namespace kosmos
