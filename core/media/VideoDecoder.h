#pragma once

#include <opencv2/core/mat.hpp>

#include <filesystem>
#include <optional>
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

// A span of a video's presentation times, seconds: [from, to].
struct VideoWindow
{
    double from = 0;
    double to = 0;
};

// Decodes every frame of the first video stream with FFmpeg (libavformat/libavcodec/swscale),
// frame-exactly; with a window, only the frames whose presentation time lies in it, after a seek
// to the key frame before it (a LeRobot file holds many episodes: one episode's frames are read
// without decoding the file from its start). Throws Error(InvalidInput) naming the file when it
// cannot be decoded.
DecodedVideo decodeVideo(const std::filesystem::path &path,
                         const std::optional<VideoWindow> &window = std::nullopt);

enum class VideoFor
{
    Fidelity, // FFV1 in .mkv, or MPEG-4 Part 2 at high quality (every frame a key frame) in .mp4
    Browsers, // H.264 (libx264, yuv420p, even size, crf 18) in .mp4 with the index first
              // (faststart): what browsers and slide decks play
    LeRobot,  // H.264 (libx264, yuv420p, crf 18) with a key frame every 2 frames, as LeRobot
              // writes its videos; no fallback (Error(Io) without libx264)
    LeRobotLossless // the same losslessly: libx264rgb, RGB 4:4:4, crf 0 (every frame exact)
};

// Encodes RGB frames. Returns the codec used ("ffv1", "mpeg4", "h264"); Browsers falls back to
// MPEG-4 Part 2 when this FFmpeg has no libx264 (and says so by the name). Throws Error(Io).
std::string encodeVideo(const std::filesystem::path &path, const std::vector<cv::Mat> &frames,
                        int fps, VideoFor use = VideoFor::Fidelity);

} // namespace kosmos
