// kosmos-bench-mjcf: physics.mjcf's own cost on ALOHA sim (docs/benchmarks.md).
//   kosmos-bench-mjcf --package-dirs SITE_PACKAGES [--steps N]
// Physics ms per 50 Hz control step (10 substeps, MuJoCo 4 from the wheel) and render ms per frame
// of the top camera at two sizes, shadows and reflections off and on (EGL surfaceless; llvmpipe
// without a GPU), with both arms sweeping through their joint ranges (the scripted experts cannot
// run in this process: they plan on Debian's MuJoCo 2.2).
#include "mjcf/MjcfWorld.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

using namespace kosmos;
using namespace kosmos::mjcf;

namespace {

void measure(const std::string &packageDir, const std::string &instruction, int width, int height,
             bool shadows, int steps)
{
    WorldSettings s;
    s.width = width;
    s.height = height;
    s.shadows = shadows;
    s.reflections = shadows;
    s.lookup.packageDirs = {packageDir};
    MjcfWorld world(s);
    double physics = 0;
    double render = 0;
    int frames = 0;
    int episodes = 0;
    for (int done = 0; done < steps; ++episodes) {
        WorldStart start;
        start.seed = static_cast<std::uint64_t>(episodes);
        start.instruction = instruction;
        world.reset(start);
        render += world.lastCallStats()["render_ms"].get<double>() / 1000;
        ++frames;
        for (int t = 0; t < 400 && done < steps; ++t, ++done) {
            const double phase = 2 * M_PI * t / 200.0;
            Action a = {0.3 * std::sin(phase),      -0.96 + 0.4 * std::sin(phase), 1.16, 0, -0.3, 0,
                        0.5 + 0.5 * std::sin(phase)};
            Action right = a;
            right[0] = -right[0];
            a.insert(a.end(), right.begin(), right.end());
            world.step({a});
            physics += world.lastCallStats()["physics_ms"].get<double>() / 1000;
            render += world.lastCallStats()["render_ms"].get<double>() / 1000;
            ++frames;
        }
    }
    std::printf("%-14s %dx%d shadows+reflections %-3s: %d steps (%d episodes): physics %.3f ms "
                "per step, render %.2f ms per frame, physics + render %.2f ms per step\n",
                instruction.substr(0, 14).c_str(), width, height, shadows ? "on" : "off", steps,
                episodes, 1000 * physics / steps, 1000 * render / frames,
                1000 * (physics + render) / steps);
}

} // namespace

int main(int argc, char **argv)
{
    int steps = 800;
    std::string dir;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], "--steps") == 0)
            steps = std::stoi(argv[i + 1]);
        else if (std::strcmp(argv[i], "--package-dirs") == 0)
            dir = argv[i + 1];
    }
    if (dir.empty()) {
        std::fprintf(
            stderr,
            "usage: kosmos-bench-mjcf --package-dirs SITE_PACKAGES [--steps N]\n"
            "(the folder that holds gym_aloha: .worlds/venv/lib/python3.11/site-packages)\n");
        return 2;
    }
    for (const char *task : {"Pick up the cube with the right arm and transfer it to the left arm.",
                             "Insert the peg into the socket."}) {
        measure(dir, task, 160, 120, false, steps);
        measure(dir, task, 640, 480, false, steps);
        measure(dir, task, 160, 120, true, steps / 4);
    }
    return 0;
}
