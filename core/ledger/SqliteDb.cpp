#include "ledger/SqliteDb.h"

#include "util/Error.h"

#include <sqlite3.h>

#include <utility>

namespace kosmos::sqlite {

namespace {
constexpr int kBusyTimeoutMs = 30000;
}

Database::Database(const std::string &path, bool readOnly, bool create)
    : m_path(path), m_readOnly(readOnly)
{
    // URI: a merge attaches a shard ledger read-only (file:...?mode=ro). A path that does not
    // start with "file:" is an ordinary file name either way.
    int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_URI;
    flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
    if (create && !readOnly)
        flags |= SQLITE_OPEN_CREATE;
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        throw Error(ErrorCode::Io, "cannot open " + path + ": " + message);
    }
    sqlite3_busy_timeout(m_db, kBusyTimeoutMs);
    sqlite3_extended_result_codes(m_db, 1);
}

Database::~Database()
{
    if (m_db)
        sqlite3_close_v2(m_db);
}

Database::Database(Database &&other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_path(std::move(other.m_path)),
      m_readOnly(other.m_readOnly), m_transactionDepth(std::exchange(other.m_transactionDepth, 0))
{
}

Database &Database::operator=(Database &&other) noexcept
{
    if (this != &other) {
        if (m_db)
            sqlite3_close_v2(m_db);
        m_db = std::exchange(other.m_db, nullptr);
        m_path = std::move(other.m_path);
        m_readOnly = other.m_readOnly;
        m_transactionDepth = std::exchange(other.m_transactionDepth, 0);
    }
    return *this;
}

void Database::fail(int rc, std::string_view what) const
{
    const std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    ErrorCode code = ErrorCode::Database;
    if (message.rfind("kosmos:", 0) == 0)
        code = ErrorCode::Immutable;
    else if ((rc & 0xff) == SQLITE_READONLY)
        code = ErrorCode::ReadOnly;
    else if ((rc & 0xff) == SQLITE_NOTADB || (rc & 0xff) == SQLITE_CORRUPT)
        code = ErrorCode::NotALedger;
    throw Error(code, m_path + ": " + message + " (in: " + std::string(what.substr(0, 120)) + ")");
}

void Database::exec(std::string_view sql)
{
    const std::string text(sql);
    char *error = nullptr;
    const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &error);
    if (rc != SQLITE_OK) {
        sqlite3_free(error);
        fail(rc, sql);
    }
}

std::int64_t Database::pragmaInt(std::string_view pragma)
{
    Statement stmt(*this, "PRAGMA " + std::string(pragma));
    if (!stmt.step())
        return 0;
    return stmt.int64(0);
}

std::int64_t Database::lastInsertRowId() const
{
    return sqlite3_last_insert_rowid(m_db);
}

int Database::changes() const
{
    return sqlite3_changes(m_db);
}

Statement::Statement(const Database &db, std::string_view sql) : m_db(db), m_sql(sql)
{
    const int rc = sqlite3_prepare_v2(db.handle(), m_sql.c_str(), static_cast<int>(m_sql.size()),
                                      &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        db.fail(rc, m_sql);
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

Statement &Statement::bind(int index, std::int64_t value)
{
    const int rc = sqlite3_bind_int64(m_stmt, index, value);
    if (rc != SQLITE_OK)
        m_db.fail(rc, m_sql);
    return *this;
}

Statement &Statement::bind(int index, double value)
{
    const int rc = sqlite3_bind_double(m_stmt, index, value);
    if (rc != SQLITE_OK)
        m_db.fail(rc, m_sql);
    return *this;
}

Statement &Statement::bind(int index, std::string_view value)
{
    const int rc = sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT,
                                       SQLITE_UTF8);
    if (rc != SQLITE_OK)
        m_db.fail(rc, m_sql);
    return *this;
}

Statement &Statement::bindNull(int index)
{
    const int rc = sqlite3_bind_null(m_stmt, index);
    if (rc != SQLITE_OK)
        m_db.fail(rc, m_sql);
    return *this;
}

bool Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    sqlite3_reset(m_stmt);
    m_db.fail(rc, m_sql);
}

void Statement::run()
{
    while (step()) {
    }
}

void Statement::reset()
{
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::int64_t Statement::int64(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

double Statement::real(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

std::string Statement::text(int column) const
{
    const auto *data = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, column));
    if (!data)
        return {};
    return std::string(data, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)));
}

std::optional<std::int64_t> Statement::optInt64(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return int64(column);
}

std::optional<std::string> Statement::optText(int column) const
{
    if (isNull(column))
        return std::nullopt;
    return text(column);
}

Transaction::Transaction(Database &db) : m_db(db), m_level(db.m_transactionDepth)
{
    if (m_level == 0)
        m_db.exec("BEGIN IMMEDIATE");
    else
        m_db.exec("SAVEPOINT kosmos_" + std::to_string(m_level));
    ++m_db.m_transactionDepth;
}

Transaction::~Transaction()
{
    if (m_open) {
        if (m_level == 0) {
            sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
        } else {
            const std::string name = "kosmos_" + std::to_string(m_level);
            sqlite3_exec(m_db.handle(), ("ROLLBACK TO " + name).c_str(), nullptr, nullptr, nullptr);
            sqlite3_exec(m_db.handle(), ("RELEASE " + name).c_str(), nullptr, nullptr, nullptr);
        }
        --m_db.m_transactionDepth;
    }
}

void Transaction::commit()
{
    if (m_level == 0)
        m_db.exec("COMMIT");
    else
        m_db.exec("RELEASE kosmos_" + std::to_string(m_level));
    m_open = false;
    --m_db.m_transactionDepth;
}

} // namespace kosmos::sqlite
