#include "queries/ProvenanceQuery.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "ledger/Shard.h"

#include <map>

namespace kosmos {

RunProvenance loadProvenance(Ledger &ledger, std::int64_t runId)
{
    RunProvenance p;
    p.runId = runId;
    const auto run = ledger.run(runId);
    if (!run)
        return p;
    p.runKey = run->runKey;
    p.protocolSha256 = run->protocolSha256;
    auto &db = LedgerSql::of(ledger);
    sqlite::Statement components(db, R"sql(
        SELECT c.family, c.adapter_id, c.adapter_version, c.config_sha256, c.weights_sha256, c.identity_sha256
          FROM runs r JOIN components c ON c.component_id IN (r.policy_id, r.world_model_id, r.judge_id)
         WHERE r.run_id = ? ORDER BY c.family)sql");
    components.bind(1, runId);
    while (components.step())
        p.components.push_back({components.text(0), components.text(1), components.text(2),
                                components.optText(3), components.optText(4), components.text(5)});
    for (const AttemptRecord &a : ledger.attempts(runId)) {
        ProvenanceAttempt pa{a.attemptId,   a.attemptNo,    a.workerId,  a.state,
                             a.startedAtMs, a.finishedAtMs, a.errorCode, a.errorMessage,
                             a.sealSha256,  nullptr,        nullptr};
        if (ledger.schemaVersion() >= 5) {
            sqlite::Statement merged(
                db, "SELECT s.path, s.shard_json, m.source_attempt_id, m.host, m.slurm_json FROM "
                    "merged_attempts m JOIN merge_sources s USING (source_id) WHERE "
                    "m.attempt_id = ?");
            merged.bind(1, a.attemptId);
            if (merged.step()) {
                const auto shard = ShardSpec::fromMetaJson(merged.optText(1).value_or(""));
                pa.merged = {{"source", merged.text(0)},
                             {"shard", shard ? nlohmann::json(shard->text()) : nlohmann::json()},
                             {"source_attempt_id", merged.int64(2)},
                             {"host", merged.optText(3) ? nlohmann::json(*merged.optText(3))
                                                        : nlohmann::json()},
                             {"slurm", merged.optText(4) ? nlohmann::json::parse(*merged.optText(4),
                                                                                 nullptr, false)
                                                         : nlohmann::json()}};
            }
        }
        sqlite::Statement timings(
            db, "SELECT payload_json FROM events WHERE attempt_id = ? AND type = 'timings' "
                "ORDER BY seq DESC LIMIT 1");
        timings.bind(1, a.attemptId);
        if (timings.step())
            pa.timings = nlohmann::json::parse(timings.text(0));
        p.attempts.push_back(std::move(pa));
    }
    if (p.attempts.empty())
        return p;
    const std::int64_t attemptId = p.attempts.back().attemptId;
    sqlite::Statement artifacts(
        db, "SELECT x.artifact_id, aa.role, aa.name, x.sha256, x.size_bytes, x.media_type, "
            "x.pixel_sha256 FROM attempt_artifacts aa JOIN artifacts x USING (artifact_id) "
            "WHERE aa.attempt_id = ? ORDER BY aa.role, aa.name");
    artifacts.bind(1, attemptId);
    std::map<std::int64_t, std::string> labels;
    while (artifacts.step()) {
        ProvenanceArtifact a{
            artifacts.int64(0), artifacts.text(1), artifacts.text(2),    artifacts.text(3),
            artifacts.int64(4), artifacts.text(5), artifacts.optText(6), {}};
        labels[a.artifactId] = a.role + "/" + a.name;
        p.artifacts.push_back(std::move(a));
    }
    sqlite::Statement edges(
        db, "SELECT parent_artifact_id, child_artifact_id, relation FROM provenance "
            "WHERE attempt_id = ? ORDER BY edge_id");
    edges.bind(1, attemptId);
    while (edges.step()) {
        const auto parent = labels.find(edges.int64(0));
        for (auto &a : p.artifacts) {
            if (a.artifactId == edges.int64(1))
                a.derivedFrom.push_back(
                    edges.text(2) + " <- " +
                    (parent == labels.end() ? std::string("?") : parent->second));
        }
    }
    return p;
}

} // namespace kosmos
