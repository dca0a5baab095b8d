#include "media/LeRobotFrames.h"

#include "dataset/LeRobotDataset.h"
#include "media/VideoDecoder.h"
#include "util/Error.h"
#include "util/NumberText.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

namespace kosmos {

namespace {

constexpr double kTolerance = 1e-4; // LeRobot's tolerance_s

} // namespace

LeRobotFrames decodeLeRobotFrames(const LeRobotDataset &dataset, const LeRobotEpisodeData &episode,
                                  const std::string &camera)
{
    return decodeLeRobotFrames(dataset, episode, camera, 0, episode.length());
}

LeRobotFrames decodeLeRobotFrames(const LeRobotDataset &dataset, const LeRobotEpisodeData &episode,
                                  const std::string &camera, std::int64_t fromRow,
                                  std::int64_t toRow)
{
    fromRow = std::clamp<std::int64_t>(fromRow, 0, episode.length());
    toRow = std::clamp<std::int64_t>(toRow, fromRow, episode.length());
    const LeRobotEpisode &e = dataset.episode(episode.episodeIndex);
    const auto ref = e.videos.find(camera);
    if (ref == e.videos.end()) {
        std::string known;
        for (const auto &[name, _] : e.videos)
            known += (known.empty() ? "" : ", ") + name;
        throw Error(ErrorCode::NotFound, dataset.root().string() + " has no camera '" + camera +
                                             "' (its cameras: " + (known.empty() ? "none" : known) +
                                             ")");
    }
    const LeRobotVideoRef &video = ref->second;
    // Only the episode's span of the file (a v3.0 video holds many episodes).
    std::optional<VideoWindow> window;
    const auto time = [&](std::int64_t row) {
        return episode.timestamps[static_cast<std::size_t>(row)];
    };
    if (toRow > fromRow)
        window = VideoWindow{video.fromTimestamp + time(fromRow) - kTolerance,
                             video.fromTimestamp + time(toRow - 1) + kTolerance};
    DecodedVideo decoded = decodeVideo(video.file, window);
    LeRobotFrames out;
    out.camera = camera;
    out.codec = decoded.codec;
    std::size_t next = 0; // frames are in presentation order: search forward
    for (std::int64_t k = fromRow; k < toRow; ++k) {
        const double want = video.fromTimestamp + time(k);
        while (next < decoded.timestamps.size() && decoded.timestamps[next] < want - kTolerance)
            ++next;
        if (next >= decoded.timestamps.size() ||
            std::abs(decoded.timestamps[next] - want) > kTolerance) {
            const std::string nearest =
                next < decoded.timestamps.size()
                    ? std::to_string(decoded.timestamps[next]) + " s"
                    : "none (the video ends at " +
                          (decoded.timestamps.empty()
                               ? std::string("0 s")
                               : std::to_string(decoded.timestamps.back()) + " s") +
                          ")";
            throw Error(ErrorCode::InvalidInput,
                        video.file.string() + ": episode " + std::to_string(e.index) + ", row " +
                            std::to_string(k) + " wants the frame at " + std::to_string(want) +
                            " s; the nearest is " + nearest + " (tolerance " +
                            std::to_string(kTolerance) + " s)");
        }
        out.frames.push_back(decoded.frames[next]);
        out.videoTime.push_back(decoded.timestamps[next]);
        ++next;
    }
    return out;
}

LeRobotFrameCache::LeRobotFrameCache(const LeRobotDataset &dataset,
                                     const LeRobotEpisodeData &episode)
    : m_dataset(dataset), m_episode(episode)
{
}

cv::Mat LeRobotFrameCache::frame(const std::string &camera, std::int64_t row)
{
    if (row < 0 || row >= m_episode.length())
        throw Error(ErrorCode::InvalidInput, "episode " + std::to_string(m_episode.episodeIndex) +
                                                 " has no row " + std::to_string(row) +
                                                 " (it has " + std::to_string(m_episode.length()) +
                                                 ")");
    const std::int64_t block = row / kBlockRows;
    const std::pair<std::string, std::int64_t> key{camera, block};
    std::lock_guard<std::mutex> lock(m_mutex); // one decode at a time: they share the blocks
    for (auto it = m_blocks.begin(); it != m_blocks.end(); ++it)
        if (it->first == key) {
            m_blocks.splice(m_blocks.begin(), m_blocks, it);
            return it->second[static_cast<std::size_t>(row - block * kBlockRows)];
        }
    LeRobotFrames decoded = decodeLeRobotFrames(m_dataset, m_episode, camera, block * kBlockRows,
                                                (block + 1) * kBlockRows);
    m_blocks.emplace_front(key, std::move(decoded.frames));
    std::size_t kept = 0;
    for (auto it = m_blocks.begin(); it != m_blocks.end();)
        it = it->first.first == camera && ++kept > kBlocksKept ? m_blocks.erase(it) : std::next(it);
    return m_blocks.front().second[static_cast<std::size_t>(row - block * kBlockRows)];
}

RolloutView episodeRolloutView(const LeRobotDataset &dataset, const LeRobotEpisodeData &episode)
{
    RolloutView view;
    view.attemptState = "recorded";
    view.controlRateHz = dataset.info().fps;
    const auto rows = static_cast<std::size_t>(episode.length());
    view.frames.resize(rows);
    for (std::size_t r = 0; r < rows; ++r)
        view.frames[r].name = "row-" + std::to_string(r);
    for (const LeRobotTrace &t : episode.traces) {
        if (t.key == "action") {
            for (int c = 0; c < t.width; ++c)
                view.dimensionNames.push_back(t.valueName(c));
            view.actions.assign(rows, std::vector<double>(static_cast<std::size_t>(t.width)));
            for (std::size_t r = 0; r < rows; ++r)
                for (int c = 0; c < t.width; ++c)
                    view.actions[r][static_cast<std::size_t>(c)] =
                        t.at(static_cast<std::int64_t>(r), c);
            continue;
        }
        ObjectTrack track;
        track.name = t.key;
        for (int c = 0; c < t.width; ++c)
            track.axes.push_back(t.width == 1 ? t.key : t.valueName(c));
        for (std::size_t r = 0; r < rows; ++r) {
            track.frames.push_back(static_cast<int>(r));
            std::vector<double> values(static_cast<std::size_t>(t.width));
            for (int c = 0; c < t.width; ++c)
                values[static_cast<std::size_t>(c)] = t.at(static_cast<std::int64_t>(r), c);
            track.values.push_back(std::move(values));
        }
        view.objectTracks.push_back(std::move(track));
    }
    return view;
}

LeRobotEpisodeExport exportLeRobotEpisode(const LeRobotDataset &dataset,
                                          const LeRobotEpisodeData &episode,
                                          const std::string &camera,
                                          const std::filesystem::path &directory, bool video)
{
    namespace fs = std::filesystem;
    LeRobotEpisodeExport out;
    std::error_code ec;
    out.framesDir = directory / "frames";
    fs::create_directories(out.framesDir, ec);
    if (ec)
        throw Error(ErrorCode::Io, out.framesDir.string() + ": " + ec.message());
    // Values first: they need no decoding.
    out.csv = directory / "values.csv";
    {
        std::ofstream csv(out.csv, std::ios::binary);
        csv << "row,timestamp";
        for (const LeRobotTrace &t : episode.traces)
            for (int c = 0; c < t.width; ++c)
                csv << ',' << t.key << '[' << t.valueName(c) << ']';
        csv << '\n';
        for (std::int64_t r = 0; r < episode.length(); ++r) {
            csv << r << ',' << shortestText(episode.timestamps[static_cast<std::size_t>(r)]);
            for (const LeRobotTrace &t : episode.traces)
                for (int c = 0; c < t.width; ++c)
                    csv << ',' << shortestText(t.at(r, c));
            csv << '\n';
        }
        if (!csv.flush())
            throw Error(ErrorCode::Io, out.csv.string() + ": cannot be written");
    }
    const LeRobotFrames frames = decodeLeRobotFrames(dataset, episode, camera);
    std::vector<cv::Mat> rgb;
    for (std::size_t i = 0; i < frames.frames.size(); ++i) {
        cv::Mat bgr;
        cv::cvtColor(frames.frames[i], bgr, cv::COLOR_RGB2BGR);
        char name[32];
        std::snprintf(name, sizeof name, "frame-%05zu.png", i);
        if (!cv::imwrite((out.framesDir / name).string(), bgr))
            throw Error(ErrorCode::Io, (out.framesDir / name).string() + ": cannot be written");
        ++out.frames;
    }
    if (video) {
        out.video = directory / ("episode-" + std::to_string(episode.episodeIndex) + ".mp4");
        const double fps = dataset.info().fps;
        out.videoCodec =
            encodeVideo(out.video, frames.frames, std::max(1, static_cast<int>(std::lround(fps))),
                        VideoFor::Browsers);
    }
    return out;
}

} // namespace kosmos
