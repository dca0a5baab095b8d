// kosmos-bench-frame-codecs: how rollout frames could be stored, side by side ([fast-rollouts];
// docs/benchmarks.md). Frames of the synthetic tabletop and the physics tabletop at 320x256 (what
// the engine stores), encoded losslessly with each PNG candidate (the engine's encodeFramePng:
// libpng with one row filter; OpenCV's encoder at zlib levels and strategies), then decoded (what
// the player pays per frame step): ms per frame and bytes per frame.
//   kosmos-bench-frame-codecs [--frames N] [--repeat R]
#include "artifacts/ImageCodecs.h"
#include "physics/PhysicsWorldModel.h"
#include "physics/ScriptedPhysicsPolicy.h"
#include "synthetic/ScriptedPolicy.h"
#include "synthetic/TabletopWorldModel.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace kosmos;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<cv::Mat> framesOf(WorldModel &world, Policy &policy, const std::string &instruction,
                              int count)
{
    std::vector<cv::Mat> out;
    for (std::uint64_t episode = 0; static_cast<int>(out.size()) < count; ++episode) {
        WorldStart start;
        start.seed = episode;
        start.instruction = instruction;
        auto frames = world.reset(start);
        policy.reset(episode, instruction);
        for (int s = 0; s < 40 && static_cast<int>(out.size()) < count; ++s) {
            Observation obs;
            obs.image = frames.back();
            obs.instruction = instruction;
            obs.step = s;
            obs.state = world.state();
            obs.proprio = world.proprio();
            frames = world.step(policy.act(obs));
            out.push_back(frames.back().clone());
        }
    }
    return out;
}

struct Candidate
{
    const char *name;
    int level;
    int strategy;
};

void measure(const char *worldName, const std::vector<cv::Mat> &rgb, int repeat)
{
    const Candidate candidates[] = {
        {"libpng, no filter, level 1 (chosen)", -1, 0},
        {"opencv png level 3 (before)", 3, cv::IMWRITE_PNG_STRATEGY_DEFAULT},
        {"opencv png level 1", 1, cv::IMWRITE_PNG_STRATEGY_DEFAULT},
        {"opencv png level 1, RLE", 1, cv::IMWRITE_PNG_STRATEGY_RLE},
        {"opencv png level 1, filtered", 1, cv::IMWRITE_PNG_STRATEGY_FILTERED},
        {"opencv png level 1, Huffman only", 1, cv::IMWRITE_PNG_STRATEGY_HUFFMAN_ONLY},
        {"opencv png level 0 (stored)", 0, cv::IMWRITE_PNG_STRATEGY_DEFAULT},
    };
    std::vector<cv::Mat> bgr(rgb.size());
    for (std::size_t i = 0; i < rgb.size(); ++i)
        cv::cvtColor(rgb[i], bgr[i], cv::COLOR_RGB2BGR);
    for (const Candidate &c : candidates) {
        double encode = 0, decode = 0, bytes = 0;
        int n = 0;
        bool exact = true;
        for (int r = 0; r < repeat; ++r) {
            for (std::size_t i = 0; i < bgr.size(); ++i) {
                const cv::Mat &f = bgr[i];
                std::vector<uchar> png;
                auto t = Clock::now();
                if (c.level < 0)
                    png = encodeFramePng(rgb[i]); // what the engine stores (RGB in)
                else
                    cv::imencode(".png", f, png,
                                 {cv::IMWRITE_PNG_COMPRESSION, c.level, cv::IMWRITE_PNG_STRATEGY,
                                  c.strategy});
                encode += std::chrono::duration<double, std::milli>(Clock::now() - t).count();
                t = Clock::now();
                const cv::Mat back = cv::imdecode(png, cv::IMREAD_COLOR);
                decode += std::chrono::duration<double, std::milli>(Clock::now() - t).count();
                exact = exact && cv::norm(back, f, cv::NORM_INF) == 0;
                bytes += static_cast<double>(png.size());
                ++n;
            }
        }
        std::printf("%-9s %-36s encode %6.3f ms  decode %6.3f ms  %8.0f bytes/frame  %s\n",
                    worldName, c.name, encode / n, decode / n, bytes / n,
                    exact ? "lossless" : "NOT LOSSLESS");
    }
}

} // namespace

int main(int argc, char **argv)
{
    int frames = 120;
    int repeat = 3;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--frames") == 0)
            frames = std::stoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--repeat") == 0)
            repeat = std::stoi(argv[i + 1]);
    }
    {
        synthetic::TabletopWorldModel world;
        synthetic::ScriptedPolicy policy(synthetic::PolicySkill::byName("expert"));
        measure("synthetic",
                framesOf(world, policy, "put the red block in the green square", frames), repeat);
    }
    {
        physics::PhysicsWorldModel world(physics::SceneSettings{});
        physics::ScriptedPhysicsPolicy policy(physics::PhysicsSkill::Expert);
        measure("physics", framesOf(world, policy, "put the red block in the green square", frames),
                repeat);
    }
    return 0;
}
