// kosmos-bench-physics: the physics reference world's own cost (docs/benchmarks.md).
//   kosmos-bench-physics [--steps N]
// Physics steps per second (MuJoCo alone, 100 substeps per 5 Hz action), rendered frames per
// second at the contract sizes (EGL surfaceless; llvmpipe without a GPU), and one action's cost
// (physics + render) as the engine pays it, with the expert policy acting.
#include "physics/PhysicsTabletop.h"
#include "physics/ScriptedPhysicsPolicy.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

using namespace kosmos;
using namespace kosmos::physics;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

void measure(int width, int height, int steps)
{
    SceneSettings settings;
    settings.width = width;
    settings.height = height;
    TabletopSim sim(settings);
    ScriptedPhysicsPolicy policy(PhysicsSkill::Expert);
    const std::string instruction = "put the red block in the green square";
    const TabletopTask task = parseTask(instruction);
    double physics = 0, render = 0;
    std::int64_t substeps = 0;
    int episodes = 0;
    for (int done = 0; done < steps; ++episodes) {
        sim.reset(sampleStart(task, static_cast<std::uint64_t>(episodes)));
        policy.reset(static_cast<std::uint64_t>(episodes), instruction);
        auto t = Clock::now();
        sim.render();
        render += seconds(t);
        for (int s = 0; s < 50 && done < steps; ++s, ++done) {
            Observation obs;
            obs.state = sim.state();
            const Action a = policy.act(obs).front();
            const auto before = sim.physicsSteps();
            t = Clock::now();
            sim.step(a);
            physics += seconds(t);
            substeps += sim.physicsSteps() - before;
            t = Clock::now();
            sim.render();
            render += seconds(t);
        }
    }
    std::printf("%dx%d: %d actions (%d episodes): physics %.0f substeps/s (%.2f ms per action), "
                "render %.0f frames/s (%.2f ms per frame), physics + render %.2f ms per action\n",
                width, height, steps, episodes, static_cast<double>(substeps) / physics,
                1000 * physics / steps, (steps + episodes) / render,
                1000 * render / (steps + episodes), 1000 * (physics + render) / steps);
}

} // namespace

int main(int argc, char **argv)
{
    int steps = 2000;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--steps") == 0)
            steps = std::stoi(argv[i + 1]);
    }
    measure(128, 128, steps);
    measure(320, 256, steps);
    return 0;
}
