#include "media/ActionFiles.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

namespace kosmos {

namespace {

[[noreturn]] void bad(const std::filesystem::path &path, const std::string &what)
{
    throw Error(ErrorCode::InvalidInput, "actions file " + path.string() + ": " + what);
}

void checkRagged(const std::filesystem::path &path, const ActionChunk &rows)
{
    for (std::size_t i = 1; i < rows.size(); ++i) {
        if (rows[i].size() != rows[0].size())
            bad(path, "row " + std::to_string(i) + " has " + std::to_string(rows[i].size()) +
                          " values, row 0 has " + std::to_string(rows[0].size()));
    }
    if (rows.empty())
        bad(path, "no actions");
}

ActionTable readCsv(const std::filesystem::path &path, std::string_view bytes)
{
    std::istringstream in{std::string(bytes)};
    ActionTable table;
    std::string line;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
            cells.push_back(cell);
        Action row;
        bool numeric = true;
        for (const auto &c : cells) {
            try {
                std::size_t used = 0;
                const double v = std::stod(c, &used);
                if (c.find_first_not_of(" \t", used) != std::string::npos)
                    numeric = false;
                row.push_back(v);
            } catch (const std::out_of_range &) {
                // A number outside a double's range: 1e400 reads as infinite (refused below with
                // its row and column), 1e-400 as the nearest double.
                row.push_back(std::strtod(c.c_str(), nullptr));
            } catch (const std::exception &) {
                numeric = false;
            }
        }
        if (!numeric) {
            if (table.rows.empty() && table.columnNames.empty()) {
                for (auto &c : cells) {
                    const auto first = c.find_first_not_of(" \t");
                    std::string name = first == std::string::npos ? std::string() : c.substr(first);
                    if (name.size() >= 2 && name.front() == '"' && name.back() == '"')
                        name = name.substr(1, name.size() - 2); // a quoted name ("dx [m]")
                    table.columnNames.push_back(name);
                }
                continue;
            }
            bad(path, "line " + std::to_string(lineNo) + " holds a value that is not a number");
        }
        table.rows.push_back(row);
    }
    checkRagged(path, table.rows);
    if (!table.columnNames.empty() && table.rows[0].size() != table.columnNames.size())
        bad(path, "the header names " + std::to_string(table.columnNames.size()) +
                      " columns, the rows hold " + std::to_string(table.rows[0].size()) +
                      " values");
    // kosmos-cli export writes "step,time_s," before the action columns: read them back as the
    // same actions.
    if (table.columnNames.size() >= 2 && table.columnNames[0] == "step" &&
        table.columnNames[1] == "time_s") {
        table.columnNames.erase(table.columnNames.begin(), table.columnNames.begin() + 2);
        for (auto &row : table.rows)
            row.erase(row.begin(), row.begin() + 2);
        if (table.columnNames.empty())
            bad(path, "only step and time_s columns, no actions");
    }
    return table;
}

ActionTable readJson(const std::filesystem::path &path, std::string_view bytes)
{
    json::Limits limits;
    limits.maxBytes = kMaxActionFileBytes;
    limits.maxDepth = 8;
    limits.rejectDuplicateKeys = true;
    nlohmann::json doc;
    try {
        doc = json::parseBounded(bytes, path.string(), limits);
    } catch (const Error &e) {
        throw Error(ErrorCode::InvalidInput, std::string("actions file ") + e.what());
    }
    ActionTable table;
    const nlohmann::json *rows = &doc;
    if (doc.is_object()) {
        if (!doc.contains("actions"))
            bad(path, "expected an array of rows or an object with \"actions\"");
        rows = &doc["actions"];
        if (doc.contains("names") && doc["names"].is_array())
            for (const auto &n : doc["names"])
                table.columnNames.push_back(n.is_string() ? n.get<std::string>() : n.dump());
    }
    if (!rows->is_array())
        bad(path, "\"actions\" must be an array of rows");
    for (std::size_t i = 0; i < rows->size(); ++i) {
        const auto &r = (*rows)[i];
        if (!r.is_array())
            bad(path, "row " + std::to_string(i) + " is not an array");
        Action row;
        for (const auto &v : r) {
            if (!v.is_number())
                bad(path, "row " + std::to_string(i) + " holds " + v.dump() + ", not a number");
            row.push_back(v.get<double>());
        }
        table.rows.push_back(row);
    }
    checkRagged(path, table.rows);
    return table;
}

ActionTable readNpy(const std::filesystem::path &path, std::string_view bytes)
{
    // Every size is checked against the file's real length before anything is allocated.
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0)
        bad(path, "not a .npy file (bad magic)");
    const int major = static_cast<unsigned char>(bytes[6]);
    std::size_t headerStart = 0;
    std::size_t headerLength = 0;
    auto byte = [&](std::size_t i) {
        return static_cast<std::size_t>(static_cast<unsigned char>(bytes[i]));
    };
    if (major == 1) {
        headerStart = 10;
        headerLength = byte(8) | (byte(9) << 8);
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12)
            bad(path, "truncated header");
        headerStart = 12;
        headerLength = byte(8) | (byte(9) << 8) | (byte(10) << 16) | (byte(11) << 24);
    } else {
        bad(path, "unsupported .npy version " + std::to_string(major));
    }
    if (headerLength > 65536 || headerLength > bytes.size() - headerStart)
        bad(path, "header of " + std::to_string(headerLength) + " bytes does not fit the file (" +
                      std::to_string(bytes.size()) + " bytes)");
    const std::string header(bytes.substr(headerStart, headerLength));
    std::smatch m;
    if (!std::regex_search(header, m, std::regex("'descr':\\s*'([^']+)'")))
        bad(path, "header has no 'descr'");
    const std::string descr = m[1];
    if (std::regex_search(header, std::regex("'fortran_order':\\s*True")))
        bad(path, "Fortran-ordered arrays are not supported; save with np.ascontiguousarray");
    if (!std::regex_search(header, m,
                           std::regex("'shape':\\s*\\((\\d{1,20}),\\s*(\\d{1,20})\\s*,?\\)")))
        bad(path, "expected a 2-D shape (N, D) in the header: " + header.substr(0, 200));
    std::uint64_t n = 0;
    std::uint64_t d = 0;
    try {
        n = std::stoull(m[1]);
        d = std::stoull(m[2]);
    } catch (const std::exception &) {
        bad(path, "shape (" + m[1].str() + ", " + m[2].str() + ") does not fit 64 bits");
    }
    std::size_t width = 0;
    if (descr == "<f8" || descr == "<i8")
        width = 8;
    else if (descr == "<f4" || descr == "<i4")
        width = 4;
    else
        bad(path, "unsupported dtype '" + descr + "' (need <f4, <f8, <i4 or <i8)");
    if (d == 0 || d > kMaxActionDimension)
        bad(path, "shape (" + std::to_string(n) + ", " + std::to_string(d) +
                      "): an action needs 1 to " + std::to_string(kMaxActionDimension) + " values");
    std::uint64_t values = 0;
    std::uint64_t dataBytes = 0;
    if (__builtin_mul_overflow(n, d, &values) || __builtin_mul_overflow(values, width, &dataBytes))
        bad(path, "shape (" + std::to_string(n) + ", " + std::to_string(d) + ") overflows 64 bits");
    const std::size_t available = bytes.size() - headerStart - headerLength;
    if (dataBytes != available)
        bad(path, "the header promises " + std::to_string(n) + "x" + std::to_string(d) + " " +
                      descr + " values (" + std::to_string(dataBytes) +
                      " bytes) but the file holds " + std::to_string(available) + " bytes of data");
    if (n > kMaxActionRows)
        bad(path, std::to_string(n) + " rows, more than the " + std::to_string(kMaxActionRows) +
                      " allowed");
    const char *data = bytes.data() + headerStart + headerLength;
    ActionTable table;
    table.rows.reserve(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < n; ++i) {
        Action row(d);
        for (std::size_t j = 0; j < d; ++j) {
            const char *p = data + (i * d + j) * width;
            if (descr == "<f8") {
                double v;
                std::memcpy(&v, p, 8);
                row[j] = v;
            } else if (descr == "<f4") {
                float v;
                std::memcpy(&v, p, 4);
                row[j] = v;
            } else if (descr == "<i8") {
                std::int64_t v;
                std::memcpy(&v, p, 8);
                row[j] = static_cast<double>(v);
            } else {
                std::int32_t v;
                std::memcpy(&v, p, 4);
                row[j] = v;
            }
        }
        table.rows.push_back(row);
    }
    checkRagged(path, table.rows);
    return table;
}

// The rules every format keeps (docs/import.md): 1 to kMaxActionDimension values per action, at
// most kMaxActionRows actions, and only finite numbers. A non-finite action is refused here with
// its row and column, so that nothing downstream (the ledger's canonical JSON, every export) has
// to carry it.
ActionTable checked(const std::filesystem::path &path, ActionTable table)
{
    if (table.rows.size() > kMaxActionRows)
        bad(path, std::to_string(table.rows.size()) + " rows, more than the " +
                      std::to_string(kMaxActionRows) + " allowed");
    const std::size_t d = table.rows.empty() ? 0 : table.rows[0].size();
    if (d == 0 || d > kMaxActionDimension)
        bad(path, std::to_string(d) + " values per action; an action needs 1 to " +
                      std::to_string(kMaxActionDimension));
    for (std::size_t r = 0; r < table.rows.size(); ++r)
        for (std::size_t c = 0; c < table.rows[r].size(); ++c)
            if (!std::isfinite(table.rows[r][c]))
                bad(path, "row " + std::to_string(r) +
                              " (counted from 0, without a header), column " + std::to_string(c) +
                              (c < table.columnNames.size() ? " (" + table.columnNames[c] + ")"
                                                            : std::string()) +
                              " is " + (std::isnan(table.rows[r][c]) ? "NaN" : "infinite") +
                              ": actions must be finite numbers");
    return table;
}

} // namespace

ActionTable parseActions(std::string_view bytes, const std::string &extension,
                         const std::filesystem::path &path)
{
    if (bytes.size() > kMaxActionFileBytes)
        bad(path, std::to_string(bytes.size()) + " bytes, more than the " +
                      std::to_string(kMaxActionFileBytes) + " allowed");
    if (extension == ".csv")
        return checked(path, readCsv(path, bytes));
    if (extension == ".json")
        return checked(path, readJson(path, bytes));
    if (extension == ".npy")
        return checked(path, readNpy(path, bytes));
    bad(path, "unknown format '" + extension + "' (use .csv, .json or .npy)");
}

ActionTable readActions(const std::filesystem::path &path)
{
    if (!std::filesystem::is_regular_file(path))
        bad(path, "not found");
    const std::string ext = path.extension().string();
    if (ext != ".csv" && ext != ".json" && ext != ".npy")
        bad(path, "unknown format '" + ext + "' (use .csv, .json or .npy)");
    return parseActions(json::readFileBounded(path, kMaxActionFileBytes), ext, path);
}

} // namespace kosmos
