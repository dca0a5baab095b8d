#pragma once

// Moving recorded rows from one ledger into another (the merge of shard ledgers,
// core/scaleout/LedgerMerge): the rows exactly as they were recorded, read from any ledger
// (read-only is enough) by TransferReader, and written into a target by LedgerImport, which is
// the only code besides Ledger itself that writes a ledger's tables. Every rule of the schema
// (triggers, CHECK and UNIQUE constraints) holds for imported rows as for recorded ones: an
// imported attempt is opened running, its records are added, and only then is it closed with
// the source's end and seal, which the caller checks with Ledger::computeSeal. Row ids differ
// between ledgers: rows refer to one another by content (protocol, component identity and
// artifact hashes, run keys) and by the source's own ids where the caller maps them.

#include "ledger/Ledger.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kosmos {

namespace sqlite {
class Database;
class Statement;
} // namespace sqlite

namespace transfer {

struct ProtocolRow
{
    std::int64_t id = 0;
    std::string sha256;
    std::string name;
    std::string canonicalJson;
    std::int64_t createdAtMs = 0;
};

struct ComponentRow
{
    std::int64_t id = 0;
    std::string identitySha256;
    std::string family;
    std::string adapterId;
    std::string adapterVersion;
    std::optional<std::string> configSha256;
    std::optional<std::string> weightsSha256;
    std::string identityJson;
    std::int64_t createdAtMs = 0;
};

struct RunRow
{
    std::int64_t id = 0;
    std::string runKey;
    std::string keyJson;
    std::string protocolSha256;
    std::int64_t episodeIndex = 0;
    std::optional<std::string> task;
    std::optional<std::string> instruction;
    // Component identities by their hash (NULL: none).
    std::optional<std::string> policySha256;
    std::optional<std::string> worldModelSha256;
    std::optional<std::string> judgeSha256;
    std::string status;
    std::int64_t createdAtMs = 0;
    std::optional<std::int64_t> cancelRequestedAtMs;
    std::optional<std::string> cancelReason;
    std::optional<std::int64_t> finishedAtMs;
};

struct AttemptRow
{
    std::int64_t id = 0;
    std::int64_t runId = 0;
    int attemptNo = 0;
    std::string workerId;
    std::string leaseToken;
    std::string state;
    std::int64_t startedAtMs = 0;
    std::int64_t heartbeatAtMs = 0;
    std::int64_t leaseExpiresAtMs = 0;
    std::optional<std::int64_t> finishedAtMs;
    std::optional<std::string> errorCode;
    std::optional<std::string> errorMessage;
    std::optional<std::int64_t> exitSignal;
    std::optional<std::string> sealSha256;
};

struct EventRow
{
    std::optional<std::int64_t> attemptId; // the reading ledger's id; NULL: a run-level event
    std::int64_t seq = 0;
    std::string type;
    std::string payloadJson;
    std::int64_t createdAtMs = 0;

    bool sameRecord(const EventRow &o) const
    {
        return seq == o.seq && type == o.type && payloadJson == o.payloadJson &&
               createdAtMs == o.createdAtMs;
    }
};

struct ArtifactRow
{
    std::string sha256;
    std::int64_t sizeBytes = 0;
    std::string mediaType;
    std::optional<std::string> pixelSha256;
    std::optional<std::int64_t> width;
    std::optional<std::int64_t> height;
    std::optional<std::int64_t> channels;
    std::int64_t createdAtMs = 0;
};

struct AttemptArtifactRow
{
    std::string artifactSha256;
    std::string role;
    std::string name;
    std::int64_t createdAtMs = 0;
};

struct ProvenanceRow
{
    std::string parentSha256;
    std::string childSha256;
    std::string relation;
    std::optional<std::string> detailsJson;
    std::int64_t createdAtMs = 0;
};

struct ValidationRow
{
    std::string validator;
    std::string validatorVersion;
    std::string verdict;
    std::string reasonCodesJson;
    std::optional<std::string> detailsJson;
    std::int64_t createdAtMs = 0;
};

struct JudgeSampleRow
{
    std::int64_t sampleIndex = 0;
    std::int64_t tryIndex = 0;
    std::optional<std::int64_t> seed;
    std::optional<std::string> rawText;
    std::string formatClass;
    std::optional<std::string> parseError;
    std::optional<std::string> parsedJson;
    std::optional<std::int64_t> generatedTokens;
    std::optional<std::int64_t> decodeMs;
    std::optional<std::string> finishReason;
    std::optional<std::string> answerForm;
    std::optional<std::string> requestSha256;
    std::optional<std::string> serverModel;
    std::optional<std::string> systemFingerprint;
    std::string rowSha256;
    std::int64_t createdAtMs = 0;
};

struct JudgmentRow
{
    std::int64_t id = 0;
    // The judgment id its samples' row hashes were made with: its own, or the one the ledger it
    // was merged from kept (merged_judgments).
    std::int64_t sealJudgmentId = 0;
    std::optional<std::string> judgeSha256;
    std::string settingsJson;
    std::string outcome;
    std::optional<std::string> unknownReason;
    std::optional<std::int64_t> progress;
    std::optional<std::int64_t> decisiveVotes;
    std::optional<std::string> frameIndicesJson;
    std::optional<std::string> promptSha256;
    std::int64_t createdAtMs = 0;
    std::vector<JudgeSampleRow> samples; // by sample index, then try
};

// Everything an attempt recorded besides its events, in recording order.
struct AttemptRows
{
    std::vector<AttemptArtifactRow> artifacts; // by role, name
    std::vector<ProvenanceRow> provenance;
    std::vector<ValidationRow> validations;
    std::vector<JudgmentRow> judgments;

    // Every artifact these rows name (attached, in provenance, judge requests), each once.
    std::vector<std::string> artifactHashes() const;
};

// Where an attempt was sealed and run: the run id it was sealed under (its own run's, or the one
// a merge kept), and the host and Slurm job its attempt_started event names.
struct AttemptOrigin
{
    std::optional<std::int64_t> sealRunId; // set only for an attempt merged into this ledger
    std::optional<std::string> host;
    std::optional<std::string> slurmJson;
};

struct LabelRow
{
    std::int64_t id = 0;
    std::string annotatorId;
    std::string source;
    std::optional<std::string> split;
    std::optional<std::string> integrity;
    std::optional<std::string> collision;
    std::optional<std::int64_t> progress;
    std::optional<std::string> completion;
    std::optional<std::string> notes;
    std::int64_t labeledAtMs = 0;
    std::optional<std::int64_t> supersedesLabelId; // the reading ledger's id
};

} // namespace transfer

namespace ledger_internal {
class StatementCache;
}

// Reads a ledger's rows as recorded. Statements are prepared once and reused (a merge reads each
// of them once per run). snapshot() reads under one read transaction, so rows read together are
// of one moment of a ledger that another process may still be writing.
class TransferReader
{
public:
    explicit TransferReader(Ledger &ledger);
    ~TransferReader();
    TransferReader(const TransferReader &) = delete;
    TransferReader &operator=(const TransferReader &) = delete;

    void snapshot(const std::function<void()> &read);

    std::vector<transfer::ProtocolRow> protocols();
    std::optional<std::string> protocolText(std::string_view sha256);
    std::vector<transfer::ComponentRow> components();
    std::optional<std::string> componentText(std::string_view identitySha256);

    std::vector<std::int64_t> runIds();
    std::optional<transfer::RunRow> run(std::int64_t runId);
    std::optional<transfer::RunRow> runByKey(std::string_view runKey);
    std::vector<transfer::AttemptRow> attempts(std::int64_t runId);
    // The run's events with afterSeq < seq < beforeSeq, by seq.
    std::vector<transfer::EventRow>
    events(std::int64_t runId, std::int64_t afterSeq = 0,
           std::int64_t beforeSeq = std::numeric_limits<std::int64_t>::max());
    std::optional<std::int64_t> firstEventSeq(std::int64_t attemptId);
    transfer::AttemptRows attemptRows(std::int64_t attemptId);
    transfer::AttemptOrigin attemptOrigin(std::int64_t attemptId);
    std::optional<transfer::ArtifactRow> artifact(std::string_view sha256);
    std::vector<transfer::LabelRow> labels(std::int64_t runId);

    // Merge bookkeeping (schema version 5): a source ledger's row here, and the labels taken
    // from it, by the source's label id.
    std::optional<std::int64_t> mergeSource(std::string_view sourceUuid);
    std::optional<std::int64_t> mergedLabel(std::int64_t sourceId, std::int64_t sourceLabelId);

private:
    Ledger &m_ledger;
    std::unique_ptr<ledger_internal::StatementCache> m_cache;
};

// Writes imported rows into a ledger opened for writing.
class LedgerImport
{
public:
    explicit LedgerImport(Ledger &target);
    ~LedgerImport();
    LedgerImport(const LedgerImport &) = delete;
    LedgerImport &operator=(const LedgerImport &) = delete;

    // Runs `write` in a transaction: committed when it returns, rolled back when it throws. Nested
    // calls are savepoints: an inner one that throws undoes only its own writes.
    void transaction(const std::function<void()> &write);

    std::int64_t addMergeSource(std::string_view sourceUuid, std::string_view path,
                                const std::optional<std::string> &shardJson);
    void addProtocol(const transfer::ProtocolRow &row);
    void addComponent(const transfer::ComponentRow &row);
    // A run as the source keyed it, queued; its protocol and components must be here (by hash).
    std::int64_t addQueuedRun(const transfer::RunRow &row);
    // The run's status and the times that go with it, as the source recorded them.
    void setRunStatus(std::int64_t runId, std::string_view status, const transfer::RunRow &source,
                      bool finished);
    // The attempt, running (its records can be added); closeAttempt ends it as recorded.
    std::int64_t openAttempt(std::int64_t runId, const transfer::AttemptRow &row);
    // attemptIds: the source's attempt ids to this ledger's; an event of another attempt throws.
    void addEvents(std::int64_t runId, const std::vector<transfer::EventRow> &events,
                   const std::map<std::int64_t, std::int64_t> &attemptIds);
    bool hasArtifact(std::string_view sha256);
    void addArtifact(const transfer::ArtifactRow &row);
    void addAttemptRows(std::int64_t attemptId, const transfer::AttemptRows &rows);
    // Ends an opened attempt with the source's end and seal, and records where it came from.
    void closeAttempt(std::int64_t attemptId, const transfer::AttemptRow &source,
                      std::int64_t sourceId, std::int64_t sealRunId,
                      const transfer::AttemptOrigin &origin);
    std::int64_t addMergedLabel(std::int64_t runId, const transfer::LabelRow &row,
                                std::optional<std::int64_t> supersedes, std::int64_t sourceId);

private:
    std::int64_t artifactId(std::string_view sha256);
    std::optional<std::int64_t> componentId(const std::optional<std::string> &identitySha256);

    Ledger &m_ledger;
    std::unique_ptr<ledger_internal::StatementCache> m_cache;
};

} // namespace kosmos
