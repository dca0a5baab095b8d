#include "media/RolloutExport.h"

#include "ledger/Ledger.h"
#include "media/VideoDecoder.h"
#include "queries/ComponentLabels.h"
#include "queries/JudgmentQuery.h"
#include "queries/RolloutQuery.h"
#include "util/Error.h"
#include "util/FileWrite.h"
#include "util/NumberText.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <thread>

namespace kosmos {

namespace {

// body(k) for every k in [0, n), on up to one thread per core, all joined before it returns
// (std::thread rather than cv::parallel_for_: the joins order the results before their use,
// visibly to ThreadSanitizer). `body` must not throw.
void parallelFor(std::size_t n, const std::function<void(std::size_t)> &body)
{
    const std::size_t threads =
        std::min<std::size_t>(n, std::max(1u, std::thread::hardware_concurrency()));
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t k = next++; k < n; k = next++)
            body(k);
    };
    std::vector<std::thread> pool;
    for (std::size_t t = 1; t < threads; ++t)
        pool.emplace_back(work);
    work();
    for (auto &t : pool)
        t.join();
}

} // namespace

namespace {

// The policy as the overlay names it: its model package's folder first when it has one (the
// runs table's rule), else the adapter with its settings.
std::string policyText(const RolloutView &rollout)
{
    if (rollout.policyIdentity.empty())
        return "policy unknown";
    std::string label = labelsOfIdentityTexts({rollout.policyIdentity}).front();
    const auto space = rollout.policyIdentity.find(' ');
    const std::string settings =
        space == std::string::npos ? std::string() : rollout.policyIdentity.substr(space + 1);
    if (label != rollout.policyIdentity.substr(0, space) || settings.empty() || settings == "{}")
        return label;
    return label + " " + settings;
}

} // namespace

cv::Mat captionFrame(const cv::Mat &frame, const std::vector<std::string> &top,
                     const std::string &bottom)
{
    constexpr int kMinWidth = 320;
    constexpr int kLine = 16;
    const int factor = frame.cols >= kMinWidth ? 1 : (kMinWidth + frame.cols - 1) / frame.cols;
    cv::Mat image = frame;
    if (factor > 1)
        cv::resize(frame, image, {}, factor, factor, cv::INTER_NEAREST);
    const int width = image.cols + (image.cols % 2);
    const int above = kLine * static_cast<int>(top.size()) + 4;
    const int height = above + image.rows + kLine + ((above + image.rows + kLine) % 2);
    cv::Mat out(height, width, frame.type(), cv::Scalar::all(0));
    image.copyTo(out(cv::Rect(0, above, image.cols, image.rows)));
    const double scale = 0.38;
    for (std::size_t i = 0; i < top.size(); ++i)
        cv::putText(out, top[i], {4, kLine * static_cast<int>(i + 1) - 3}, cv::FONT_HERSHEY_SIMPLEX,
                    scale, {255, 255, 255}, 1, cv::LINE_AA);
    cv::putText(out, bottom, {4, above + image.rows + kLine - 4}, cv::FONT_HERSHEY_SIMPLEX, scale,
                {255, 255, 255}, 1, cv::LINE_AA);
    return out;
}

ExportResult exportRollout(Ledger &ledger, std::int64_t runId,
                           const std::filesystem::path &directory, bool video, bool overlay,
                           const ExportProgress &progress)
{
    return exportRollout(ledger, runId, directory, ExportOptions{true, true, video, overlay},
                         progress);
}

namespace {

// The actions as CSV: step, time and one column per dimension, each value the shortest text
// that reads back exactly (-0.04, not -0.040000000000000001).
void writeActionsCsv(const std::filesystem::path &path, const RolloutView &rollout)
{
    std::ofstream csv(path);
    csv << "step,time_s";
    for (const auto &name : rollout.dimensionNames)
        csv << ",\"" << name << "\"";
    csv << "\n";
    for (std::size_t t = 0; t < rollout.actions.size(); ++t) {
        csv << t << "," << shortestText(static_cast<double>(t) / rollout.controlRateHz);
        for (double v : rollout.actions[t])
            csv << "," << shortestText(v);
        csv << "\n";
    }
    csv.close();
    if (!csv)
        throw Error(ErrorCode::Io, "cannot write " + path.string());
}

// The overlay: which run this is, by which policy (its model package named), what the judge
// said; under the frame the step and its action. Each frame's text is drawn independently: in
// parallel.
void drawOverlay(Ledger &ledger, std::int64_t runId, const RolloutView &rollout,
                 std::vector<cv::Mat> &decoded)
{
    const std::string heading = "run " + std::to_string(runId) + "  " + policyText(rollout);
    const auto judgments = judgmentsOfRun(ledger, runId);
    const std::string verdict =
        judgments.empty() ? "no judgment" : "judge: " + judgments.back().outcome;
    parallelFor(decoded.size(), [&](std::size_t i) {
        std::string text = "step " + std::to_string(i);
        if (i > 0 && i - 1 < rollout.actions.size()) {
            char buffer[96];
            const auto &a = rollout.actions[i - 1];
            std::snprintf(buffer, sizeof buffer, "  a=[%.3f %.3f %.3f ... %.2f]",
                          a.size() > 0 ? a[0] : 0.0, a.size() > 1 ? a[1] : 0.0,
                          a.size() > 2 ? a[2] : 0.0, a.empty() ? 0.0 : a.back());
            text += buffer;
        }
        decoded[i] = captionFrame(decoded[i], {heading, verdict}, text);
    });
}

// Reads (hash-checked) and, for a video, decodes the frames in parallel, a block at a time;
// writes them into framesDir (when given) and reports progress in order after each block.
// Returns false when the caller cancelled.
bool readFramesInBlocks(Ledger &ledger, const RolloutView &rollout, bool video,
                        const std::filesystem::path &framesDir, std::vector<cv::Mat> &decoded,
                        int total, const ExportProgress &progress, ExportResult &result)
{
    constexpr std::size_t kBlock = 32;
    std::vector<std::vector<std::uint8_t>> block;
    for (std::size_t i = 0; i < rollout.frames.size(); ++i) {
        if (i % kBlock == 0) {
            const std::size_t n = std::min(kBlock, rollout.frames.size() - i);
            block.assign(n, {});
            std::vector<std::exception_ptr> failures(n);
            parallelFor(n, [&](std::size_t k) {
                const auto &frame = rollout.frames[i + k];
                try {
                    block[k] = ledger.artifacts().read(frame.sha256);
                    if (video)
                        decoded[i + k] = decodeStoredRgb(block[k], frame.sha256);
                } catch (...) {
                    failures[k] = std::current_exception();
                }
            });
            for (const auto &failure : failures)
                if (failure)
                    std::rethrow_exception(failure);
        }
        const auto &bytes = block[i % kBlock];
        if (!framesDir.empty()) {
            char name[32];
            std::snprintf(name, sizeof name, "frame_%05zu.png", i);
            std::ofstream out(framesDir / name, std::ios::binary);
            out.write(reinterpret_cast<const char *>(bytes.data()),
                      static_cast<std::streamsize>(bytes.size()));
            out.close(); // a write error (a full disk) may show only when the buffer is flushed
            if (!out)
                throw Error(ErrorCode::Io, "cannot write " + (framesDir / name).string());
        }
        ++result.frames;
        if (progress && !progress(result.frames, total))
            return false;
    }
    return true;
}

} // namespace

ExportResult exportRollout(Ledger &ledger, std::int64_t runId,
                           const std::filesystem::path &directory, const ExportOptions &options,
                           const ExportProgress &progress)
{
    if (!options.frames && !options.actions && !options.video)
        throw Error(ErrorCode::InvalidInput,
                    "nothing to export: choose the frames, the actions or the video");
    const bool video = options.video;
    const bool overlay = options.overlay;
    const RolloutView rollout = loadRollout(ledger, runId);
    if (rollout.frames.empty())
        throw Error(ErrorCode::InvalidInput,
                    "run " + std::to_string(runId) + " has no frames to export");
    // Everything is written into a staging folder inside `directory` and moved into place only
    // when complete: a failure or a cancel midway leaves no partial output behind.
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    if (ec)
        throw Error(ErrorCode::Io, "cannot create " + directory.string() + ": " + ec.message());
    StagingFolder stagingFolder(directory, "export");
    const std::filesystem::path &staging = stagingFolder.path();
    ExportResult result;
    if (options.frames) {
        result.framesDir = staging / "frames";
        std::filesystem::create_directories(result.framesDir, ec);
        if (ec)
            throw Error(ErrorCode::Io,
                        "cannot create " + result.framesDir.string() + ": " + ec.message());
    }
    // Frames are read to be written, to be encoded, or both.
    const bool readFrames = options.frames || video;
    const int total = static_cast<int>(rollout.frames.size()) * (video ? 2 : 1);
    std::vector<cv::Mat> decoded(video ? rollout.frames.size() : 0);
    // Frames are read (hash-checked) and decoded in parallel, a block at a time; the files are
    // written and progress reported (the caller may cancel) in order, after each block.
    if (readFrames &&
        !readFramesInBlocks(ledger, rollout, video,
                            options.frames ? result.framesDir : std::filesystem::path(), decoded,
                            total, progress, result)) {
        result.cancelled = true;
        result.frames = 0; // nothing was kept
        result.framesDir.clear();
        return result;
    }
    if (options.actions) {
        result.csv = staging / "actions.csv";
        writeActionsCsv(result.csv, rollout);
        result.actions = static_cast<int>(rollout.actions.size());
    }
    if (video) {
        if (overlay)
            drawOverlay(ledger, runId, rollout, decoded);
        result.video = staging / "rollout.mp4";
        result.videoCodec =
            encodeVideo(result.video, decoded, static_cast<int>(std::lround(rollout.controlRateHz)),
                        VideoFor::Browsers);
    }
    if (!options.frames)
        result.frames = 0; // read for the video only
    // Complete: move each piece into place (replacing an earlier export's pieces).
    auto publish = [&](std::filesystem::path &piece) {
        if (!piece.empty())
            piece = stagingFolder.publishInto(piece, directory);
    };
    publish(result.framesDir);
    publish(result.csv);
    publish(result.video);
    if (video && progress)
        progress(total, total);
    return result;
}

} // namespace kosmos
