// The ledger: what an attempt records under its lease (events, artifacts, provenance,
// validation results, judgments).
#include "ledger/Ledger.h"

#include "ledger/LedgerInternal.h"
#include "util/CanonicalJson.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/Secrets.h"
#include "util/Sha256.h"
#include "util/TextRules.h"

#include <sqlite3.h>

namespace kosmos {
namespace fs = std::filesystem;
using namespace ledger_internal;
using sqlite::Statement;
using sqlite::Transaction;

// ---- writes under a lease -------------------------------------------------------------------

std::int64_t Ledger::insertEvent(std::int64_t runId, std::optional<std::int64_t> attemptId,
                                 std::string_view type, const nlohmann::json &payload,
                                 std::int64_t now)
{
    const std::pair<std::string, nlohmann::json> event{std::string(type), payload};
    return insertEvents(runId, attemptId, std::span(&event, 1), now);
}

std::int64_t Ledger::insertEvents(std::int64_t runId, std::optional<std::int64_t> attemptId,
                                  std::span<const std::pair<std::string, nlohmann::json>> events,
                                  std::int64_t now)
{
    for (const auto &event : events)
        requireNonEmpty(event.first, "event type");
    // One statement of each kind for the whole batch, the run's next sequence number read once.
    Statement last(m_db, "SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?");
    last.bind(1, runId);
    last.step();
    std::int64_t seq = last.int64(0);
    Statement insert(m_db, "INSERT INTO events (run_id, attempt_id, seq, type, payload_json, "
                           "created_at_ms) VALUES (?, ?, ?, ?, ?, ?)");
    for (const auto &[type, payload] : events) {
        insert.reset();
        insert.bind(1, runId)
            .bind(2, attemptId)
            .bind(3, ++seq)
            .bind(4, type)
            .bind(5, redactSecrets(eventText(payload)))
            .bind(6, now)
            .run();
    }
    return seq;
}

std::int64_t Ledger::appendEvent(const Lease &lease, std::string_view type,
                                 const nlohmann::json &payload)
{
    Transaction tx(m_db);
    checkLease(lease);
    const std::int64_t seq = insertEvent(lease.runId, lease.attemptId, type, payload, nowMs());
    tx.commit();
    return seq;
}

std::int64_t Ledger::appendEvents(const Lease &lease,
                                  const std::vector<std::pair<std::string, nlohmann::json>> &events)
{
    for (const auto &event : events)
        requireNonEmpty(event.first, "event type"); // before the transaction and the lease check
    Transaction tx(m_db);
    checkLease(lease);
    const std::int64_t seq = insertEvents(lease.runId, lease.attemptId, events, nowMs());
    tx.commit();
    return seq;
}

std::int64_t Ledger::insertArtifactRow(const StoredObject &object, std::int64_t now)
{
    Statement insert(m_db,
                     "INSERT INTO artifacts (sha256, size_bytes, media_type, pixel_sha256, "
                     "width, height, channels, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                     "ON CONFLICT (sha256) DO NOTHING");
    insert.bind(1, object.sha256).bind(2, object.sizeBytes).bind(3, object.mediaType);
    if (object.pixels) {
        insert.bind(4, object.pixels->sha256)
            .bind(5, object.pixels->width)
            .bind(6, object.pixels->height)
            .bind(7, object.pixels->channels);
    } else {
        insert.bindNull(4).bindNull(5).bindNull(6).bindNull(7);
    }
    insert.bind(8, now).run();
    Statement select(m_db, "SELECT artifact_id, size_bytes FROM artifacts WHERE sha256 = ?");
    select.bind(1, object.sha256);
    select.step();
    if (select.int64(1) != object.sizeBytes)
        throw Error(ErrorCode::Corrupt, "artifact " + object.sha256 + " is recorded with " +
                                            std::to_string(select.int64(1)) + " bytes, not " +
                                            std::to_string(object.sizeBytes));
    return select.int64(0);
}

std::int64_t Ledger::attachArtifact(const Lease &lease, std::string_view role,
                                    std::string_view name, const StoredObject &object)
{
    return attachArtifacts(lease, {{std::string(role), std::string(name), object}}).at(0);
}

Ledger::Batch::Batch(Ledger &ledger, Durability durability) : m_ledger(ledger)
{
    // The synchronous level is a property of the connection, changed only outside a
    // transaction: an inner Batch takes the outer one's.
    m_relaxed =
        durability == Durability::AtNextSeal && sqlite3_get_autocommit(ledger.m_db.handle());
    if (m_relaxed)
        m_ledger.m_db.exec("PRAGMA synchronous = NORMAL");
    try {
        m_tx.emplace(ledger.m_db);
    } catch (...) {
        if (m_relaxed)
            m_ledger.m_db.exec("PRAGMA synchronous = FULL");
        throw;
    }
}

Ledger::Batch::~Batch()
{
    m_tx.reset(); // rolls back unless committed
    if (m_relaxed)
        sqlite3_exec(m_ledger.m_db.handle(), "PRAGMA synchronous = FULL", nullptr, nullptr,
                     nullptr);
}

void Ledger::Batch::commit()
{
    m_tx->commit();
    if (m_relaxed) {
        m_relaxed = false;
        m_ledger.m_db.exec("PRAGMA synchronous = FULL");
    }
}

std::vector<std::int64_t> Ledger::attachArtifacts(const Lease &lease,
                                                  const std::vector<Attachment> &attachments)
{
    for (const auto &a : attachments) {
        requireNonEmpty(a.role, "artifact role");
        requireNonEmpty(a.name, "artifact name");
        if (!m_store.contains(a.object.sha256))
            throw Error(ErrorCode::InvalidInput, "artifact " + a.object.sha256 +
                                                     " is not in the store " +
                                                     m_store.directory().string());
    }
    std::vector<std::int64_t> ids;
    if (attachments.empty())
        return ids;
    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    checkLease(lease);
    Statement link(m_db, "INSERT INTO attempt_artifacts (attempt_id, artifact_id, role, name, "
                         "created_at_ms) VALUES (?, ?, ?, ?, ?)");
    for (const auto &a : attachments) {
        const std::int64_t artifactId = insertArtifactRow(a.object, now);
        link.reset();
        link.bind(1, lease.attemptId)
            .bind(2, artifactId)
            .bind(3, a.role)
            .bind(4, a.name)
            .bind(5, now);
        link.run();
        ids.push_back(artifactId);
    }
    tx.commit();
    return ids;
}

void Ledger::addProvenanceLinks(const Lease &lease, const std::vector<ProvenanceLink> &links)
{
    for (const auto &l : links)
        requireNonEmpty(l.relation, "provenance relation");
    if (links.empty())
        return;
    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    checkLease(lease);
    Statement s(m_db, "INSERT INTO provenance (parent_artifact_id, child_artifact_id, relation, "
                      "attempt_id, details_json, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)");
    for (const auto &l : links) {
        s.reset();
        s.bind(1, l.parentArtifactId)
            .bind(2, l.childArtifactId)
            .bind(3, l.relation)
            .bind(4, lease.attemptId);
        if (l.details.is_null())
            s.bindNull(5);
        else
            s.bind(5, canonicalJson(l.details));
        s.bind(6, now).run();
    }
    tx.commit();
}

std::int64_t Ledger::putArtifact(const Lease &lease, std::string_view role, std::string_view name,
                                 std::span<const std::uint8_t> bytes, std::string_view mediaType)
{
    checkLease(lease); // fail early, before writing the object
    return attachArtifact(lease, role, name, m_store.putBytes(bytes, mediaType));
}

void Ledger::addProvenance(const Lease &lease, std::int64_t parentArtifactId,
                           std::int64_t childArtifactId, std::string_view relation,
                           const nlohmann::json &details)
{
    addProvenanceLinks(lease,
                       {{parentArtifactId, childArtifactId, std::string(relation), details}});
}

std::int64_t Ledger::recordValidation(const Lease &lease, const ValidationRecord &validation)
{
    requireNonEmpty(validation.validator, "validator");
    requireNonEmpty(validation.validatorVersion, "validator version");
    if (validation.verdict != "valid" && validation.verdict != "invalid" &&
        validation.verdict != "unknown")
        throw Error(ErrorCode::InvalidInput, "validation verdict must be valid, invalid or "
                                             "unknown, not '" +
                                                 validation.verdict + "'");
    Transaction tx(m_db);
    checkLease(lease);
    Statement s(m_db, "INSERT INTO validation_results (attempt_id, validator, validator_version, "
                      "verdict, reason_codes_json, details_json, created_at_ms) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, lease.attemptId)
        .bind(2, validation.validator)
        .bind(3, validation.validatorVersion)
        .bind(4, validation.verdict)
        .bind(5, canonicalJson(validation.reasonCodes));
    if (validation.details.is_null())
        s.bindNull(6);
    else
        s.bind(6, canonicalJson(validation.details));
    s.bind(7, nowMs()).run();
    const std::int64_t id = m_db.lastInsertRowId();
    tx.commit();
    return id;
}

// Inside the caller's transaction: each sample of a judgment, its request document named, its
// free texts filtered; refused when a raw text was not screened before it was parsed.
void Ledger::insertJudgeSamples(std::int64_t judgmentId, const JudgmentRecord &judgment,
                                const std::vector<std::optional<StoredObject>> &requests,
                                std::int64_t now)
{
    Statement sample(m_db, "INSERT INTO judge_samples (judgment_id, sample_index, try_index, seed, "
                           "raw_text, format_class, parse_error, parsed_json, generated_tokens, "
                           "decode_ms, finish_reason, row_sha256, created_at_ms, answer_form, "
                           "request_sha256, server_model, system_fingerprint) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < judgment.samples.size(); ++i) {
        JudgeSampleRecord js = judgment.samples[i];
        js.requestSha256 =
            requests[i] ? std::optional<std::string>(requests[i]->sha256) : std::nullopt;
        js.serverModel = storedTextOpt(js.serverModel);
        js.systemFingerprint = storedTextOpt(js.systemFingerprint);
        js.parseError = storedTextOpt(js.parseError);
        // The raw text was screened before it was parsed (screenJudgeAnswer): a text the filter
        // would still change has a parse that no longer follows from what would be stored.
        if (js.rawText && ledgerText(*js.rawText) != *js.rawText)
            throw Error(ErrorCode::InvalidInput,
                        "judge sample " + std::to_string(js.sampleIndex) + " try " +
                            std::to_string(js.tryIndex) +
                            ": its raw text holds a credential or bytes that are not UTF-8 and was "
                            "not screened before it was parsed (screenJudgeAnswer)");
        sample.reset();
        sample.bind(1, judgmentId)
            .bind(2, js.sampleIndex)
            .bind(3, js.tryIndex)
            .bind(4, js.seed)
            .bind(5, js.rawText)
            .bind(6, js.formatClass)
            .bind(7, js.parseError);
        if (js.parsed.is_null())
            sample.bindNull(8);
        else
            sample.bind(8, canonicalJson(js.parsed));
        sample.bind(9, js.generatedTokens)
            .bind(10, js.decodeMs)
            .bind(11, js.finishReason)
            .bind(12, js.rowSha256(judgmentId))
            .bind(13, now)
            .bind(14, js.answerForm)
            .bind(15, js.requestSha256)
            .bind(16, js.serverModel)
            .bind(17, js.systemFingerprint)
            .run();
    }
}

std::int64_t Ledger::recordJudgment(const Lease &lease, const JudgmentRecord &judgment)
{
    if (judgment.outcome != "success" && judgment.outcome != "failure" &&
        judgment.outcome != "unknown")
        throw Error(ErrorCode::InvalidInput, "judgment outcome must be success, failure or "
                                             "unknown, not '" +
                                                 judgment.outcome + "'");
    if ((judgment.outcome == "unknown") != judgment.unknownReason.has_value())
        throw Error(ErrorCode::InvalidInput,
                    "a judgment has an unknown_reason exactly when its outcome is unknown");
    const std::int64_t now = nowMs();
    // What the judge was shown and asked, stored first (content-addressed, so a crash leaves at
    // most an unreferenced object): the frames' PNGs and each call's request document.
    checkLease(lease);
    // The judged frames are normally the rollout's own objects: reuse what is stored (no second
    // decode, write and fsync per frame); store only what is new.
    auto storeOnce = [&](std::span<const std::uint8_t> bytes, std::string_view mediaType) {
        const std::string sha = Sha256::hex(bytes);
        if (m_store.contains(sha)) {
            Statement known(m_db, "SELECT size_bytes, media_type FROM artifacts WHERE sha256 = ?");
            known.bind(1, sha);
            if (known.step())
                return StoredObject{sha, known.int64(0), known.text(1), std::nullopt, true};
        }
        return m_store.putBytes(bytes, mediaType);
    };
    std::vector<StoredObject> frames;
    for (const auto &png : judgment.framePngs)
        frames.push_back(storeOnce(png, "image/png"));
    std::vector<std::optional<StoredObject>> requests;
    for (const JudgeSampleRecord &js : judgment.samples) {
        if (js.request.is_null()) {
            requests.emplace_back();
            continue;
        }
        const std::string text = redactSecrets(canonicalJson(js.request));
        requests.emplace_back(
            storeOnce(std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()),
                      "application/json"));
    }
    Transaction tx(m_db);
    checkLease(lease);
    Statement link(m_db, "INSERT INTO attempt_artifacts (attempt_id, artifact_id, role, name, "
                         "created_at_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
    auto attach = [&](const StoredObject &object, std::string_view role, const std::string &name) {
        link.reset();
        link.bind(1, lease.attemptId)
            .bind(2, insertArtifactRow(object, now))
            .bind(3, role)
            .bind(4, name)
            .bind(5, now)
            .run();
    };
    for (const StoredObject &frame : frames)
        attach(frame, "judge_frame", frame.sha256 + ".png");
    for (const auto &request : requests) {
        if (request)
            attach(*request, "judge_request", request->sha256 + ".json");
    }
    Statement s(m_db, "INSERT INTO judgments (attempt_id, judge_id, settings_json, outcome, "
                      "unknown_reason, progress, decisive_votes, frame_indices_json, "
                      "prompt_sha256, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, lease.attemptId)
        .bind(2, judgment.judgeComponentId)
        .bind(3, canonicalJson(judgment.settings))
        .bind(4, judgment.outcome)
        .bind(5, judgment.unknownReason)
        .bind(6, judgment.progress)
        .bind(7, judgment.decisiveVotes);
    if (judgment.frameIndices.is_null())
        s.bindNull(8);
    else
        s.bind(8, canonicalJson(judgment.frameIndices));
    s.bind(9, judgment.promptSha256).bind(10, now).run();
    const std::int64_t judgmentId = m_db.lastInsertRowId();
    insertJudgeSamples(judgmentId, judgment, requests, now);
    if (!judgment.screenedSamples.empty())
        insertEvent(lease.runId, lease.attemptId, "judge_text_screened",
                    {{"judgment_id", judgmentId},
                     {"samples", judgment.screenedSamples},
                     {"why", "credentials redacted or bytes that are not UTF-8 replaced before "
                             "the answer was parsed"}},
                    now);
    tx.commit();
    return judgmentId;
}

} // namespace kosmos
