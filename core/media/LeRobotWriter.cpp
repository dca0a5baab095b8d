#include "media/LeRobotWriter.h"

#include "dataset/ParquetReader.h"
#include "media/VideoDecoder.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <tuple>

namespace kosmos {

namespace fs = std::filesystem;

namespace {

constexpr std::int64_t kChunkSize = 1000; // files a chunk, as LeRobot's DEFAULT_CHUNK_SIZE

std::string chunkFile(std::int64_t episode, const char *ext)
{
    char name[64];
    std::snprintf(name, sizeof name, "chunk-%03lld/file-%03lld.%s",
                  static_cast<long long>(episode / kChunkSize),
                  static_cast<long long>(episode % kChunkSize), ext);
    return name;
}

void makeDirs(const fs::path &dir)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        throw Error(ErrorCode::Io, dir.string() + ": " + ec.message());
}

void writeText(const fs::path &file, const std::string &text)
{
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out)
        throw Error(ErrorCode::Io, file.string() + ": cannot be written");
}

// Running min, max, sum and sum of squares of a feature's values, per value.
struct Accumulator
{
    std::vector<double> min, max, sum, squares;
    std::int64_t count = 0;
    void add(const std::vector<double> &v)
    {
        if (min.empty()) {
            min = max = v;
            sum.assign(v.size(), 0);
            squares.assign(v.size(), 0);
        }
        for (std::size_t i = 0; i < v.size(); ++i) {
            min[i] = std::min(min[i], v[i]);
            max[i] = std::max(max[i], v[i]);
            sum[i] += v[i];
            squares[i] += v[i] * v[i];
        }
        ++count;
    }
    void add(const Accumulator &other)
    {
        if (other.count == 0)
            return;
        if (min.empty()) {
            *this = other;
            return;
        }
        for (std::size_t i = 0; i < min.size(); ++i) {
            min[i] = std::min(min[i], other.min[i]);
            max[i] = std::max(max[i], other.max[i]);
            sum[i] += other.sum[i];
            squares[i] += other.squares[i];
        }
        count += other.count;
    }
    std::vector<double> mean() const
    {
        std::vector<double> m(sum.size());
        for (std::size_t i = 0; i < m.size(); ++i)
            m[i] = count ? sum[i] / static_cast<double>(count) : 0;
        return m;
    }
    std::vector<double> std() const
    {
        const std::vector<double> m = mean();
        std::vector<double> s(m.size());
        for (std::size_t i = 0; i < s.size(); ++i)
            s[i] = count ? std::sqrt(
                               std::max(0.0, squares[i] / static_cast<double>(count) - m[i] * m[i]))
                         : 0;
        return s;
    }
    // min, max, mean, std, count (count as one value).
    std::vector<std::vector<double>> rows() const
    {
        return {min, max, mean(), std(), {static_cast<double>(count)}};
    }
};

ParquetOutColumn column(std::string name,
                        ParquetOutColumn::Type type = ParquetOutColumn::Type::Int64)
{
    ParquetOutColumn c;
    c.name = std::move(name);
    c.type = type;
    return c;
}

const char *kStatNames[] = {"min", "max", "mean", "std", "count"};

} // namespace

struct LeRobotWriter::Totals
{
    std::map<std::string, Accumulator> stats;
};

LeRobotWriter::~LeRobotWriter() = default;

LeRobotWriter::LeRobotWriter(fs::path directory, LeRobotWriterOptions options)
    : m_dir(std::move(directory)), m_options(std::move(options)),
      m_totals(std::make_unique<Totals>())
{
    parquetWriter(); // Error(Unavailable) before anything is written
    std::error_code ec;
    if (fs::exists(m_dir, ec) && !fs::is_empty(m_dir, ec))
        throw Error(ErrorCode::InvalidInput,
                    m_dir.string() + " exists and is not empty: give a new folder");
    if (m_options.actionNames.empty())
        throw Error(ErrorCode::InvalidInput, "a LeRobot dataset needs named action values");
    if (!(m_options.fps > 0) || m_options.fps != std::round(m_options.fps))
        throw Error(ErrorCode::InvalidInput,
                    "the rate must be a whole number of frames a second for the videos, not " +
                        std::to_string(m_options.fps));
    makeDirs(m_dir / "meta");
}

void LeRobotWriter::add(const LeRobotOutEpisode &e)
{
    const std::int64_t index = static_cast<std::int64_t>(m_episodes.size());
    const std::string where = "episode " + std::to_string(index);
    const auto bad = [&](const std::string &what) {
        throw Error(ErrorCode::InvalidInput, where + ": " + what);
    };
    const std::size_t rows = e.frames.size();
    if (rows == 0)
        bad("has no frames");
    if (e.actions.size() != rows)
        bad(std::to_string(e.actions.size()) + " actions for " + std::to_string(rows) + " frames");
    // The per-row vectors besides the action: (feature, names, rows).
    const std::vector<std::tuple<const char *, const std::vector<std::string> *,
                                 const std::vector<std::vector<double>> *>>
        vectors = {{"state", &m_options.stateNames, &e.states},
                   {"environment state", &m_options.environmentStateNames, &e.environmentStates}};
    for (const auto &[what, names, values] : vectors)
        if (!names->empty() && values->size() != rows)
            bad(std::to_string(values->size()) + " " + what + "s for " + std::to_string(rows) +
                " frames");
    if (m_width == 0) {
        m_width = e.frames[0].cols;
        m_height = e.frames[0].rows;
    }
    for (std::size_t r = 0; r < rows; ++r) {
        if (e.frames[r].type() != CV_8UC3 || e.frames[r].cols != m_width ||
            e.frames[r].rows != m_height)
            bad("frame " + std::to_string(r) + " is not " + std::to_string(m_width) + "x" +
                std::to_string(m_height) + " RGB like the dataset's first");
        if (e.actions[r].size() != m_options.actionNames.size())
            bad("action " + std::to_string(r) + " has " + std::to_string(e.actions[r].size()) +
                " values, the dataset " + std::to_string(m_options.actionNames.size()));
        for (const auto &[what, names, values] : vectors)
            if (!names->empty() && (*values)[r].size() != names->size())
                bad(std::string(what) + " " + std::to_string(r) + " has " +
                    std::to_string((*values)[r].size()) + " values, the dataset " +
                    std::to_string(names->size()));
        std::vector<const std::vector<double> *> rowValues = {&e.actions[r]};
        for (const auto &[what, names, values] : vectors)
            if (!names->empty())
                rowValues.push_back(&(*values)[r]);
        for (const auto *values : rowValues)
            for (double v : *values)
                if (!std::isfinite(v))
                    bad("row " + std::to_string(r) + " holds a value that is not finite");
    }
    const auto task = m_tasks.emplace(e.task, static_cast<std::int64_t>(m_tasks.size())).first;

    Written w;
    w.index = index;
    w.length = static_cast<std::int64_t>(rows);
    w.task = task->second;
    w.from = m_frames;
    w.extra = e.extra;

    // The episode's rows.
    ParquetOutTable table;
    table.rows = w.length;
    std::map<std::string, Accumulator> stats;
    const auto numbers = [&](const std::string &key, const std::vector<std::vector<double>> &values,
                             std::size_t width) {
        ParquetOutColumn c;
        c.name = key;
        c.type = ParquetOutColumn::Type::Float64;
        c.width = static_cast<int>(width);
        for (const auto &row : values) {
            c.doubles.insert(c.doubles.end(), row.begin(), row.end());
            stats[key].add(row);
        }
        table.columns.push_back(std::move(c));
    };
    if (!m_options.stateNames.empty())
        numbers("observation.state", e.states, m_options.stateNames.size());
    if (!m_options.environmentStateNames.empty())
        numbers("observation.environment_state", e.environmentStates,
                m_options.environmentStateNames.size());
    numbers("action", e.actions, m_options.actionNames.size());
    ParquetOutColumn success = column("next.success", ParquetOutColumn::Type::Bool);
    ParquetOutColumn done = column("next.done", ParquetOutColumn::Type::Bool);
    ParquetOutColumn timestamp = column("timestamp", ParquetOutColumn::Type::Float32);
    ParquetOutColumn frameIndex = column("frame_index"), episodeIndex = column("episode_index"),
                     globalIndex = column("index"), taskIndex = column("task_index");
    for (std::int64_t r = 0; r < w.length; ++r) {
        const bool last = r == w.length - 1;
        success.ints.push_back(last && e.success.value_or(false));
        done.ints.push_back(last);
        timestamp.doubles.push_back(
            static_cast<double>(static_cast<float>(static_cast<double>(r) / m_options.fps)));
        frameIndex.ints.push_back(r);
        episodeIndex.ints.push_back(index);
        globalIndex.ints.push_back(w.from + r);
        taskIndex.ints.push_back(w.task);
        stats["next.success"].add({static_cast<double>(success.ints.back())});
        stats["next.done"].add({static_cast<double>(done.ints.back())});
        stats["timestamp"].add({timestamp.doubles.back()});
        stats["frame_index"].add({static_cast<double>(r)});
        stats["episode_index"].add({static_cast<double>(index)});
        stats["index"].add({static_cast<double>(w.from + r)});
        stats["task_index"].add({static_cast<double>(w.task)});
    }
    for (ParquetOutColumn *c :
         {&success, &done, &timestamp, &frameIndex, &episodeIndex, &globalIndex, &taskIndex})
        table.columns.push_back(std::move(*c));
    const fs::path data = m_dir / "data" / chunkFile(index, "parquet");
    makeDirs(data.parent_path());
    parquetWriter().write(data, table);

    // The camera: its video, and per-channel statistics in [0, 1] as LeRobot keeps them.
    const fs::path video = m_dir / "videos" / m_options.camera / chunkFile(index, "mp4");
    makeDirs(video.parent_path());
    encodeVideo(video, e.frames, static_cast<int>(std::lround(m_options.fps)),
                m_options.lossless ? VideoFor::LeRobotLossless : VideoFor::LeRobot);
    m_codec = m_options.lossless ? "h264 lossless (rgb)" : "h264";
    Accumulator image;
    for (const cv::Mat &f : e.frames) {
        cv::Mat scaled;
        f.convertTo(scaled, CV_64FC3, 1.0 / 255.0);
        double lo[3], hi[3];
        std::vector<cv::Mat> channels;
        cv::split(scaled, channels);
        const cv::Scalar mean = cv::mean(scaled);
        cv::Mat squared;
        cv::multiply(scaled, scaled, squared);
        const cv::Scalar squares = cv::mean(squared);
        for (int c = 0; c < 3; ++c)
            cv::minMaxLoc(channels[static_cast<std::size_t>(c)], &lo[c], &hi[c]);
        // One frame as if it were its pixels: sums weighted by the pixel count.
        const double n = static_cast<double>(f.total());
        Accumulator frame;
        frame.min = {lo[0], lo[1], lo[2]};
        frame.max = {hi[0], hi[1], hi[2]};
        frame.sum = {mean[0] * n, mean[1] * n, mean[2] * n};
        frame.squares = {squares[0] * n, squares[1] * n, squares[2] * n};
        frame.count = static_cast<std::int64_t>(n);
        image.add(frame);
    }
    stats[m_options.camera] = image;
    for (const auto &[key, acc] : stats) {
        w.stats[key] = acc.rows();
        m_totals->stats[key].add(acc);
    }
    if (w.stats.count(m_options.camera)) // LeRobot counts an image feature's frames
        w.stats[m_options.camera][4] = {static_cast<double>(w.length)};
    m_frames += w.length;
    m_episodes.push_back(std::move(w));
}

std::string LeRobotWriter::finish()
{
    if (m_episodes.empty())
        throw Error(ErrorCode::InvalidInput, "a LeRobot dataset needs at least one episode");
    const std::int64_t episodes = static_cast<std::int64_t>(m_episodes.size());
    const std::string camera = m_options.camera;

    // meta/tasks.parquet, as pandas writes a frame indexed by the task text.
    {
        ParquetOutTable tasks;
        tasks.rows = static_cast<std::int64_t>(m_tasks.size());
        ParquetOutColumn index = column("task_index");
        ParquetOutColumn text = column("__index_level_0__", ParquetOutColumn::Type::String);
        std::vector<std::pair<std::int64_t, std::string>> byIndex;
        for (const auto &[t, i] : m_tasks)
            byIndex.emplace_back(i, t);
        std::sort(byIndex.begin(), byIndex.end());
        for (const auto &[i, t] : byIndex) {
            index.ints.push_back(i);
            text.strings.push_back(t);
        }
        tasks.columns = {index, text};
        const nlohmann::json pandas = {
            {"index_columns", {"__index_level_0__"}},
            {"column_indexes",
             {{{"name", nullptr},
               {"field_name", nullptr},
               {"pandas_type", "unicode"},
               {"numpy_type", "object"},
               {"metadata", {{"encoding", "UTF-8"}}}}}},
            {"columns",
             {{{"name", "task_index"},
               {"field_name", "task_index"},
               {"pandas_type", "int64"},
               {"numpy_type", "int64"},
               {"metadata", nullptr}},
              {{"name", nullptr},
               {"field_name", "__index_level_0__"},
               {"pandas_type", "unicode"},
               {"numpy_type", "object"},
               {"metadata", nullptr}}}},
            {"attributes", nlohmann::json::object()},
            {"creator", {{"library", "kosmos"}, {"version", KOSMOS_VERSION}}},
            {"pandas_version", "2.0.0"}};
        tasks.metadata = {{"pandas", pandas.dump()}};
        parquetWriter().write(m_dir / "meta" / "tasks.parquet", tasks);
    }

    // meta/episodes/chunk-000/file-000.parquet: where each episode is, and its statistics.
    {
        ParquetOutTable index;
        index.rows = episodes;
        ParquetOutColumn episode = column("episode_index"), length = column("length"),
                         dataChunk = column("data/chunk_index"),
                         dataFile = column("data/file_index"), from = column("dataset_from_index"),
                         to = column("dataset_to_index"),
                         videoChunk = column("videos/" + camera + "/chunk_index"),
                         videoFile = column("videos/" + camera + "/file_index"),
                         videoFrom = column("videos/" + camera + "/from_timestamp",
                                            ParquetOutColumn::Type::Float64),
                         videoTo = column("videos/" + camera + "/to_timestamp",
                                          ParquetOutColumn::Type::Float64),
                         metaChunk = column("meta/episodes/chunk_index"),
                         metaFile = column("meta/episodes/file_index");
        ParquetOutColumn tasks = column("tasks", ParquetOutColumn::Type::String);
        tasks.width = -1;
        std::map<std::string, ParquetOutColumn> extra;
        std::map<std::string, ParquetOutColumn> stats; // "stats/<key>/<stat>"
        std::map<std::int64_t, std::string> taskText;
        for (const auto &[t, i] : m_tasks)
            taskText[i] = t;
        for (const Written &w : m_episodes) {
            episode.ints.push_back(w.index);
            length.ints.push_back(w.length);
            dataChunk.ints.push_back(w.index / kChunkSize);
            dataFile.ints.push_back(w.index % kChunkSize);
            from.ints.push_back(w.from);
            to.ints.push_back(w.from + w.length);
            videoChunk.ints.push_back(w.index / kChunkSize);
            videoFile.ints.push_back(w.index % kChunkSize);
            videoFrom.doubles.push_back(0);
            videoTo.doubles.push_back(static_cast<double>(w.length) / m_options.fps);
            metaChunk.ints.push_back(0);
            metaFile.ints.push_back(0);
            tasks.strings.push_back(taskText[w.task]);
            tasks.rowLengths.push_back(1);
            for (const auto &[key, value] : w.extra) {
                ParquetOutColumn &c = extra[key];
                c.name = key;
                c.type = ParquetOutColumn::Type::String;
                c.strings.push_back(value);
            }
            for (const auto &[key, rows] : w.stats)
                for (std::size_t s = 0; s < rows.size(); ++s) {
                    const std::string name = "stats/" + key + "/" + kStatNames[s];
                    ParquetOutColumn &c = stats[name];
                    c.name = name;
                    c.width = -1;
                    c.type =
                        s == 4 ? ParquetOutColumn::Type::Int64 : ParquetOutColumn::Type::Float64;
                    for (double v : rows[s]) {
                        if (s == 4)
                            c.ints.push_back(static_cast<std::int64_t>(v));
                        else
                            c.doubles.push_back(v);
                    }
                    c.rowLengths.push_back(static_cast<std::int64_t>(rows[s].size()));
                }
        }
        for (const auto &[key, c] : extra)
            if (static_cast<std::int64_t>(c.strings.size()) != episodes)
                throw Error(ErrorCode::InvalidInput,
                            "the episode column " + key + " is not given for every episode");
        index.columns = {episode, tasks,      length,    dataChunk, dataFile, from,
                         to,      videoChunk, videoFile, videoFrom, videoTo};
        for (auto &[_, c] : stats)
            index.columns.push_back(std::move(c));
        index.columns.push_back(metaChunk);
        index.columns.push_back(metaFile);
        for (auto &[_, c] : extra)
            index.columns.push_back(std::move(c));
        const fs::path file = m_dir / "meta" / "episodes" / "chunk-000" / "file-000.parquet";
        makeDirs(file.parent_path());
        parquetWriter().write(file, index);
    }

    // meta/stats.json over the whole dataset (an image's per channel, shaped [3][1][1]).
    nlohmann::json statsJson = nlohmann::json::object();
    for (const auto &[key, acc] : m_totals->stats) {
        const auto rows = acc.rows();
        nlohmann::json entry;
        for (std::size_t s = 0; s < 4; ++s) {
            if (key == camera) {
                nlohmann::json nested = nlohmann::json::array();
                for (double v : rows[s])
                    nested.push_back({{v}});
                entry[kStatNames[s]] = nested;
            } else {
                entry[kStatNames[s]] = rows[s];
            }
        }
        entry["count"] = {key == camera ? m_frames : acc.count};
        statsJson[key] = entry;
    }
    writeText(m_dir / "meta" / "stats.json", statsJson.dump(4) + "\n");

    // meta/info.json
    const auto scalar = [](const char *dtype) {
        return nlohmann::json{{"dtype", dtype}, {"shape", {1}}, {"names", nullptr}};
    };
    nlohmann::json features = nlohmann::json::object();
    features[camera] = {{"dtype", "video"},
                        {"shape", {m_height, m_width, 3}},
                        {"names", {"height", "width", "channels"}},
                        {"info",
                         {{"video.height", m_height},
                          {"video.width", m_width},
                          {"video.codec", "h264"},
                          {"video.pix_fmt", m_options.lossless ? "gbrp" : "yuv420p"},
                          {"video.is_depth_map", false},
                          {"video.fps", static_cast<int>(std::lround(m_options.fps))},
                          {"video.channels", 3},
                          {"has_audio", false}}}};
    if (!m_options.stateNames.empty())
        features["observation.state"] = {{"dtype", "float64"},
                                         {"shape", {m_options.stateNames.size()}},
                                         {"names", m_options.stateNames}};
    if (!m_options.environmentStateNames.empty())
        features["observation.environment_state"] = {
            {"dtype", "float64"},
            {"shape", {m_options.environmentStateNames.size()}},
            {"names", m_options.environmentStateNames}};
    features["action"] = {{"dtype", "float64"},
                          {"shape", {m_options.actionNames.size()}},
                          {"names", m_options.actionNames}};
    features["next.success"] = scalar("bool");
    features["next.done"] = scalar("bool");
    features["timestamp"] = scalar("float32");
    for (const char *key : {"frame_index", "episode_index", "index", "task_index"})
        features[key] = scalar("int64");
    nlohmann::json info = {
        {"codebase_version", "v3.0"},
        {"robot_type", m_options.robotType},
        {"total_episodes", episodes},
        {"total_frames", m_frames},
        {"total_tasks", static_cast<std::int64_t>(m_tasks.size())},
        {"chunks_size", kChunkSize},
        {"data_files_size_in_mb", 100},
        {"video_files_size_in_mb", 500},
        {"fps", static_cast<int>(std::lround(m_options.fps))},
        {"splits", {{"train", "0:" + std::to_string(episodes)}}},
        {"data_path", "data/chunk-{chunk_index:03d}/file-{file_index:03d}.parquet"},
        {"video_path", "videos/{video_key}/chunk-{chunk_index:03d}/"
                       "file-{file_index:03d}.mp4"},
        {"features", features}};
    writeText(m_dir / "meta" / "info.json", info.dump(4) + "\n");
    return m_codec;
}

} // namespace kosmos
