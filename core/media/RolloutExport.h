#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

// Called with (done, total); return false to cancel (what was written so far stays).
using ExportProgress = std::function<bool(int done, int total)>;

struct ExportResult
{
    int frames = 0;
    int actions = 0;
    bool cancelled = false;
    std::filesystem::path video; // empty when not written
    std::string videoCodec;      // "h264" (or "mpeg4" without libx264; "ffv1" for .mkv)
    std::filesystem::path csv;
    std::filesystem::path framesDir;
};

// Writes a run's rollout out of the ledger: the frames as PNG (bytes as stored, hash-checked on
// read), the actions as CSV (step, time, one column per named dimension; each number the shortest
// text that reads back exactly), and optionally a video (MP4: H.264 for browsers; MKV: lossless
// FFV1) with an overlay of the run, policy, step, judge verdict and the actions.
// Throws Error(InvalidInput) for a run without frames, Error(Io) when a file cannot be written.
ExportResult exportRollout(Ledger &ledger, std::int64_t runId,
                           const std::filesystem::path &directory, bool video, bool overlay,
                           const ExportProgress &progress = {});

// The video overlay: the frame enlarged (nearest neighbour, an integer factor) to at least 320
// pixels wide, with a caption band above it (one line per `top` entry) and one below
// (`bottom`), so the text is never clipped nor drawn over a small frame (a 160x128 physics
// camera). Every dimension of the result is even (H.264).
cv::Mat captionFrame(const cv::Mat &frame, const std::vector<std::string> &top,
                     const std::string &bottom);

// What to write (the workstation's Export dialog): any of the frames, the actions and the video.
struct ExportOptions
{
    bool frames = true;
    bool actions = true;
    bool video = false;
    bool overlay = true; // on the video
};

// The same with a choice of outputs; at least one must be chosen (Error(InvalidInput)).
ExportResult exportRollout(Ledger &ledger, std::int64_t runId,
                           const std::filesystem::path &directory, const ExportOptions &options,
                           const ExportProgress &progress = {});

} // namespace kosmos
