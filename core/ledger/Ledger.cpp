#include "ledger/Ledger.h"

#include "ledger/Schema.h"
#include "util/CanonicalJson.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/ProcessIdentity.h"
#include "util/Secrets.h"
#include "util/Sha256.h"
#include "util/TextRules.h"

#include <openssl/rand.h>
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

namespace {

constexpr const char *kDatabaseName = "ledger.sqlite";

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

template<typename T>
nlohmann::json optJson(const std::optional<T> &value)
{
    return value ? nlohmann::json(*value) : nlohmann::json();
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

constexpr const char *kAttemptColumns =
    "attempt_id, run_id, attempt_no, worker_id, state, started_at_ms, lease_expires_at_ms, "
    "finished_at_ms, error_code, error_message, exit_signal, seal_sha256";

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

constexpr const char *kRunSelect =
    "SELECT r.run_id, r.run_key, r.key_json, p.protocol_sha256, r.episode_index, r.task, "
    "r.instruction, r.status, r.created_at_ms, r.cancel_requested_at_ms, r.finished_at_ms "
    "FROM runs r JOIN protocols p ON p.protocol_id = r.protocol_id ";

// The canonical document an attempt's seal hashes (docs/architecture.md, "Attempt seals").
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

// ---- leases -----------------------------------------------------------------------------------

namespace {

// The process that claimed an attempt, from its attempt_started event (empty for attempts made
// before process identities were recorded: those are never judged dead, only expired).
ProcessIdentity holderOf(sqlite::Database &db, std::int64_t attemptId)
{
    Statement s(db, "SELECT payload_json FROM events WHERE attempt_id = ? AND "
                    "type = 'attempt_started' ORDER BY event_id LIMIT 1");
    s.bind(1, attemptId);
    if (!s.step())
        return {};
    const auto payload = nlohmann::json::parse(s.text(0), nullptr, false);
    if (payload.is_discarded() || !payload.is_object() || !payload.contains("process"))
        return {};
    return ProcessIdentity::fromJson(payload["process"]);
}

// Dead, and no supervisor of it still runs: a supervisor (`run --isolate`) reaps its dead worker
// and records the attempt as failed with the signal or exit status; a sibling that took the
// attempt over first would record only that the holder no longer runs. A supervisor that hangs
// is covered by the lease's expiry.
bool holderIsDead(sqlite::Database &db, std::int64_t attemptId)
{
    const ProcessIdentity holder = holderOf(db, attemptId);
    return provablyDead(holder) && !supervisorRuns(holder);
}

// A run whose running attempt is held by a process that provably died (on this host), so its
// lease can be taken over before it expires.
std::optional<std::int64_t> runOfDeadHolder(sqlite::Database &db)
{
    Statement live(db, "SELECT attempt_id, run_id FROM attempts WHERE state = 'running' "
                       "ORDER BY attempt_id");
    while (live.step())
        if (holderIsDead(db, live.int64(0)))
            return live.int64(1);
    return std::nullopt;
}

} // namespace

std::optional<Lease> Ledger::claim(std::string_view workerId, std::int64_t leaseMs,
                                   std::optional<std::int64_t> runId)
{
    requireNonEmpty(workerId, "worker id");
    if (leaseMs <= 0)
        throw Error(ErrorCode::InvalidInput, "lease duration must be positive");
    const std::int64_t now = nowMs();
    Transaction tx(m_db);

    // Candidates: the requested run, else the oldest queued run, else runs whose lease expired.
    for (int guard = 0; guard < 64; ++guard) {
        std::optional<std::int64_t> candidate;
        if (runId) {
            if (guard > 0)
                break;
            candidate = runId;
        } else {
            Statement queued(m_db, "SELECT run_id FROM runs WHERE status = 'queued' "
                                   "ORDER BY run_id LIMIT 1");
            if (queued.step()) {
                candidate = queued.int64(0);
            } else {
                Statement expired(m_db, "SELECT run_id FROM attempts WHERE state = 'running' AND "
                                        "lease_expires_at_ms < ? ORDER BY lease_expires_at_ms "
                                        "LIMIT 1");
                expired.bind(1, now);
                if (expired.step())
                    candidate = expired.int64(0);
                else
                    candidate = runOfDeadHolder(m_db);
            }
        }
        if (!candidate)
            break;

        Statement runRow(m_db, "SELECT status, cancel_requested_at_ms FROM runs WHERE run_id = ?");
        runRow.bind(1, *candidate);
        if (!runRow.step())
            throw Error(ErrorCode::NotFound, "run " + std::to_string(*candidate) +
                                                 " does not exist in " + m_bundle.string());
        std::string status = runRow.text(0);
        const bool cancelRequested = !runRow.isNull(1);

        Statement live(m_db, "SELECT attempt_id, lease_expires_at_ms, worker_id FROM attempts "
                             "WHERE run_id = ? AND state = 'running'");
        live.bind(1, *candidate);
        if (live.step()) {
            const std::int64_t staleAttempt = live.int64(0);
            const std::int64_t expiresAt = live.int64(1);
            const std::string staleWorker = live.text(2);
            const bool dead = expiresAt >= now && holderIsDead(m_db, staleAttempt);
            if (expiresAt >= now && !dead)
                break; // leased by a live process (only reachable for an explicit runId)
            AttemptOutcome abandoned;
            if (dead) {
                const ProcessIdentity holder = holderOf(m_db, staleAttempt);
                abandoned.errorCode = "worker_died";
                abandoned.errorMessage =
                    "worker " + staleWorker + " (process " + std::to_string(holder.pid) + " on " +
                    holder.host + ") no longer runs; its lease (until " +
                    std::to_string(expiresAt) + " ms) was taken over at once by worker " +
                    std::string(workerId);
            } else {
                abandoned.errorCode = "lease_expired";
                abandoned.errorMessage = "lease of worker " + staleWorker + " expired at " +
                                         std::to_string(expiresAt) + " ms; taken over by worker " +
                                         std::string(workerId);
            }
            const std::string nextStatus = cancelRequested ? "cancelled" : "queued";
            closeAttempt(staleAttempt, *candidate, "abandoned", abandoned, nextStatus, now);
            status = nextStatus;
        }
        if (status != "queued")
            continue;

        Statement number(m_db, "SELECT COALESCE(MAX(attempt_no), 0) + 1 FROM attempts "
                               "WHERE run_id = ?");
        number.bind(1, *candidate);
        number.step();
        Lease lease;
        lease.runId = *candidate;
        lease.attemptNo = static_cast<int>(number.int64(0));
        lease.workerId = std::string(workerId);
        lease.token = randomToken();
        lease.expiresAtMs = now + leaseMs;
        Statement insert(m_db, "INSERT INTO attempts (run_id, attempt_no, worker_id, lease_token, "
                               "state, started_at_ms, heartbeat_at_ms, lease_expires_at_ms) "
                               "VALUES (?, ?, ?, ?, 'running', ?, ?, ?)");
        insert.bind(1, lease.runId)
            .bind(2, lease.attemptNo)
            .bind(3, lease.workerId)
            .bind(4, lease.token)
            .bind(5, now)
            .bind(6, now)
            .bind(7, lease.expiresAtMs)
            .run();
        lease.attemptId = m_db.lastInsertRowId();
        Statement mark(m_db, "UPDATE runs SET status = 'running' WHERE run_id = ?");
        mark.bind(1, lease.runId).run();
        nlohmann::json started = {{"attempt_no", lease.attemptNo},
                                  {"worker_id", lease.workerId},
                                  {"lease_expires_at_ms", lease.expiresAtMs},
                                  {"process", ProcessIdentity::current().toJson()}};
        if (auto slurm = slurmContext(); !slurm.is_null()) // a Slurm task (docs/scale-out.md)
            started["slurm"] = std::move(slurm);
        insertEvent(lease.runId, lease.attemptId, "attempt_started", started, now);
        tx.commit();
        return lease;
    }
    tx.commit(); // abandoned attempts closed on the way stay closed
    return std::nullopt;
}

void Ledger::checkLease(const Lease &lease)
{
    Statement s(m_db, "SELECT state, lease_expires_at_ms, lease_token FROM attempts "
                      "WHERE attempt_id = ?");
    s.bind(1, lease.attemptId);
    const std::string who = "attempt " + std::to_string(lease.attemptNo) + " of run " +
                            std::to_string(lease.runId) + " (worker " + lease.workerId + ")";
    if (!s.step() || s.text(2) != lease.token)
        throw Error(ErrorCode::LeaseLost, who + ": no such lease in " + m_bundle.string());
    if (s.text(0) != "running")
        throw Error(ErrorCode::LeaseLost,
                    who + " is " + s.text(0) + "; writes under its lease are refused");
    const std::int64_t now = nowMs();
    if (s.int64(1) < now)
        throw Error(ErrorCode::LeaseLost, who + ": lease expired " +
                                              std::to_string(now - s.int64(1)) +
                                              " ms ago; writes under it are refused");
}

bool Ledger::heartbeat(Lease &lease, std::int64_t leaseMs)
{
    if (leaseMs <= 0)
        throw Error(ErrorCode::InvalidInput, "lease duration must be positive");
    Transaction tx(m_db);
    checkLease(lease);
    const std::int64_t now = nowMs();
    Statement s(m_db, "UPDATE attempts SET heartbeat_at_ms = ?, lease_expires_at_ms = ? "
                      "WHERE attempt_id = ?");
    s.bind(1, now).bind(2, now + leaseMs).bind(3, lease.attemptId).run();
    Statement cancel(m_db, "SELECT cancel_requested_at_ms FROM runs WHERE run_id = ?");
    cancel.bind(1, lease.runId);
    cancel.step();
    const bool cancelled = !cancel.isNull(0);
    tx.commit();
    lease.expiresAtMs = now + leaseMs;
    return cancelled;
}

bool Ledger::cancelRequested(const Lease &lease)
{
    Statement s(m_db, "SELECT cancel_requested_at_ms FROM runs WHERE run_id = ?");
    s.bind(1, lease.runId);
    return s.step() && !s.isNull(0);
}

// ---- writes under a lease -------------------------------------------------------------------

std::int64_t Ledger::insertEvent(std::int64_t runId, std::optional<std::int64_t> attemptId,
                                 std::string_view type, const nlohmann::json &payload,
                                 std::int64_t now)
{
    const std::pair<std::string, nlohmann::json> event{std::string(type), payload};
    return insertEvents(runId, attemptId, std::span(&event, 1), now);
}

std::int64_t Ledger::insertEvents(std::int64_t runId, std::optional<std::int64_t> attemptId,
                                  std::span<const std::pair<std::string, nlohmann::json>> events,
                                  std::int64_t now)
{
    for (const auto &event : events)
        requireNonEmpty(event.first, "event type");
    // One statement of each kind for the whole batch, the run's next sequence number read once.
    Statement last(m_db, "SELECT COALESCE(MAX(seq), 0) FROM events WHERE run_id = ?");
    last.bind(1, runId);
    last.step();
    std::int64_t seq = last.int64(0);
    Statement insert(m_db, "INSERT INTO events (run_id, attempt_id, seq, type, payload_json, "
                           "created_at_ms) VALUES (?, ?, ?, ?, ?, ?)");
    for (const auto &[type, payload] : events) {
        insert.reset();
        insert.bind(1, runId)
            .bind(2, attemptId)
            .bind(3, ++seq)
            .bind(4, type)
            .bind(5, redactSecrets(eventText(payload)))
            .bind(6, now)
            .run();
    }
    return seq;
}

std::int64_t Ledger::appendEvent(const Lease &lease, std::string_view type,
                                 const nlohmann::json &payload)
{
    Transaction tx(m_db);
    checkLease(lease);
    const std::int64_t seq = insertEvent(lease.runId, lease.attemptId, type, payload, nowMs());
    tx.commit();
    return seq;
}

std::int64_t Ledger::appendEvents(const Lease &lease,
                                  const std::vector<std::pair<std::string, nlohmann::json>> &events)
{
    for (const auto &event : events)
        requireNonEmpty(event.first, "event type"); // before the transaction and the lease check
    Transaction tx(m_db);
    checkLease(lease);
    const std::int64_t seq = insertEvents(lease.runId, lease.attemptId, events, nowMs());
    tx.commit();
    return seq;
}

std::int64_t Ledger::insertArtifactRow(const StoredObject &object, std::int64_t now)
{
    Statement insert(m_db,
                     "INSERT INTO artifacts (sha256, size_bytes, media_type, pixel_sha256, "
                     "width, height, channels, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                     "ON CONFLICT (sha256) DO NOTHING");
    insert.bind(1, object.sha256).bind(2, object.sizeBytes).bind(3, object.mediaType);
    if (object.pixels) {
        insert.bind(4, object.pixels->sha256)
            .bind(5, object.pixels->width)
            .bind(6, object.pixels->height)
            .bind(7, object.pixels->channels);
    } else {
        insert.bindNull(4).bindNull(5).bindNull(6).bindNull(7);
    }
    insert.bind(8, now).run();
    Statement select(m_db, "SELECT artifact_id, size_bytes FROM artifacts WHERE sha256 = ?");
    select.bind(1, object.sha256);
    select.step();
    if (select.int64(1) != object.sizeBytes)
        throw Error(ErrorCode::Corrupt, "artifact " + object.sha256 + " is recorded with " +
                                            std::to_string(select.int64(1)) + " bytes, not " +
                                            std::to_string(object.sizeBytes));
    return select.int64(0);
}

std::int64_t Ledger::attachArtifact(const Lease &lease, std::string_view role,
                                    std::string_view name, const StoredObject &object)
{
    return attachArtifacts(lease, {{std::string(role), std::string(name), object}}).at(0);
}

Ledger::Batch::Batch(Ledger &ledger, Durability durability) : m_ledger(ledger)
{
    // The synchronous level is a property of the connection, changed only outside a
    // transaction: an inner Batch takes the outer one's.
    m_relaxed =
        durability == Durability::AtNextSeal && sqlite3_get_autocommit(ledger.m_db.handle());
    if (m_relaxed)
        m_ledger.m_db.exec("PRAGMA synchronous = NORMAL");
    try {
        m_tx.emplace(ledger.m_db);
    } catch (...) {
        if (m_relaxed)
            m_ledger.m_db.exec("PRAGMA synchronous = FULL");
        throw;
    }
}

Ledger::Batch::~Batch()
{
    m_tx.reset(); // rolls back unless committed
    if (m_relaxed)
        sqlite3_exec(m_ledger.m_db.handle(), "PRAGMA synchronous = FULL", nullptr, nullptr,
                     nullptr);
}

void Ledger::Batch::commit()
{
    m_tx->commit();
    if (m_relaxed) {
        m_relaxed = false;
        m_ledger.m_db.exec("PRAGMA synchronous = FULL");
    }
}

std::vector<std::int64_t> Ledger::attachArtifacts(const Lease &lease,
                                                  const std::vector<Attachment> &attachments)
{
    for (const auto &a : attachments) {
        requireNonEmpty(a.role, "artifact role");
        requireNonEmpty(a.name, "artifact name");
        if (!m_store.contains(a.object.sha256))
            throw Error(ErrorCode::InvalidInput, "artifact " + a.object.sha256 +
                                                     " is not in the store " +
                                                     m_store.directory().string());
    }
    std::vector<std::int64_t> ids;
    if (attachments.empty())
        return ids;
    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    checkLease(lease);
    Statement link(m_db, "INSERT INTO attempt_artifacts (attempt_id, artifact_id, role, name, "
                         "created_at_ms) VALUES (?, ?, ?, ?, ?)");
    for (const auto &a : attachments) {
        const std::int64_t artifactId = insertArtifactRow(a.object, now);
        link.reset();
        link.bind(1, lease.attemptId)
            .bind(2, artifactId)
            .bind(3, a.role)
            .bind(4, a.name)
            .bind(5, now);
        link.run();
        ids.push_back(artifactId);
    }
    tx.commit();
    return ids;
}

void Ledger::addProvenanceLinks(const Lease &lease, const std::vector<ProvenanceLink> &links)
{
    for (const auto &l : links)
        requireNonEmpty(l.relation, "provenance relation");
    if (links.empty())
        return;
    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    checkLease(lease);
    Statement s(m_db, "INSERT INTO provenance (parent_artifact_id, child_artifact_id, relation, "
                      "attempt_id, details_json, created_at_ms) VALUES (?, ?, ?, ?, ?, ?)");
    for (const auto &l : links) {
        s.reset();
        s.bind(1, l.parentArtifactId)
            .bind(2, l.childArtifactId)
            .bind(3, l.relation)
            .bind(4, lease.attemptId);
        if (l.details.is_null())
            s.bindNull(5);
        else
            s.bind(5, canonicalJson(l.details));
        s.bind(6, now).run();
    }
    tx.commit();
}

std::int64_t Ledger::putArtifact(const Lease &lease, std::string_view role, std::string_view name,
                                 std::span<const std::uint8_t> bytes, std::string_view mediaType)
{
    checkLease(lease); // fail early, before writing the object
    return attachArtifact(lease, role, name, m_store.putBytes(bytes, mediaType));
}

void Ledger::addProvenance(const Lease &lease, std::int64_t parentArtifactId,
                           std::int64_t childArtifactId, std::string_view relation,
                           const nlohmann::json &details)
{
    addProvenanceLinks(lease,
                       {{parentArtifactId, childArtifactId, std::string(relation), details}});
}

std::int64_t Ledger::recordValidation(const Lease &lease, const ValidationRecord &validation)
{
    requireNonEmpty(validation.validator, "validator");
    requireNonEmpty(validation.validatorVersion, "validator version");
    if (validation.verdict != "valid" && validation.verdict != "invalid" &&
        validation.verdict != "unknown")
        throw Error(ErrorCode::InvalidInput, "validation verdict must be valid, invalid or "
                                             "unknown, not '" +
                                                 validation.verdict + "'");
    Transaction tx(m_db);
    checkLease(lease);
    Statement s(m_db, "INSERT INTO validation_results (attempt_id, validator, validator_version, "
                      "verdict, reason_codes_json, details_json, created_at_ms) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, lease.attemptId)
        .bind(2, validation.validator)
        .bind(3, validation.validatorVersion)
        .bind(4, validation.verdict)
        .bind(5, canonicalJson(validation.reasonCodes));
    if (validation.details.is_null())
        s.bindNull(6);
    else
        s.bind(6, canonicalJson(validation.details));
    s.bind(7, nowMs()).run();
    const std::int64_t id = m_db.lastInsertRowId();
    tx.commit();
    return id;
}

std::int64_t Ledger::recordJudgment(const Lease &lease, const JudgmentRecord &judgment)
{
    if (judgment.outcome != "success" && judgment.outcome != "failure" &&
        judgment.outcome != "unknown")
        throw Error(ErrorCode::InvalidInput, "judgment outcome must be success, failure or "
                                             "unknown, not '" +
                                                 judgment.outcome + "'");
    if ((judgment.outcome == "unknown") != judgment.unknownReason.has_value())
        throw Error(ErrorCode::InvalidInput,
                    "a judgment has an unknown_reason exactly when its outcome is unknown");
    const std::int64_t now = nowMs();
    // What the judge was shown and asked, stored first (content-addressed, so a crash leaves at
    // most an unreferenced object): the frames' PNGs and each call's request document.
    checkLease(lease);
    // The judged frames are normally the rollout's own objects: reuse what is stored (no second
    // decode, write and fsync per frame); store only what is new.
    auto storeOnce = [&](std::span<const std::uint8_t> bytes, std::string_view mediaType) {
        const std::string sha = Sha256::hex(bytes);
        if (m_store.contains(sha)) {
            Statement known(m_db, "SELECT size_bytes, media_type FROM artifacts WHERE sha256 = ?");
            known.bind(1, sha);
            if (known.step())
                return StoredObject{sha, known.int64(0), known.text(1), std::nullopt, true};
        }
        return m_store.putBytes(bytes, mediaType);
    };
    std::vector<StoredObject> frames;
    for (const auto &png : judgment.framePngs)
        frames.push_back(storeOnce(png, "image/png"));
    std::vector<std::optional<StoredObject>> requests;
    for (const JudgeSampleRecord &js : judgment.samples) {
        if (js.request.is_null()) {
            requests.emplace_back();
            continue;
        }
        const std::string text = redactSecrets(canonicalJson(js.request));
        requests.emplace_back(
            storeOnce(std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()),
                      "application/json"));
    }
    Transaction tx(m_db);
    checkLease(lease);
    Statement link(m_db, "INSERT INTO attempt_artifacts (attempt_id, artifact_id, role, name, "
                         "created_at_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
    auto attach = [&](const StoredObject &object, std::string_view role, const std::string &name) {
        link.reset();
        link.bind(1, lease.attemptId)
            .bind(2, insertArtifactRow(object, now))
            .bind(3, role)
            .bind(4, name)
            .bind(5, now)
            .run();
    };
    for (const StoredObject &frame : frames)
        attach(frame, "judge_frame", frame.sha256 + ".png");
    for (const auto &request : requests) {
        if (request)
            attach(*request, "judge_request", request->sha256 + ".json");
    }
    Statement s(m_db, "INSERT INTO judgments (attempt_id, judge_id, settings_json, outcome, "
                      "unknown_reason, progress, decisive_votes, frame_indices_json, "
                      "prompt_sha256, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, lease.attemptId)
        .bind(2, judgment.judgeComponentId)
        .bind(3, canonicalJson(judgment.settings))
        .bind(4, judgment.outcome)
        .bind(5, judgment.unknownReason)
        .bind(6, judgment.progress)
        .bind(7, judgment.decisiveVotes);
    if (judgment.frameIndices.is_null())
        s.bindNull(8);
    else
        s.bind(8, canonicalJson(judgment.frameIndices));
    s.bind(9, judgment.promptSha256).bind(10, now).run();
    const std::int64_t judgmentId = m_db.lastInsertRowId();
    Statement sample(m_db, "INSERT INTO judge_samples (judgment_id, sample_index, try_index, seed, "
                           "raw_text, format_class, parse_error, parsed_json, generated_tokens, "
                           "decode_ms, finish_reason, row_sha256, created_at_ms, answer_form, "
                           "request_sha256, server_model, system_fingerprint) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < judgment.samples.size(); ++i) {
        JudgeSampleRecord js = judgment.samples[i];
        js.requestSha256 =
            requests[i] ? std::optional<std::string>(requests[i]->sha256) : std::nullopt;
        js.serverModel = storedTextOpt(js.serverModel);
        js.systemFingerprint = storedTextOpt(js.systemFingerprint);
        js.parseError = storedTextOpt(js.parseError);
        // The raw text was screened before it was parsed (screenJudgeAnswer): a text the filter
        // would still change has a parse that no longer follows from what would be stored.
        if (js.rawText && ledgerText(*js.rawText) != *js.rawText)
            throw Error(ErrorCode::InvalidInput,
                        "judge sample " + std::to_string(js.sampleIndex) + " try " +
                            std::to_string(js.tryIndex) +
                            ": its raw text holds a credential or bytes that are not UTF-8 and was "
                            "not screened before it was parsed (screenJudgeAnswer)");
        sample.reset();
        sample.bind(1, judgmentId)
            .bind(2, js.sampleIndex)
            .bind(3, js.tryIndex)
            .bind(4, js.seed)
            .bind(5, js.rawText)
            .bind(6, js.formatClass)
            .bind(7, js.parseError);
        if (js.parsed.is_null())
            sample.bindNull(8);
        else
            sample.bind(8, canonicalJson(js.parsed));
        sample.bind(9, js.generatedTokens)
            .bind(10, js.decodeMs)
            .bind(11, js.finishReason)
            .bind(12, js.rowSha256(judgmentId))
            .bind(13, now)
            .bind(14, js.answerForm)
            .bind(15, js.requestSha256)
            .bind(16, js.serverModel)
            .bind(17, js.systemFingerprint)
            .run();
    }
    if (!judgment.screenedSamples.empty())
        insertEvent(lease.runId, lease.attemptId, "judge_text_screened",
                    {{"judgment_id", judgmentId},
                     {"samples", judgment.screenedSamples},
                     {"why", "credentials redacted or bytes that are not UTF-8 replaced before "
                             "the answer was parsed"}},
                    now);
    tx.commit();
    return judgmentId;
}

void Ledger::closeAttempt(std::int64_t attemptId, std::int64_t runId, std::string_view state,
                          const AttemptOutcome &given, std::string_view runStatus, std::int64_t now)
{
    AttemptOutcome outcome = given;
    outcome.errorMessage = storedTextOpt(outcome.errorMessage);
    outcome.errorCode = storedTextOpt(outcome.errorCode);
    nlohmann::json payload = {{"state", state}};
    if (outcome.errorCode)
        payload["error_code"] = *outcome.errorCode;
    if (outcome.errorMessage)
        payload["error_message"] = *outcome.errorMessage;
    if (outcome.exitSignal)
        payload["exit_signal"] = *outcome.exitSignal;
    insertEvent(runId, attemptId, state == "abandoned" ? "attempt_abandoned" : "attempt_finished",
                payload, now);

    Statement read(m_db, std::string("SELECT ") + kAttemptColumns +
                             " FROM attempts WHERE attempt_id = ?");
    read.bind(1, attemptId);
    read.step();
    AttemptRecord a = readAttempt(read);
    a.state = std::string(state);
    a.finishedAtMs = now;
    a.errorCode = outcome.errorCode;
    a.errorMessage = outcome.errorMessage;
    a.exitSignal = outcome.exitSignal;
    const std::string seal = sealOf(m_db, a, a.runId);

    Statement close(m_db, "UPDATE attempts SET state = ?, finished_at_ms = ?, error_code = ?, "
                          "error_message = ?, exit_signal = ?, seal_sha256 = ? "
                          "WHERE attempt_id = ? AND state = 'running'");
    close.bind(1, state)
        .bind(2, now)
        .bind(3, outcome.errorCode)
        .bind(4, outcome.errorMessage)
        .bind(5, outcome.exitSignal)
        .bind(6, seal)
        .bind(7, attemptId)
        .run();
    const bool terminal = runStatus != "queued" && runStatus != "running";
    Statement runUpdate(m_db, "UPDATE runs SET status = ?, finished_at_ms = ? WHERE run_id = ?");
    runUpdate.bind(1, runStatus);
    if (terminal)
        runUpdate.bind(2, now);
    else
        runUpdate.bindNull(2);
    runUpdate.bind(3, runId).run();
}

void Ledger::finishAttempt(const Lease &lease, const AttemptOutcome &outcome,
                           const std::vector<HumanLabelRecord> &groundTruth)
{
    for (const HumanLabelRecord &label : groundTruth) {
        checkLabel(label);
        if (label.runId != lease.runId || label.source == "human")
            throw Error(ErrorCode::InvalidInput,
                        "an attempt of run " + std::to_string(lease.runId) +
                            " may record only its own world's ground truth, not a " + label.source +
                            " label of run " + std::to_string(label.runId));
    }
    Transaction tx(m_db);
    checkLease(lease);
    for (const HumanLabelRecord &label : groundTruth)
        insertLabel(label);
    const std::string state = attemptStateName(outcome.end);
    closeAttempt(lease.attemptId, lease.runId, state, outcome, state, nowMs());
    tx.commit();
}

std::vector<std::int64_t> Ledger::failAttemptsOfDeadWorker(std::string_view workerIdPrefix,
                                                           const AttemptOutcome &outcome)
{
    requireNonEmpty(workerIdPrefix, "worker id prefix");
    if (outcome.end != AttemptEnd::Failed)
        throw Error(ErrorCode::InvalidInput, "a dead worker's attempts can only end as failed");
    Transaction tx(m_db);
    Statement find(m_db, "SELECT attempt_id, run_id FROM attempts WHERE state = 'running' AND "
                         "substr(worker_id, 1, ?) = ? ORDER BY attempt_id");
    find.bind(1, static_cast<std::int64_t>(workerIdPrefix.size())).bind(2, workerIdPrefix);
    std::vector<std::pair<std::int64_t, std::int64_t>> found;
    while (find.step())
        found.emplace_back(find.int64(0), find.int64(1));
    std::vector<std::int64_t> closed;
    const std::int64_t now = nowMs();
    for (const auto &[attemptId, runId] : found) {
        closeAttempt(attemptId, runId, "failed", outcome, "failed", now);
        closed.push_back(attemptId);
    }
    tx.commit();
    return closed;
}

std::string Ledger::computeSeal(std::int64_t attemptId)
{
    Statement read(m_db, std::string("SELECT ") + kAttemptColumns +
                             " FROM attempts WHERE attempt_id = ?");
    read.bind(1, attemptId);
    if (!read.step())
        throw Error(ErrorCode::NotFound,
                    "attempt " + std::to_string(attemptId) + " does not exist");
    const AttemptRecord attempt = readAttempt(read);
    std::int64_t sealRunId = attempt.runId;
    if (m_schemaVersion >= 5) { // merged from a shard: sealed there, under that ledger's run id
        Statement merged(m_db, "SELECT seal_run_id FROM merged_attempts WHERE attempt_id = ?");
        merged.bind(1, attemptId);
        if (merged.step())
            sealRunId = merged.int64(0);
    }
    return sealOf(m_db, attempt, sealRunId);
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

// ---- labels and annotations -------------------------------------------------------------------

std::int64_t Ledger::addHumanLabel(const HumanLabelRecord &label)
{
    checkLabel(label);
    Transaction tx(m_db);
    if (!run(label.runId))
        throw Error(ErrorCode::NotFound, "run " + std::to_string(label.runId) + " does not exist");
    const std::int64_t id = insertLabel(label);
    tx.commit();
    return id;
}

std::vector<std::int64_t> Ledger::addHumanLabelsOnce(const std::vector<HumanLabelRecord> &labels)
{
    for (const HumanLabelRecord &label : labels)
        checkLabel(label);
    Transaction tx(m_db); // BEGIN IMMEDIATE: a second importer waits, then finds these labels
    Statement existing(m_db, "SELECT label_id FROM human_labels WHERE run_id = ? AND source = ? "
                             "AND annotator_id = ? AND notes IS ? LIMIT 1");
    for (const HumanLabelRecord &label : labels) {
        if (!run(label.runId))
            throw Error(ErrorCode::NotFound,
                        "run " + std::to_string(label.runId) + " does not exist");
        existing.reset();
        existing.bind(1, label.runId)
            .bind(2, label.source)
            .bind(3, ledgerText(label.annotatorId))
            .bind(4, storedTextOpt(label.notes));
        if (existing.step())
            throw Error(ErrorCode::InvalidInput,
                        "run " + std::to_string(label.runId) + " already holds label " +
                            std::to_string(existing.int64(0)) + " by " +
                            ledgerText(label.annotatorId) +
                            (label.notes ? " (" + ledgerText(*label.notes) + ")" : std::string()) +
                            "; nothing was written");
    }
    std::vector<std::int64_t> ids;
    ids.reserve(labels.size());
    for (const HumanLabelRecord &label : labels)
        ids.push_back(insertLabel(label));
    tx.commit();
    return ids;
}

void Ledger::checkLabel(const HumanLabelRecord &label)
{
    requireNonEmpty(label.annotatorId, "annotator id");
    if (label.progress && (*label.progress < 0 || *label.progress > 5))
        throw Error(ErrorCode::InvalidInput,
                    "label progress must be 0-5, not " + std::to_string(*label.progress));
    if (label.completion == "met" && label.progress && *label.progress != 5)
        throw Error(ErrorCode::InvalidInput, "a label with completion 'met' needs progress 5");
    if (label.completion == "not_met" && label.progress && *label.progress == 5)
        throw Error(ErrorCode::InvalidInput,
                    "a label with completion 'not_met' needs progress 0-4");
}

std::int64_t Ledger::insertLabel(const HumanLabelRecord &label)
{
    Statement s(m_db, "INSERT INTO human_labels (run_id, annotator_id, source, split, integrity, "
                      "collision, progress, completion, notes, labeled_at_ms, supersedes_label_id) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(1, label.runId)
        .bind(2, ledgerText(label.annotatorId))
        .bind(3, label.source)
        .bind(4, label.split)
        .bind(5, label.integrity)
        .bind(6, label.collision)
        .bind(7, label.progress)
        .bind(8, label.completion)
        .bind(9, storedTextOpt(label.notes))
        .bind(10, nowMs())
        .bind(11, label.supersedesLabelId)
        .run();
    return m_db.lastInsertRowId();
}

std::int64_t Ledger::addBookmark(std::int64_t runId, std::optional<std::int64_t> frameIndex,
                                 std::string_view text, std::string_view author)
{
    const std::int64_t now = nowMs();
    Transaction tx(m_db);
    Statement s(m_db, "INSERT INTO annotations (run_id, frame_index, kind, text, author, "
                      "created_at_ms, updated_at_ms) VALUES (?, ?, 'bookmark', ?, ?, ?, ?)");
    s.bind(1, runId).bind(2, frameIndex).bind(3, ledgerText(text));
    if (author.empty())
        s.bindNull(4);
    else
        s.bind(4, ledgerText(author));
    s.bind(5, now).bind(6, now).run();
    const std::int64_t id = m_db.lastInsertRowId();
    tx.commit();
    return id;
}

std::vector<HumanLabelRecord> Ledger::labels(std::int64_t runId)
{
    Statement s(
        m_db,
        "SELECT label_id, annotator_id, source, split, integrity, collision, progress, completion, "
        "notes, supersedes_label_id FROM human_labels WHERE run_id = ? ORDER BY label_id");
    s.bind(1, runId);
    std::vector<HumanLabelRecord> out;
    while (s.step()) {
        HumanLabelRecord l;
        l.labelId = s.int64(0);
        l.runId = runId;
        l.annotatorId = s.text(1);
        l.source = s.text(2);
        l.split = s.optText(3);
        l.integrity = s.optText(4);
        l.collision = s.optText(5);
        if (auto p = s.optInt64(6))
            l.progress = static_cast<int>(*p);
        l.completion = s.optText(7);
        l.notes = s.optText(8);
        l.supersedesLabelId = s.optInt64(9);
        out.push_back(std::move(l));
    }
    return out;
}

std::vector<BookmarkRecord> Ledger::bookmarks(std::int64_t runId)
{
    Statement s(
        m_db,
        "SELECT annotation_id, run_id, frame_index, text, author, created_at_ms FROM annotations "
        "WHERE run_id = ? AND kind = 'bookmark' ORDER BY frame_index, annotation_id");
    s.bind(1, runId);
    std::vector<BookmarkRecord> out;
    while (s.step())
        out.push_back({s.int64(0), s.int64(1), s.optInt64(2), s.text(3), s.optText(4), s.int64(5)});
    return out;
}

void Ledger::removeBookmark(std::int64_t annotationId)
{
    Transaction tx(m_db);
    Statement s(m_db, "DELETE FROM annotations WHERE annotation_id = ? AND kind = 'bookmark'");
    s.bind(1, annotationId).run();
    if (m_db.changes() == 0)
        throw Error(ErrorCode::NotFound,
                    "bookmark " + std::to_string(annotationId) + " does not exist");
    tx.commit();
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
