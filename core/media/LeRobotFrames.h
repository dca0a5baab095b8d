#pragma once

// An episode's frames from a LeRobot dataset's video (core/dataset/LeRobotDataset.h), decoded
// with FFmpeg (core/media/VideoDecoder.h: H.264, AV1, HEVC as this FFmpeg decodes them) and picked
// as LeRobot picks them: the frame whose presentation time is the episode's start in that file
// plus the row's timestamp, within LeRobot's own tolerance (1e-4 s).

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <string>
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

} // namespace kosmos
