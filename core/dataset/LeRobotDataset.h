#pragma once

// A LeRobot dataset folder, read natively and read-only (docs/datasets.md, "LeRobot datasets"):
// codebase v3.0 (meta/info.json, meta/tasks.parquet, meta/episodes/chunk-*/file-*.parquet,
// data/chunk-*/file-*.parquet, videos/<camera>/chunk-*/file-*.mp4) and v2.1 (meta/info.json,
// meta/episodes.jsonl, meta/tasks.jsonl, one parquet and one mp4 per episode). Opening reads the
// metadata only (the episode index); an episode's table is read when asked for. Parquet goes
// through core/dataset/ParquetReader.h (Arrow, in a module): without it, open() throws
// Error(Unavailable) saying so, except for v2.1's metadata, which is JSON.
//
// Everything read is checked, and a problem throws an Error naming the file and the field, never
// a partial result: paths (templates that leave the folder, symlinks out of it), counts that
// disagree between info.json, the episode index and the data, frame indices that are not
// 0..length-1, timestamps that go back or are not finite, non-finite actions or states.

#include "dataset/LeRobotInfo.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

struct LeRobotVideoRef
{
    std::filesystem::path file; // inside the dataset folder (checked)
    double fromTimestamp = 0;   // the episode's span in that file, seconds
    double toTimestamp = 0;
};

struct LeRobotEpisode
{
    std::int64_t index = 0;
    std::int64_t length = 0;
    std::vector<std::string> tasks;
    std::filesystem::path dataFile;
    std::int64_t fromIndex = 0; // global frame indices [fromIndex, toIndex)
    std::int64_t toIndex = 0;
    std::map<std::string, LeRobotVideoRef> videos; // by camera key
    // The episode's outcome fields (a success or reward feature of one value, outcomeKeys()) as
    // the dataset's own per-episode statistics give them: the maximum over the episode. Absent
    // when the dataset keeps no statistics for them (read the episode's rows instead).
    std::map<std::string, double> outcomes;
};

// One numeric feature of an episode, row-major: length x width values.
struct LeRobotTrace
{
    std::string key;
    int width = 1;
    std::vector<std::string> names; // from info.json; empty: name the values by index
    std::vector<double> values;
    double at(std::int64_t row, int column) const
    {
        return values[static_cast<std::size_t>(row * width + column)];
    }
    // A value's name: info.json's, else its index.
    std::string valueName(int column) const;
};

// One value of a trace over an episode: its name, min, mean and max (dataset inspect).
struct LeRobotValueSummary
{
    std::string name;
    double min = 0;
    double mean = 0;
    double max = 0;
};
std::vector<LeRobotValueSummary> summarize(const LeRobotTrace &trace, std::int64_t rows);

struct LeRobotEpisodeData
{
    std::int64_t episodeIndex = 0;
    std::vector<std::int64_t> index;      // global frame index
    std::vector<std::int64_t> frameIndex; // 0..length-1
    std::vector<double> timestamps;
    std::vector<std::int64_t> taskIndex;
    std::vector<LeRobotTrace> traces; // every numeric feature, by key
    const LeRobotTrace *trace(const std::string &key) const;
    std::int64_t length() const { return static_cast<std::int64_t>(index.size()); }
};

class LeRobotDataset
{
public:
    // Reads info.json, the tasks and the episode index. Throws Error(NotFound) when `folder` is
    // not a LeRobot dataset (no meta/info.json), Error(InvalidInput) or Error(Corrupt) naming the
    // file and field for what does not check, Error(Unavailable) without the Parquet module.
    static LeRobotDataset open(const std::filesystem::path &folder);
    // Whether `folder` looks like a LeRobot dataset (it has meta/info.json).
    static bool isDataset(const std::filesystem::path &folder);

    const std::filesystem::path &root() const { return m_root; }
    const LeRobotInfo &info() const { return m_info; }
    const std::vector<LeRobotEpisode> &episodes() const { return m_episodes; }
    const LeRobotEpisode &episode(std::int64_t index) const; // Error(NotFound) if absent
    // The task text of a task index; Error(NotFound) for one the dataset does not have.
    const std::string &task(std::int64_t taskIndex) const;
    const std::map<std::int64_t, std::string> &tasks() const { return m_tasks; }
    // The features that say how an episode went: numeric, one value a row, named like a success
    // or a reward ("next.success", "next.reward", "is_success" ...), in info.json's order.
    std::vector<std::string> outcomeKeys() const;

    // The episode's rows of its data file, checked (see above).
    LeRobotEpisodeData readEpisode(std::int64_t episodeIndex) const;

private:
    void readTasksV3();
    void readEpisodesV3();
    void readMetaV21();
    void readEpisodeStatsV21();
    std::filesystem::path inside(const std::string &relative, const std::string &where) const;

    std::filesystem::path m_root;
    LeRobotInfo m_info;
    std::map<std::int64_t, std::string> m_tasks;
    std::vector<LeRobotEpisode> m_episodes; // by episode index
};

} // namespace kosmos
