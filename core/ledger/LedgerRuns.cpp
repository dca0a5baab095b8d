// The ledger: protocols, component identities and runs (submit, read, cancel, retry).
#include "ledger/Ledger.h"

#include "ledger/LedgerInternal.h"
#include "util/CanonicalJson.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <algorithm>

namespace kosmos {
namespace fs = std::filesystem;
using namespace ledger_internal;
using sqlite::Statement;
using sqlite::Transaction;

// ---- protocols and components ---------------------------------------------------------------

std::string Ledger::freezeProtocol(std::string_view name, const nlohmann::json &protocol)
{
    requireNonEmpty(name, "protocol name");
    if (!protocol.is_object())
        throw Error(ErrorCode::InvalidInput, "a protocol must be a JSON object");
    const std::string text = canonicalJson(protocol);
    std::string sha = Sha256::hex(text);
    Transaction tx(m_db);
    Statement s(m_db,
                "INSERT INTO protocols (protocol_sha256, name, canonical_json, created_at_ms) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (protocol_sha256) DO NOTHING");
    s.bind(1, sha).bind(2, name).bind(3, text).bind(4, nowMs()).run();
    tx.commit();
    return sha;
}

std::optional<nlohmann::json> Ledger::protocol(std::string_view protocolSha256)
{
    Statement s(m_db, "SELECT canonical_json FROM protocols WHERE protocol_sha256 = ?");
    s.bind(1, protocolSha256);
    if (!s.step())
        return std::nullopt;
    return nlohmann::json::parse(s.text(0));
}

std::int64_t Ledger::upsertComponent(const ComponentIdentity &identity, std::int64_t now)
{
    requireNonEmpty(identity.adapterId, "component adapter id");
    requireNonEmpty(identity.adapterVersion, "component adapter version");
    if (identity.weightsSha256 && !Sha256::isValidHex(*identity.weightsSha256))
        throw Error(ErrorCode::InvalidInput, "component " + identity.adapterId +
                                                 ": weights hash is not 64 lowercase hex digits");
    const nlohmann::json doc = identity.toJson();
    const std::string text = canonicalJson(doc);
    const std::string sha = Sha256::hex(text);
    Statement insert(
        m_db, "INSERT INTO components (identity_sha256, family, adapter_id, adapter_version, "
              "config_sha256, weights_sha256, identity_json, created_at_ms) "
              "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (identity_sha256) DO NOTHING");
    insert.bind(1, sha)
        .bind(2, familyName(identity.family))
        .bind(3, identity.adapterId)
        .bind(4, identity.adapterVersion)
        .bind(5, identity.configSha256())
        .bind(6, identity.weightsSha256)
        .bind(7, text)
        .bind(8, now)
        .run();
    Statement select(m_db, "SELECT component_id FROM components WHERE identity_sha256 = ?");
    select.bind(1, sha);
    select.step();
    return select.int64(0);
}

std::int64_t Ledger::registerComponent(const ComponentIdentity &identity)
{
    Transaction tx(m_db);
    const std::int64_t id = upsertComponent(identity, nowMs());
    tx.commit();
    return id;
}

// ---- runs -----------------------------------------------------------------------------------

SubmitResult Ledger::submitRun(const RunSpec &spec)
{
    if (!Sha256::isValidHex(spec.protocolSha256))
        throw Error(ErrorCode::InvalidInput,
                    "run spec: protocol hash is not 64 lowercase hex digits");
    if (spec.episodeIndex < 0)
        throw Error(ErrorCode::InvalidInput, "run spec: episode index is negative (" +
                                                 std::to_string(spec.episodeIndex) + ")");
    if (!spec.seeds.is_object())
        throw Error(ErrorCode::InvalidInput, "run spec: seeds must be a JSON object");
    const std::string keyText = canonicalJson(spec.keyJson());
    SubmitResult result;
    result.runKey = Sha256::hex(keyText);

    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    {
        Statement existing(m_db, "SELECT run_id FROM runs WHERE run_key = ?");
        existing.bind(1, result.runKey);
        if (existing.step()) {
            result.runId = existing.int64(0);
            return result; // same inputs: the existing run, nothing written
        }
    }
    Statement protocol(m_db, "SELECT protocol_id FROM protocols WHERE protocol_sha256 = ?");
    protocol.bind(1, spec.protocolSha256);
    if (!protocol.step())
        throw Error(ErrorCode::InvalidInput, "run spec: protocol " + spec.protocolSha256 +
                                                 " is not frozen in " + m_bundle.string() +
                                                 "; freeze it before submitting runs");
    const std::int64_t protocolId = protocol.int64(0);
    auto component = [&](const std::optional<ComponentIdentity> &c) -> std::optional<std::int64_t> {
        if (!c)
            return std::nullopt;
        return upsertComponent(*c, now);
    };
    const auto policyId = component(spec.policy);
    const auto worldModelId = component(spec.worldModel);
    const auto judgeId = component(spec.judge);

    Statement insert(m_db,
                     "INSERT INTO runs (run_key, key_json, protocol_id, episode_index, task, "
                     "instruction, policy_id, world_model_id, judge_id, status, created_at_ms) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?)");
    insert.bind(1, result.runKey)
        .bind(2, keyText)
        .bind(3, protocolId)
        .bind(4, spec.episodeIndex)
        .bind(5, spec.task)
        .bind(6, spec.instruction)
        .bind(7, policyId)
        .bind(8, worldModelId)
        .bind(9, judgeId)
        .bind(10, now)
        .run();
    result.runId = m_db.lastInsertRowId();
    result.created = true;
    insertEvent(result.runId, std::nullopt, "run_submitted",
                {{"run_key", result.runKey}, {"episode_index", spec.episodeIndex}}, now);
    tx.commit();
    return result;
}

std::optional<RunRecord> Ledger::run(std::int64_t runId)
{
    Statement s(m_db, std::string(kRunSelect) + "WHERE r.run_id = ?");
    s.bind(1, runId);
    if (!s.step())
        return std::nullopt;
    return readRun(s);
}

std::optional<RunRecord> Ledger::runByKeyPrefix(std::string_view keyPrefix)
{
    if (keyPrefix.size() < 6 || keyPrefix.size() > 64 ||
        keyPrefix.find_first_not_of("0123456789abcdef") != std::string_view::npos)
        throw Error(ErrorCode::InvalidInput,
                    "a run key prefix needs 6 to 64 lowercase hex digits: '" +
                        std::string(keyPrefix) + "'");
    Statement s(m_db, std::string(kRunSelect) + "WHERE r.run_key >= ? AND r.run_key < ? LIMIT 2");
    std::string upper(keyPrefix);
    upper.push_back('g'); // just above every hex digit
    s.bind(1, keyPrefix).bind(2, upper);
    if (!s.step())
        return std::nullopt;
    RunRecord run = readRun(s);
    if (s.step())
        throw Error(ErrorCode::InvalidInput,
                    "run key prefix '" + std::string(keyPrefix) + "' matches several runs");
    return run;
}

std::optional<RunRecord> Ledger::resolveRun(std::string_view text)
{
    const bool numeric =
        !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
    if (numeric && text.size() < 6)
        return run(std::stoll(std::string(text)));
    return runByKeyPrefix(text);
}

std::vector<AttemptRecord> Ledger::attempts(std::int64_t runId)
{
    Statement s(m_db, std::string("SELECT ") + kAttemptColumns +
                          " FROM attempts WHERE run_id = ? ORDER BY attempt_no");
    s.bind(1, runId);
    std::vector<AttemptRecord> out;
    while (s.step())
        out.push_back(readAttempt(s));
    return out;
}

bool Ledger::requestCancel(std::int64_t runId, std::string_view reason)
{
    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    Statement s(m_db, "SELECT status, cancel_requested_at_ms FROM runs WHERE run_id = ?");
    s.bind(1, runId);
    if (!s.step())
        throw Error(ErrorCode::NotFound,
                    "run " + std::to_string(runId) + " does not exist in " + m_bundle.string());
    const std::string status = s.text(0);
    if (status == "completed" || status == "failed" || status == "cancelled")
        return false;
    if (s.isNull(1)) {
        Statement mark(m_db, "UPDATE runs SET cancel_requested_at_ms = ?, cancel_reason = ? "
                             "WHERE run_id = ?");
        mark.bind(1, now).bind(2, reason).bind(3, runId).run();
        insertEvent(runId, std::nullopt, "cancel_requested", {{"reason", reason}}, now);
    }
    if (status == "queued") {
        Statement cancel(m_db, "UPDATE runs SET status = 'cancelled', finished_at_ms = ? "
                               "WHERE run_id = ?");
        cancel.bind(1, now).bind(2, runId).run();
        insertEvent(runId, std::nullopt, "run_cancelled", {{"reason", reason}}, now);
    }
    tx.commit();
    return true;
}

void Ledger::retryRun(std::int64_t runId)
{
    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    Statement s(m_db, "SELECT status FROM runs WHERE run_id = ?");
    s.bind(1, runId);
    if (!s.step())
        throw Error(ErrorCode::NotFound, "run " + std::to_string(runId) + " does not exist");
    if (s.text(0) != "failed")
        throw Error(ErrorCode::InvalidInput, "run " + std::to_string(runId) + " is " + s.text(0) +
                                                 "; only a failed run can be retried");
    Statement requeue(m_db, "UPDATE runs SET status = 'queued', finished_at_ms = NULL "
                            "WHERE run_id = ?");
    requeue.bind(1, runId).run();
    insertEvent(runId, std::nullopt, "run_requeued", nlohmann::json::object(), now);
    tx.commit();
}

RetryResult Ledger::retryFailedRuns(const std::vector<std::int64_t> &runIds)
{
    RetryResult result;
    for (const std::int64_t runId : runIds) {
        const auto record = run(runId);
        if (!record || record->status != "failed") {
            result.skipped.push_back("run " + std::to_string(runId) + " is " +
                                     (record ? record->status : std::string("missing")));
            continue;
        }
        const auto frozen = protocol(record->protocolSha256);
        if (!frozen || !frozen->contains("kosmos_protocol")) {
            result.skipped.push_back("run " + std::to_string(runId) +
                                     " was imported, not run: there is nothing to run again");
            continue;
        }
        retryRun(runId);
        result.requeued.push_back(runId);
        if (std::none_of(result.protocols.begin(), result.protocols.end(),
                         [&](const nlohmann::json &p) { return p == *frozen; }))
            result.protocols.push_back(*frozen);
    }
    return result;
}

} // namespace kosmos
