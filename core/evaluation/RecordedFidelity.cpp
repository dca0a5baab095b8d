#include "evaluation/RecordedFidelity.h"

#include "components/Components.h"
#include "dataset/LeRobotDataset.h"
#include "media/LeRobotFrames.h"
#include "util/Error.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace kosmos {

namespace {

[[noreturn]] void refuse(const std::string &what)
{
    throw Error(ErrorCode::InvalidInput, what);
}

std::string number(double v, int precision)
{
    std::ostringstream o;
    o << std::fixed << std::setprecision(precision) << v;
    return o.str();
}

} // namespace

RecordedReplay replayRecorded(const LeRobotDataset &dataset, WorldModel &world,
                              const RecordedReplayOptions &options, const std::atomic<bool> *stop,
                              const std::function<void(int, int)> &progress)
{
    RecordedReplay out;
    const LeRobotInfo &info = dataset.info();
    const std::vector<std::string> cameras = info.cameras();
    if (cameras.empty())
        refuse(dataset.root().string() + " has no camera: there are no frames to compare");
    out.camera = options.camera.empty() ? cameras.front() : options.camera;
    if (std::find(cameras.begin(), cameras.end(), out.camera) == cameras.end())
        refuse(dataset.root().string() + " has no camera '" + out.camera + "'");
    const LeRobotFeature *action = nullptr;
    for (const LeRobotFeature &f : info.features)
        if (f.key == options.actionKey)
            action = &f;
    if (!action)
        refuse(dataset.root().string() + " has no '" + options.actionKey + "' feature");
    out.actionWidth = static_cast<int>(action->width());

    // What the world model takes, checked before anything runs.
    const ActionContract contract = world.actionContract();
    const FrameContract frames = world.frameContract();
    out.datasetFps = info.fps;
    out.worldFps = frames.fps;
    if (contract.dimension() != out.actionWidth)
        refuse("the world model takes " + std::to_string(contract.dimension()) +
               "-D actions; the dataset's '" + options.actionKey + "' has " +
               std::to_string(out.actionWidth) + " values: it cannot replay them");
    if (frames.framesPerAction != 1)
        refuse("the world model makes " + std::to_string(frames.framesPerAction) +
               " frames per action; a recorded episode has one a row");
    if (std::abs(frames.fps - info.fps) > 0.01 * info.fps)
        refuse("the world model runs at " + number(frames.fps, 2) +
               " frames a second, the dataset at " + number(info.fps, 2) +
               ": one recorded action does not mean one of its steps");
    const auto certified = frames.certifiedChunkLengths;
    out.chunk = certified.empty() ? 1 : certified.front();

    std::vector<std::int64_t> chosen = options.episodes;
    if (chosen.empty())
        for (const LeRobotEpisode &e : dataset.episodes())
            chosen.push_back(e.index);
    for (std::int64_t e : chosen)
        dataset.episode(e); // Error(NotFound) naming it, before any replay

    int done = 0;
    int leftOver = 0;
    for (std::int64_t e : chosen) {
        if (stop && stop->load())
            break;
        const LeRobotEpisodeData data = dataset.readEpisode(e);
        if (data.length() < 2) {
            out.notes.push_back("episode " + std::to_string(e) + " has fewer than 2 rows: skipped");
            continue;
        }
        const LeRobotTrace *values = data.trace(options.actionKey);
        const LeRobotFrames recorded = decodeLeRobotFrames(dataset, data, out.camera);
        WorldStart start;
        start.startFrame = recorded.frames.front();
        const LeRobotEpisode &episode = dataset.episode(e);
        start.instruction = episode.tasks.empty() ? std::string() : episode.tasks.front();
        if (out.instruction.empty())
            out.instruction = start.instruction;
        std::vector<cv::Mat> predicted = world.reset(start);
        // Row k's action leads to row k+1's frame: the N-1 actions between the N frames.
        const std::size_t actions = static_cast<std::size_t>(data.length() - 1);
        const std::size_t chunk = static_cast<std::size_t>(out.chunk);
        for (std::size_t t = 0; t + chunk <= actions; t += chunk) {
            ActionChunk step;
            for (std::size_t k = t; k < t + chunk; ++k) {
                Action a(static_cast<std::size_t>(values->width));
                for (int j = 0; j < values->width; ++j)
                    a[static_cast<std::size_t>(j)] = values->at(static_cast<std::int64_t>(k), j);
                step.push_back(std::move(a));
            }
            const ContractCheck check = contract.checkChunk(step, false);
            if (!check.ok())
                refuse(dataset.root().string() + ": episode " + std::to_string(e) + ", rows " +
                       std::to_string(t) + "-" + std::to_string(t + chunk - 1) +
                       ": the world model's action contract refuses the recorded actions: " +
                       check.summary());
            for (cv::Mat &frame : world.step(step))
                predicted.push_back(std::move(frame));
        }
        leftOver += static_cast<int>(actions % chunk);
        addReplay(out.curve, recorded.frames, predicted);
        out.episodes.push_back(e);
        if (progress)
            progress(++done, static_cast<int>(chosen.size()));
    }
    if (leftOver > 0)
        out.notes.push_back(std::to_string(leftOver) +
                            " recorded actions after the last whole chunk of " +
                            std::to_string(out.chunk) + " were not replayed");
    addIntervals(out.curve, options.replicates, options.seed);
    return out;
}

nlohmann::json toJson(const RecordedReplay &r)
{
    return {{"episodes", r.episodes},
            {"camera", r.camera},
            {"dataset_fps", r.datasetFps},
            {"world_model_fps", r.worldFps},
            {"action_width", r.actionWidth},
            {"chunk", r.chunk},
            {"notes", r.notes},
            {"frame_fidelity", toJson(r.curve)},
            {"note", "Recorded actions replayed open loop in the world model from each episode's "
                     "first recorded frame; predicted frames against the recorded ones (resized "
                     "to the model's size). How well a world model predicts recorded video, not "
                     "evidence of any policy's success."}};
}

std::string toText(const RecordedReplay &r, const std::string &dataset,
                   const std::string &worldModel)
{
    std::ostringstream o;
    const FrameFidelityCurve &c = r.curve;
    o << "Frame fidelity against recordings: " << worldModel << " replaying " << dataset << " ("
      << r.episodes.size() << " episodes, camera " << r.camera << ", " << r.actionWidth
      << "-D actions in chunks of " << r.chunk << ", " << number(r.datasetFps, 0)
      << " fps)\nmean and 95% interval over episodes (percentile bootstrap)\n"
      << "  step   episodes   PSNR dB [95%]            SSIM [95%]\n";
    for (std::size_t i = 0; i < c.psnrMean.size(); ++i) {
        if (!(i == 0 || (i + 1) % 5 == 0 || i + 1 == c.psnrMean.size()))
            continue;
        auto interval = [&](const std::vector<double> &lo, const std::vector<double> &hi,
                            int precision) {
            if (lo.size() <= i || !std::isfinite(lo[i]))
                return std::string("[n/a]");
            return "[" + number(lo[i], precision) + ", " + number(hi[i], precision) + "]";
        };
        o << "  " << std::setw(4) << i + 1 << "   " << std::setw(8) << c.count[i] << "   "
          << std::setw(6) << number(c.psnrMean[i], 2) << " " << std::left << std::setw(18)
          << interval(c.psnrLower, c.psnrUpper, 2) << std::right << "   "
          << number(c.ssimMean[i], 3) << " " << interval(c.ssimLower, c.ssimUpper, 3) << "\n";
    }
    for (const std::string &n : r.notes)
        o << "note: " << n << "\n";
    o << "How well the world model predicts recorded video; not evidence of any policy's "
         "success.\n";
    return o.str();
}

} // namespace kosmos
