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

// The reader of the module next to this program (<bin>/../<pkglibdir>/libkosmos-parquet.so),
// loaded once. Throws Error(Unavailable) saying why when it is not there or cannot be loaded.
ParquetReader &parquetReader();
// Whether it can be loaded; `why` says why not.
bool parquetAvailable(std::string *why = nullptr);

} // namespace kosmos

// The module's one entry point (C linkage, looked up by name).
extern "C" kosmos::ParquetReader *kosmos_parquet_reader_v1();
