#include "util/BoundedJson.h"

#include "util/Error.h"

#include <fstream>
#include <set>
#include <vector>

namespace kosmos::json {

namespace {

struct Refused
{
    std::string problem;
};

} // namespace

nlohmann::json parseBounded(std::string_view text, const std::string &where, const Limits &limits)
{
    if (text.size() > limits.maxBytes)
        throw Error(ErrorCode::InvalidInput, where + ": " + std::to_string(text.size()) +
                                                 " bytes of JSON, more than the " +
                                                 std::to_string(limits.maxBytes) + " allowed");
    std::vector<std::set<std::string>> keys; // per open object, when duplicates are refused
    auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json &parsed) {
        using Event = nlohmann::json::parse_event_t;
        if ((event == Event::object_start || event == Event::array_start) &&
            depth >= limits.maxDepth)
            throw Refused{"nested deeper than " + std::to_string(limits.maxDepth) + " levels"};
        if (!limits.rejectDuplicateKeys)
            return true;
        if (event == Event::object_start)
            keys.emplace_back();
        else if (event == Event::object_end && !keys.empty())
            keys.pop_back();
        else if (event == Event::key && !keys.empty() &&
                 !keys.back().insert(parsed.get<std::string>()).second)
            throw Refused{"the key \"" + parsed.get<std::string>() +
                          "\" appears twice in one object"};
        return true;
    };
    try {
        return nlohmann::json::parse(text.begin(), text.end(), callback);
    } catch (const Refused &r) {
        throw Error(ErrorCode::InvalidInput, where + ": " + r.problem);
    } catch (const nlohmann::json::exception &e) {
        throw Error(ErrorCode::InvalidInput, where + ": not valid JSON (" + e.what() + ")");
    }
}

std::string readFileBounded(const std::filesystem::path &path, std::size_t maxBytes)
{
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw Error(ErrorCode::InvalidInput, path.string() + ": not found (or not a file)");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec)
        throw Error(ErrorCode::InvalidInput, path.string() + ": cannot read its size");
    if (size > maxBytes)
        throw Error(ErrorCode::InvalidInput, path.string() + ": " + std::to_string(size) +
                                                 " bytes, more than the " +
                                                 std::to_string(maxBytes) + " allowed");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(ErrorCode::InvalidInput, path.string() + ": cannot be read");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    return bytes;
}

nlohmann::json parseFile(const std::filesystem::path &path, const Limits &limits)
{
    return parseBounded(readFileBounded(path, limits.maxBytes), path.string(), limits);
}

} // namespace kosmos::json
