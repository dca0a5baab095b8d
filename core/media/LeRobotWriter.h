#pragma once

// Writes a LeRobot dataset, codebase v3.0, that LeRobot's own LeRobotDataset loads unchanged
// (docs/datasets.md, "Writing LeRobot datasets"): meta/info.json, meta/stats.json,
// meta/tasks.parquet (as pandas writes it: the task text as the index), meta/episodes/chunk-000/
// file-000.parquet (the episode index with each episode's statistics), one data file and one
// video per episode (data/chunk-CCC/file-FFF.parquet, videos/<camera>/chunk-CCC/file-FFF.mp4, a
// thousand files a chunk). Parquet through the Arrow module (core/dataset/ParquetReader.h), video
// through FFmpeg (H.264, a key frame every 2 frames as LeRobot encodes, or lossless).
// Actions and states are written as float64, so they read back bit for bit.

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

struct LeRobotWriterOptions
{
    double fps = 10;
    std::string robotType = "kosmos";
    std::string camera = "observation.image";
    std::vector<std::string> actionNames; // one per action value
    std::vector<std::string> stateNames;  // empty: the episodes carry no observation.state
    // observation.environment_state (LeRobot's name for a simulator's privileged state, such as
    // object poses); empty: none.
    std::vector<std::string> environmentStateNames;
    // H.264 yuv420p at crf 18 (lossy: a frame reads back within a few levels) or lossless
    // (libx264rgb, crf 0, RGB: every frame reads back exactly; larger files).
    bool lossless = false;
};

struct LeRobotOutEpisode
{
    std::string task;
    std::vector<cv::Mat> frames;                        // RGB, 8 bits a channel; one per row
    std::vector<std::vector<double>> actions;           // one per row
    std::vector<std::vector<double>> states;            // one per row, or none
    std::vector<std::vector<double>> environmentStates; // one per row, or none
    std::optional<bool> success; // the episode's, on its last row (next.success)
    // Extra per-episode text columns of the episode index ("kosmos/run_key" ...).
    std::map<std::string, std::string> extra;
};

class LeRobotWriter
{
public:
    // `directory` must not exist or be empty. Throws Error(Unavailable) without the Parquet
    // module, Error(InvalidInput) for a directory in use.
    LeRobotWriter(std::filesystem::path directory, LeRobotWriterOptions options);
    ~LeRobotWriter();
    LeRobotWriter(const LeRobotWriter &) = delete;
    LeRobotWriter &operator=(const LeRobotWriter &) = delete;
    // Writes the episode's data and video now; the metadata is written by finish(). Throws
    // Error(InvalidInput) naming the episode for rows that disagree (frames, actions, states,
    // sizes) or non-finite values, Error(Io) for what cannot be written.
    void add(const LeRobotOutEpisode &episode);
    // Writes the metadata. Returns the video codec used ("h264" or "h264 lossless (rgb)").
    std::string finish();
    int episodes() const { return static_cast<int>(m_episodes.size()); }
    std::int64_t frames() const { return m_frames; }

private:
    struct Written
    {
        std::int64_t index = 0;
        std::int64_t length = 0;
        std::int64_t task = 0;
        std::int64_t from = 0;
        std::map<std::string, std::string> extra;
        // Per numeric feature: min, max, mean, std, count over the episode.
        std::map<std::string, std::vector<std::vector<double>>> stats;
    };
    std::filesystem::path m_dir;
    LeRobotWriterOptions m_options;
    std::vector<Written> m_episodes;
    std::map<std::string, std::int64_t> m_tasks;
    std::int64_t m_frames = 0;
    int m_width = 0, m_height = 0;
    std::string m_codec;
    struct Totals; // the whole dataset's statistics (meta/stats.json)
    std::unique_ptr<Totals> m_totals;
};

} // namespace kosmos
