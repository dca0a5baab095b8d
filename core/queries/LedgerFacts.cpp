#include "queries/LedgerFacts.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"

#include <nlohmann/json.hpp>

namespace kosmos {

namespace {

std::vector<std::pair<std::string, std::string>> namesAndHashes(sqlite::Statement &s)
{
    std::vector<std::pair<std::string, std::string>> out;
    while (s.step())
        out.emplace_back(s.text(0), s.text(1));
    return out;
}

bool exists(Ledger &ledger, const char *sql, const std::optional<std::string> &arg = {})
{
    sqlite::Statement s(LedgerSql::of(ledger), sql);
    if (arg)
        s.bind(1, *arg);
    s.step();
    return s.int64(0) != 0;
}

} // namespace

std::vector<std::pair<std::string, std::string>> rolloutProtocols(Ledger &ledger)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT name, protocol_sha256 FROM protocols p WHERE EXISTS (SELECT 1 FROM "
                        "runs r WHERE r.protocol_id = p.protocol_id AND json_extract(r.key_json, "
                        "'$.seeds.rejudge_of') IS NULL) ORDER BY protocol_id");
    return namesAndHashes(s);
}

std::vector<std::pair<std::string, std::string>> physicsProtocols(Ledger &ledger)
{
    sqlite::Statement s(LedgerSql::of(ledger), R"sql(
        SELECT name, protocol_sha256 FROM protocols p
         WHERE EXISTS (SELECT 1 FROM runs r JOIN human_labels h ON h.run_id = r.run_id
                        WHERE r.protocol_id = p.protocol_id AND h.source = 'physics'
                          AND json_extract(r.key_json, '$.seeds.rejudge_of') IS NULL)
         ORDER BY protocol_id)sql");
    return namesAndHashes(s);
}

bool hasHumanLabels(Ledger &ledger)
{
    return hasLabels(ledger, "human");
}

bool hasLabels(Ledger &ledger, const std::string &source)
{
    return exists(ledger, "SELECT EXISTS (SELECT 1 FROM human_labels WHERE source = ?1)", source);
}

std::vector<std::int64_t> runsWithLabels(Ledger &ledger, const std::string &source)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT DISTINCT run_id FROM human_labels WHERE source = ? ORDER BY 1");
    s.bind(1, source);
    std::vector<std::int64_t> out;
    while (s.step())
        out.push_back(s.int64(0));
    return out;
}

bool hasRuns(Ledger &ledger)
{
    return exists(ledger, "SELECT EXISTS (SELECT 1 FROM runs)");
}

RunCounts protocolRunCounts(Ledger &ledger, const std::string &protocolSha256)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT COUNT(*), SUM(r.finished_at_ms IS NOT NULL) FROM runs r "
                        "JOIN protocols p USING (protocol_id) WHERE p.protocol_sha256 = ?");
    s.bind(1, protocolSha256);
    s.step();
    return {s.int64(0), s.optInt64(1).value_or(0)};
}

std::optional<std::int64_t> latestCompletedAttempt(Ledger &ledger, std::int64_t runId)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT attempt_id FROM attempts WHERE run_id = ? AND state = "
                        "'completed' ORDER BY attempt_no DESC LIMIT 1");
    s.bind(1, runId);
    return s.step() ? std::optional<std::int64_t>(s.int64(0)) : std::nullopt;
}

RunComponents runComponents(Ledger &ledger, std::int64_t runId)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT policy_id, world_model_id FROM runs WHERE run_id = ?");
    s.bind(1, runId);
    if (!s.step())
        return {};
    return {s.optInt64(0), s.optInt64(1)};
}

std::optional<ComponentIdentity> componentIdentity(Ledger &ledger,
                                                   std::optional<std::int64_t> componentId)
{
    if (!componentId)
        return std::nullopt;
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT identity_json FROM components WHERE component_id = ?");
    s.bind(1, *componentId);
    if (!s.step())
        return std::nullopt;
    const auto j = nlohmann::json::parse(s.text(0));
    ComponentIdentity id;
    const std::string family = j.at("family");
    id.family = family == "policy"        ? ComponentFamily::Policy
                : family == "world_model" ? ComponentFamily::WorldModel
                                          : ComponentFamily::Judge;
    id.adapterId = j.at("adapter_id");
    id.adapterVersion = j.at("adapter_version");
    id.config = j.at("config");
    if (j.contains("weights_sha256") && j["weights_sha256"].is_string())
        id.weightsSha256 = j["weights_sha256"].get<std::string>();
    return id;
}

std::vector<std::pair<std::string, StoredObject>>
attemptArtifacts(Ledger &ledger, std::int64_t attemptId, const std::string &role)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT aa.name, x.sha256, x.size_bytes, x.media_type FROM "
                        "attempt_artifacts aa JOIN artifacts x USING (artifact_id) "
                        "WHERE aa.attempt_id = ? AND aa.role = ? ORDER BY aa.name");
    s.bind(1, attemptId).bind(2, role);
    std::vector<std::pair<std::string, StoredObject>> out;
    while (s.step())
        out.emplace_back(s.text(0),
                         StoredObject{s.text(1), s.int64(2), s.text(3), std::nullopt, true});
    return out;
}

} // namespace kosmos
