#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace kosmos::sqlite {

// Thin RAII wrappers over the SQLite C API. Every failure becomes a kosmos::Error naming
// the database file and the statement; a trigger's "kosmos: ..." refusal becomes
// ErrorCode::Immutable.

class Database
{
public:
    Database() = default;
    Database(const std::string &path, bool readOnly, bool create);
    ~Database();
    Database(Database &&other) noexcept;
    Database &operator=(Database &&other) noexcept;
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;

    sqlite3 *handle() const { return m_db; }
    const std::string &path() const { return m_path; }
    bool isReadOnly() const { return m_readOnly; }

    void exec(std::string_view sql);
    std::int64_t pragmaInt(std::string_view pragma);
    std::int64_t lastInsertRowId() const;
    int changes() const;
    [[noreturn]] void fail(int rc, std::string_view what) const;

private:
    friend class Transaction;
    sqlite3 *m_db = nullptr;
    std::string m_path;
    bool m_readOnly = false;
    int m_transactionDepth = 0; // Transactions open on this connection (nested: savepoints)
};

class Statement
{
public:
    Statement(const Database &db, std::string_view sql);
    ~Statement();
    Statement(const Statement &) = delete;
    Statement &operator=(const Statement &) = delete;

    // Binding is 1-based, as in SQLite. std::nullopt binds NULL.
    Statement &bind(int index, std::int64_t value);
    Statement &bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement &bind(int index, double value);
    Statement &bind(int index, std::string_view value);
    Statement &bind(int index, const char *value) { return bind(index, std::string_view(value)); }
    Statement &bind(int index, const std::string &value)
    {
        return bind(index, std::string_view(value));
    }
    Statement &bindNull(int index);
    template<typename T>
    Statement &bind(int index, const std::optional<T> &value)
    {
        return value ? bind(index, *value) : bindNull(index);
    }

    // Returns true while there is a row to read; false when done.
    bool step();
    // Runs a statement that returns no rows.
    void run();
    void reset();

    bool isNull(int column) const;
    std::int64_t int64(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    std::optional<std::int64_t> optInt64(int column) const;
    std::optional<std::string> optText(int column) const;

private:
    const Database &m_db;
    sqlite3_stmt *m_stmt = nullptr;
    std::string m_sql;
};

// BEGIN IMMEDIATE ... COMMIT, or rolled back unless committed. A Transaction opened while another
// is open on the same connection nests as a savepoint: its commit releases the savepoint (the
// outer one commits, one fsync for all), its rollback undoes only its own writes.
class Transaction
{
public:
    explicit Transaction(Database &db);
    ~Transaction();
    Transaction(const Transaction &) = delete;
    Transaction &operator=(const Transaction &) = delete;
    void commit();

private:
    Database &m_db;
    int m_level = 0; // 0: the outermost (BEGIN/COMMIT), else a savepoint
    bool m_open = true;
};

} // namespace kosmos::sqlite
