#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace kosmos::json {

// Limits on a JSON document read from outside (files, command lines, replies of servers). A
// document nested deeper than maxDepth or larger than maxBytes is refused before it can
// exhaust the stack or memory of anything that walks it.
struct Limits
{
    int maxDepth = 64;
    std::size_t maxBytes = 64u << 20; // 64 MiB
    // Reject an object that names the same key twice (nlohmann keeps the last silently).
    bool rejectDuplicateKeys = false;
};

// Parses `text` within `limits`. Throws Error(InvalidInput) "<where>: <problem>" for invalid
// JSON (with the byte offset), too deep a nesting, too large a text, or a duplicate key.
nlohmann::json parseBounded(std::string_view text, const std::string &where,
                            const Limits &limits = {});
// The same for a file, whose size is checked before it is read.
nlohmann::json parseFile(const std::filesystem::path &path, const Limits &limits = {});

// Reads a whole file of at most maxBytes; throws Error(InvalidInput) naming the file when it
// is missing, unreadable or larger.
std::string readFileBounded(const std::filesystem::path &path, std::size_t maxBytes);

} // namespace kosmos::json
