#pragma once

// What the ledger's own files share (LedgerOpen, LedgerRuns, LedgerAttempts, LedgerEvidence,
// LedgerLabels): row readers, the seal document and the text filters. Not for other layers.

#include "ledger/LedgerTypes.h"
#include "ledger/SqliteDb.h"

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace kosmos::ledger_internal {

// A lease token: 16 random bytes as hex (OpenSSL).
std::string randomToken();
std::string attemptStateName(AttemptEnd end);
void requireNonEmpty(std::string_view value, std::string_view what);
// Every free text that enters the ledger (messages, names, notes) passes one filter,
// util/TextRules.h's ledgerText: credentials redacted, and valid UTF-8.
std::optional<std::string> storedTextOpt(const std::optional<std::string> &text);
// An event payload as stored: canonical JSON, bytes that are not UTF-8 replaced only when present.
std::string eventText(const nlohmann::json &payload);

template<typename T>
nlohmann::json optJson(const std::optional<T> &value)
{
    return value ? nlohmann::json(*value) : nlohmann::json();
}

AttemptRecord readAttempt(sqlite::Statement &s);
inline constexpr const char *kAttemptColumns =
    "attempt_id, run_id, attempt_no, worker_id, state, started_at_ms, lease_expires_at_ms, "
    "finished_at_ms, error_code, error_message, exit_signal, seal_sha256";
RunRecord readRun(sqlite::Statement &s);
inline constexpr const char *kRunSelect =
    "SELECT r.run_id, r.run_key, r.key_json, p.protocol_sha256, r.episode_index, r.task, "
    "r.instruction, r.status, r.created_at_ms, r.cancel_requested_at_ms, r.finished_at_ms "
    "FROM runs r JOIN protocols p ON p.protocol_id = r.protocol_id ";
// The canonical document an attempt's seal hashes (docs/ledger.md, "Attempt seals").
// sealRunId: the run id the seal is computed with (a merged attempt keeps the id of the ledger
// that sealed it, see merged_attempts in schema.sql).
std::string sealOf(sqlite::Database &db, const AttemptRecord &a, std::int64_t sealRunId);

// Statements prepared once per connection and reused (reset and unbound before each use).
class StatementCache
{
public:
    explicit StatementCache(sqlite::Database &db) : m_db(db) {}
    sqlite::Statement &get(const std::string &sql);
    // No statement left mid-way (before a transaction or savepoint ends).
    void resetAll();
    sqlite::Database &database() { return m_db; }

private:
    sqlite::Database &m_db;
    std::map<std::string, std::unique_ptr<sqlite::Statement>> m_statements;
};

} // namespace kosmos::ledger_internal
