// kosmos-bench-validation-flow: how validation's observed motion could be measured, side by side
// ([fast-rollouts]; docs/benchmarks.md). Rollouts of the synthetic tabletop and the physics
// tabletop at 320x256 with their scripted policies (expert, noisy, confused); for each candidate
// (the optical-flow method, its resolution, the share of frame pairs measured, OpenCV's thread
// count) the time a frame costs the measure thread, and what the commanded-vs-observed motion
// check concludes: its Pearson r per rollout against the reference's (validator version 2), how
// often its verdict agrees, and whether it still fails rollouts whose actions are shuffled (a
// mismatch the check exists to catch).
//   kosmos-bench-validation-flow [--episodes N] [--threads T]
#include "physics/PhysicsWorldModel.h"
#include "physics/ScriptedPhysicsPolicy.h"
#include "stats/Agreement.h"
#include "synthetic/ScriptedPolicy.h"
#include "synthetic/TabletopWorldModel.h"
#include "validation/RolloutValidator.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

using namespace kosmos;
using Clock = std::chrono::steady_clock;

namespace {

struct Episode
{
    std::vector<cv::Mat> frames;   // RGB, frame 0 the start
    std::vector<double> commanded; // |dxyz| of the action that made frame i+1
};

std::vector<Episode> episodesOf(WorldModel &world,
                                const std::function<std::unique_ptr<Policy>()> &make,
                                const std::string &instruction, int count, std::uint64_t seed0)
{
    std::vector<Episode> out;
    for (int e = 0; e < count; ++e) {
        auto policy = make();
        WorldStart start;
        start.seed = seed0 + static_cast<std::uint64_t>(e);
        start.instruction = instruction;
        auto frames = world.reset(start);
        policy->reset(start.seed, instruction);
        Episode ep;
        ep.frames.push_back(frames.back().clone());
        for (int s = 0; s < 40; ++s) {
            Observation obs;
            obs.image = frames.back();
            obs.instruction = instruction;
            obs.step = s;
            obs.state = world.state();
            obs.proprio = world.proprio();
            const ActionChunk chunk = policy->act(obs);
            frames = world.step(chunk);
            const Action &a = chunk.back();
            ep.frames.push_back(frames.back().clone());
            ep.commanded.push_back(std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]));
        }
        out.push_back(std::move(ep));
    }
    return out;
}

cv::Mat greyOf(const cv::Mat &rgb)
{
    cv::Mat g;
    cv::cvtColor(rgb, g, cv::COLOR_RGB2GRAY);
    return g;
}

struct Candidate
{
    std::string name;
    std::string method; // farneback | farneback_fast | dis_ultrafast | dis_fast
    int width = 128;
    int every = 1; // measure one frame pair in `every`
};

// The per-rollout measurement a candidate makes: the whole of FrameMeasurements::add's work per
// frame (grey, statistics, differences) plus its flow; returns ms per frame and the motion of each
// transition (NaN where the candidate did not measure it).
double measure(const Candidate &c, const Episode &ep, std::vector<double> &motion)
{
    cv::Ptr<cv::DISOpticalFlow> dis;
    if (c.method == "dis_ultrafast")
        dis = cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_ULTRAFAST);
    else if (c.method == "dis_fast")
        dis = cv::DISOpticalFlow::create(cv::DISOpticalFlow::PRESET_FAST);
    motion.assign(ep.commanded.size(), std::nan(""));
    const auto t0 = Clock::now();
    cv::Mat lastGrey, lastSmall;
    for (std::size_t i = 0; i < ep.frames.size(); ++i) {
        const cv::Mat g = greyOf(ep.frames[i]);
        cv::Scalar mean, stddev;
        cv::meanStdDev(g, mean, stddev);
        const double scale = static_cast<double>(c.width) / g.cols;
        cv::Mat small;
        cv::resize(g, small, cv::Size(), scale, scale, cv::INTER_AREA);
        if (!lastGrey.empty()) {
            cv::Mat d;
            cv::absdiff(lastGrey, g, d);
            volatile double diff = cv::mean(d)[0];
            volatile int changed = cv::countNonZero(d > 12);
            (void)diff;
            (void)changed;
            if ((i - 1) % static_cast<std::size_t>(c.every) == 0) {
                cv::Mat flow;
                if (c.method == "farneback")
                    cv::calcOpticalFlowFarneback(lastSmall, small, flow, 0.5, 3, 15, 3, 5, 1.2, 0);
                else if (c.method == "farneback_fast")
                    cv::calcOpticalFlowFarneback(lastSmall, small, flow, 0.5, 2, 9, 2, 5, 1.1, 0);
                else
                    dis->calc(lastSmall, small, flow);
                motion[i - 1] = topFlowMagnitude(flow, scale);
            }
        }
        lastGrey = g;
        lastSmall = small;
    }
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count() /
           static_cast<double>(ep.frames.size());
}

// The motion check's r over the measured transitions with commanded motion (as validateRollout:
// at least 6 moving samples, else not applicable: NaN).
double checkR(const std::vector<double> &commanded, const std::vector<double> &motion)
{
    std::vector<double> c, o;
    int moving = 0;
    for (std::size_t i = 0; i < commanded.size() && i < motion.size(); ++i) {
        if (std::isnan(motion[i]))
            continue;
        c.push_back(commanded[i]);
        o.push_back(motion[i]);
        moving += commanded[i] > 0.005;
    }
    if (moving < 6)
        return std::nan("");
    return pearson(c, o).value_or(-2.0);
}

void run(const char *worldName, const std::vector<Episode> &episodes,
         const std::vector<Candidate> &candidates)
{
    std::vector<std::vector<double>> refMotion(episodes.size());
    for (const Candidate &c : candidates) {
        double ms = 0;
        std::vector<double> pairsRef, pairsCand, rRef, rCand;
        int agree = 0, verdicts = 0, matchedFail = 0, mismatched = 0, mismatchedFail = 0;
        std::vector<std::vector<double>> motions(episodes.size());
        for (std::size_t e = 0; e < episodes.size(); ++e)
            ms += measure(c, episodes[e], motions[e]);
        ms /= static_cast<double>(episodes.size());
        const bool isRef = &c == &candidates.front();
        if (isRef)
            refMotion = motions;
        for (std::size_t e = 0; e < episodes.size(); ++e) {
            for (std::size_t i = 0; i < motions[e].size(); ++i) {
                if (!std::isnan(motions[e][i])) {
                    pairsRef.push_back(refMotion[e][i]);
                    pairsCand.push_back(motions[e][i]);
                }
            }
            const double r0 = checkR(episodes[e].commanded, refMotion[e]);
            const double r1 = checkR(episodes[e].commanded, motions[e]);
            if (!std::isnan(r0) && !std::isnan(r1)) {
                rRef.push_back(r0);
                rCand.push_back(r1);
                ++verdicts;
                agree += (r0 < 0.2) == (r1 < 0.2);
                matchedFail += r1 < 0.2;
            }
            // These frames with their actions in another order (a fixed shuffle): the check
            // should fail.
            std::vector<double> shuffled = episodes[e].commanded;
            std::mt19937 rng(static_cast<unsigned>(e) + 1);
            std::shuffle(shuffled.begin(), shuffled.end(), rng);
            const double rx = checkR(shuffled, motions[e]);
            if (!std::isnan(rx)) {
                ++mismatched;
                mismatchedFail += rx < 0.2;
            }
        }
        double meanAbsDr = 0;
        for (std::size_t k = 0; k < rRef.size(); ++k)
            meanAbsDr += std::abs(rRef[k] - rCand[k]);
        meanAbsDr /= std::max<std::size_t>(1, rRef.size());
        const auto motionR = pearson(pairsRef, pairsCand);
        std::printf("| %s | %s | %.3f | %.0f | %.3f | %.3f | %d/%d | %d/%d | %d/%d |\n", worldName,
                    c.name.c_str(), ms, 1000.0 / ms, motionR.value_or(std::nan("")), meanAbsDr,
                    agree, verdicts, matchedFail, verdicts, mismatchedFail, mismatched);
        std::fflush(stdout);
    }
}

} // namespace

int main(int argc, char **argv)
{
    int episodes = 12;
    int threads = -1;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--episodes") == 0)
            episodes = std::stoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--threads") == 0)
            threads = std::stoi(argv[i + 1]);
    }
    if (threads >= 0)
        cv::setNumThreads(threads);
    const std::vector<Candidate> candidates = {
        {"farneback@128, every pair (validator 2)", "farneback", 128, 1},
        {"farneback@128, every 2nd pair", "farneback", 128, 2},
        {"farneback@96", "farneback", 96, 1},
        {"farneback@64", "farneback", 64, 1},
        {"farneback 2 levels, win 9, 2 iterations @128", "farneback_fast", 128, 1},
        {"DIS ultrafast@128", "dis_ultrafast", 128, 1},
        {"DIS fast@128", "dis_fast", 128, 1},
        {"DIS ultrafast@320", "dis_ultrafast", 320, 1},
    };
    std::printf("OpenCV threads: %d\n\n", cv::getNumThreads());
    std::printf("| world | flow | ms/frame | frames/s | r(motion, reference) | mean abs r diff | "
                "verdicts agree | failing | failing, actions shuffled |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    const std::string instruction = "put the red block in the green square";
    const int third = std::max(1, episodes / 3);
    {
        synthetic::TabletopWorldModel world;
        std::vector<Episode> all;
        for (const char *skill : {"expert", "noisy", "confused"}) {
            auto eps = episodesOf(
                world,
                [skill] {
                    return std::make_unique<synthetic::ScriptedPolicy>(
                        synthetic::PolicySkill::byName(skill));
                },
                instruction, third, 20261207);
            all.insert(all.end(), eps.begin(), eps.end());
        }
        run("synthetic", all, candidates);
    }
    {
        physics::PhysicsWorldModel world(physics::SceneSettings{});
        std::vector<Episode> all;
        for (auto skill : {physics::PhysicsSkill::Expert, physics::PhysicsSkill::Noisy}) {
            auto eps = episodesOf(
                world, [skill] { return std::make_unique<physics::ScriptedPhysicsPolicy>(skill); },
                instruction, third, 20261207);
            all.insert(all.end(), eps.begin(), eps.end());
        }
        run("physics", all, candidates);
    }
    return 0;
}
