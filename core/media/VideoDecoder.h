#pragma once

#include <opencv2/core/mat.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kosmos {

struct DecodedVideo
{
    std::vector<cv::Mat> frames;    // RGB, 8 bits per channel
    std::vector<double> timestamps; // seconds, from the stream's presentation times
    double fps = 0;                 // the stream's average frame rate (0 when unknown)
    std::string codec;
};

// Decodes every frame of the first video stream with FFmpeg (libavformat/libavcodec/swscale),
// frame-exactly. Throws Error(InvalidInput) naming the file when it cannot be decoded.
DecodedVideo decodeVideo(const std::filesystem::path &path);

// Encodes RGB frames losslessly-enough for tests and exports (FFV1 in Matroska, or MPEG-4 Part 2
// at high quality in .mp4). Throws Error(Io) on failure.
void encodeVideo(const std::filesystem::path &path, const std::vector<cv::Mat> &frames, int fps);

} // namespace kosmos
