// kosmos-cli dataset inspect DIR: what a LeRobot dataset holds, read natively (core/dataset).
#include "CliCommands.h"

#include "dataset/LeRobotDataset.h"
#include "dataset/ParquetReader.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

using namespace kosmos;

namespace {

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string out = "(";
    for (std::size_t i = 0; i < shape.size(); ++i)
        out += (i ? ", " : "") + std::to_string(shape[i]);
    return out + ")";
}

nlohmann::json episodeJson(const LeRobotDataset &d, const LeRobotEpisode &e)
{
    nlohmann::json videos = nlohmann::json::object();
    for (const auto &[camera, v] : e.videos)
        videos[camera] = {{"file", v.file.lexically_relative(d.root()).string()},
                          {"from_timestamp", v.fromTimestamp},
                          {"to_timestamp", v.toTimestamp}};
    return {{"episode_index", e.index},
            {"length", e.length},
            {"tasks", e.tasks},
            {"data_file", e.dataFile.lexically_relative(d.root()).string()},
            {"from_index", e.fromIndex},
            {"to_index", e.toIndex},
            {"videos", videos}};
}

// One episode's numeric features: per value, min / mean / max over the episode (core's summary).
nlohmann::json traceSummary(const LeRobotEpisodeData &data)
{
    nlohmann::json out = nlohmann::json::array();
    for (const LeRobotTrace &t : data.traces) {
        nlohmann::json values = nlohmann::json::array();
        for (const LeRobotValueSummary &v : summarize(t, data.length()))
            values.push_back({{"name", v.name}, {"min", v.min}, {"mean", v.mean}, {"max", v.max}});
        out.push_back({{"feature", t.key}, {"values", values}});
    }
    return out;
}

void printText(const LeRobotDataset &d, const std::optional<LeRobotEpisodeData> &episode)
{
    const LeRobotInfo &info = d.info();
    std::cout << d.root().string() << ": LeRobot dataset " << info.codebaseVersion << ", robot "
              << info.robotType.value_or("(not stated)") << ", " << info.fps << " fps\n"
              << "  " << info.totalEpisodes << " episodes, " << info.totalFrames << " frames, "
              << d.tasks().size() << " task(s)\n  features:\n";
    for (const LeRobotFeature &f : info.features) {
        std::cout << "    " << f.key << "  " << f.dtype << " " << shapeText(f.shape);
        if (f.videoCodec)
            std::cout << "  codec " << *f.videoCodec;
        if (!f.names.empty() && !f.isImage()) {
            std::cout << "  [";
            for (std::size_t i = 0; i < f.names.size(); ++i)
                std::cout << (i ? ", " : "") << f.names[i];
            std::cout << "]";
        }
        std::cout << "\n";
    }
    std::cout << "  tasks:\n";
    for (const auto &[index, text] : d.tasks())
        std::cout << "    " << index << "  " << text << "\n";
    std::cout << "  episodes (index  length  task):\n";
    const std::size_t shown = std::min<std::size_t>(d.episodes().size(), 20);
    for (std::size_t i = 0; i < shown; ++i) {
        const LeRobotEpisode &e = d.episodes()[i];
        std::cout << "    " << e.index << "  " << e.length << "  "
                  << (e.tasks.empty() ? std::string("-") : e.tasks.front()) << "\n";
    }
    if (shown < d.episodes().size())
        std::cout << "    ... " << d.episodes().size() - shown << " more (--json lists all)\n";
    if (!episode)
        return;
    std::cout << "  episode " << episode->episodeIndex << ": " << episode->length() << " frames";
    if (episode->length() > 0)
        std::cout << ", timestamps " << episode->timestamps.front() << " .. "
                  << episode->timestamps.back() << " s";
    std::cout << "\n";
    for (const auto &trace : traceSummary(*episode)) {
        std::cout << "    " << trace["feature"].get<std::string>() << "\n";
        for (const auto &v : trace["values"]) {
            char line[160];
            std::snprintf(line, sizeof line, "      %-16s min %12.6g  mean %12.6g  max %12.6g\n",
                          v["name"].get<std::string>().c_str(), v["min"].get<double>(),
                          v["mean"].get<double>(), v["max"].get<double>());
            std::cout << line;
        }
    }
}

} // namespace

int runDatasetInspect(const std::string &folder, std::optional<int> episodeIndex, bool json)
{
    try {
        const LeRobotDataset d = LeRobotDataset::open(folder);
        std::optional<LeRobotEpisodeData> episode;
        if (episodeIndex)
            episode = d.readEpisode(*episodeIndex);
        if (!json) {
            printText(d, episode);
            return finishOutput(ExitCode::Ok);
        }
        const LeRobotInfo &info = d.info();
        nlohmann::json features = nlohmann::json::array();
        for (const LeRobotFeature &f : info.features)
            features.push_back(
                {{"key", f.key},
                 {"dtype", f.dtype},
                 {"shape", f.shape},
                 {"names", f.names},
                 {"video_codec", f.videoCodec ? nlohmann::json(*f.videoCodec) : nlohmann::json()}});
        nlohmann::json tasks = nlohmann::json::array();
        for (const auto &[index, text] : d.tasks())
            tasks.push_back({{"task_index", index}, {"task", text}});
        nlohmann::json episodes = nlohmann::json::array();
        for (const LeRobotEpisode &e : d.episodes())
            episodes.push_back(episodeJson(d, e));
        nlohmann::json out = {
            {"dataset", d.root().string()},
            {"codebase_version", info.codebaseVersion},
            {"robot_type", info.robotType ? nlohmann::json(*info.robotType) : nlohmann::json()},
            {"fps", info.fps},
            {"total_episodes", info.totalEpisodes},
            {"total_frames", info.totalFrames},
            {"cameras", info.cameras()},
            {"features", features},
            {"tasks", tasks},
            {"episodes", episodes},
            {"parquet", parquetAvailable() ? nlohmann::json(parquetReader().version())
                                           : nlohmann::json()}}; // v2.1 metadata is JSON
        if (episode)
            out["episode"] = {
                {"episode_index", episode->episodeIndex},
                {"length", episode->length()},
                {"timestamps", episode->length() > 0
                                   ? nlohmann::json::array(
                                         {episode->timestamps.front(), episode->timestamps.back()})
                                   : nlohmann::json::array()},
                {"traces", traceSummary(*episode)}};
        std::cout << out.dump(2) << "\n";
        return finishOutput(ExitCode::Ok);
    } catch (const Error &e) {
        return reportError(e);
    }
}
