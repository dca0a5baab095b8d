#include "ledger/LedgerInternal.h"

#include "util/CanonicalJson.h"
#include "util/Error.h"
#include "util/TextRules.h"

#include <openssl/rand.h>

#include <array>

namespace kosmos::ledger_internal {

std::string randomToken()
{
    std::array<unsigned char, 16> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
        throw Error(ErrorCode::Io, "OpenSSL could not produce random bytes for a lease token");
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char b : bytes) {
        out.push_back(kDigits[b >> 4]);
        out.push_back(kDigits[b & 0x0f]);
    }
    return out;
}

std::string attemptStateName(AttemptEnd end)
{
    switch (end) {
    case AttemptEnd::Completed:
        return "completed";
    case AttemptEnd::Failed:
        return "failed";
    case AttemptEnd::Cancelled:
        return "cancelled";
    }
    return "failed";
}

void requireNonEmpty(std::string_view value, std::string_view what)
{
    if (value.empty())
        throw Error(ErrorCode::InvalidInput, std::string(what) + " is empty");
}

// Every free text that enters the ledger (messages, names, notes) passes one filter,
// util/TextRules.h's ledgerText: credentials redacted, and valid UTF-8, which canonical JSON and
// the seals need (a parser's message may quote the bytes of a bad file).
std::optional<std::string> storedTextOpt(const std::optional<std::string> &text)
{
    return text ? std::optional<std::string>(ledgerText(*text)) : std::nullopt;
}

// An event payload as stored: canonical JSON, with bytes that are not UTF-8 replaced only when
// there are any (a payload is walked and copied again only then, off the hot path of step events).
std::string eventText(const nlohmann::json &payload)
{
    try {
        return canonicalJson(payload);
    } catch (const Error &) {
        return canonicalJson(withValidUtf8(payload)); // a non-finite number still throws
    }
}

AttemptRecord readAttempt(sqlite::Statement &s)
{
    AttemptRecord a;
    a.attemptId = s.int64(0);
    a.runId = s.int64(1);
    a.attemptNo = static_cast<int>(s.int64(2));
    a.workerId = s.text(3);
    a.state = s.text(4);
    a.startedAtMs = s.int64(5);
    a.leaseExpiresAtMs = s.int64(6);
    a.finishedAtMs = s.optInt64(7);
    a.errorCode = s.optText(8);
    a.errorMessage = s.optText(9);
    if (auto sig = s.optInt64(10))
        a.exitSignal = static_cast<int>(*sig);
    a.sealSha256 = s.optText(11);
    return a;
}

RunRecord readRun(sqlite::Statement &s)
{
    RunRecord r;
    r.runId = s.int64(0);
    r.runKey = s.text(1);
    r.keyJson = s.text(2);
    r.protocolSha256 = s.text(3);
    r.episodeIndex = s.int64(4);
    r.task = s.optText(5);
    r.instruction = s.optText(6);
    r.status = s.text(7);
    r.createdAtMs = s.int64(8);
    r.cancelRequestedAtMs = s.optInt64(9);
    r.finishedAtMs = s.optInt64(10);
    return r;
}

// The canonical document an attempt's seal hashes (docs/ledger.md, "Attempt seals").
// sealRunId: the run id the seal is computed with (a merged attempt keeps the id of the ledger
// that sealed it, see merged_attempts in schema.sql).
std::string sealOf(sqlite::Database &db, const AttemptRecord &a, std::int64_t sealRunId)
{
    using sqlite::Statement;
    nlohmann::json doc;
    doc["kosmos_seal"] = 1;
    doc["attempt"] = {
        {"run_id", sealRunId},
        {"attempt_no", a.attemptNo},
        {"worker_id", a.workerId},
        {"started_at_ms", a.startedAtMs},
        {"state", a.state},
        {"finished_at_ms", optJson(a.finishedAtMs)},
        {"error_code", optJson(a.errorCode)},
        {"error_message", optJson(a.errorMessage)},
        {"exit_signal", optJson(a.exitSignal)},
    };
    auto &events = doc["events"] = nlohmann::json::array();
    {
        Statement s(db, "SELECT seq, type, payload_json, created_at_ms FROM events "
                        "WHERE attempt_id = ? ORDER BY seq");
        s.bind(1, a.attemptId);
        while (s.step())
            events.push_back({s.int64(0), s.text(1), s.text(2), s.int64(3)});
    }
    auto &artifacts = doc["artifacts"] = nlohmann::json::array();
    {
        // LEFT JOIN: a link to a missing artifact row still changes the seal.
        Statement s(db, "SELECT aa.role, aa.name, x.sha256, x.size_bytes, x.media_type, "
                        "x.pixel_sha256 FROM attempt_artifacts aa "
                        "LEFT JOIN artifacts x ON x.artifact_id = aa.artifact_id "
                        "WHERE aa.attempt_id = ? ORDER BY aa.role, aa.name");
        s.bind(1, a.attemptId);
        while (s.step())
            artifacts.push_back({s.text(0), s.text(1), optJson(s.optText(2)),
                                 optJson(s.optInt64(3)), optJson(s.optText(4)),
                                 optJson(s.optText(5))});
    }
    auto &provenance = doc["provenance"] = nlohmann::json::array();
    {
        Statement s(db, "SELECT p.sha256, c.sha256, e.relation, e.details_json FROM provenance e "
                        "LEFT JOIN artifacts p ON p.artifact_id = e.parent_artifact_id "
                        "LEFT JOIN artifacts c ON c.artifact_id = e.child_artifact_id "
                        "WHERE e.attempt_id = ? ORDER BY e.edge_id");
        s.bind(1, a.attemptId);
        while (s.step())
            provenance.push_back(
                {optJson(s.optText(0)), optJson(s.optText(1)), s.text(2), optJson(s.optText(3))});
    }
    auto &validations = doc["validations"] = nlohmann::json::array();
    {
        Statement s(db, "SELECT validator, validator_version, verdict, reason_codes_json, "
                        "details_json FROM validation_results WHERE attempt_id = ? "
                        "ORDER BY validation_id");
        s.bind(1, a.attemptId);
        while (s.step())
            validations.push_back(
                {s.text(0), s.text(1), s.text(2), s.text(3), optJson(s.optText(4))});
    }
    auto &judgments = doc["judgments"] = nlohmann::json::array();
    {
        Statement s(db, "SELECT j.judgment_id, c.identity_sha256, j.settings_json, j.outcome, "
                        "j.unknown_reason, j.progress, j.decisive_votes, j.frame_indices_json, "
                        "j.prompt_sha256 FROM judgments j "
                        "LEFT JOIN components c ON c.component_id = j.judge_id "
                        "WHERE j.attempt_id = ? ORDER BY j.judgment_id");
        s.bind(1, a.attemptId);
        while (s.step()) {
            nlohmann::json samples = nlohmann::json::array();
            Statement rows(db, "SELECT row_sha256 FROM judge_samples WHERE judgment_id = ? "
                               "ORDER BY sample_index, try_index");
            rows.bind(1, s.int64(0));
            while (rows.step())
                samples.push_back(rows.text(0));
            judgments.push_back({optJson(s.optText(1)), s.text(2), s.text(3), optJson(s.optText(4)),
                                 optJson(s.optInt64(5)), optJson(s.optInt64(6)),
                                 optJson(s.optText(7)), optJson(s.optText(8)), samples});
        }
    }
    return canonicalHash(doc);
}

sqlite::Statement &StatementCache::get(const std::string &sql)
{
    auto &slot = m_statements[sql];
    if (!slot)
        slot = std::make_unique<sqlite::Statement>(m_db, sql);
    else
        slot->reset();
    return *slot;
}

void StatementCache::resetAll()
{
    for (auto &entry : m_statements)
        entry.second->reset();
}

} // namespace kosmos::ledger_internal
