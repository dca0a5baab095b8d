#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

struct ProvenanceComponent
{
    std::string family;
    std::string adapterId;
    std::string adapterVersion;
    std::optional<std::string> configSha256;
    std::optional<std::string> weightsSha256;
    std::string identitySha256;
};

struct ProvenanceArtifact
{
    std::int64_t artifactId = 0;
    std::string role;
    std::string name;
    std::string sha256;
    std::int64_t sizeBytes = 0;
    std::string mediaType;
    std::optional<std::string> pixelSha256;
    std::vector<std::string> derivedFrom; // "relation <- role/name" of its parents in this attempt
};

struct ProvenanceAttempt
{
    std::int64_t attemptId = 0;
    int attemptNo = 0;
    std::string workerId;
    std::string state;
    std::int64_t startedAtMs = 0;
    std::optional<std::int64_t> finishedAtMs;
    std::optional<std::string> errorCode;
    std::optional<std::string> errorMessage;
    std::optional<std::string> sealSha256;
    nlohmann::json timings; // the attempt's "timings" event payload, if any
    // Where a merged attempt came from (docs/scale-out.md): {"source": shard ledger path,
    // "shard": "i/N" or null, "source_attempt_id", "host", "slurm": {job ids} or null}; null
    // for an attempt written in this ledger.
    nlohmann::json merged;
};

// Where every byte of a run came from: component identities, every attempt with its end state
// and timings, and the artifacts of the latest attempt with their hashes and provenance edges.
struct RunProvenance
{
    std::int64_t runId = 0;
    std::string runKey;
    std::string protocolSha256;
    std::vector<ProvenanceComponent> components;
    std::vector<ProvenanceAttempt> attempts;
    std::vector<ProvenanceArtifact> artifacts; // of the latest attempt
};

RunProvenance loadProvenance(Ledger &ledger, std::int64_t runId);

} // namespace kosmos
