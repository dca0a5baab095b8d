// kosmos-bench-engine: the rollout engine's own cost (docs/benchmarks.md).
//   kosmos-bench-engine [WORKDIR] [--episodes N]
// Runs the synthetic tabletop protocol (expert policy, horizon 40, judge with 5 samples) and
// reads back the per-run "timings" events: orchestration overhead per step (engine time
// excluding adapter calls, divided by total) and synthetic steps per second.
#include "ledger/Ledger.h"
#include "pipeline/RolloutEngine.h"
#include "synthetic/FrameJudge.h"
#include "synthetic/ScriptedPolicy.h"
#include "synthetic/TabletopWorldModel.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {

class Factory : public ComponentFactory
{
public:
    std::string version(const std::string &) override { return "1.0.0"; }
    std::unique_ptr<Policy> createPolicy(const ComponentSpec &spec) override
    {
        return std::make_unique<synthetic::ScriptedPolicy>(
            synthetic::PolicySkill::byName(spec.settings.value("skill", "expert")));
    }
    std::unique_ptr<WorldModel> createWorldModel(const ComponentSpec &) override
    {
        return std::make_unique<synthetic::TabletopWorldModel>();
    }
    std::unique_ptr<Judge> createJudge(const ComponentSpec &) override
    {
        return std::make_unique<synthetic::FrameJudge>(0.1);
    }
};

void measure(const fs::path &dir, int episodes, int workers, bool judge)
{
    const fs::path bundle =
        dir / ("engine-" + std::to_string(workers) + (judge ? "-judge" : "") + ".kosmos");
    fs::remove_all(bundle);
    Ledger::create(bundle);
    nlohmann::json doc = {
        {"kosmos_protocol", 1},
        {"name", "bench"},
        {"seed", 1},
        {"horizon", 40},
        {"episodes_per_task", episodes},
        {"tasks", {{{"id", "t"}, {"instruction", "put the red block in the green square"}}}},
        {"policies", {{{"plugin", "p"}, {"settings", {{"skill", "expert"}}}}}},
        {"world_model", {{"plugin", "w"}}}};
    if (judge)
        doc["judge"] = {{"plugin", "j"}};
    const Protocol protocol = Protocol::fromJson(doc);
    Factory factory;
    RolloutEngine engine(bundle, factory, EngineOptions{workers, 30000, 5000, "bench"});
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    const auto start = std::chrono::steady_clock::now();
    engine.run(protocol, batch, stop);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    double total = 0, policy = 0, world = 0, judgeMs = 0, store = 0, validation = 0;
    for (std::int64_t after = 0;;) {
        const auto events = ledger.eventsSince(after, 5000);
        if (events.empty())
            break;
        for (const auto &e : events) {
            after = e.eventId;
            if (e.type != "timings")
                continue;
            const auto t = nlohmann::json::parse(e.payloadJson);
            total += t["total_ms"].get<double>();
            policy += t["stage_ms"]["policy"].get<double>();
            world += t["stage_ms"]["world_model"].get<double>();
            judgeMs += t["stage_ms"]["judge"].get<double>();
            store += t["stage_ms"]["encode_and_store"].get<double>();
            validation += t["stage_ms"]["validation"].get<double>();
        }
    }
    const double steps = 40.0 * episodes;
    const double adapters = policy + world + judgeMs;
    std::printf("| %d | %d | %s | %.0f | %.1f | %.2f | %.2f | %.2f | %.2f | %.1f%% |\n", episodes,
                workers, judge ? "yes" : "no", steps / wall, total / steps,
                (policy + world) / steps, store / steps, validation / steps, judgeMs / steps,
                100.0 * (total - adapters) / total);
}

} // namespace

int main(int argc, char **argv)
{
    fs::path dir = "bench-data";
    int episodes = 20;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--episodes" && i + 1 < argc)
            episodes = std::stoi(argv[++i]);
        else
            dir = arg;
    }
    fs::create_directories(dir);
    std::printf(
        "| episodes | workers | judge | steps/s (wall) | ms/step total | policy+world ms/step | "
        "encode+store ms/step | validation ms/step | judge ms/step | orchestration overhead |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n");
    measure(dir, episodes, 1, false);
    measure(dir, episodes, 1, true);
    measure(dir, episodes, 2, true);
    return 0;
}
