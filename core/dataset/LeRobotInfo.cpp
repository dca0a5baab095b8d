#include "dataset/LeRobotInfo.h"

#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/JsonFields.h"

#include <cmath>
#include <filesystem>

namespace kosmos {

namespace {

constexpr std::int64_t kMaxFrames = 1'000'000'000;
constexpr std::int64_t kMaxEpisodes = 10'000'000;
constexpr std::int64_t kMaxShape = 1 << 20;

std::vector<std::string> namesOf(const nlohmann::json &names, const std::string &where)
{
    std::vector<std::string> out;
    auto addList = [&](const nlohmann::json &list, const std::string &at) {
        if (!list.is_array())
            json::fail(at, "must be a list of names");
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!list[i].is_string())
                json::fail(at + "[" + std::to_string(i) + "]", "must be a string");
            out.push_back(list[i].get<std::string>());
        }
    };
    if (names.is_null())
        return out;
    if (names.is_array()) {
        addList(names, where);
    } else if (names.is_object()) {
        for (const auto &[key, list] : names.items())
            addList(list, where + "." + key);
    } else {
        json::fail(where, "must be null, a list of names or an object of lists");
    }
    return out;
}

LeRobotFeature featureOf(const std::string &key, const nlohmann::json &f, const std::string &where)
{
    if (!f.is_object())
        json::fail(where, "must be an object");
    LeRobotFeature out;
    out.key = key;
    out.dtype = json::requireString(f, "dtype", where);
    if (out.dtype.empty())
        json::fail(where + ".dtype", "is empty");
    const nlohmann::json &shape = json::requireArray(f, "shape", where);
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (!shape[i].is_number_integer() || shape[i].get<std::int64_t>() < 0 ||
            shape[i].get<std::int64_t>() > kMaxShape)
            json::fail(where + ".shape[" + std::to_string(i) + "]",
                       "must be an integer from 0 to " + std::to_string(kMaxShape));
        out.shape.push_back(shape[i].get<std::int64_t>());
    }
    if (shape.size() > 8)
        json::fail(where + ".shape", "has more than 8 dimensions");
    if (f.contains("names"))
        out.names = namesOf(f["names"], where + ".names");
    if (!out.isImage() && !out.names.empty() &&
        static_cast<std::int64_t>(out.names.size()) != out.width())
        json::fail(where + ".names", "names " + std::to_string(out.names.size()) +
                                         " values, the shape holds " + std::to_string(out.width()));
    if (f.contains("info") && f["info"].is_object())
        out.videoCodec = json::optString(f["info"], "video.codec", where + ".info");
    return out;
}

void checkTemplate(const std::string &pattern, bool v3, bool video, const std::string &where)
{
    // Formatting with sample values catches unknown placeholders and paths that leave the folder.
    std::map<std::string, LeRobotPathValue> sample;
    if (v3)
        sample = {{"chunk_index", std::int64_t{0}}, {"file_index", std::int64_t{0}}};
    else
        sample = {{"episode_chunk", std::int64_t{0}}, {"episode_index", std::int64_t{0}}};
    if (video)
        sample["video_key"] = std::string("camera");
    formatLeRobotPath(pattern, sample, where);
}

} // namespace

std::int64_t LeRobotFeature::width() const
{
    std::int64_t n = 1;
    for (const std::int64_t d : shape)
        n *= d;
    return n;
}

const LeRobotFeature *LeRobotInfo::feature(std::string_view key) const
{
    for (const LeRobotFeature &f : features)
        if (f.key == key)
            return &f;
    return nullptr;
}

std::vector<std::string> LeRobotInfo::cameras() const
{
    std::vector<std::string> out;
    for (const LeRobotFeature &f : features)
        if (f.isVideo())
            out.push_back(f.key);
    return out;
}

LeRobotInfo parseLeRobotInfo(std::string_view text, const std::string &where)
{
    const nlohmann::json doc = json::parseBounded(text, where, {32, 16u << 20, true});
    if (!doc.is_object())
        json::fail(where, "must be a JSON object");
    LeRobotInfo info;
    info.codebaseVersion = json::requireString(doc, "codebase_version", where);
    if (info.codebaseVersion != "v3.0" && info.codebaseVersion != "v2.1")
        json::fail(where + ".codebase_version",
                   "'" + info.codebaseVersion +
                       "' is not a version this build reads (v2.1, v3.0); LeRobot's own "
                       "converter (lerobot.datasets.v30.convert_dataset_v21_to_v30) updates "
                       "older datasets");
    if (doc.contains("robot_type") && !doc["robot_type"].is_null())
        info.robotType = json::requireString(doc, "robot_type", where);
    info.fps = json::requireNumber(doc, "fps", where);
    if (!std::isfinite(info.fps) || info.fps <= 0 || info.fps > 10000)
        json::fail(where + ".fps", "must be a number above 0 and at most 10000");
    info.totalEpisodes = json::requireInt(doc, "total_episodes", where, 0, kMaxEpisodes);
    info.totalFrames = json::requireInt(doc, "total_frames", where, 0, kMaxFrames);
    info.totalTasks = json::requireInt(doc, "total_tasks", where, 0, kMaxFrames);
    info.chunksSize = json::requireInt(doc, "chunks_size", where, 1, kMaxEpisodes);
    info.dataPath = json::requireString(doc, "data_path", where);
    checkTemplate(info.dataPath, info.isV3(), false, where + ".data_path");
    if (doc.contains("video_path") && !doc["video_path"].is_null()) {
        info.videoPath = json::requireString(doc, "video_path", where);
        checkTemplate(*info.videoPath, info.isV3(), true, where + ".video_path");
    }
    const nlohmann::json &features = json::requireObject(doc, "features", where);
    for (const auto &[key, f] : features.items()) {
        if (key.empty())
            json::fail(where + ".features", "a feature has an empty name");
        info.features.push_back(featureOf(key, f, where + ".features." + key));
    }
    if (!info.cameras().empty() && !info.videoPath)
        json::fail(where + ".video_path",
                   "is null, but features " + info.cameras().front() + " and others are videos");
    return info;
}

namespace {

// Each non-blank line of a JSON-lines text, parsed: ("<where>:<line number>", document).
std::vector<std::pair<std::string, nlohmann::json>> jsonLines(std::string_view text,
                                                              const std::string &where)
{
    std::vector<std::pair<std::string, nlohmann::json>> out;
    std::size_t start = 0;
    int number = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        ++number;
        const std::string_view line = text.substr(start, end - start);
        if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
            const std::string at = where + ":" + std::to_string(number);
            out.emplace_back(at, json::parseBounded(line, at, {16, 1u << 20, true}));
        }
        start = end + 1;
    }
    return out;
}

} // namespace

std::vector<LeRobotEpisodeEntry>
parseLeRobotEpisodesJsonl(std::string_view text, const std::string &where, std::int64_t maxLength)
{
    std::vector<LeRobotEpisodeEntry> out;
    for (const auto &[at, doc] : jsonLines(text, where)) {
        LeRobotEpisodeEntry e;
        e.index = json::requireInt(doc, "episode_index", at, 0, kMaxEpisodes);
        e.length = json::requireInt(doc, "length", at, 0, maxLength);
        for (const auto &t : json::requireArray(doc, "tasks", at)) {
            if (!t.is_string())
                json::fail(at + ".tasks", "must be a list of texts");
            e.tasks.push_back(t.get<std::string>());
        }
        out.push_back(std::move(e));
    }
    return out;
}

std::map<std::int64_t, std::string> parseLeRobotTasksJsonl(std::string_view text,
                                                           const std::string &where)
{
    std::map<std::int64_t, std::string> out;
    for (const auto &[at, doc] : jsonLines(text, where)) {
        const std::int64_t index = json::requireInt(doc, "task_index", at, 0, kMaxFrames);
        if (!out.emplace(index, json::requireString(doc, "task", at)).second)
            json::fail(at + ".task_index", "is listed twice");
    }
    return out;
}

std::string formatLeRobotPath(std::string_view pattern,
                              const std::map<std::string, LeRobotPathValue> &values,
                              const std::string &where)
{
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '}')
            json::fail(where, "a '}' without its '{' in '" + std::string(pattern) + "'");
        if (c != '{') {
            out += c;
            continue;
        }
        const std::size_t end = pattern.find('}', i);
        if (end == std::string_view::npos)
            json::fail(where, "a '{' without its '}' in '" + std::string(pattern) + "'");
        const std::string_view field = pattern.substr(i + 1, end - i - 1);
        const std::size_t colon = field.find(':');
        const std::string name(field.substr(0, colon));
        const auto value = values.find(name);
        if (value == values.end())
            json::fail(where,
                       "unknown placeholder {" + name + "} in '" + std::string(pattern) + "'");
        if (const auto *number = std::get_if<std::int64_t>(&value->second)) {
            std::string digits = std::to_string(*number);
            if (colon != std::string_view::npos) {
                const std::string_view spec = field.substr(colon + 1);
                // 0Nd: zero-padded to N digits; d: as it is.
                std::size_t width = 0;
                if (spec.size() >= 2 && spec.front() == '0' && spec.back() == 'd') {
                    for (const char d : spec.substr(1, spec.size() - 2)) {
                        if (d < '0' || d > '9' || width > 32)
                            json::fail(where, "unsupported format {" + std::string(field) + "}");
                        width = width * 10 + static_cast<std::size_t>(d - '0');
                    }
                } else if (spec != "d") {
                    json::fail(where, "unsupported format {" + std::string(field) + "}");
                }
                if (digits.size() < width)
                    digits.insert(0, width - digits.size(), '0');
            }
            out += digits;
        } else {
            if (colon != std::string_view::npos)
                json::fail(where, "unsupported format {" + std::string(field) + "}");
            out += std::get<std::string>(value->second);
        }
        i = end;
    }
    const std::filesystem::path path(out);
    if (out.empty() || path.is_absolute())
        json::fail(where, "'" + out + "' is not a relative path inside the dataset");
    for (const auto &part : path)
        if (part == "..")
            json::fail(where, "'" + out + "' leaves the dataset folder");
    return out;
}

} // namespace kosmos
