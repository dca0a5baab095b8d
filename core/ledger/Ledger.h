#pragma once

#include "artifacts/ArtifactStore.h"
#include "ledger/LedgerTypes.h"
#include "ledger/SqliteDb.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace kosmos {

struct SchemaSpec;

enum class OpenMode
{
    ReadWrite,
    ReadOnly
};

struct OpenOptions
{
    OpenMode mode = OpenMode::ReadWrite;
    // The schema to create or migrate to; nullptr: this build's schema. Tests substitute
    // their own to exercise migrations.
    const SchemaSpec *schema = nullptr;
};

// A Kosmos ledger: a bundle directory NAME.kosmos/ with ledger.sqlite and objects/.
// One Ledger object is one SQLite connection; use one per thread. Any number of processes
// may open the same bundle: writes are short BEGIN IMMEDIATE transactions with a busy timeout.
class Ledger
{
public:
    // Creates a new bundle; fails if a ledger already exists there.
    static Ledger create(const std::filesystem::path &bundle, const OpenOptions &options = {});
    // Opens a bundle directory or its ledger.sqlite. Migrates an older schema (after a
    // backup copy); refuses a newer one. ReadOnly also opens a ledger on read-only media (or
    // beside a stray rollback journal) by reading it immutable, when its write-ahead log holds
    // nothing; an empty file is named as one.
    static Ledger open(const std::filesystem::path &path, const OpenOptions &options = {});
    // Resolves NAME.kosmos/ or NAME.kosmos/ledger.sqlite to the bundle directory.
    static std::filesystem::path bundleDirectory(const std::filesystem::path &path);

    Ledger(Ledger &&) noexcept;
    Ledger &operator=(Ledger &&) noexcept;
    ~Ledger();

    const std::filesystem::path &bundle() const { return m_bundle; }
    std::filesystem::path databasePath() const { return m_bundle / "ledger.sqlite"; }
    bool isReadOnly() const { return m_db.isReadOnly(); }
    // The database for another read-only connection (a ui read-model through Qt Sql, with its
    // URI option): the path, or an SQLite URI that opens it immutable where this ledger had to be
    // opened so (read-only media, a stray journal; see open()).
    std::string readerUri() const;
    int schemaVersion() const { return m_schemaVersion; }
    // The backup copy taken before a migration during open(), if one happened.
    const std::optional<std::filesystem::path> &migrationBackup() const { return m_backup; }

    ArtifactStore &artifacts() { return m_store; }
    const ArtifactStore &artifacts() const { return m_store; }

    // ---- protocols and identities -----------------------------------------------------
    // Freezes a protocol (stored as canonical JSON); returns its SHA-256. Idempotent.
    std::string freezeProtocol(std::string_view name, const nlohmann::json &protocol);
    std::optional<nlohmann::json> protocol(std::string_view protocolSha256);
    std::int64_t registerComponent(const ComponentIdentity &identity);

    // ---- runs -------------------------------------------------------------------------
    // Idempotent: the same inputs return the existing run (created = false).
    SubmitResult submitRun(const RunSpec &spec);
    std::optional<RunRecord> run(std::int64_t runId);
    std::optional<RunRecord> runByKeyPrefix(std::string_view keyPrefix);
    // A run id (up to 5 digits) or a run-key prefix (6 to 64 hex digits), as users type them.
    std::optional<RunRecord> resolveRun(std::string_view idOrKeyPrefix);
    std::vector<AttemptRecord> attempts(std::int64_t runId);

    // Asks a run to stop. A queued run is cancelled at once; a running one is cancelled by its
    // worker at its next check. Returns false when the run had already finished.
    bool requestCancel(std::int64_t runId, std::string_view reason);
    // Puts a failed run back in the queue for another attempt.
    void retryRun(std::int64_t runId);
    // Requeues the failed runs among runIds (see RetryResult): what a user's "retry" does.
    RetryResult retryFailedRuns(const std::vector<std::int64_t> &runIds);

    // ---- leases (worker side) ---------------------------------------------------------
    // Claims the oldest queued run (or a run whose lease expired, closing the stale attempt
    // as 'abandoned'). runId restricts the claim to one run. nullopt: nothing to claim.
    std::optional<Lease> claim(std::string_view workerId, std::int64_t leaseMs,
                               std::optional<std::int64_t> runId = std::nullopt);
    // Extends the lease; returns true when a cancel was requested. Throws
    // Error(LeaseLost) once the lease has expired or the attempt ended.
    bool heartbeat(Lease &lease, std::int64_t leaseMs);
    bool cancelRequested(const Lease &lease);

    // Every write below is refused with Error(LeaseLost) unless the lease is current.
    std::int64_t appendEvent(const Lease &lease, std::string_view type,
                             const nlohmann::json &payload = nlohmann::json::object());
    // Appends several events in one transaction; returns the last sequence number.
    std::int64_t appendEvents(const Lease &lease,
                              const std::vector<std::pair<std::string, nlohmann::json>> &events);
    // Records a stored object as an artifact of the attempt; returns its artifact_id.
    std::int64_t attachArtifact(const Lease &lease, std::string_view role, std::string_view name,
                                const StoredObject &object);
    // Writes made while a Batch lives share one transaction: one commit, one fsync (each write
    // still checks the lease and is refused as usual). Destroyed without commit(), every one
    // of them is rolled back.
    //
    // Durability::AtNextSeal: the commit is atomic and visible at once, and survives the process
    // being killed (SIGKILL: the write-ahead log is in the page cache), but it is made durable
    // against a power loss by the next durable commit on this ledger (synchronous = NORMAL for
    // this one commit; the attempt's end commits with FULL and its fsync of the write-ahead log
    // covers every earlier commit). For a running attempt's intermediate writes (step events,
    // frames): a power loss can lose only writes of an attempt that had not ended, which is
    // then taken over as any attempt of a dead worker.
    enum class Durability
    {
        Full,
        AtNextSeal
    };
    class Batch
    {
    public:
        explicit Batch(Ledger &ledger, Durability durability = Durability::Full);
        ~Batch();
        Batch(const Batch &) = delete;
        Batch &operator=(const Batch &) = delete;
        void commit();

    private:
        Ledger &m_ledger;
        bool m_relaxed = false;
        std::optional<sqlite::Transaction> m_tx;
    };

    // Several stored objects attached in one transaction (a rollout's frames as they become
    // durable); returns their artifact_ids in order.
    struct Attachment
    {
        std::string role;
        std::string name;
        StoredObject object;
    };
    std::vector<std::int64_t> attachArtifacts(const Lease &lease,
                                              const std::vector<Attachment> &attachments);
    // Several provenance links in one transaction.
    struct ProvenanceLink
    {
        std::int64_t parentArtifactId = 0;
        std::int64_t childArtifactId = 0;
        std::string relation;
        nlohmann::json details;
    };
    void addProvenanceLinks(const Lease &lease, const std::vector<ProvenanceLink> &links);
    // Stores bytes and attaches them in one call.
    std::int64_t putArtifact(const Lease &lease, std::string_view role, std::string_view name,
                             std::span<const std::uint8_t> bytes, std::string_view mediaType);
    void addProvenance(const Lease &lease, std::int64_t parentArtifactId,
                       std::int64_t childArtifactId, std::string_view relation,
                       const nlohmann::json &details = nullptr);
    std::int64_t recordValidation(const Lease &lease, const ValidationRecord &validation);
    std::int64_t recordJudgment(const Lease &lease, const JudgmentRecord &judgment);
    // Ends the attempt (and the run), sealing everything it recorded. groundTruth: the labels
    // the attempt's world reported about its own run (physics, synthetic_reference), written in
    // the same transaction, so that an attempt that never ends (killed, abandoned) leaves none.
    void finishAttempt(const Lease &lease, const AttemptOutcome &outcome,
                       const std::vector<HumanLabelRecord> &groundTruth = {});
    // For a supervisor whose worker process died (a crash in native plugin code, a signal):
    // ends every attempt still running under a worker id that starts with workerIdPrefix
    // (e.g. "kosmos-cli-4242-") as failed with `outcome`, keeping and sealing everything it
    // recorded, without waiting for its lease to expire. Returns the attempts it closed.
    std::vector<std::int64_t> failAttemptsOfDeadWorker(std::string_view workerIdPrefix,
                                                       const AttemptOutcome &outcome);

    // ---- labels and annotations --------------------------------------------------------
    std::int64_t addHumanLabel(const HumanLabelRecord &label);
    // Several labels in one transaction, once: refused with Error(InvalidInput), nothing written,
    // when any run already holds a label of the same source, annotator and notes (an answers file
    // imported twice, also by two processes at the same moment). Returns the new label ids.
    std::vector<std::int64_t> addHumanLabelsOnce(const std::vector<HumanLabelRecord> &labels);
    // Every label of a run (human and reference sources), oldest first.
    std::vector<HumanLabelRecord> labels(std::int64_t runId);
    std::int64_t addBookmark(std::int64_t runId, std::optional<std::int64_t> frameIndex,
                             std::string_view text, std::string_view author);
    std::vector<BookmarkRecord> bookmarks(std::int64_t runId);
    // Bookmarks are the user's own notes: the only records that may be removed.
    void removeBookmark(std::int64_t annotationId);

    // ---- reading ----------------------------------------------------------------------
    LedgerInfo info();
    std::vector<EventRecord> events(std::int64_t runId, std::int64_t afterSeq = 0,
                                    int limit = 1000);
    // Global feed for followers in other processes: events with event_id > afterEventId.
    std::vector<EventRecord> eventsSince(std::int64_t afterEventId, int limit = 1000);
    // Changes whenever another connection commits (PRAGMA data_version): a cheap poll.
    std::int64_t dataVersion();
    // The digest over everything a finished attempt recorded (see docs/ledger.md, "Attempt seals").
    std::string computeSeal(std::int64_t attemptId);

    // ---- facts about the ledger itself (the meta table) ---------------------------------
    // ledger_id (a random id given at creation; absent in ledgers made before it), creator,
    // created_at_ms, shard (a shard ledger's assignment, see ledger/Shard.h).
    std::optional<std::string> meta(std::string_view key);
    // Records a fact once; the same value again is a no-op, another value is refused with
    // Error(InvalidInput) naming both.
    void setMetaOnce(std::string_view key, std::string_view value);

    // ---- sharded evaluations submitted from this ledger (kosmos-cli submit) --------------
    std::int64_t addScaleOutJob(const ScaleOutJobRecord &job);
    std::vector<ScaleOutJobRecord> scaleOutJobs();

private:
    friend class LedgerSql; // core's typed readers (ledger/LedgerSql.h)
    Ledger(std::filesystem::path bundle, sqlite::Database db, int schemaVersion,
           std::optional<std::filesystem::path> backup);
    void checkLease(const Lease &lease);
    std::int64_t insertEvent(std::int64_t runId, std::optional<std::int64_t> attemptId,
                             std::string_view type, const nlohmann::json &payload,
                             std::int64_t nowMs);
    // Events appended in order inside the caller's transaction; returns the last one's seq.
    std::int64_t insertEvents(std::int64_t runId, std::optional<std::int64_t> attemptId,
                              std::span<const std::pair<std::string, nlohmann::json>> events,
                              std::int64_t nowMs);
    std::int64_t upsertComponent(const ComponentIdentity &identity, std::int64_t nowMs);
    void closeAttempt(std::int64_t attemptId, std::int64_t runId, std::string_view state,
                      const AttemptOutcome &outcome, std::string_view runStatus,
                      std::int64_t nowMs);
    std::int64_t insertArtifactRow(const StoredObject &object, std::int64_t nowMs);
    // A label's own rules (annotator, progress 0-5, completion against progress).
    static void checkLabel(const HumanLabelRecord &label);
    // Inside the caller's transaction.
    std::int64_t insertLabel(const HumanLabelRecord &label);
    void insertJudgeSamples(std::int64_t judgmentId, const JudgmentRecord &judgment,
                            const std::vector<std::optional<StoredObject>> &requests,
                            std::int64_t now);

    std::filesystem::path m_bundle;
    sqlite::Database m_db;
    ArtifactStore m_store;
    int m_schemaVersion = 0;
    std::optional<std::filesystem::path> m_backup;
    bool m_immutable = false;
};

} // namespace kosmos
