#pragma once

#include "contracts/ActionContract.h"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kosmos {

struct ActionTable
{
    ActionChunk rows;
    std::vector<std::string> columnNames; // from a CSV header or a JSON object; may be empty
};

// Limits on an imported actions file (docs/reliability.md).
constexpr std::size_t kMaxActionFileBytes = 256u << 20;
constexpr std::uint64_t kMaxActionRows = 1000000;
constexpr std::uint64_t kMaxActionDimension = 64;

// Reads N x D actions from .csv (optional header row), .json (an array of rows, or
// {"actions": [...], "names": [...]}) or .npy (little-endian float32/float64/int32/int64,
// C order, 2-D). Throws Error(InvalidInput) naming the file, the line/row and the problem
// (ragged rows, non-numbers, an unsupported dtype).
ActionTable readActions(const std::filesystem::path &path);
// The same for a file's bytes; extension (".csv", ".json", ".npy") chooses the format and
// `path` names the file in errors.
ActionTable parseActions(std::string_view bytes, const std::string &extension,
                         const std::filesystem::path &path);

} // namespace kosmos
