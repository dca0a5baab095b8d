#pragma once

// Reading Parquet files (LeRobot datasets' tables, core/dataset/LeRobotDataset.h) through Apache
// Arrow's Parquet reader, which lives in a module loaded on first use (libkosmos-parquet.so,
// built from core/dataset/parquet/ against the pinned pyarrow wheel's Arrow C++: scripts/
// setup-arrow.sh, docs/dependencies.md). Nothing else links Arrow: without the module the
// workstation and kosmos-cli run as before and a dataset says why it cannot be read.
// Columns come back as plain values: integers (any integer width, booleans) as int64, floating
// point as double (a float32 widens exactly), strings, and lists of numbers (fixed or variable
// size, one width for the whole column) as row-major doubles; lists of strings as lists.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kosmos {

struct ParquetColumn
{
    enum class Kind
    {
        Int64,
        Double,
        String,
        DoubleList,
        StringList
    };
    std::string name;
    Kind kind = Kind::Int64;
    std::string arrowType; // as Arrow names it ("float", "fixed_size_list<item: float>[2]"...)
    int width = 1;         // values per row (lists)
    std::vector<std::int64_t> ints;
    std::vector<double> doubles; // Double: one per row; DoubleList: width per row
    std::vector<std::string> strings;
    std::vector<std::vector<std::string>> stringLists;
};

struct ParquetTable
{
    std::int64_t rows = 0;
    std::vector<ParquetColumn> columns;
    const ParquetColumn *find(const std::string &name) const;
};

struct ParquetFileInfo
{
    std::int64_t rows = 0;
    std::vector<std::string> columns; // top-level fields, in file order
};

class ParquetReader
{
public:
    virtual ~ParquetReader() = default;
    virtual std::string version() const = 0; // Arrow's version
    virtual ParquetFileInfo inspect(const std::filesystem::path &file) = 0;
    // The named top-level columns of `file` (all of them when `columns` is empty). A missing
    // column, a null value, a ragged list or a type outside the kinds above throws
    // Error(InvalidInput) naming the file and the column; an unreadable file, Error(Corrupt).
    virtual ParquetTable read(const std::filesystem::path &file,
                              const std::vector<std::string> &columns) = 0;
};

// A column to write (LeRobot datasets written by kosmos-cli dataset export --format lerobot).
struct ParquetOutColumn
{
    enum class Type
    {
        Int64,
        Bool,
        Float32,
        Float64,
        String
    };
    std::string name;
    Type type = Type::Int64;
    // 0: one value a row; n > 0: a fixed-size list of n values a row (LeRobot's arrays, as
    // Hugging Face datasets writes them); -1: a list per row of its own length (rowLengths).
    int width = 0;
    std::vector<std::int64_t> rowLengths;
    std::vector<std::int64_t> ints;   // Int64, Bool (0 or 1)
    std::vector<double> doubles;      // Float32 (narrowed), Float64
    std::vector<std::string> strings; // String
};

struct ParquetOutTable
{
    std::int64_t rows = 0;
    std::vector<ParquetOutColumn> columns;
    std::vector<std::pair<std::string, std::string>> metadata; // the schema's key-value metadata
};

class ParquetWriter
{
public:
    virtual ~ParquetWriter() = default;
    // Writes `table` to `file` (one row group, Snappy where Arrow has it). A column whose value
    // count does not fit its rows and width throws Error(InvalidInput) naming it; a file that
    // cannot be written, Error(Io).
    virtual void write(const std::filesystem::path &file, const ParquetOutTable &table) = 0;
};

// The reader of the module next to this program (<bin>/../<pkglibdir>/libkosmos-parquet.so),
// loaded once. Throws Error(Unavailable) saying why when it is not there or cannot be loaded.
ParquetReader &parquetReader();
// Its writer; throws as parquetReader() does.
ParquetWriter &parquetWriter();
// Whether it can be loaded; `why` says why not.
bool parquetAvailable(std::string *why = nullptr);

} // namespace kosmos

// The module's one entry point (C linkage, looked up by name).
extern "C" kosmos::ParquetReader *kosmos_parquet_reader_v1();
extern "C" kosmos::ParquetWriter *kosmos_parquet_writer_v1();
