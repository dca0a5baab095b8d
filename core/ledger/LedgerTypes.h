#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

enum class ComponentFamily
{
    Policy,
    WorldModel,
    Judge
};
std::string familyName(ComponentFamily family);

// Who produced something: an adapter, its version, its configuration and its weights.
// The identity hash (canonical JSON of all fields) is what runs refer to.
struct ComponentIdentity
{
    ComponentFamily family = ComponentFamily::Policy;
    std::string adapterId;
    std::string adapterVersion;
    nlohmann::json config = nlohmann::json::object(); // settings that change behaviour
    std::optional<std::string> weightsSha256;         // nullopt: unknown or no weights

    nlohmann::json toJson() const;    // includes config_sha256
    std::string configSha256() const; // canonical hash of config
    std::string identitySha256() const;
};

// Everything that determines a run. Its canonical JSON (RunSpec::keyJson) is hashed into the
// run key; task and instruction are descriptive copies of what the protocol says for the
// episode and are not part of the key.
struct RunSpec
{
    std::string protocolSha256;
    std::int64_t episodeIndex = 0;
    std::optional<ComponentIdentity> policy;
    std::optional<ComponentIdentity> worldModel;
    std::optional<ComponentIdentity> judge;
    nlohmann::json seeds = nlohmann::json::object(); // e.g. {"policy": 7, "world_model": 7}
    std::optional<std::string> task;
    std::optional<std::string> instruction;

    nlohmann::json keyJson() const;
    std::string runKey() const;
};

struct SubmitResult
{
    std::int64_t runId = 0;
    std::string runKey;
    bool created = false; // false: the same run existed already and is returned
};

// A worker's claim on a run. The token fences every write made under it.
struct Lease
{
    std::int64_t runId = 0;
    std::int64_t attemptId = 0;
    int attemptNo = 0;
    std::string workerId;
    std::string token;
    std::int64_t expiresAtMs = 0;
};

enum class AttemptEnd
{
    Completed,
    Failed,
    Cancelled
};

struct AttemptOutcome
{
    AttemptEnd end = AttemptEnd::Completed;
    std::optional<std::string> errorCode;
    std::optional<std::string> errorMessage;
    std::optional<int> exitSignal;

    static AttemptOutcome completed() { return {}; }
    static AttemptOutcome failed(std::string code, std::string message,
                                 std::optional<int> exitSignal = std::nullopt)
    {
        return {AttemptEnd::Failed, std::move(code), std::move(message), exitSignal};
    }
    static AttemptOutcome cancelled(std::string reason)
    {
        return {AttemptEnd::Cancelled, std::string("cancelled"), std::move(reason), std::nullopt};
    }
};

struct EventRecord
{
    std::int64_t eventId = 0;
    std::int64_t runId = 0;
    std::optional<std::int64_t> attemptId;
    std::int64_t seq = 0;
    std::string type;
    std::string payloadJson;
    std::int64_t createdAtMs = 0;
};

struct RunRecord
{
    std::int64_t runId = 0;
    std::string runKey;
    std::string keyJson;
    std::string protocolSha256;
    std::int64_t episodeIndex = 0;
    std::optional<std::string> task;
    std::optional<std::string> instruction;
    std::string status;
    std::int64_t createdAtMs = 0;
    std::optional<std::int64_t> cancelRequestedAtMs;
    std::optional<std::int64_t> finishedAtMs;
};

struct AttemptRecord
{
    std::int64_t attemptId = 0;
    std::int64_t runId = 0;
    int attemptNo = 0;
    std::string workerId;
    std::string state;
    std::int64_t startedAtMs = 0;
    std::int64_t leaseExpiresAtMs = 0;
    std::optional<std::int64_t> finishedAtMs;
    std::optional<std::string> errorCode;
    std::optional<std::string> errorMessage;
    std::optional<int> exitSignal;
    std::optional<std::string> sealSha256;
};

struct ValidationRecord
{
    std::string validator;
    std::string validatorVersion;
    std::string verdict; // valid | invalid | unknown
    std::vector<std::string> reasonCodes;
    nlohmann::json details; // null: none
};

struct JudgeSampleRecord
{
    int sampleIndex = 0;
    int tryIndex = 0; // 1: the format-only retry
    std::optional<std::int64_t> seed;
    std::optional<std::string> rawText;
    std::string formatClass; // bare_json | fenced_json | invalid | refusal | request_failed
    std::optional<std::string> parseError;
    nlohmann::json parsed; // null when unparsed
    std::optional<std::int64_t> generatedTokens;
    std::optional<std::int64_t> decodeMs;
    std::optional<std::string> finishReason;
    // Schema version 3. answerForm: how the answer was written (answerFormName); nullopt only
    // for rows read from older ledgers.
    std::optional<std::string> answerForm;
    // The exact request of this call (a kosmos.judge_request/1 document, see
    // judge/JudgeRequestRecord.h); stored as an artifact whose hash is request_sha256. Null:
    // not known (an imported judgment).
    nlohmann::json request;
    std::optional<std::string> requestSha256;     // set by the ledger when reading or recording
    std::optional<std::string> serverModel;       // the `model` the server said answered
    std::optional<std::string> systemFingerprint; // the server's `system_fingerprint`

    // Canonical hash of the fields above (stored as row_sha256).
    std::string rowSha256(std::int64_t judgmentId) const;
};

struct JudgmentRecord
{
    std::optional<std::int64_t> judgeComponentId;
    nlohmann::json settings = nlohmann::json::object();
    std::string outcome; // success | failure | unknown
    std::optional<std::string> unknownReason;
    std::optional<int> progress;
    std::optional<int> decisiveVotes;
    nlohmann::json frameIndices; // null or an array
    std::optional<std::string> promptSha256;
    std::vector<JudgeSampleRecord> samples;
    // The PNG bytes of the frames the judge was shown, which the samples' request documents
    // name by hash; stored as artifacts (role judge_frame) with the judgment. Empty: none kept.
    std::vector<std::vector<std::uint8_t>> framePngs;
    // Samples whose raw text was screened before parsing (judge/JudgeSchema.h
    // screenJudgeAnswer): "sample S try T". Recorded as a judge_text_screened event with the
    // judgment, so that a reader of the ledger knows the stored text is not byte for byte what the
    // judge sent.
    std::vector<std::string> screenedSamples;
};

struct HumanLabelRecord
{
    std::int64_t labelId = 0; // set when read back
    std::int64_t runId = 0;
    std::string annotatorId;
    std::string source = "human"; // human | synthetic_reference | imported_reference | physics
    std::optional<std::string> split;
    std::optional<std::string> integrity;
    std::optional<std::string> collision;
    std::optional<int> progress;
    std::optional<std::string> completion;
    std::optional<std::string> notes;
    std::optional<std::int64_t> supersedesLabelId;
};

struct BookmarkRecord
{
    std::int64_t annotationId = 0;
    std::int64_t runId = 0;
    std::optional<std::int64_t> frameIndex;
    std::string text;
    std::optional<std::string> author;
    std::int64_t createdAtMs = 0;
};

struct LedgerInfo
{
    int schemaVersion = 0;
    std::string creatorVersion;
    std::int64_t runs = 0;
    std::vector<std::pair<std::string, std::int64_t>> runsByStatus; // every status, 0 included
    std::int64_t attempts = 0;
    std::int64_t events = 0;
    std::int64_t artifacts = 0;
    std::int64_t artifactBytes = 0;
    std::int64_t databaseBytes = 0;
    std::int64_t protocols = 0;
    std::int64_t judgments = 0;
    std::int64_t humanLabels = 0; // labels by people (source 'human') only
    // Every label source with its count: human, synthetic_reference, imported_reference.
    std::map<std::string, std::int64_t> labelsBySource;
};

// Failed runs put back in the queue for a new attempt by Ledger::retryFailedRuns (each failed
// attempt stays recorded): the runs requeued, the frozen protocols they belong to (to start them
// again), and why each other run was left as it was (not failed, missing, or imported: nothing to
// run again).
struct RetryResult
{
    std::vector<std::int64_t> requeued;
    std::vector<nlohmann::json> protocols;
    std::vector<std::string> skipped;
};

// One sharded evaluation as submitted (table scaleout_jobs; core/scaleout reads it as ScaleOutJob).
struct ScaleOutJobRecord
{
    std::int64_t id = 0; // set when read back
    std::string protocolSha256;
    std::string launcher; // slurm | local
    int shards = 0;
    std::string shardDir;
    std::optional<std::string> arrayJobId;
    std::optional<std::string> mergeJobId;
    std::string optionsJson;
    std::int64_t submittedAtMs = 0;
};

} // namespace kosmos
