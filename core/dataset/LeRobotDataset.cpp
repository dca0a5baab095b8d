#include "dataset/LeRobotDataset.h"

#include "dataset/ParquetReader.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/JsonFields.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace kosmos {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMaxMetaBytes = 64u << 20; // episodes.jsonl of a large dataset

[[noreturn]] void bad(const fs::path &file, const std::string &what)
{
    throw Error(ErrorCode::InvalidInput, file.string() + ": " + what);
}

const ParquetColumn &column(const ParquetTable &table, const std::string &name,
                            const fs::path &file)
{
    const ParquetColumn *c = table.find(name);
    if (!c)
        bad(file, "no column '" + name + "'");
    return *c;
}

const std::vector<std::int64_t> &ints(const ParquetTable &table, const std::string &name,
                                      const fs::path &file)
{
    const ParquetColumn &c = column(table, name, file);
    if (c.kind != ParquetColumn::Kind::Int64)
        bad(file, "column '" + name + "' is " + c.arrowType + ", not an integer");
    return c.ints;
}

const std::vector<double> &doubles(const ParquetTable &table, const std::string &name,
                                   const fs::path &file)
{
    const ParquetColumn &c = column(table, name, file);
    if (c.kind != ParquetColumn::Kind::Double)
        bad(file, "column '" + name + "' is " + c.arrowType + ", not a number");
    return c.doubles;
}

bool isNumeric(const LeRobotFeature &f)
{
    static const std::set<std::string> kinds = {"float16", "float32", "float64", "int8",
                                                "int16",   "int32",   "int64",   "uint8",
                                                "uint16",  "uint32",  "uint64",  "bool"};
    return kinds.count(f.dtype) > 0;
}

// The features every LeRobot data file has; not traces.
bool isBookkeeping(const std::string &key)
{
    return key == "timestamp" || key == "frame_index" || key == "episode_index" || key == "index" ||
           key == "task_index";
}

} // namespace

std::string LeRobotTrace::valueName(int column) const
{
    return column < static_cast<int>(names.size()) ? names[static_cast<std::size_t>(column)]
                                                   : std::to_string(column);
}

std::vector<LeRobotValueSummary> summarize(const LeRobotTrace &trace, std::int64_t rows)
{
    std::vector<LeRobotValueSummary> out;
    for (int j = 0; j < trace.width; ++j) {
        LeRobotValueSummary v{trace.valueName(j), 0, 0, 0};
        double sum = 0;
        for (std::int64_t r = 0; r < rows; ++r) {
            const double x = trace.at(r, j);
            v.min = r == 0 ? x : std::min(v.min, x);
            v.max = r == 0 ? x : std::max(v.max, x);
            sum += x;
        }
        v.mean = rows > 0 ? sum / static_cast<double>(rows) : 0.0;
        out.push_back(std::move(v));
    }
    return out;
}

const LeRobotTrace *LeRobotEpisodeData::trace(const std::string &key) const
{
    for (const LeRobotTrace &t : traces)
        if (t.key == key)
            return &t;
    return nullptr;
}

bool LeRobotDataset::isDataset(const fs::path &folder)
{
    std::error_code ec;
    return fs::is_regular_file(folder / "meta" / "info.json", ec);
}

LeRobotDataset LeRobotDataset::open(const fs::path &folder)
{
    std::error_code ec;
    if (!isDataset(folder))
        throw Error(ErrorCode::NotFound,
                    folder.string() + " is not a LeRobot dataset (it has no meta/info.json)");
    LeRobotDataset d;
    d.m_root = fs::canonical(folder, ec);
    if (ec)
        throw Error(ErrorCode::Io, folder.string() + ": " + ec.message());
    const fs::path infoFile = d.inside("meta/info.json", "meta/info.json");
    d.m_info = parseLeRobotInfo(json::readFileBounded(infoFile, 4u << 20), infoFile.string());
    if (d.m_info.isV3()) {
        d.readTasksV3();
        d.readEpisodesV3();
    } else {
        d.readMetaV21();
    }
    std::sort(d.m_episodes.begin(), d.m_episodes.end(),
              [](const LeRobotEpisode &a, const LeRobotEpisode &b) { return a.index < b.index; });
    if (!d.m_info.isV3()) { // v2.1 keeps no ranges: the episodes' frames follow in index order
        std::int64_t next = 0;
        for (LeRobotEpisode &e : d.m_episodes) {
            e.fromIndex = next;
            e.toIndex = next += e.length;
        }
    }
    std::int64_t frames = 0;
    for (std::size_t i = 0; i < d.m_episodes.size(); ++i) {
        if (i > 0 && d.m_episodes[i].index == d.m_episodes[i - 1].index)
            bad(d.m_root / "meta",
                "episode " + std::to_string(d.m_episodes[i].index) + " is listed twice");
        frames += d.m_episodes[i].length;
    }
    if (static_cast<std::int64_t>(d.m_episodes.size()) != d.m_info.totalEpisodes)
        bad(infoFile, "total_episodes is " + std::to_string(d.m_info.totalEpisodes) +
                          ", the episode index lists " + std::to_string(d.m_episodes.size()));
    if (frames != d.m_info.totalFrames)
        bad(infoFile, "total_frames is " + std::to_string(d.m_info.totalFrames) +
                          ", the episodes' lengths add up to " + std::to_string(frames));
    return d;
}

fs::path LeRobotDataset::inside(const std::string &relative, const std::string &where) const
{
    fs::path path = m_root / relative;
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec))) {
        fs::path real = fs::canonical(path, ec);
        if (ec)
            throw Error(ErrorCode::Io, path.string() + ": " + ec.message());
        const auto rel = real.lexically_relative(m_root);
        if (rel.empty() || *rel.begin() == "..")
            bad(path, "(" + where + ") leads outside the dataset folder, to " + real.string());
        return real;
    }
    return path;
}

const LeRobotEpisode &LeRobotDataset::episode(std::int64_t index) const
{
    const auto it =
        std::lower_bound(m_episodes.begin(), m_episodes.end(), index,
                         [](const LeRobotEpisode &e, std::int64_t i) { return e.index < i; });
    if (it == m_episodes.end() || it->index != index)
        throw Error(ErrorCode::NotFound,
                    m_root.string() + " has no episode " + std::to_string(index));
    return *it;
}

const std::string &LeRobotDataset::task(std::int64_t taskIndex) const
{
    const auto it = m_tasks.find(taskIndex);
    if (it == m_tasks.end())
        throw Error(ErrorCode::NotFound,
                    m_root.string() + " has no task " + std::to_string(taskIndex));
    return it->second;
}

// ---- v3.0 --------------------------------------------------------------------------------------

void LeRobotDataset::readTasksV3()
{
    const fs::path file = inside("meta/tasks.parquet", "meta/tasks.parquet");
    ParquetReader &reader = parquetReader();
    const ParquetFileInfo shape = reader.inspect(file);
    // Written from a pandas frame indexed by the task text: the index is "__index_level_0__"
    // (or "task" where a writer named it).
    const std::string textColumn = std::count(shape.columns.begin(), shape.columns.end(), "task")
                                       ? "task"
                                       : "__index_level_0__";
    // Counted before anything is read: a file claiming more rows than info.json allows is refused
    // before its columns are materialized.
    if (shape.rows > m_info.totalTasks)
        bad(file, "holds " + std::to_string(shape.rows) + " rows, info.json's total_tasks is " +
                      std::to_string(m_info.totalTasks));
    const ParquetTable table = reader.read(file, {"task_index", textColumn});
    const ParquetColumn &text = column(table, textColumn, file);
    if (text.kind != ParquetColumn::Kind::String)
        bad(file, "column '" + textColumn + "' is " + text.arrowType + ", not text");
    const auto &index = ints(table, "task_index", file);
    for (std::size_t i = 0; i < index.size(); ++i)
        if (!m_tasks.emplace(index[i], text.strings[i]).second)
            bad(file, "task_index " + std::to_string(index[i]) + " is listed twice");
    if (static_cast<std::int64_t>(m_tasks.size()) != m_info.totalTasks)
        bad(file, "holds " + std::to_string(m_tasks.size()) +
                      " tasks, info.json's total_tasks is " + std::to_string(m_info.totalTasks));
}

void LeRobotDataset::readEpisodesV3()
{
    std::vector<fs::path> files;
    const fs::path dir = m_root / "meta" / "episodes";
    std::error_code ec;
    if (fs::is_directory(dir, ec))
        for (const auto &entry : fs::recursive_directory_iterator(dir, ec))
            if (entry.path().extension() == ".parquet")
                files.push_back(entry.path());
    if (files.empty() && m_info.totalEpisodes > 0)
        bad(dir, "holds no episode index (chunk-*/file-*.parquet)");
    std::sort(files.begin(), files.end());
    const std::vector<std::string> cameras = m_info.cameras();
    std::vector<std::string> wanted = {"episode_index",    "tasks",           "length",
                                       "data/chunk_index", "data/file_index", "dataset_from_index",
                                       "dataset_to_index"};
    for (const std::string &camera : cameras)
        for (const char *field : {"chunk_index", "file_index", "from_timestamp", "to_timestamp"})
            wanted.push_back("videos/" + camera + "/" + field);
    ParquetReader &reader = parquetReader();
    const std::vector<std::string> outcomes = outcomeKeys();
    for (const fs::path &found : files) {
        const fs::path file = inside(found.lexically_relative(m_root).string(), "episode index");
        const ParquetFileInfo shape = reader.inspect(file);
        const std::int64_t rows = shape.rows;
        if (rows > m_info.totalEpisodes)
            bad(file, "holds " + std::to_string(rows) + " rows, info.json's total_episodes is " +
                          std::to_string(m_info.totalEpisodes));
        // The outcome fields' per-episode maximum, where LeRobot's writer kept statistics.
        std::vector<std::string> read = wanted;
        std::vector<std::string> stats;
        for (const std::string &key : outcomes)
            if (std::count(shape.columns.begin(), shape.columns.end(), "stats/" + key + "/max")) {
                stats.push_back(key);
                read.push_back("stats/" + key + "/max");
            }
        const ParquetTable table = reader.read(file, read);
        const auto &index = ints(table, "episode_index", file);
        const auto &length = ints(table, "length", file);
        const auto &chunk = ints(table, "data/chunk_index", file);
        const auto &fileIndex = ints(table, "data/file_index", file);
        const auto &from = ints(table, "dataset_from_index", file);
        const auto &to = ints(table, "dataset_to_index", file);
        const ParquetColumn &tasks = column(table, "tasks", file);
        if (tasks.kind != ParquetColumn::Kind::StringList)
            bad(file, "column 'tasks' is " + tasks.arrowType + ", not a list of texts");
        for (std::size_t i = 0; i < index.size(); ++i) {
            const std::string row =
                "row " + std::to_string(i) + " (episode " + std::to_string(index[i]) + ")";
            LeRobotEpisode e;
            e.index = index[i];
            e.length = length[i];
            e.tasks = tasks.stringLists[i];
            e.fromIndex = from[i];
            e.toIndex = to[i];
            if (e.index < 0 || e.length < 0 || e.length > m_info.totalFrames ||
                e.toIndex - e.fromIndex != e.length || e.fromIndex < 0)
                bad(file, row + ": length " + std::to_string(e.length) + " and frames [" +
                              std::to_string(e.fromIndex) + ", " + std::to_string(e.toIndex) +
                              ") disagree");
            e.dataFile =
                inside(formatLeRobotPath(m_info.dataPath,
                                         {{"chunk_index", chunk[i]}, {"file_index", fileIndex[i]}},
                                         file.string() + " " + row),
                       file.string() + " " + row);
            for (const std::string &camera : cameras) {
                const std::string prefix = "videos/" + camera + "/";
                LeRobotVideoRef v;
                v.file = inside(formatLeRobotPath(
                                    *m_info.videoPath,
                                    {{"video_key", camera},
                                     {"chunk_index", ints(table, prefix + "chunk_index", file)[i]},
                                     {"file_index", ints(table, prefix + "file_index", file)[i]}},
                                    file.string() + " " + row),
                                file.string() + " " + row);
                v.fromTimestamp = doubles(table, prefix + "from_timestamp", file)[i];
                v.toTimestamp = doubles(table, prefix + "to_timestamp", file)[i];
                if (!std::isfinite(v.fromTimestamp) || !std::isfinite(v.toTimestamp) ||
                    v.fromTimestamp < 0 || v.toTimestamp < v.fromTimestamp)
                    bad(file, row + ": " + camera + "'s span [" + std::to_string(v.fromTimestamp) +
                                  ", " + std::to_string(v.toTimestamp) + "] is not a time span");
                e.videos.emplace(camera, std::move(v));
            }
            for (const std::string &key : stats) {
                const ParquetColumn &c = column(table, "stats/" + key + "/max", file);
                constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
                const bool number = c.kind == ParquetColumn::Kind::Double ||
                                    c.kind == ParquetColumn::Kind::DoubleList;
                const double value =
                    number ? (c.width == 1 && i < c.doubles.size() ? c.doubles[i] : kNone)
                           : (c.kind == ParquetColumn::Kind::Int64 ? static_cast<double>(c.ints[i])
                                                                   : kNone);
                if (!std::isfinite(value))
                    bad(file, row + ": column 'stats/" + key + "/max' (" + c.arrowType +
                                  ") is not one finite number");
                e.outcomes.emplace(key, value);
            }
            m_episodes.push_back(std::move(e));
        }
    }
}

// ---- v2.1 --------------------------------------------------------------------------------------

void LeRobotDataset::readMetaV21()
{
    const fs::path tasks = inside("meta/tasks.jsonl", "meta/tasks.jsonl");
    m_tasks = parseLeRobotTasksJsonl(json::readFileBounded(tasks, kMaxMetaBytes), tasks.string());
    const fs::path episodes = inside("meta/episodes.jsonl", "meta/episodes.jsonl");
    for (LeRobotEpisodeEntry &entry :
         parseLeRobotEpisodesJsonl(json::readFileBounded(episodes, kMaxMetaBytes),
                                   episodes.string(), m_info.totalFrames)) {
        LeRobotEpisode e;
        e.index = entry.index;
        e.length = entry.length;
        e.tasks = std::move(entry.tasks);
        const std::string where = episodes.string() + ": episode " + std::to_string(e.index);
        const std::int64_t chunk = e.index / m_info.chunksSize;
        e.dataFile =
            inside(formatLeRobotPath(m_info.dataPath,
                                     {{"episode_chunk", chunk}, {"episode_index", e.index}}, where),
                   where);
        for (const std::string &camera : m_info.cameras()) {
            LeRobotVideoRef v;
            v.file = inside(
                formatLeRobotPath(
                    *m_info.videoPath,
                    {{"video_key", camera}, {"episode_chunk", chunk}, {"episode_index", e.index}},
                    where),
                where);
            v.toTimestamp = static_cast<double>(e.length) / m_info.fps;
            e.videos.emplace(camera, std::move(v));
        }
        m_episodes.push_back(std::move(e));
    }
    readEpisodeStatsV21();
}

// v2.1's per-episode statistics (meta/episodes_stats.jsonl, optional): the outcome fields' max.
void LeRobotDataset::readEpisodeStatsV21()
{
    const std::vector<std::string> outcomes = outcomeKeys();
    std::error_code ec;
    if (outcomes.empty() || !fs::exists(m_root / "meta" / "episodes_stats.jsonl", ec))
        return;
    const fs::path file = inside("meta/episodes_stats.jsonl", "meta/episodes_stats.jsonl");
    const std::string text = json::readFileBounded(file, kMaxMetaBytes);
    std::map<std::int64_t, LeRobotEpisode *> byIndex;
    for (LeRobotEpisode &e : m_episodes)
        byIndex[e.index] = &e;
    std::size_t from = 0;
    for (int line = 1; from < text.size(); ++line) {
        std::size_t to = text.find('\n', from);
        if (to == std::string::npos)
            to = text.size();
        const std::string entry = text.substr(from, to - from);
        from = to + 1;
        if (entry.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        const std::string where = "line " + std::to_string(line);
        json::Limits limits; // one line: bounded depth, as every parser of outside input
        limits.maxDepth = 16;
        const nlohmann::json j = json::parseBounded(entry, file.string() + ": " + where, limits);
        if (!j.is_object() || !j.contains("episode_index") ||
            !j["episode_index"].is_number_integer() || !j.contains("stats") ||
            !j["stats"].is_object())
            bad(file, where + ": not an object with an integer episode_index and stats");
        const auto found = byIndex.find(j["episode_index"].get<std::int64_t>());
        if (found == byIndex.end())
            bad(file, where + ": episode " +
                          std::to_string(j["episode_index"].get<std::int64_t>()) +
                          " is not in meta/episodes.jsonl");
        for (const std::string &key : outcomes) {
            const auto stat = j["stats"].find(key);
            if (stat == j["stats"].end())
                continue;
            const nlohmann::json *max =
                stat->is_object() && stat->contains("max") ? &(*stat)["max"] : nullptr;
            if (max && max->is_array() && max->size() == 1)
                max = &(*max)[0];
            if (!max || !(max->is_number() || max->is_boolean()))
                bad(file, where + ": stats." + key + ".max is not one number");
            const double value =
                max->is_boolean() ? (max->get<bool>() ? 1.0 : 0.0) : max->get<double>();
            if (!std::isfinite(value))
                bad(file, where + ": stats." + key + ".max is not finite");
            found->second->outcomes[key] = value;
        }
    }
}

std::vector<std::string> LeRobotDataset::outcomeKeys() const
{
    std::vector<std::string> keys;
    for (const LeRobotFeature &f : m_info.features) {
        const bool one = f.shape.empty() || (f.shape.size() == 1 && f.shape[0] == 1);
        if (isNumeric(f) && one && !isBookkeeping(f.key) &&
            (f.key.find("success") != std::string::npos ||
             f.key.find("reward") != std::string::npos))
            keys.push_back(f.key);
    }
    return keys;
}

// ---- an episode's rows -------------------------------------------------------------------------

LeRobotEpisodeData LeRobotDataset::readEpisode(std::int64_t episodeIndex) const
{
    const LeRobotEpisode &e = episode(episodeIndex);
    const fs::path &file = e.dataFile;
    ParquetReader &reader = parquetReader();
    const ParquetFileInfo shape = reader.inspect(file);
    auto has = [&](const std::string &name) {
        return std::count(shape.columns.begin(), shape.columns.end(), name) > 0;
    };
    std::vector<std::string> wanted = {"index", "episode_index", "frame_index", "timestamp",
                                       "task_index"};
    std::vector<const LeRobotFeature *> numeric;
    for (const LeRobotFeature &f : m_info.features)
        if (isNumeric(f) && !isBookkeeping(f.key)) {
            if (!has(f.key))
                bad(file, "has no column '" + f.key + "', a feature info.json lists");
            numeric.push_back(&f);
            wanted.push_back(f.key);
        }
    if (shape.rows > m_info.totalFrames)
        bad(file, "holds " + std::to_string(shape.rows) + " rows, info.json's total_frames is " +
                      std::to_string(m_info.totalFrames));
    const ParquetTable table = reader.read(file, wanted);
    const auto &episodes = ints(table, "episode_index", file);
    std::vector<std::size_t> rows;
    for (std::size_t r = 0; r < episodes.size(); ++r)
        if (episodes[r] == episodeIndex)
            rows.push_back(r);
    if (static_cast<std::int64_t>(rows.size()) != e.length)
        bad(file, "holds " + std::to_string(rows.size()) + " rows of episode " +
                      std::to_string(episodeIndex) + ", the episode index says " +
                      std::to_string(e.length));

    LeRobotEpisodeData out;
    out.episodeIndex = episodeIndex;
    const auto &index = ints(table, "index", file);
    const auto &frame = ints(table, "frame_index", file);
    const auto &task = ints(table, "task_index", file);
    const auto &time = doubles(table, "timestamp", file);
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const std::size_t r = rows[k];
        const std::string at = "row " + std::to_string(r) + " (episode " +
                               std::to_string(episodeIndex) + ", frame " + std::to_string(k) + ")";
        if (frame[r] != static_cast<std::int64_t>(k))
            bad(file, at + ": frame_index is " + std::to_string(frame[r]));
        if (m_info.isV3() && index[r] != e.fromIndex + static_cast<std::int64_t>(k))
            bad(file, at + ": index is " + std::to_string(index[r]) + ", the episode starts at " +
                          std::to_string(e.fromIndex));
        if (!std::isfinite(time[r]) || (k > 0 && time[r] < out.timestamps.back()))
            bad(file, at + ": timestamp " + std::to_string(time[r]) +
                          (std::isfinite(time[r]) ? " goes back in time" : " is not finite"));
        if (!m_tasks.count(task[r]))
            bad(file, at + ": task_index " + std::to_string(task[r]) + " is not a task of " +
                          "meta/tasks");
        out.index.push_back(index[r]);
        out.frameIndex.push_back(frame[r]);
        out.timestamps.push_back(time[r]);
        out.taskIndex.push_back(task[r]);
    }
    for (const LeRobotFeature *f : numeric) {
        const ParquetColumn &c = column(table, f->key, file);
        LeRobotTrace t;
        t.key = f->key;
        t.names = f->names;
        const bool list = c.kind == ParquetColumn::Kind::DoubleList;
        if (!list && c.kind != ParquetColumn::Kind::Double && c.kind != ParquetColumn::Kind::Int64)
            bad(file, "column '" + f->key + "' is " + c.arrowType + ", not numbers");
        t.width = list ? c.width : 1;
        if (t.width != f->width())
            bad(file, "column '" + f->key + "' holds " + std::to_string(t.width) +
                          " values a row, info.json's shape " + std::to_string(f->width()));
        for (const std::size_t r : rows)
            for (int j = 0; j < t.width; ++j) {
                const double v = c.kind == ParquetColumn::Kind::Int64
                                     ? static_cast<double>(c.ints[r])
                                     : c.doubles[r * static_cast<std::size_t>(t.width) +
                                                 static_cast<std::size_t>(j)];
                if (!std::isfinite(v))
                    bad(file, "column '" + f->key + "', row " + std::to_string(r) +
                                  ": a value that is not finite");
                t.values.push_back(v);
            }
        out.traces.push_back(std::move(t));
    }
    return out;
}

} // namespace kosmos
