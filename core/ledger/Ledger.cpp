// The ledger: opening, creating and migrating a bundle, its meta facts and the readers of its
// event feed. The other stores on the same connection: LedgerRuns.cpp, LedgerAttempts.cpp,
// LedgerEvidence.cpp, LedgerLabels.cpp.
#include "ledger/Ledger.h"

#include "ledger/LedgerInternal.h"
#include "ledger/Schema.h"
#include "util/Clock.h"
#include "util/Error.h"

#include <sqlite3.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace kosmos {
namespace fs = std::filesystem;
using namespace ledger_internal;

namespace {

constexpr const char *kDatabaseName = "ledger.sqlite";

void fsyncDirectory(const fs::path &dir)
{
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// An SQLite URI that opens `path` immutable (no locks, no write-ahead log, no journal).
std::string immutableUri(const fs::path &path)
{
    std::string uri = "file:";
    for (const char c : fs::absolute(path).string()) {
        if (c == '%' || c == '?' || c == '#') {
            char escaped[4];
            std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
            uri += escaped;
        } else {
            uri += c;
        }
    }
    return uri + "?immutable=1";
}

// Why a database that cannot be read normally must not be read immutable either, or nullopt:
// immutable skips the write-ahead log (commits waiting there would be missed) and any rollback
// journal (which, beside a database that is not in WAL mode, may hold a real transaction).
std::optional<std::string> immutableReadRefusal(const fs::path &dbPath)
{
    std::error_code ec;
    const fs::path wal = dbPath.string() + "-wal";
    if (fs::exists(wal, ec) && fs::file_size(wal, ec) > 0)
        return wal.filename().string() +
               " holds commits that are not yet in the database, and they cannot be read from "
               "here (no write access to create its shared-memory file): open it once where it "
               "can be written, or copy the bundle to a writable folder";
    const fs::path journal = dbPath.string() + "-journal";
    if (fs::exists(journal, ec) && fs::file_size(journal, ec) > 0) {
        std::ifstream in(dbPath, std::ios::binary);
        char header[20] = {};
        in.read(header, sizeof header);
        if (!in || header[18] != 2 || header[19] != 2) // not in WAL mode: the journal may be real
            return journal.filename().string() +
                   " may hold an interrupted transaction; open the ledger once where it can be "
                   "written to roll it back";
    }
    return std::nullopt;
}

void configureConnection(sqlite::Database &db)
{
    db.exec("PRAGMA foreign_keys = ON");
    if (!db.isReadOnly()) {
        sqlite::Statement mode(db, "PRAGMA journal_mode = WAL");
        mode.step();
        db.exec("PRAGMA synchronous = FULL");
    }
}

// Copies the database with SQLite's online backup API (consistent even while others write).
fs::path backupDatabase(sqlite::Database &db, const fs::path &bundle, int fromVersion)
{
    fs::path target = bundle / ("ledger.sqlite.schema-v" + std::to_string(fromVersion) + ".bak");
    if (fs::exists(target))
        target += "." + std::to_string(nowMs());
    sqlite3 *out = nullptr;
    int rc =
        sqlite3_open_v2(target.c_str(), &out,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc == SQLITE_OK) {
        sqlite3_backup *backup = sqlite3_backup_init(out, "main", db.handle(), "main");
        if (backup) {
            sqlite3_backup_step(backup, -1);
            sqlite3_backup_finish(backup);
        }
        rc = sqlite3_errcode(out);
    }
    const std::string message = out ? sqlite3_errmsg(out) : sqlite3_errstr(rc);
    sqlite3_close_v2(out);
    if (rc != SQLITE_OK)
        throw Error(ErrorCode::MigrationFailed, "cannot take a backup copy at " + target.string() +
                                                    " before migrating: " + message +
                                                    "; the ledger was not changed");
    const int fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
    fsyncDirectory(bundle);
    return target;
}

} // namespace

using sqlite::Statement;
using sqlite::Transaction;

// ---- opening ------------------------------------------------------------------------------

Ledger::Ledger(fs::path bundle, sqlite::Database db, int schemaVersion,
               std::optional<fs::path> backup)
    : m_bundle(std::move(bundle)), m_db(std::move(db)), m_store(m_bundle / "objects"),
      m_schemaVersion(schemaVersion), m_backup(std::move(backup))
{
}

Ledger::Ledger(Ledger &&) noexcept = default;
Ledger &Ledger::operator=(Ledger &&) noexcept = default;
Ledger::~Ledger() = default;

fs::path Ledger::bundleDirectory(const fs::path &path)
{
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return path;
    if (path.filename() == kDatabaseName)
        return path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (!fs::exists(path, ec))
        throw Error(ErrorCode::NoLedger, "no ledger at " + path.string() + " (it does not exist)");
    throw Error(ErrorCode::NotALedger,
                path.string() + " is not a Kosmos ledger (expected a NAME.kosmos/ directory or "
                                "its ledger.sqlite)");
}

Ledger Ledger::create(const fs::path &bundle, const OpenOptions &options)
{
    const SchemaSpec &schema = options.schema ? *options.schema : currentSchema();
    if (bundle.extension() != ".kosmos")
        throw Error(ErrorCode::InvalidInput,
                    "a ledger bundle's name must end in .kosmos: " + bundle.string());
    std::error_code ec;
    fs::create_directories(bundle, ec);
    if (ec)
        throw Error(ErrorCode::Io, "cannot create " + bundle.string() + ": " + ec.message());
    const fs::path dbPath = bundle / kDatabaseName;
    if (fs::exists(dbPath))
        throw Error(ErrorCode::InvalidInput,
                    "a ledger already exists at " + bundle.string() + "; it was not changed");
    ArtifactStore::initialize(bundle / "objects");

    // Built under a temporary name and linked into place once complete: a creation killed at
    // any point leaves no ledger.sqlite (only a stray ledger.sqlite.creating-* file), never an
    // empty database that later opens as "not a Kosmos ledger". link() refuses an existing name,
    // so a concurrent creator wins or loses whole.
    const fs::path tmpPath = bundle / (std::string(kDatabaseName) + ".creating-" + randomToken());
    {
        sqlite::Database db(tmpPath.string(), false, true);
        configureConnection(db);
        Transaction tx(db);
        db.exec(schema.createSql);
        Statement meta(db, "INSERT INTO meta (key, value) VALUES (?, ?)");
        auto put = [&](const char *key, const std::string &value) {
            meta.reset();
            meta.bind(1, key).bind(2, value).run();
        };
        put("creator", "kosmos " KOSMOS_VERSION);
        put("created_at_ms", std::to_string(nowMs()));
        // Names this ledger wherever it is moved (a merge recognises a shard it took before).
        put("ledger_id", randomToken());
        tx.commit();
        // Closing the only connection checkpoints the WAL into the file and removes it.
    }
    const int linked = ::link(tmpPath.c_str(), dbPath.c_str());
    const int linkErrno = errno;
    fs::remove(tmpPath, ec);
    for (const char *suffix : {"-wal", "-shm"})
        fs::remove(tmpPath.string() + suffix, ec);
    if (linked != 0) {
        if (linkErrno == EEXIST)
            throw Error(ErrorCode::InvalidInput, "a ledger was created at " + bundle.string() +
                                                     " concurrently; it was not changed");
        throw Error(ErrorCode::Io,
                    "cannot create " + dbPath.string() + ": " + std::strerror(linkErrno));
    }
    fsyncDirectory(bundle);
    sqlite::Database db(dbPath.string(), false, false);
    configureConnection(db);
    const int version = static_cast<int>(db.pragmaInt("user_version"));
    return Ledger(bundle, std::move(db), version, std::nullopt);
}

Ledger Ledger::open(const fs::path &path, const OpenOptions &options)
{
    const SchemaSpec &schema = options.schema ? *options.schema : currentSchema();
    const fs::path bundle = bundleDirectory(path);
    const fs::path dbPath = bundle / kDatabaseName;
    if (!fs::exists(dbPath))
        throw Error(ErrorCode::NoLedger,
                    "no ledger at " + bundle.string() + " (missing " + dbPath.string() +
                        "; create one with `kosmos-cli init " + bundle.string() + "`)");
    const bool readOnly = options.mode == OpenMode::ReadOnly;
    std::error_code sizeError;
    if (fs::file_size(dbPath, sizeError) == 0 && !sizeError)
        throw Error(ErrorCode::NotALedger,
                    dbPath.string() + " is an empty file (0 bytes), not a Kosmos ledger (a copy "
                                      "that was cut short, or a file created by hand)");
    sqlite::Database db(dbPath.string(), readOnly, false);

    std::int64_t appId = 0;
    std::int64_t version = 0;
    bool immutable = false;
    auto readHeader = [&] {
        appId = db.pragmaInt("application_id");
        version = db.pragmaInt("user_version");
    };
    try {
        readHeader();
    } catch (const Error &e) {
        // A reader of read-only media (a read-only mount, a folder it may not write) cannot
        // create the shared-memory file a WAL database needs, and a stray rollback journal
        // beside a WAL database makes SQLite ask for a write: both read the database as it is,
        // immutable, when nothing waits in its write-ahead log.
        std::optional<std::string> why = readOnly ? immutableReadRefusal(dbPath) : std::nullopt;
        if (!readOnly || why)
            throw Error(ErrorCode::NotALedger, dbPath.string() +
                                                   " is not a Kosmos ledger (not a readable SQLite "
                                                   "database: " +
                                                   e.what() + ")" +
                                                   (why ? "; " + *why : std::string()));
        try {
            db = sqlite::Database(immutableUri(dbPath), true, false);
            readHeader();
            immutable = true;
        } catch (const Error &again) {
            throw Error(ErrorCode::NotALedger, dbPath.string() +
                                                   " is not a Kosmos ledger (not a readable SQLite "
                                                   "database: " +
                                                   again.what() + ")");
        }
    }
    if (appId != kLedgerApplicationId)
        throw Error(ErrorCode::NotALedger, dbPath.string() +
                                               " is an SQLite database but not a Kosmos ledger "
                                               "(application_id " +
                                               std::to_string(appId) + ")");
    if (version > schema.version)
        throw Error(ErrorCode::NewerSchema,
                    dbPath.string() + " was written by a newer Kosmos (schema version " +
                        std::to_string(version) + "); this build reads schema versions up to " +
                        std::to_string(schema.version) +
                        ". Upgrade Kosmos to open it; the file was not changed.");
    configureConnection(db);

    std::optional<fs::path> backup;
    if (version < schema.version) {
        if (readOnly)
            throw Error(ErrorCode::ReadOnly,
                        dbPath.string() + " has schema version " + std::to_string(version) +
                            " and needs migrating to " + std::to_string(schema.version) +
                            "; open it writable once to migrate (a backup copy is kept)");
        backup = backupDatabase(db, bundle, static_cast<int>(version));
        int current = 0;
        try {
            Transaction tx(db);
            current =
                static_cast<int>(db.pragmaInt("user_version")); // another process may have won
            for (const Migration &migration : schema.migrations) {
                if (migration.toVersion <= current)
                    continue;
                if (migration.toVersion != current + 1)
                    throw Error(ErrorCode::MigrationFailed, "no migration from schema version " +
                                                                std::to_string(current) + " to " +
                                                                std::to_string(current + 1));
                if (migration.sql.empty())
                    throw Error(ErrorCode::MigrationFailed,
                                "the migration to schema version " +
                                    std::to_string(migration.toVersion) +
                                    " is empty (a build error)");
                db.exec(migration.sql);
                db.exec("PRAGMA user_version = " + std::to_string(migration.toVersion));
                current = migration.toVersion;
            }
            if (current != schema.version)
                throw Error(ErrorCode::MigrationFailed, "no migration reaches schema version " +
                                                            std::to_string(schema.version) +
                                                            " from " + std::to_string(current));
            tx.commit();
        } catch (const Error &e) {
            throw Error(ErrorCode::MigrationFailed,
                        "migrating " + dbPath.string() + " from schema version " +
                            std::to_string(version) + " failed: " + e.what() +
                            ". The ledger is unchanged; a backup copy is at " + backup->string());
        }
    }
    Ledger ledger(bundle, std::move(db), schema.version, std::move(backup));
    ledger.m_immutable = immutable;
    return ledger;
}

std::string Ledger::readerUri() const
{
    return m_immutable ? immutableUri(databasePath()) : databasePath().string();
}

std::optional<std::string> Ledger::meta(std::string_view key)
{
    Statement s(m_db, "SELECT value FROM meta WHERE key = ?");
    s.bind(1, key);
    return s.step() ? std::optional<std::string>(s.text(0)) : std::nullopt;
}

void Ledger::setMetaOnce(std::string_view key, std::string_view value)
{
    Transaction tx(m_db);
    Statement s(m_db, "SELECT value FROM meta WHERE key = ?");
    s.bind(1, key);
    if (s.step()) {
        if (s.text(0) != value)
            throw Error(ErrorCode::InvalidInput, "the ledger " + m_bundle.string() + " has " +
                                                     std::string(key) + " " + s.text(0) + ", not " +
                                                     std::string(value));
        return;
    }
    Statement put(m_db, "INSERT INTO meta (key, value) VALUES (?, ?)");
    put.bind(1, key).bind(2, value).run();
    tx.commit();
}

std::int64_t Ledger::addScaleOutJob(const ScaleOutJobRecord &job)
{
    Statement s(m_db, "INSERT INTO scaleout_jobs (protocol_sha256, launcher, shards, shard_dir, "
                      "array_job_id, merge_job_id, options_json, submitted_at_ms) VALUES (?, ?, ?, "
                      "?, ?, ?, ?, ?)");
    s.bind(1, job.protocolSha256)
        .bind(2, job.launcher)
        .bind(3, job.shards)
        .bind(4, job.shardDir)
        .bind(5, job.arrayJobId)
        .bind(6, job.mergeJobId)
        .bind(7, job.optionsJson)
        .bind(8, job.submittedAtMs)
        .run();
    return m_db.lastInsertRowId();
}

std::vector<ScaleOutJobRecord> Ledger::scaleOutJobs()
{
    Statement s(m_db, "SELECT job_row_id, protocol_sha256, launcher, shards, shard_dir, "
                      "array_job_id, merge_job_id, options_json, submitted_at_ms FROM "
                      "scaleout_jobs ORDER BY job_row_id");
    std::vector<ScaleOutJobRecord> out;
    while (s.step())
        out.push_back({s.int64(0), s.text(1), s.text(2), static_cast<int>(s.int64(3)), s.text(4),
                       s.optText(5), s.optText(6), s.text(7), s.int64(8)});
    return out;
}

// ---- reading ----------------------------------------------------------------------------------

LedgerInfo Ledger::info()
{
    LedgerInfo info;
    info.schemaVersion = static_cast<int>(m_db.pragmaInt("user_version"));
    // One read transaction, so the counts agree with each other.
    m_db.exec("BEGIN");
    try {
        {
            Statement s(m_db, "SELECT value FROM meta WHERE key = 'creator'");
            if (s.step())
                info.creatorVersion = s.text(0);
        }
        for (const char *status : {"queued", "running", "completed", "failed", "cancelled"})
            info.runsByStatus.emplace_back(status, 0);
        {
            Statement s(m_db, "SELECT status, COUNT(*) FROM runs GROUP BY status");
            while (s.step()) {
                for (auto &[name, count] : info.runsByStatus) {
                    if (name == s.text(0))
                        count = s.int64(1);
                }
                info.runs += s.int64(1);
            }
        }
        auto count = [&](const char *sql) {
            Statement s(m_db, sql);
            s.step();
            return s.int64(0);
        };
        info.attempts = count("SELECT COUNT(*) FROM attempts");
        info.events = count("SELECT COUNT(*) FROM events");
        info.artifacts = count("SELECT COUNT(*) FROM artifacts");
        info.artifactBytes = count("SELECT COALESCE(SUM(size_bytes), 0) FROM artifacts");
        info.protocols = count("SELECT COUNT(*) FROM protocols");
        info.judgments = count("SELECT COUNT(*) FROM judgments");
        info.humanLabels = count("SELECT COUNT(*) FROM human_labels WHERE source = 'human'");
        Statement labels(m_db, "SELECT source, COUNT(*) FROM human_labels GROUP BY source");
        while (labels.step())
            info.labelsBySource[labels.text(0)] = labels.int64(1);
        m_db.exec("COMMIT");
    } catch (...) {
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    std::error_code ec;
    for (const char *suffix : {"", "-wal"}) {
        const auto size = fs::file_size(databasePath().string() + suffix, ec);
        if (!ec)
            info.databaseBytes += static_cast<std::int64_t>(size);
    }
    return info;
}

namespace {
EventRecord readEvent(Statement &s)
{
    EventRecord e;
    e.eventId = s.int64(0);
    e.runId = s.int64(1);
    e.attemptId = s.optInt64(2);
    e.seq = s.int64(3);
    e.type = s.text(4);
    e.payloadJson = s.text(5);
    e.createdAtMs = s.int64(6);
    return e;
}
constexpr const char *kEventSelect =
    "SELECT event_id, run_id, attempt_id, seq, type, payload_json, created_at_ms FROM events ";
} // namespace

std::vector<EventRecord> Ledger::events(std::int64_t runId, std::int64_t afterSeq, int limit)
{
    Statement s(m_db,
                std::string(kEventSelect) + "WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?");
    s.bind(1, runId).bind(2, afterSeq).bind(3, limit);
    std::vector<EventRecord> out;
    while (s.step())
        out.push_back(readEvent(s));
    return out;
}

std::vector<EventRecord> Ledger::eventsSince(std::int64_t afterEventId, int limit)
{
    Statement s(m_db, std::string(kEventSelect) + "WHERE event_id > ? ORDER BY event_id LIMIT ?");
    s.bind(1, afterEventId).bind(2, limit);
    std::vector<EventRecord> out;
    while (s.step())
        out.push_back(readEvent(s));
    return out;
}

std::int64_t Ledger::dataVersion()
{
    return m_db.pragmaInt("data_version");
}

} // namespace kosmos
