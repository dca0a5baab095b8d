#include "ledger/LedgerTransfer.h"

#include "ledger/LedgerInternal.h"
#include "ledger/LedgerSql.h"
#include "util/Clock.h"
#include "util/Error.h"

#include <set>

namespace kosmos {

using ledger_internal::StatementCache;
using sqlite::Statement;
using namespace transfer;

std::vector<std::string> AttemptRows::artifactHashes() const
{
    std::vector<std::string> out;
    std::set<std::string> seen;
    auto add = [&](const std::string &sha) {
        if (seen.insert(sha).second)
            out.push_back(sha);
    };
    for (const auto &a : artifacts)
        add(a.artifactSha256);
    for (const auto &e : provenance) {
        add(e.parentSha256);
        add(e.childSha256);
    }
    for (const auto &j : judgments)
        for (const auto &s : j.samples)
            if (s.requestSha256)
                add(*s.requestSha256);
    return out;
}

namespace {

// Reads a single row (or none) and leaves the statement reset, so no read stays open.
template<typename F>
auto readOne(Statement &s, F &&read) -> std::optional<decltype(read(s))>
{
    std::optional<decltype(read(s))> out;
    if (s.step())
        out = read(s);
    s.reset();
    return out;
}

template<typename F>
auto readAll(Statement &s, F &&read) -> std::vector<decltype(read(s))>
{
    std::vector<decltype(read(s))> out;
    while (s.step())
        out.push_back(read(s));
    return out;
}

constexpr const char *kRunRowSelect =
    "SELECT r.run_id, r.run_key, r.key_json, p.protocol_sha256, r.episode_index, r.task, "
    "r.instruction, cp.identity_sha256, cw.identity_sha256, cj.identity_sha256, r.status, "
    "r.created_at_ms, r.cancel_requested_at_ms, r.cancel_reason, r.finished_at_ms FROM runs r "
    "JOIN protocols p ON p.protocol_id = r.protocol_id "
    "LEFT JOIN components cp ON cp.component_id = r.policy_id "
    "LEFT JOIN components cw ON cw.component_id = r.world_model_id "
    "LEFT JOIN components cj ON cj.component_id = r.judge_id ";

RunRow readRunRow(Statement &s)
{
    return {s.int64(0),   s.text(1),    s.text(2),      s.text(3),     s.int64(4),
            s.optText(5), s.optText(6), s.optText(7),   s.optText(8),  s.optText(9),
            s.text(10),   s.int64(11),  s.optInt64(12), s.optText(13), s.optInt64(14)};
}

} // namespace

// ---- TransferReader ----------------------------------------------------------------------------

TransferReader::TransferReader(Ledger &ledger)
    : m_ledger(ledger), m_cache(std::make_unique<StatementCache>(LedgerSql::of(ledger)))
{
}

TransferReader::~TransferReader() = default;

void TransferReader::snapshot(const std::function<void()> &read)
{
    sqlite::Database &db = m_cache->database();
    db.exec("BEGIN");
    try {
        read();
    } catch (...) {
        m_cache->resetAll();
        db.exec("ROLLBACK");
        throw;
    }
    m_cache->resetAll();
    db.exec("COMMIT");
}

std::vector<ProtocolRow> TransferReader::protocols()
{
    Statement &s = m_cache->get("SELECT protocol_id, protocol_sha256, name, canonical_json, "
                                "created_at_ms FROM protocols ORDER BY protocol_id");
    return readAll(s, [](Statement &r) {
        return ProtocolRow{r.int64(0), r.text(1), r.text(2), r.text(3), r.int64(4)};
    });
}

std::optional<std::string> TransferReader::protocolText(std::string_view sha256)
{
    Statement &s = m_cache->get("SELECT canonical_json FROM protocols WHERE protocol_sha256 = ?");
    s.bind(1, sha256);
    return readOne(s, [](Statement &r) { return r.text(0); });
}

std::vector<ComponentRow> TransferReader::components()
{
    Statement &s = m_cache->get(
        "SELECT component_id, identity_sha256, family, adapter_id, adapter_version, config_sha256, "
        "weights_sha256, identity_json, created_at_ms FROM components ORDER BY component_id");
    return readAll(s, [](Statement &r) {
        return ComponentRow{r.int64(0),   r.text(1),    r.text(2), r.text(3), r.text(4),
                            r.optText(5), r.optText(6), r.text(7), r.int64(8)};
    });
}

std::optional<std::string> TransferReader::componentText(std::string_view identitySha256)
{
    Statement &s = m_cache->get("SELECT identity_json FROM components WHERE identity_sha256 = ?");
    s.bind(1, identitySha256);
    return readOne(s, [](Statement &r) { return r.text(0); });
}

std::vector<std::int64_t> TransferReader::runIds()
{
    Statement &s = m_cache->get("SELECT run_id FROM runs ORDER BY run_id");
    return readAll(s, [](Statement &r) { return r.int64(0); });
}

std::optional<RunRow> TransferReader::run(std::int64_t runId)
{
    Statement &s = m_cache->get(std::string(kRunRowSelect) + "WHERE r.run_id = ?");
    s.bind(1, runId);
    return readOne(s, readRunRow);
}

std::optional<RunRow> TransferReader::runByKey(std::string_view runKey)
{
    Statement &s = m_cache->get(std::string(kRunRowSelect) + "WHERE r.run_key = ?");
    s.bind(1, runKey);
    return readOne(s, readRunRow);
}

std::vector<AttemptRow> TransferReader::attempts(std::int64_t runId)
{
    Statement &s = m_cache->get(
        "SELECT attempt_id, run_id, attempt_no, worker_id, lease_token, state, started_at_ms, "
        "heartbeat_at_ms, lease_expires_at_ms, finished_at_ms, error_code, error_message, "
        "exit_signal, seal_sha256 FROM attempts WHERE run_id = ? ORDER BY attempt_no");
    s.bind(1, runId);
    return readAll(s, [](Statement &r) {
        return AttemptRow{r.int64(0),     r.int64(1),    static_cast<int>(r.int64(2)),
                          r.text(3),      r.text(4),     r.text(5),
                          r.int64(6),     r.int64(7),    r.int64(8),
                          r.optInt64(9),  r.optText(10), r.optText(11),
                          r.optInt64(12), r.optText(13)};
    });
}

std::vector<EventRow> TransferReader::events(std::int64_t runId, std::int64_t afterSeq,
                                             std::int64_t beforeSeq)
{
    Statement &s = m_cache->get("SELECT attempt_id, seq, type, payload_json, created_at_ms FROM "
                                "events WHERE run_id = ? AND seq > ? AND seq < ? ORDER BY seq");
    s.bind(1, runId).bind(2, afterSeq).bind(3, beforeSeq);
    return readAll(s, [](Statement &r) {
        return EventRow{r.optInt64(0), r.int64(1), r.text(2), r.text(3), r.int64(4)};
    });
}

std::optional<std::int64_t> TransferReader::firstEventSeq(std::int64_t attemptId)
{
    Statement &s = m_cache->get("SELECT MIN(seq) FROM events WHERE attempt_id = ?");
    s.bind(1, attemptId);
    const auto seq = readOne(s, [](Statement &r) { return r.optInt64(0); });
    return seq ? *seq : std::nullopt;
}

AttemptRows TransferReader::attemptRows(std::int64_t attemptId)
{
    AttemptRows out;
    {
        Statement &s = m_cache->get(
            "SELECT x.sha256, aa.role, aa.name, aa.created_at_ms FROM attempt_artifacts aa JOIN "
            "artifacts x ON x.artifact_id = aa.artifact_id WHERE aa.attempt_id = ? "
            "ORDER BY aa.role, aa.name");
        s.bind(1, attemptId);
        out.artifacts = readAll(s, [](Statement &r) {
            return AttemptArtifactRow{r.text(0), r.text(1), r.text(2), r.int64(3)};
        });
    }
    {
        Statement &s = m_cache->get(
            "SELECT p.sha256, c.sha256, e.relation, e.details_json, e.created_at_ms FROM "
            "provenance e JOIN artifacts p ON p.artifact_id = e.parent_artifact_id JOIN "
            "artifacts c ON c.artifact_id = e.child_artifact_id WHERE e.attempt_id = ? "
            "ORDER BY e.edge_id");
        s.bind(1, attemptId);
        out.provenance = readAll(s, [](Statement &r) {
            return ProvenanceRow{r.text(0), r.text(1), r.text(2), r.optText(3), r.int64(4)};
        });
    }
    {
        Statement &s = m_cache->get(
            "SELECT validator, validator_version, verdict, reason_codes_json, details_json, "
            "created_at_ms FROM validation_results WHERE attempt_id = ? ORDER BY validation_id");
        s.bind(1, attemptId);
        out.validations = readAll(s, [](Statement &r) {
            return ValidationRow{r.text(0), r.text(1),    r.text(2),
                                 r.text(3), r.optText(4), r.int64(5)};
        });
    }
    {
        const bool merged = m_ledger.schemaVersion() >= 5;
        Statement &s = m_cache->get(
            std::string("SELECT j.judgment_id, ") +
            (merged ? "COALESCE((SELECT seal_judgment_id FROM merged_judgments m WHERE "
                      "m.judgment_id = j.judgment_id), j.judgment_id)"
                    : "j.judgment_id") +
            ", c.identity_sha256, j.settings_json, j.outcome, j.unknown_reason, j.progress, "
            "j.decisive_votes, j.frame_indices_json, j.prompt_sha256, j.created_at_ms FROM "
            "judgments j LEFT JOIN components c ON c.component_id = j.judge_id WHERE "
            "j.attempt_id = ? ORDER BY j.judgment_id");
        s.bind(1, attemptId);
        out.judgments = readAll(s, [](Statement &r) {
            return JudgmentRow{r.int64(0),   r.int64(1),   r.optText(2),  r.text(3),
                               r.text(4),    r.optText(5), r.optInt64(6), r.optInt64(7),
                               r.optText(8), r.optText(9), r.int64(10),   {}};
        });
    }
    for (JudgmentRow &j : out.judgments) {
        Statement &s = m_cache->get(
            "SELECT sample_index, try_index, seed, raw_text, format_class, parse_error, "
            "parsed_json, generated_tokens, decode_ms, finish_reason, answer_form, request_sha256, "
            "server_model, system_fingerprint, row_sha256, created_at_ms FROM judge_samples "
            "WHERE judgment_id = ? ORDER BY sample_index, try_index");
        s.bind(1, j.id);
        j.samples = readAll(s, [](Statement &r) {
            return JudgeSampleRow{r.int64(0),    r.int64(1),    r.optInt64(2), r.optText(3),
                                  r.text(4),     r.optText(5),  r.optText(6),  r.optInt64(7),
                                  r.optInt64(8), r.optText(9),  r.optText(10), r.optText(11),
                                  r.optText(12), r.optText(13), r.text(14),    r.int64(15)};
        });
    }
    return out;
}

AttemptOrigin TransferReader::attemptOrigin(std::int64_t attemptId)
{
    AttemptOrigin out;
    if (m_ledger.schemaVersion() >= 5) {
        Statement &s = m_cache->get("SELECT seal_run_id FROM merged_attempts WHERE attempt_id = ?");
        s.bind(1, attemptId);
        out.sealRunId = readOne(s, [](Statement &r) { return r.int64(0); });
    }
    Statement &s = m_cache->get(
        "SELECT json_extract(payload_json, '$.process.host'), json_extract(payload_json, "
        "'$.slurm') FROM events WHERE attempt_id = ? AND type = 'attempt_started' ORDER BY seq "
        "LIMIT 1");
    s.bind(1, attemptId);
    if (s.step()) {
        out.host = s.optText(0);
        out.slurmJson = s.optText(1);
    }
    s.reset();
    return out;
}

std::optional<ArtifactRow> TransferReader::artifact(std::string_view sha256)
{
    Statement &s = m_cache->get("SELECT sha256, size_bytes, media_type, pixel_sha256, width, "
                                "height, channels, created_at_ms FROM artifacts WHERE sha256 = ?");
    s.bind(1, sha256);
    return readOne(s, [](Statement &r) {
        return ArtifactRow{r.text(0),     r.int64(1),    r.text(2),     r.optText(3),
                           r.optInt64(4), r.optInt64(5), r.optInt64(6), r.int64(7)};
    });
}

std::vector<LabelRow> TransferReader::labels(std::int64_t runId)
{
    Statement &s = m_cache->get(
        "SELECT label_id, annotator_id, source, split, integrity, collision, progress, "
        "completion, notes, labeled_at_ms, supersedes_label_id FROM human_labels WHERE run_id = ? "
        "ORDER BY label_id");
    s.bind(1, runId);
    return readAll(s, [](Statement &r) {
        return LabelRow{r.int64(0),   r.text(1),    r.text(2),     r.optText(3),
                        r.optText(4), r.optText(5), r.optInt64(6), r.optText(7),
                        r.optText(8), r.int64(9),   r.optInt64(10)};
    });
}

std::optional<std::int64_t> TransferReader::mergeSource(std::string_view sourceUuid)
{
    Statement &s = m_cache->get("SELECT source_id FROM merge_sources WHERE source_uuid = ?");
    s.bind(1, sourceUuid);
    return readOne(s, [](Statement &r) { return r.int64(0); });
}

std::optional<std::int64_t> TransferReader::mergedLabel(std::int64_t sourceId,
                                                        std::int64_t sourceLabelId)
{
    Statement &s = m_cache->get(
        "SELECT label_id FROM merged_labels WHERE source_id = ? AND source_label_id = ?");
    s.bind(1, sourceId).bind(2, sourceLabelId);
    return readOne(s, [](Statement &r) { return r.int64(0); });
}

// ---- LedgerImport ------------------------------------------------------------------------------

LedgerImport::LedgerImport(Ledger &target)
    : m_ledger(target), m_cache(std::make_unique<StatementCache>(LedgerSql::of(target)))
{
    if (target.isReadOnly())
        throw Error(ErrorCode::ReadOnly,
                    target.bundle().string() + " is open read-only; nothing can be imported");
}

LedgerImport::~LedgerImport() = default;

void LedgerImport::transaction(const std::function<void()> &write)
{
    sqlite::Transaction tx(m_cache->database());
    try {
        write();
    } catch (...) {
        m_cache->resetAll();
        throw; // tx rolls back
    }
    m_cache->resetAll();
    tx.commit();
}

std::int64_t LedgerImport::addMergeSource(std::string_view sourceUuid, std::string_view path,
                                          const std::optional<std::string> &shardJson)
{
    Statement &s = m_cache->get("INSERT INTO merge_sources (source_uuid, path, shard_json, "
                                "created_at_ms) VALUES (?, ?, ?, ?)");
    s.bind(1, sourceUuid).bind(2, path).bind(3, shardJson).bind(4, nowMs()).run();
    return m_cache->database().lastInsertRowId();
}

void LedgerImport::addProtocol(const ProtocolRow &row)
{
    Statement &s = m_cache->get("INSERT INTO protocols (protocol_sha256, name, canonical_json, "
                                "created_at_ms) VALUES (?, ?, ?, ?)");
    s.bind(1, row.sha256).bind(2, row.name).bind(3, row.canonicalJson).bind(4, row.createdAtMs);
    s.run();
}

void LedgerImport::addComponent(const ComponentRow &row)
{
    Statement &s = m_cache->get(
        "INSERT INTO components (identity_sha256, family, adapter_id, adapter_version, "
        "config_sha256, weights_sha256, identity_json, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, "
        "?, ?)");
    s.bind(1, row.identitySha256)
        .bind(2, row.family)
        .bind(3, row.adapterId)
        .bind(4, row.adapterVersion)
        .bind(5, row.configSha256)
        .bind(6, row.weightsSha256)
        .bind(7, row.identityJson)
        .bind(8, row.createdAtMs)
        .run();
}

std::optional<std::int64_t>
LedgerImport::componentId(const std::optional<std::string> &identitySha256)
{
    if (!identitySha256)
        return std::nullopt;
    Statement &s = m_cache->get("SELECT component_id FROM components WHERE identity_sha256 = ?");
    s.bind(1, *identitySha256);
    const auto id = readOne(s, [](Statement &r) { return r.int64(0); });
    if (!id)
        throw Error(ErrorCode::NotFound,
                    "component " + *identitySha256 + " is not in " + m_ledger.bundle().string());
    return id;
}

std::int64_t LedgerImport::addQueuedRun(const RunRow &row)
{
    std::int64_t protocolId = 0;
    {
        Statement &s = m_cache->get("SELECT protocol_id FROM protocols WHERE protocol_sha256 = ?");
        s.bind(1, row.protocolSha256);
        const auto id = readOne(s, [](Statement &r) { return r.int64(0); });
        if (!id)
            throw Error(ErrorCode::NotFound, "protocol " + row.protocolSha256 + " is not in " +
                                                 m_ledger.bundle().string());
        protocolId = *id;
    }
    const auto policy = componentId(row.policySha256);
    const auto world = componentId(row.worldModelSha256);
    const auto judge = componentId(row.judgeSha256);
    Statement &s = m_cache->get(
        "INSERT INTO runs (run_key, key_json, protocol_id, episode_index, task, instruction, "
        "policy_id, world_model_id, judge_id, status, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, "
        "?, ?, 'queued', ?)");
    s.bind(1, row.runKey)
        .bind(2, row.keyJson)
        .bind(3, protocolId)
        .bind(4, row.episodeIndex)
        .bind(5, row.task)
        .bind(6, row.instruction)
        .bind(7, policy)
        .bind(8, world)
        .bind(9, judge)
        .bind(10, row.createdAtMs)
        .run();
    return m_cache->database().lastInsertRowId();
}

void LedgerImport::setRunStatus(std::int64_t runId, std::string_view status, const RunRow &source,
                                bool finished)
{
    Statement &s = m_cache->get("UPDATE runs SET status = ?, finished_at_ms = ?, "
                                "cancel_requested_at_ms = ?, cancel_reason = ? WHERE run_id = ?");
    s.bind(1, status)
        .bind(2, finished ? source.finishedAtMs : std::nullopt)
        .bind(3, source.cancelRequestedAtMs)
        .bind(4, source.cancelReason)
        .bind(5, runId)
        .run();
}

std::int64_t LedgerImport::openAttempt(std::int64_t runId, const AttemptRow &row)
{
    Statement &s = m_cache->get(
        "INSERT INTO attempts (run_id, attempt_no, worker_id, lease_token, state, started_at_ms, "
        "heartbeat_at_ms, lease_expires_at_ms) VALUES (?, ?, ?, ?, 'running', ?, ?, ?)");
    s.bind(1, runId)
        .bind(2, row.attemptNo)
        .bind(3, row.workerId)
        .bind(4, row.leaseToken)
        .bind(5, row.startedAtMs)
        .bind(6, row.heartbeatAtMs)
        .bind(7, row.leaseExpiresAtMs)
        .run();
    return m_cache->database().lastInsertRowId();
}

void LedgerImport::addEvents(std::int64_t runId, const std::vector<EventRow> &events,
                             const std::map<std::int64_t, std::int64_t> &attemptIds)
{
    Statement &s = m_cache->get("INSERT INTO events (run_id, attempt_id, seq, type, payload_json, "
                                "created_at_ms) VALUES (?, ?, ?, ?, ?, ?)");
    for (const EventRow &e : events) {
        std::optional<std::int64_t> attempt;
        if (e.attemptId) {
            const auto found = attemptIds.find(*e.attemptId);
            if (found == attemptIds.end())
                throw Error(ErrorCode::InvalidInput,
                            "event " + std::to_string(e.seq) + " belongs to attempt " +
                                std::to_string(*e.attemptId) + ", which is not imported");
            attempt = found->second;
        }
        s.reset();
        s.bind(1, runId)
            .bind(2, attempt)
            .bind(3, e.seq)
            .bind(4, e.type)
            .bind(5, e.payloadJson)
            .bind(6, e.createdAtMs)
            .run();
    }
}

bool LedgerImport::hasArtifact(std::string_view sha256)
{
    Statement &s = m_cache->get("SELECT 1 FROM artifacts WHERE sha256 = ?");
    s.bind(1, sha256);
    return readOne(s, [](Statement &) { return true; }).has_value();
}

std::int64_t LedgerImport::artifactId(std::string_view sha256)
{
    Statement &s = m_cache->get("SELECT artifact_id FROM artifacts WHERE sha256 = ?");
    s.bind(1, sha256);
    const auto id = readOne(s, [](Statement &r) { return r.int64(0); });
    if (!id)
        throw Error(ErrorCode::NotFound,
                    "artifact " + std::string(sha256) + " is not in " + m_ledger.bundle().string());
    return *id;
}

void LedgerImport::addArtifact(const ArtifactRow &row)
{
    Statement &s = m_cache->get(
        "INSERT INTO artifacts (sha256, size_bytes, media_type, pixel_sha256, width, height, "
        "channels, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, row.sha256)
        .bind(2, row.sizeBytes)
        .bind(3, row.mediaType)
        .bind(4, row.pixelSha256)
        .bind(5, row.width)
        .bind(6, row.height)
        .bind(7, row.channels)
        .bind(8, row.createdAtMs)
        .run();
}

void LedgerImport::addAttemptRows(std::int64_t attemptId, const AttemptRows &rows)
{
    for (const AttemptArtifactRow &a : rows.artifacts) {
        const std::int64_t artifact = artifactId(a.artifactSha256);
        Statement &s = m_cache->get("INSERT INTO attempt_artifacts (attempt_id, artifact_id, "
                                    "role, name, created_at_ms) VALUES (?, ?, ?, ?, ?)");
        s.bind(1, attemptId).bind(2, artifact).bind(3, a.role).bind(4, a.name);
        s.bind(5, a.createdAtMs).run();
    }
    for (const ProvenanceRow &e : rows.provenance) {
        const std::int64_t parent = artifactId(e.parentSha256);
        const std::int64_t child = artifactId(e.childSha256);
        Statement &s = m_cache->get(
            "INSERT INTO provenance (parent_artifact_id, child_artifact_id, relation, attempt_id, "
            "details_json, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)");
        s.bind(1, parent).bind(2, child).bind(3, e.relation).bind(4, attemptId);
        s.bind(5, e.detailsJson).bind(6, e.createdAtMs).run();
    }
    for (const ValidationRow &v : rows.validations) {
        Statement &s = m_cache->get(
            "INSERT INTO validation_results (attempt_id, validator, validator_version, verdict, "
            "reason_codes_json, details_json, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)");
        s.bind(1, attemptId).bind(2, v.validator).bind(3, v.validatorVersion).bind(4, v.verdict);
        s.bind(5, v.reasonCodesJson).bind(6, v.detailsJson).bind(7, v.createdAtMs).run();
    }
    for (const JudgmentRow &j : rows.judgments) {
        const auto judge = componentId(j.judgeSha256);
        Statement &s = m_cache->get(
            "INSERT INTO judgments (attempt_id, judge_id, settings_json, outcome, unknown_reason, "
            "progress, decisive_votes, frame_indices_json, prompt_sha256, created_at_ms) VALUES "
            "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
        s.bind(1, attemptId).bind(2, judge).bind(3, j.settingsJson).bind(4, j.outcome);
        s.bind(5, j.unknownReason).bind(6, j.progress).bind(7, j.decisiveVotes);
        s.bind(8, j.frameIndicesJson).bind(9, j.promptSha256).bind(10, j.createdAtMs).run();
        const std::int64_t judgment = m_cache->database().lastInsertRowId();
        Statement &keep = m_cache->get(
            "INSERT INTO merged_judgments (judgment_id, seal_judgment_id) VALUES (?, ?)");
        keep.bind(1, judgment).bind(2, j.sealJudgmentId).run();
        for (const JudgeSampleRow &x : j.samples) {
            Statement &add = m_cache->get(
                "INSERT INTO judge_samples (judgment_id, sample_index, try_index, seed, raw_text, "
                "format_class, parse_error, parsed_json, generated_tokens, decode_ms, "
                "finish_reason, answer_form, request_sha256, server_model, system_fingerprint, "
                "row_sha256, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                "?, ?)");
            add.bind(1, judgment).bind(2, x.sampleIndex).bind(3, x.tryIndex).bind(4, x.seed);
            add.bind(5, x.rawText).bind(6, x.formatClass).bind(7, x.parseError);
            add.bind(8, x.parsedJson).bind(9, x.generatedTokens).bind(10, x.decodeMs);
            add.bind(11, x.finishReason).bind(12, x.answerForm).bind(13, x.requestSha256);
            add.bind(14, x.serverModel).bind(15, x.systemFingerprint).bind(16, x.rowSha256);
            add.bind(17, x.createdAtMs).run();
        }
    }
}

void LedgerImport::closeAttempt(std::int64_t attemptId, const AttemptRow &source,
                                std::int64_t sourceId, std::int64_t sealRunId,
                                const AttemptOrigin &origin)
{
    Statement &close = m_cache->get(
        "UPDATE attempts SET (state, heartbeat_at_ms, lease_expires_at_ms, finished_at_ms, "
        "error_code, error_message, exit_signal, seal_sha256) = (?, ?, ?, ?, ?, ?, ?, ?) WHERE "
        "attempt_id = ?");
    close.bind(1, source.state)
        .bind(2, source.heartbeatAtMs)
        .bind(3, source.leaseExpiresAtMs)
        .bind(4, source.finishedAtMs)
        .bind(5, source.errorCode)
        .bind(6, source.errorMessage)
        .bind(7, source.exitSignal)
        .bind(8, source.sealSha256)
        .bind(9, attemptId)
        .run();
    Statement &keep = m_cache->get(
        "INSERT INTO merged_attempts (attempt_id, source_id, source_attempt_id, seal_run_id, host, "
        "slurm_json, merged_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)");
    keep.bind(1, attemptId)
        .bind(2, sourceId)
        .bind(3, source.id)
        .bind(4, sealRunId)
        .bind(5, origin.host)
        .bind(6, origin.slurmJson)
        .bind(7, nowMs())
        .run();
}

std::int64_t LedgerImport::addMergedLabel(std::int64_t runId, const LabelRow &row,
                                          std::optional<std::int64_t> supersedes,
                                          std::int64_t sourceId)
{
    Statement &s = m_cache->get(
        "INSERT INTO human_labels (run_id, annotator_id, source, split, integrity, collision, "
        "progress, completion, notes, labeled_at_ms, supersedes_label_id) VALUES (?, ?, ?, ?, ?, "
        "?, ?, ?, ?, ?, ?)");
    s.bind(1, runId).bind(2, row.annotatorId).bind(3, row.source).bind(4, row.split);
    s.bind(5, row.integrity).bind(6, row.collision).bind(7, row.progress).bind(8, row.completion);
    s.bind(9, row.notes).bind(10, row.labeledAtMs).bind(11, supersedes).run();
    const std::int64_t label = m_cache->database().lastInsertRowId();
    Statement &keep = m_cache->get(
        "INSERT INTO merged_labels (label_id, source_id, source_label_id) VALUES (?, ?, ?)");
    keep.bind(1, label).bind(2, sourceId).bind(3, row.id).run();
    return label;
}

} // namespace kosmos
