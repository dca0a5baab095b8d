#pragma once

// A LeRobot dataset's meta/info.json (codebase versions v2.1 and v3.0, docs/datasets.md,
// "LeRobot datasets"), parsed and checked before anything else of the dataset is read: every
// problem is an Error(InvalidInput) naming the file and the field. Pure: no file system, so it is
// fuzzed like the other parsers (fuzz/).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace kosmos {

struct LeRobotFeature
{
    std::string key;   // "action", "observation.state", "observation.images.top" ...
    std::string dtype; // float32, int64, bool, string, image, video ...
    std::vector<std::int64_t> shape;
    // Names of the values, flattened (a "names" object's lists are concatenated in order); empty
    // when info.json says null (the traces then name values by index).
    std::vector<std::string> names;
    std::optional<std::string> videoCodec; // info["video.codec"] of a video feature
    bool isVideo() const { return dtype == "video"; }
    bool isImage() const { return dtype == "image" || dtype == "video"; }
    std::int64_t width() const; // values per row: the product of shape (1 for a scalar)
};

struct LeRobotInfo
{
    std::string codebaseVersion; // "v2.1" or "v3.0"
    std::optional<std::string> robotType;
    double fps = 0;
    std::int64_t totalEpisodes = 0;
    std::int64_t totalFrames = 0;
    std::int64_t totalTasks = 0;
    std::int64_t chunksSize = 0;
    std::string dataPath;                 // a template: data/chunk-{chunk_index:03d}/...
    std::optional<std::string> videoPath; // null: no videos
    std::vector<LeRobotFeature> features; // by key

    bool isV3() const { return codebaseVersion == "v3.0"; }
    const LeRobotFeature *feature(std::string_view key) const;
    std::vector<std::string> cameras() const; // the video features' keys, in order
};

// Throws Error(InvalidInput) "<where>: <field>: <problem>" for an unknown codebase_version, a
// missing or mistyped field, counts beyond what a dataset can hold (more than 10^9 frames or
// 10^7 episodes), a path template with an unknown placeholder or one that leaves the dataset.
LeRobotInfo parseLeRobotInfo(std::string_view text, const std::string &where);

// Codebase v2.1's JSON-lines metadata (meta/episodes.jsonl, meta/tasks.jsonl), pure: each
// non-blank line parsed (bounded) and checked, errors naming "<where>:<line>" and the field.
struct LeRobotEpisodeEntry
{
    std::int64_t index = 0;
    std::int64_t length = 0;
    std::vector<std::string> tasks;
};
std::vector<LeRobotEpisodeEntry>
parseLeRobotEpisodesJsonl(std::string_view text, const std::string &where, std::int64_t maxLength);
std::map<std::int64_t, std::string> parseLeRobotTasksJsonl(std::string_view text,
                                                           const std::string &where);

// Formats a path template as LeRobot does with Python's str.format: "{name}" and "{name:0Nd}"
// for the placeholders given. The result must be a relative path that stays inside the dataset
// (no "..", not absolute); anything else throws Error(InvalidInput) naming `where`.
using LeRobotPathValue = std::variant<std::int64_t, std::string>;
std::string formatLeRobotPath(std::string_view pattern,
                              const std::map<std::string, LeRobotPathValue> &values,
                              const std::string &where);

} // namespace kosmos
