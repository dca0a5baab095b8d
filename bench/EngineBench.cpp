// kosmos-bench-engine: the rollout engine's own cost (docs/benchmarks.md).
//   kosmos-bench-engine [WORKDIR] [--episodes N] [--policy-ms MS]
// Runs the synthetic tabletop protocol (320x256 frames, expert policy, horizon 40; with and
// without the judge) and reads back the per-run "timings" events: steps per second, the
// engine's critical-path overhead per step (the rollout's wall time from the world's reset to
// its last frame recorded durably, minus the policy and world-model calls: handing frames to the
// frame pipeline, back-pressure, contract checks, events, recording frames) and the per-stage
// split. --policy-ms adds a fixed latency to every policy call (a sleep: a remote or GPU policy
// such as pi0 at 20-40 ms), so the background threads have the time a real policy leaves them.
#include "SyntheticFactory.h"
#include "ledger/Ledger.h"
#include "pipeline/RolloutEngine.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <thread>
#include <vector>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {

void measure(const fs::path &dir, int episodes, int workers, bool judge, int policyMs)
{
    const fs::path bundle = dir / ("engine-" + std::to_string(workers) + (judge ? "-judge" : "") +
                                   "-" + std::to_string(policyMs) + "ms.kosmos");
    fs::remove_all(bundle);
    Ledger::create(bundle);
    // Plugin ids that no prompt can contain by chance (the judge's prompt is blinded against them).
    nlohmann::json doc = {
        {"kosmos_protocol", 1},
        {"name", "bench"},
        {"seed", 1},
        {"horizon", 40},
        {"episodes_per_task", episodes},
        {"tasks", {{{"id", "t"}, {"instruction", "put the red block in the green square"}}}},
        {"policies", {{{"plugin", "bench-policy"}, {"settings", {{"skill", "expert"}}}}}},
        {"world_model", {{"plugin", "bench-world"}}}};
    if (judge)
        doc["judge"] = {{"plugin", "bench-judge"}};
    const Protocol protocol = Protocol::fromJson(doc);
    bench::SyntheticFactory factory("expert", policyMs);
    RolloutEngine engine(bundle, factory, EngineOptions{workers, 30000, 5000, "bench"});
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    const auto start = std::chrono::steady_clock::now();
    const BatchResult result = engine.run(protocol, batch, stop);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (result.completed != episodes)
        std::fprintf(stderr, "warning: %d of %d runs completed (%d failed)\n", result.completed,
                     episodes, result.failed);

    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    double policy = 0, world = 0, judgeMs = 0, store = 0, validation = 0, overhead = 0,
           backpressure = 0, atEnd = 0, frames = 0;
    int runs = 0;
    for (std::int64_t after = 0;;) {
        const auto events = ledger.eventsSince(after, 5000);
        if (events.empty())
            break;
        for (const auto &e : events) {
            after = e.eventId;
            if (e.type != "timings")
                continue;
            const auto t = nlohmann::json::parse(e.payloadJson);
            ++runs;
            policy += t["stage_ms"]["policy"].get<double>();
            world += t["stage_ms"]["world_model"].get<double>();
            judgeMs += t["stage_ms"]["judge"].get<double>();
            store += t["stage_ms"]["encode_and_store"].get<double>();
            validation += t["stage_ms"]["validation"].get<double>();
            overhead += t["critical_path"]["rollout_overhead_ms"].get<double>();
            backpressure += t["critical_path"]["backpressure_ms"].get<double>();
            atEnd += t["critical_path"]["frames_settle_ms"].get<double>();
            frames += 41; // 40 actions, one frame each, and the conditioning frame
        }
    }
    const double steps = 40.0 * episodes;
    std::printf("| %d | %d | %s | %d | %.0f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
                episodes, workers, judge ? "yes" : "no", policyMs, steps / wall, overhead / steps,
                backpressure / steps, atEnd / steps, (policy + world) / steps, store / frames,
                validation / frames, judgeMs / steps);
}

} // namespace

int main(int argc, char **argv)
{
    fs::path dir = "bench-data";
    int episodes = 20;
    std::vector<int> policyMs = {0, 20};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--episodes" && i + 1 < argc)
            episodes = std::stoi(argv[++i]);
        else if (arg == "--policy-ms" && i + 1 < argc)
            policyMs = {std::stoi(argv[++i])};
        else
            dir = arg;
    }
    fs::create_directories(dir);
    std::printf("| episodes | workers | judge | policy latency ms | steps/s (wall) | critical-path "
                "overhead ms/step | of which back-pressure | of which frames still queued at "
                "the end | policy+world ms/step | background encode+store ms/frame | "
                "validation ms/frame (beside) | judge ms/step |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int ms : policyMs) {
        measure(dir, episodes, 1, false, ms);
        measure(dir, episodes, 1, true, ms);
        measure(dir, episodes, 2, true, ms);
    }
    return 0;
}
