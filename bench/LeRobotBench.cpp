// LeRobot dataset reading (docs/benchmarks.md, "LeRobot datasets"): opening a large v3.0 dataset
// (its metadata: info.json, tasks, the episode index), switching to an episode (its rows of the
// data file), its first frame, and all its frames, on a dataset made by
// tools/lerobot/make_bench_dataset.py (1,000 episodes x 500 frames by default).
//
//   kosmos-bench-lerobot DATASET [--episodes N]
#include "dataset/LeRobotDataset.h"
#include "media/LeRobotFrames.h"
#include "media/VideoDecoder.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace kosmos;
using Clock = std::chrono::steady_clock;

namespace {

double ms(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double, std::milli>(b - a).count();
}

void report(const char *what, std::vector<double> samples)
{
    std::sort(samples.begin(), samples.end());
    const auto at = [&](double q) {
        return samples[std::min(samples.size() - 1, static_cast<std::size_t>(q * samples.size()))];
    };
    std::printf("%-44s n=%3zu  median %8.2f ms  p95 %8.2f ms  max %8.2f ms\n", what, samples.size(),
                at(0.5), at(0.95), samples.back());
}

std::vector<double> time(int n, const std::function<void(int)> &run)
{
    std::vector<double> out;
    for (int i = 0; i < n; ++i) {
        const auto a = Clock::now();
        run(i);
        out.push_back(ms(a, Clock::now()));
    }
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: kosmos-bench-lerobot DATASET [--episodes N]\n");
        return 2;
    }
    const std::string folder = argv[1];
    const int samples =
        argc > 3 && std::strcmp(argv[2], "--episodes") == 0 ? std::atoi(argv[3]) : 50;
    try {
        // The first open loads the Parquet module and warms the file cache: timed apart.
        const auto cold = Clock::now();
        LeRobotDataset d = LeRobotDataset::open(folder);
        std::printf(
            "first open (module load, cold files):          %8.2f ms: %zu episodes, %lld frames\n",
            ms(cold, Clock::now()), d.episodes().size(),
            static_cast<long long>(d.info().totalFrames));
        report("open (metadata: info, tasks, episode index)",
               time(11, [&](int) { d = LeRobotDataset::open(folder); }));
        std::mt19937 rng(7);
        std::vector<std::int64_t> picks;
        for (int i = 0; i < samples; ++i)
            picks.push_back(d.episodes()[rng() % d.episodes().size()].index);
        const std::string camera = d.info().cameras().front();
        report("episode rows (readEpisode)",
               time(samples, [&](int i) { d.readEpisode(picks[i]); }));
        report("episode's first frame (seek + decode 1)", time(samples, [&](int i) {
                   const LeRobotVideoRef &v = d.episode(picks[i]).videos.at(camera);
                   decodeVideo(v.file, VideoWindow{v.fromTimestamp - 1e-4, v.fromTimestamp + 1e-4});
               }));
        report("switch: rows + first frame", time(samples, [&](int i) {
                   const LeRobotEpisodeData data = d.readEpisode(picks[i]);
                   const LeRobotVideoRef &v = d.episode(picks[i]).videos.at(camera);
                   decodeVideo(v.file, VideoWindow{v.fromTimestamp - 1e-4, v.fromTimestamp + 1e-4});
               }));
        report("episode rows + all its frames", time(samples, [&](int i) {
                   const LeRobotEpisodeData data = d.readEpisode(picks[i]);
                   decodeLeRobotFrames(d, data, camera);
               }));
        // What switching cost before windows: the whole file an episode lives in, decoded.
        report("(whole video file decoded, no window)",
               time(2, [&](int i) { decodeVideo(d.episode(picks[i]).videos.at(camera).file); }));
    } catch (const std::exception &e) {
        std::fprintf(stderr, "kosmos-bench-lerobot: %s\n", e.what());
        return 1;
    }
    return 0;
}
