#pragma once

// Frame fidelity against recordings (`kosmos-cli fidelity replay DIR --world-model CONFIG`,
// docs/fidelity.md "Against recorded episodes"): each episode of a LeRobot dataset has its
// recorded actions replayed open loop in a world model, from the episode's first recorded frame
// of one camera, and every predicted frame is compared with the recorded one (resized to the
// model's frame size, area interpolation) by PSNR and SSIM: a curve over steps, with the mean and
// a 95% interval over episodes. The check WorldGym-style papers make on real robot video. Nothing
// is written anywhere.

#include "evaluation/Fidelity.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kosmos {

class LeRobotDataset;
class WorldModel;

struct RecordedReplayOptions
{
    std::vector<std::int64_t> episodes; // empty: every episode
    std::string camera;                 // empty: the dataset's first camera
    std::string actionKey = "action";
    int replicates = 2000; // the intervals' bootstrap
    std::uint64_t seed = 20261205;
};

struct RecordedReplay
{
    FrameFidelityCurve curve;
    std::vector<std::int64_t> episodes; // replayed, in order
    std::string camera;
    std::string instruction; // the first episode's task, as the world model was given it
    double datasetFps = 0;
    double worldFps = 0;
    int actionWidth = 0;
    int chunk = 1; // actions per world-model call (its first certified chunk length)
    std::vector<std::string> notes; // e.g. actions left over after the last whole chunk
};

// Throws Error(InvalidInput) before anything is replayed when the world model cannot take the
// dataset's actions (their width against its action contract, its frames per action, its rate
// against the dataset's fps) or an episode is not in the dataset, naming both sides; and for an
// action the world model's contract refuses (out of bounds ...), naming the episode and row.
// `progress(done, total)` after each episode; a stop request ends between episodes.
RecordedReplay replayRecorded(const LeRobotDataset &dataset, WorldModel &world,
                              const RecordedReplayOptions &options,
                              const std::atomic<bool> *stop = nullptr,
                              const std::function<void(int, int)> &progress = {});

nlohmann::json toJson(const RecordedReplay &replay);
std::string toText(const RecordedReplay &replay, const std::string &dataset,
                   const std::string &worldModel);

} // namespace kosmos
