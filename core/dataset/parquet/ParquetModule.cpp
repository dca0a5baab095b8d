// libkosmos-parquet.so: Apache Arrow's Parquet reader behind core/dataset/ParquetReader.h. The
// only code that includes Arrow; loaded on first use by parquetReader(). Memory comes from the
// system allocator (arrow::system_memory_pool), not the wheel's jemalloc pool: it is what the
// sanitizers see. Files are read on the calling thread (no CPU or IO pool); the background thread
// of Arrow's bundled jemalloc is turned off before this module loads (ParquetReader.cpp).
#include "dataset/ParquetReader.h"

#include "util/Error.h"

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/util/compression.h>
#include <arrow/util/config.h>
#include <arrow/util/key_value_metadata.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>
#include <parquet/exception.h>

#include <limits>

namespace kosmos {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void corrupt(const fs::path &file, const std::string &what)
{
    throw Error(ErrorCode::Corrupt, file.string() + ": " + what);
}

[[noreturn]] void invalid(const fs::path &file, const std::string &column, const std::string &what)
{
    throw Error(ErrorCode::InvalidInput, file.string() + ", column '" + column + "': " + what);
}

template<typename T>
T check(arrow::Result<T> result, const fs::path &file)
{
    if (!result.ok())
        corrupt(file, result.status().ToString());
    return std::move(result).ValueOrDie();
}

void check(const arrow::Status &status, const fs::path &file)
{
    if (!status.ok())
        corrupt(file, status.ToString());
}

bool isInteger(arrow::Type::type t)
{
    switch (t) {
    case arrow::Type::BOOL:
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::UINT8:
    case arrow::Type::UINT16:
    case arrow::Type::UINT32:
    case arrow::Type::UINT64:
        return true;
    default:
        return false;
    }
}

bool isFloat(arrow::Type::type t)
{
    return t == arrow::Type::FLOAT || t == arrow::Type::DOUBLE;
}

// One value of a numeric array as double (integers exactly up to 2^53; LeRobot's are far below).
double numberAt(const arrow::Array &a, int64_t i)
{
    switch (a.type_id()) {
    case arrow::Type::FLOAT:
        return static_cast<const arrow::FloatArray &>(a).Value(i);
    case arrow::Type::DOUBLE:
        return static_cast<const arrow::DoubleArray &>(a).Value(i);
    case arrow::Type::BOOL:
        return static_cast<const arrow::BooleanArray &>(a).Value(i) ? 1.0 : 0.0;
    case arrow::Type::INT8:
        return static_cast<const arrow::Int8Array &>(a).Value(i);
    case arrow::Type::INT16:
        return static_cast<const arrow::Int16Array &>(a).Value(i);
    case arrow::Type::INT32:
        return static_cast<const arrow::Int32Array &>(a).Value(i);
    case arrow::Type::INT64:
        return static_cast<double>(static_cast<const arrow::Int64Array &>(a).Value(i));
    case arrow::Type::UINT8:
        return static_cast<const arrow::UInt8Array &>(a).Value(i);
    case arrow::Type::UINT16:
        return static_cast<const arrow::UInt16Array &>(a).Value(i);
    case arrow::Type::UINT32:
        return static_cast<const arrow::UInt32Array &>(a).Value(i);
    case arrow::Type::UINT64:
        return static_cast<double>(static_cast<const arrow::UInt64Array &>(a).Value(i));
    default:
        return std::numeric_limits<double>::quiet_NaN();
    }
}

std::int64_t integerAt(const arrow::Array &a, int64_t i, const fs::path &file,
                       const std::string &column)
{
    switch (a.type_id()) {
    case arrow::Type::INT64:
        return static_cast<const arrow::Int64Array &>(a).Value(i);
    case arrow::Type::UINT64: {
        const std::uint64_t v = static_cast<const arrow::UInt64Array &>(a).Value(i);
        if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
            invalid(file, column,
                    "value " + std::to_string(v) + " at row " + std::to_string(i) +
                        " does not fit a signed 64-bit integer");
        return static_cast<std::int64_t>(v);
    }
    default:
        return static_cast<std::int64_t>(numberAt(a, i));
    }
}

std::string stringAt(const arrow::Array &a, int64_t i)
{
    if (a.type_id() == arrow::Type::LARGE_STRING)
        return static_cast<const arrow::LargeStringArray &>(a).GetString(i);
    return static_cast<const arrow::StringArray &>(a).GetString(i);
}

void appendChunk(ParquetColumn &out, const arrow::Array &chunk, const fs::path &file,
                 int64_t firstRow)
{
    const int64_t n = chunk.length();
    switch (out.kind) {
    case ParquetColumn::Kind::Int64:
        for (int64_t i = 0; i < n; ++i)
            out.ints.push_back(integerAt(chunk, i, file, out.name));
        return;
    case ParquetColumn::Kind::Double:
        for (int64_t i = 0; i < n; ++i)
            out.doubles.push_back(numberAt(chunk, i));
        return;
    case ParquetColumn::Kind::String:
        for (int64_t i = 0; i < n; ++i)
            out.strings.push_back(stringAt(chunk, i));
        return;
    case ParquetColumn::Kind::DoubleList:
    case ParquetColumn::Kind::StringList:
        break;
    }
    // Lists: each row's values, one width for the whole column.
    std::shared_ptr<arrow::Array> values;
    auto rowRange = [&](int64_t i) -> std::pair<int64_t, int64_t> {
        switch (chunk.type_id()) {
        case arrow::Type::FIXED_SIZE_LIST: {
            const auto &l = static_cast<const arrow::FixedSizeListArray &>(chunk);
            return {l.value_offset(i), l.value_offset(i) + l.value_length(i)};
        }
        case arrow::Type::LARGE_LIST: {
            const auto &l = static_cast<const arrow::LargeListArray &>(chunk);
            return {l.value_offset(i), l.value_offset(i) + l.value_length(i)};
        }
        default: {
            const auto &l = static_cast<const arrow::ListArray &>(chunk);
            return {l.value_offset(i), l.value_offset(i) + l.value_length(i)};
        }
        }
    };
    switch (chunk.type_id()) {
    case arrow::Type::FIXED_SIZE_LIST:
        values = static_cast<const arrow::FixedSizeListArray &>(chunk).values();
        break;
    case arrow::Type::LARGE_LIST:
        values = static_cast<const arrow::LargeListArray &>(chunk).values();
        break;
    default:
        values = static_cast<const arrow::ListArray &>(chunk).values();
        break;
    }
    if (out.kind == ParquetColumn::Kind::StringList) {
        for (int64_t i = 0; i < n; ++i) {
            const auto [from, to] = rowRange(i);
            std::vector<std::string> row;
            for (int64_t k = from; k < to; ++k) {
                if (values->IsNull(k))
                    invalid(file, out.name,
                            "a null value in the list of row " + std::to_string(firstRow + i));
                row.push_back(stringAt(*values, k));
            }
            out.stringLists.push_back(std::move(row));
        }
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        const auto [from, to] = rowRange(i);
        const int width = static_cast<int>(to - from);
        if (firstRow == 0 && i == 0)
            out.width = width;
        if (width != out.width)
            invalid(file, out.name,
                    "row " + std::to_string(firstRow + i) + " has " + std::to_string(width) +
                        " values, earlier rows " + std::to_string(out.width));
        for (int64_t k = from; k < to; ++k) {
            if (values->IsNull(k))
                invalid(file, out.name,
                        "a null value in the list of row " + std::to_string(firstRow + i));
            out.doubles.push_back(numberAt(*values, k));
        }
    }
}

ParquetColumn::Kind kindOf(const arrow::DataType &type, const fs::path &file,
                           const std::string &column)
{
    const auto id = type.id();
    if (isInteger(id))
        return ParquetColumn::Kind::Int64;
    if (isFloat(id))
        return ParquetColumn::Kind::Double;
    if (id == arrow::Type::STRING || id == arrow::Type::LARGE_STRING)
        return ParquetColumn::Kind::String;
    if (id == arrow::Type::LIST || id == arrow::Type::LARGE_LIST ||
        id == arrow::Type::FIXED_SIZE_LIST) {
        const auto value = type.field(0)->type()->id();
        if (isInteger(value) || isFloat(value))
            return ParquetColumn::Kind::DoubleList;
        if (value == arrow::Type::STRING || value == arrow::Type::LARGE_STRING)
            return ParquetColumn::Kind::StringList;
    }
    invalid(file, column,
            "type " + type.ToString() + " is not a number, a string or a list of numbers");
}

class ArrowParquetReader final : public ParquetReader
{
public:
    std::string version() const override { return ARROW_VERSION_STRING; }

    ParquetFileInfo inspect(const fs::path &file) override
    {
        auto reader = open(file);
        std::shared_ptr<arrow::Schema> schema;
        check(reader->GetSchema(&schema), file);
        ParquetFileInfo info;
        info.rows = reader->parquet_reader()->metadata()->num_rows();
        for (const auto &field : schema->fields())
            info.columns.push_back(field->name());
        return info;
    }

    ParquetTable read(const fs::path &file, const std::vector<std::string> &columns) override
    {
        auto reader = open(file);
        std::shared_ptr<arrow::Schema> schema;
        check(reader->GetSchema(&schema), file);
        std::vector<std::string> names = columns;
        if (names.empty())
            for (const auto &field : schema->fields())
                names.push_back(field->name());
        ParquetTable table;
        table.rows = reader->parquet_reader()->metadata()->num_rows();
        for (const std::string &name : names) {
            const int index = schema->GetFieldIndex(name);
            if (index < 0)
                invalid(file, name,
                        "no such column (the file has " + std::to_string(schema->num_fields()) +
                            ")");
            std::shared_ptr<arrow::ChunkedArray> data;
            try {
                check(reader->ReadColumn(index, &data), file);
            } catch (const parquet::ParquetException &e) {
                corrupt(file, e.what());
            }
            if (data->length() != table.rows)
                corrupt(file, "column '" + name + "' has " + std::to_string(data->length()) +
                                  " rows, the file " + std::to_string(table.rows));
            ParquetColumn column;
            column.name = name;
            column.arrowType = data->type()->ToString();
            column.kind = kindOf(*data->type(), file, name);
            int64_t row = 0;
            for (const auto &chunk : data->chunks()) {
                if (chunk->null_count() > 0) {
                    int64_t at = 0;
                    while (at < chunk->length() && !chunk->IsNull(at))
                        ++at;
                    invalid(file, name, "a null value at row " + std::to_string(row + at));
                }
                appendChunk(column, *chunk, file, row);
                row += chunk->length();
            }
            table.columns.push_back(std::move(column));
        }
        return table;
    }

private:
    static std::unique_ptr<parquet::arrow::FileReader> open(const fs::path &file)
    {
        std::error_code ec;
        if (!fs::is_regular_file(file, ec))
            throw Error(ErrorCode::NotFound, file.string() + " is not a file");
        try {
            auto input = check(arrow::io::ReadableFile::Open(file.string()), file);
            // Read on the calling thread: no column decoding on Arrow's CPU pool and no read-ahead
            // on its IO pool (pre_buffer), so reading starts no threads in the host.
            parquet::ArrowReaderProperties properties;
            properties.set_use_threads(false);
            properties.set_pre_buffer(false);
            parquet::arrow::FileReaderBuilder builder;
            check(builder.Open(input), file);
            builder.memory_pool(arrow::system_memory_pool())->properties(properties);
            return check(builder.Build(), file);
        } catch (const parquet::ParquetException &e) {
            corrupt(file, e.what());
        }
    }
};

// ---- writing -----------------------------------------------------------------------------------

[[noreturn]] void cannotWrite(const fs::path &file, const std::string &what)
{
    throw Error(ErrorCode::Io, file.string() + ": " + what);
}

void ok(const arrow::Status &status, const fs::path &file)
{
    if (!status.ok())
        cannotWrite(file, status.ToString());
}

std::shared_ptr<arrow::DataType> valueType(ParquetOutColumn::Type type)
{
    switch (type) {
    case ParquetOutColumn::Type::Int64:
        return arrow::int64();
    case ParquetOutColumn::Type::Bool:
        return arrow::boolean();
    case ParquetOutColumn::Type::Float32:
        return arrow::float32();
    case ParquetOutColumn::Type::Float64:
        return arrow::float64();
    case ParquetOutColumn::Type::String:
        return arrow::utf8();
    }
    return arrow::int64();
}

// The flat values of a column (every row's, in order) as one Arrow array.
std::shared_ptr<arrow::Array> flatValues(const ParquetOutColumn &c, std::int64_t count,
                                         const fs::path &file)
{
    const auto has = [&](std::size_t n) {
        if (static_cast<std::int64_t>(n) != count)
            throw Error(ErrorCode::InvalidInput, file.string() + ", column '" + c.name +
                                                     "': " + std::to_string(n) + " values, " +
                                                     std::to_string(count) + " expected");
    };
    std::shared_ptr<arrow::Array> out;
    switch (c.type) {
    case ParquetOutColumn::Type::Int64: {
        has(c.ints.size());
        arrow::Int64Builder b;
        ok(b.AppendValues(c.ints), file);
        ok(b.Finish(&out), file);
        break;
    }
    case ParquetOutColumn::Type::Bool: {
        has(c.ints.size());
        arrow::BooleanBuilder b;
        for (std::int64_t v : c.ints)
            ok(b.Append(v != 0), file);
        ok(b.Finish(&out), file);
        break;
    }
    case ParquetOutColumn::Type::Float32: {
        has(c.doubles.size());
        arrow::FloatBuilder b;
        for (double v : c.doubles)
            ok(b.Append(static_cast<float>(v)), file);
        ok(b.Finish(&out), file);
        break;
    }
    case ParquetOutColumn::Type::Float64: {
        has(c.doubles.size());
        arrow::DoubleBuilder b;
        ok(b.AppendValues(c.doubles), file);
        ok(b.Finish(&out), file);
        break;
    }
    case ParquetOutColumn::Type::String: {
        has(c.strings.size());
        arrow::StringBuilder b;
        ok(b.AppendValues(c.strings), file);
        ok(b.Finish(&out), file);
        break;
    }
    }
    return out;
}

class ArrowParquetWriter final : public ParquetWriter
{
public:
    void write(const fs::path &file, const ParquetOutTable &table) override
    {
        std::vector<std::shared_ptr<arrow::Field>> fields;
        std::vector<std::shared_ptr<arrow::Array>> arrays;
        for (const ParquetOutColumn &c : table.columns) {
            const auto item = arrow::field("element", valueType(c.type));
            if (c.width == 0) {
                arrays.push_back(flatValues(c, table.rows, file));
                fields.push_back(arrow::field(c.name, valueType(c.type), false));
            } else if (c.width > 0) {
                auto values = flatValues(c, table.rows * c.width, file);
                auto type = arrow::fixed_size_list(item, c.width);
                arrays.push_back(
                    std::make_shared<arrow::FixedSizeListArray>(type, table.rows, values));
                fields.push_back(arrow::field(c.name, type, false));
            } else {
                if (static_cast<std::int64_t>(c.rowLengths.size()) != table.rows)
                    throw Error(ErrorCode::InvalidInput,
                                file.string() + ", column '" + c.name +
                                    "': " + std::to_string(c.rowLengths.size()) + " row lengths, " +
                                    std::to_string(table.rows) + " rows");
                std::vector<std::int32_t> offsets{0};
                for (std::int64_t n : c.rowLengths)
                    offsets.push_back(offsets.back() + static_cast<std::int32_t>(n));
                auto values = flatValues(c, offsets.back(), file);
                arrow::Int32Builder ob;
                ok(ob.AppendValues(offsets), file);
                std::shared_ptr<arrow::Array> offsetArray;
                ok(ob.Finish(&offsetArray), file);
                auto list = check(arrow::ListArray::FromArrays(*offsetArray, *values), file);
                auto type = arrow::list(item);
                arrays.push_back(std::make_shared<arrow::ListArray>(
                    type, table.rows, list->value_offsets(), list->values()));
                fields.push_back(arrow::field(c.name, type, false));
            }
        }
        std::vector<std::string> keys, values;
        for (const auto &[k, v] : table.metadata) {
            keys.push_back(k);
            values.push_back(v);
        }
        auto schema =
            arrow::schema(fields, keys.empty() ? nullptr : arrow::key_value_metadata(keys, values));
        auto arrowTable = arrow::Table::Make(schema, arrays, table.rows);
        ok(arrowTable->Validate(), file);
        std::shared_ptr<arrow::io::FileOutputStream> out;
        auto opened = arrow::io::FileOutputStream::Open(file.string());
        if (!opened.ok())
            cannotWrite(file, opened.status().ToString());
        out = *opened;
        parquet::WriterProperties::Builder properties;
        if (arrow::util::Codec::IsAvailable(arrow::Compression::SNAPPY))
            properties.compression(arrow::Compression::SNAPPY);
        auto arrowProperties = parquet::ArrowWriterProperties::Builder().store_schema()->build();
        try {
            ok(parquet::arrow::WriteTable(*arrowTable, arrow::system_memory_pool(), out,
                                          std::max<std::int64_t>(1, table.rows), properties.build(),
                                          arrowProperties),
               file);
        } catch (const parquet::ParquetException &e) {
            cannotWrite(file, e.what());
        }
        ok(out->Close(), file);
    }
};

} // namespace

} // namespace kosmos

extern "C" __attribute__((visibility("default"))) kosmos::ParquetWriter *kosmos_parquet_writer_v1()
{
    static kosmos::ArrowParquetWriter writer;
    return &writer;
}

extern "C" __attribute__((visibility("default"))) kosmos::ParquetReader *kosmos_parquet_reader_v1()
{
    static kosmos::ArrowParquetReader reader;
    return &reader;
}
