#pragma once

// An episode's frames from a LeRobot dataset's video (core/dataset/LeRobotDataset.h), decoded
// with FFmpeg (core/media/VideoDecoder.h: H.264, AV1, HEVC as this FFmpeg decodes them) and picked
// as LeRobot picks them: the frame whose presentation time is the episode's start in that file
// plus the row's timestamp, within LeRobot's own tolerance (1e-4 s).

#include "queries/RolloutQuery.h"

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <filesystem>
#include <list>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace kosmos {

class LeRobotDataset;
struct LeRobotEpisodeData;

struct LeRobotFrames
{
    std::string camera;
    std::string codec;           // the FFmpeg decoder that read the stream (not info.json's claim)
    std::vector<cv::Mat> frames; // RGB, 8 bits a channel, one per episode row
    std::vector<double> videoTime; // each frame's presentation time in its file, seconds
};

// Throws Error(NotFound) for a camera the dataset does not have, Error(InvalidInput) naming the
// video file and the row when a row has no frame within the tolerance (a shorter or other video)
// or the file cannot be decoded.
LeRobotFrames decodeLeRobotFrames(const LeRobotDataset &dataset, const LeRobotEpisodeData &episode,
                                  const std::string &camera);
// Only rows [fromRow, toRow) of the episode (clamped to it): a seek to the key frame before the
// first, then those frames.
LeRobotFrames decodeLeRobotFrames(const LeRobotDataset &dataset, const LeRobotEpisodeData &episode,
                                  const std::string &camera, std::int64_t fromRow,
                                  std::int64_t toRow);

// One episode's frames for review, decoded on demand in blocks of rows around the frame asked
// for and kept for a few blocks per camera, so memory stays bounded on long, large episodes (an
// ALOHA episode's 400 frames at 480x640 are 350 MiB decoded). Safe to call from several threads
// (the player decodes ahead on a worker while the GUI thread may ask for a far frame); the
// dataset and the episode must outlive it.
class LeRobotFrameCache
{
public:
    static constexpr std::int64_t kBlockRows = 48;
    static constexpr std::size_t kBlocksKept = 4; // per camera
    LeRobotFrameCache(const LeRobotDataset &dataset, const LeRobotEpisodeData &episode);
    // The frame of `row` from `camera` (RGB); throws as decodeLeRobotFrames does.
    cv::Mat frame(const std::string &camera, std::int64_t row);

private:
    const LeRobotDataset &m_dataset;
    const LeRobotEpisodeData &m_episode;
    std::mutex m_mutex;
    // (camera, block) -> frames, most recently used first.
    std::list<std::pair<std::pair<std::string, std::int64_t>, std::vector<cv::Mat>>> m_blocks;
};

// What the workstation's player and traces show of a recorded episode, read-only: one frame
// entry per row (named "row-N", no artifact), the `action` feature as the actions (one per row,
// named from info.json, index names where it has none), every other numeric feature
// (observation.state, next.reward ...) as a track named per value, the dataset's fps as the
// rate. A recorded episode has no validation, no world-model calls and no judge.
RolloutView episodeRolloutView(const LeRobotDataset &dataset, const LeRobotEpisodeData &episode);

// Writes one episode out of the dataset as the workstation exports a run: `frames/` with one PNG
// per row from `camera` (lossless: the decoded pixels), `values.csv` (row, timestamp, then every
// numeric feature's values named "<key>[<name>]", each number its shortest exact text) and, when
// `video`, `episode-N.mp4` (H.264, as encodeVideo's Browsers). Throws Error(Io) when a file
// cannot be written, and as decodeLeRobotFrames for frames that cannot be read.
struct LeRobotEpisodeExport
{
    int frames = 0;
    std::filesystem::path framesDir;
    std::filesystem::path csv;
    std::filesystem::path video; // empty when not asked for
    std::string videoCodec;
};
LeRobotEpisodeExport exportLeRobotEpisode(const LeRobotDataset &dataset,
                                          const LeRobotEpisodeData &episode,
                                          const std::string &camera,
                                          const std::filesystem::path &directory, bool video);

} // namespace kosmos
