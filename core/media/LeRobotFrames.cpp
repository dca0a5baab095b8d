#include "media/LeRobotFrames.h"

#include "dataset/LeRobotDataset.h"
#include "media/VideoDecoder.h"
#include "util/Error.h"

#include <algorithm>
#include <cmath>

namespace kosmos {

namespace {

constexpr double kTolerance = 1e-4; // LeRobot's tolerance_s

} // namespace

LeRobotFrames decodeLeRobotFrames(const LeRobotDataset &dataset, const LeRobotEpisodeData &episode,
                                  const std::string &camera)
{
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
    if (episode.length() > 0)
        window = VideoWindow{video.fromTimestamp + episode.timestamps.front() - kTolerance,
                             video.fromTimestamp + episode.timestamps.back() + kTolerance};
    DecodedVideo decoded = decodeVideo(video.file, window);
    LeRobotFrames out;
    out.camera = camera;
    out.codec = decoded.codec;
    std::size_t next = 0; // frames are in presentation order: search forward
    for (std::int64_t k = 0; k < episode.length(); ++k) {
        const double want = video.fromTimestamp + episode.timestamps[static_cast<std::size_t>(k)];
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

} // namespace kosmos
