#include "media/ActionFiles.h"

#include "util/Error.h"

#include <nlohmann/json.hpp>

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

ActionTable readCsv(const std::filesystem::path &path)
{
    std::ifstream in(path);
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

ActionTable readJson(const std::filesystem::path &path)
{
    std::ifstream in(path);
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        bad(path, std::string("not valid JSON (") + e.what() + ")");
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

ActionTable readNpy(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    char magic[8] = {};
    in.read(magic, 8);
    if (!in || std::memcmp(magic, "\x93NUMPY", 6) != 0)
        bad(path, "not a .npy file (bad magic)");
    const int major = static_cast<unsigned char>(magic[6]);
    std::uint32_t headerLength = 0;
    if (major == 1) {
        unsigned char b[2];
        in.read(reinterpret_cast<char *>(b), 2);
        headerLength = b[0] | (b[1] << 8);
    } else if (major == 2 || major == 3) {
        unsigned char b[4];
        in.read(reinterpret_cast<char *>(b), 4);
        headerLength = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
    } else {
        bad(path, "unsupported .npy version " + std::to_string(major));
    }
    std::string header(headerLength, '\0');
    in.read(header.data(), headerLength);
    std::smatch m;
    if (!std::regex_search(header, m, std::regex("'descr':\\s*'([^']+)'")))
        bad(path, "header has no 'descr'");
    const std::string descr = m[1];
    if (std::regex_search(header, std::regex("'fortran_order':\\s*True")))
        bad(path, "Fortran-ordered arrays are not supported; save with np.ascontiguousarray");
    if (!std::regex_search(header, m, std::regex("'shape':\\s*\\((\\d+),\\s*(\\d+)\\s*,?\\)")))
        bad(path, "expected a 2-D shape (N, D) in the header: " + header);
    const std::size_t n = std::stoull(m[1]);
    const std::size_t d = std::stoull(m[2]);
    std::size_t width = 0;
    if (descr == "<f8" || descr == "<i8")
        width = 8;
    else if (descr == "<f4" || descr == "<i4")
        width = 4;
    else
        bad(path, "unsupported dtype '" + descr + "' (need <f4, <f8, <i4 or <i8)");
    std::vector<char> data(n * d * width);
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    if (static_cast<std::size_t>(in.gcount()) != data.size())
        bad(path, "truncated: the header promises " + std::to_string(n) + "x" + std::to_string(d) +
                      " values");
    ActionTable table;
    for (std::size_t i = 0; i < n; ++i) {
        Action row(d);
        for (std::size_t j = 0; j < d; ++j) {
            const char *p = data.data() + (i * d + j) * width;
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

} // namespace

ActionTable readActions(const std::filesystem::path &path)
{
    if (!std::filesystem::is_regular_file(path))
        bad(path, "not found");
    const std::string ext = path.extension().string();
    if (ext == ".csv")
        return readCsv(path);
    if (ext == ".json")
        return readJson(path);
    if (ext == ".npy")
        return readNpy(path);
    bad(path, "unknown format '" + ext + "' (use .csv, .json or .npy)");
}

} // namespace kosmos
