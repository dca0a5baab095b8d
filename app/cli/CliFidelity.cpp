// kosmos-cli fidelity prepare / fidelity: learned world model against the physics reference
// (core/evaluation/Fidelity.h; docs/fidelity.md).
#include "CliCommands.h"

#include "dataset/LeRobotDataset.h"
#include "evaluation/Calibration.h"
#include "evaluation/Fidelity.h"
#include "evaluation/OpenLoopTwin.h"
#include "evaluation/RecordedFidelity.h"
#include "host/PluginRegistry.h"
#include "ledger/Ledger.h"
#include "pipeline/LeRobotImport.h"
#include "protocol/Protocol.h"
#include "queries/LatestRuns.h"
#include "queries/RolloutQuery.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/FileWrite.h"

#include "TerminalProgress.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace fs = std::filesystem;
using namespace kosmos;

namespace {

nlohmann::json readConfig(const std::string &path, const std::string &what)
{
    json::Limits limits;
    limits.maxBytes = 1u << 20;
    limits.maxDepth = 16;
    limits.rejectDuplicateKeys = true;
    nlohmann::json j = json::parseFile(path, limits);
    if (!j.is_object() || !j.contains("plugin") || !j["plugin"].is_string())
        throw Error(ErrorCode::InvalidInput,
                    path + ": a " + what +
                        " configuration is {\"plugin\": ..., \"settings\": {...}}");
    return j;
}

// Frame 0 of each run of a protocol (the start the world rendered), by run id.
std::map<std::int64_t, std::string> startFrames(Ledger &ledger, const std::vector<RunRecord> &runs)
{
    std::map<std::int64_t, std::string> out;
    for (const auto &run : runs) {
        const RolloutView view = loadRollout(ledger, run.runId);
        if (!view.frames.empty())
            out[run.runId] = view.frames.front().sha256;
    }
    return out;
}

// The physics label of a protocol entry's runs among `labelled`, if it ran.
std::optional<std::string> physicsLabelOf(const std::vector<LatestRun> &labelled,
                                          const std::string &plugin, const nlohmann::json &settings)
{
    for (const LatestRun &run : labelled)
        if (adapterAndSettings(run.policyLabel) == std::pair{plugin, settings})
            return run.policyLabel;
    return std::nullopt;
}

// `fidelity prepare --in-physics I`: the physics protocol again, each policy replaced by the
// actions it took in I (closed loop, or an open-loop twin's replay), from the same starts.
int prepareInPhysics(const FidelityPrepareOptions &o)
{
    Ledger ledger = Ledger::open(o.bundle, {OpenMode::ReadOnly});
    const auto [name, sha] = findRolloutProtocol(ledger, o.physicsProtocol);
    const auto [imaginedName, imaginedSha] = findRolloutProtocol(ledger, o.inPhysics);
    if (sha == imaginedSha)
        throw Error(ErrorCode::InvalidInput, "--in-physics names the physics protocol " + name +
                                                 " itself, not its imagined protocol");
    const auto frozen = ledger.protocol(sha);
    const auto imaginedDoc = ledger.protocol(imaginedSha);
    if (!frozen || !imaginedDoc)
        throw Error(ErrorCode::NotFound,
                    "protocol " + (frozen ? imaginedSha : sha) + " is not in the ledger");
    if (imaginedDoc->value("horizon", 0) > frozen->value("horizon", 0))
        throw Error(ErrorCode::InvalidInput, imaginedName + "'s horizon is longer than " + name +
                                                 "'s: its actions cannot all be replayed from " +
                                                 name + "'s starts");
    const fs::path dir = fs::absolute(o.directory);
    if (fs::exists(dir) && !fs::is_empty(dir))
        throw Error(ErrorCode::InvalidInput, dir.string() + " exists and is not empty");
    std::map<std::string, std::uint64_t> seedOf; // "<task>#<episode>" -> its policy's reset seed
    {
        const Protocol parsed = Protocol::fromJson(*frozen);
        for (const RunPlan &plan : expandRuns(parsed))
            seedOf.emplace(parsed.tasks[static_cast<std::size_t>(plan.taskIndex)].id + "#" +
                               std::to_string(plan.episodeIndex),
                           policySeedOf(plan.seed));
    }
    const auto labelled = latestRuns(ledger, {sha, true, "physics"});
    const auto imaginedRuns = latestRuns(ledger, {imaginedSha, true, std::nullopt});
    nlohmann::json replay = *frozen;
    replay["name"] = imaginedName + "-in-physics";
    replay["description"] =
        "The actions the policies of " + imaginedName + " (" + imaginedSha.substr(0, 12) +
        "...) took in its world model, replayed in the world of " + name + " (" +
        sha.substr(0, 12) +
        "...) from the same starts (kosmos-cli fidelity prepare --in-physics): whether the "
        "actions the world model was judged on succeed in physics. A replay, not a policy's "
        "skill.";
    std::vector<std::string> lines;
    int policy = 0;
    for (auto &entry : replay["policies"]) {
        const std::string plugin = entry.value("plugin", "");
        const nlohmann::json settings = entry.value("settings", nlohmann::json::object());
        const auto label = physicsLabelOf(labelled, plugin, settings);
        if (!label)
            throw Error(ErrorCode::InvalidInput, plugin + " " + settings.dump() +
                                                     ": no run of it is in " + name +
                                                     " to pair its replay with");
        // Its imagined runs: by its own settings (closed loop) or an open-loop twin of it.
        std::vector<LatestRun> mine;
        for (const LatestRun &run : imaginedRuns) {
            const auto [adapter, s] = adapterAndSettings(run.policyLabel);
            const bool twin = adapter == "replay.actions" && s.is_object() &&
                              s.value("replays", std::string()) == *label;
            if (twin || std::pair{adapter, s} == std::pair{plugin, settings}) {
                mine.push_back(run);
                mine.back().policyLabel = *label;
            }
        }
        if (mine.empty())
            throw Error(ErrorCode::InvalidInput, *label + " has no run in " + imaginedName +
                                                     " whose actions could be replayed");
        const OpenLoopTwin twin =
            imaginedActionsTwin(ledger, *label, mine, seedOf, imaginedDoc->value("horizon", 0));
        const fs::path file = dir / "replays" / ("policy-" + std::to_string(policy++) + ".json");
        fs::create_directories(file.parent_path());
        writeFileAtomically(file, twin.document.dump() + "\n");
        entry = {{"plugin", "replay.actions"},
                 {"settings",
                  {{"by_seed", file.string()}, {"replays", *label}, {"actions_from", "imagined"}}}};
        lines.push_back(policyDisplayName(*label) + ": its actions in " + imaginedName + " (" +
                        std::to_string(twin.episodes) + " starts)");
    }
    // The imagined horizon: the replays hold that many actions. The physics protocol's judge, if
    // it has one, stays: its verdicts on the replays' physics frames say whether an error on the
    // very actions is the judge's or the world model's frames'.
    replay["horizon"] = imaginedDoc->value("horizon", 0);
    const fs::path out = dir / "in-physics.json";
    writeFileAtomically(out, replay.dump(2) + "\n");
    for (const std::string &line : lines)
        std::cout << line << "\n";
    std::cout << "protocol " << out.string() << " (" << replay["name"].get<std::string>()
              << ")\nnext: kosmos-cli run " << out.string() << " --ledger " << o.bundle
              << "\nthen: kosmos-cli fidelity " << o.bundle << " --physics " << name
              << " --imagined " << imaginedName << " --in-physics "
              << replay["name"].get<std::string>() << "\n";
    return ExitCode::Ok;
}

} // namespace

int runFidelityPrepare(const FidelityPrepareOptions &o)
{
    try {
        if (!o.inPhysics.empty())
            return prepareInPhysics(o);
        Ledger ledger = Ledger::open(o.bundle, {OpenMode::ReadOnly});
        const auto [name, sha] = findRolloutProtocol(ledger, o.physicsProtocol);
        const auto frozen = ledger.protocol(sha);
        if (!frozen)
            throw Error(ErrorCode::NotFound, "protocol " + sha + " is not in the ledger");
        const nlohmann::json world = readConfig(o.worldModelConfig, "world-model");
        const nlohmann::json judge = readConfig(o.judgeConfig, "judge");
        const fs::path dir = fs::absolute(o.directory);
        if (fs::exists(dir) && !fs::is_empty(dir))
            throw Error(ErrorCode::InvalidInput, dir.string() + " exists and is not empty");
        fs::create_directories(dir / "starts");
        // One imagined task per physics start (task, episode): its frame 0, the same for every
        // policy (the start is drawn from the episode's seed), else the protocol is refused.
        const auto runs = protocolRuns(ledger, sha);
        const auto frames = startFrames(ledger, runs);
        std::map<std::string, std::pair<std::string, std::string>> starts; // lineage -> sha, instr
        for (const auto &run : runs) {
            const auto f = frames.find(run.runId);
            if (f == frames.end())
                continue; // a failed attempt without frames: no start to imagine from
            const std::string lineage =
                run.task.value_or("") + "#" + std::to_string(run.episodeIndex);
            const auto [it, inserted] =
                starts.emplace(lineage, std::pair{f->second, run.instruction.value_or("")});
            if (!inserted && it->second.first != f->second)
                throw Error(ErrorCode::InvalidInput,
                            "runs of " + lineage + " start from different frames (run " +
                                std::to_string(run.runId) +
                                "): the physics protocol's starts are not shared by its policies");
        }
        if (starts.empty())
            throw Error(ErrorCode::InvalidInput, "protocol " + name + " has no run with frames");
        nlohmann::json tasks = nlohmann::json::array();
        for (const auto &[lineage, start] : starts) {
            std::string file = lineage;
            std::replace(file.begin(), file.end(), '#', '_');
            const fs::path png = dir / "starts" / (file + ".png");
            const auto bytes = ledger.artifacts().read(start.first);
            writeFileAtomically(
                png, std::string_view(reinterpret_cast<const char *>(bytes.data()), bytes.size()));
            tasks.push_back(
                {{"id", lineage},
                 {"instruction", start.second},
                 {"start_state", {{"frame", png.string()}, {"frame_sha256", start.first}}}});
        }
        nlohmann::json imagined = *frozen;
        const bool openLoop = o.everyPolicyOpenLoop;
        imagined["name"] = name + (openLoop ? "-open-loop" : "-imagined");
        imagined["description"] =
            "The policies of " + name + " (" + sha.substr(0, 12) + "...) " +
            (openLoop ? std::string("replaying the actions each took in physics, open loop, ")
                      : std::string()) +
            "from the same physics start frames, in a learned world model, judged by a judge "
            "(kosmos-cli fidelity prepare" +
            (openLoop ? " --open-loop" : "") +
            "). A generated rollout is not evidence of real robot-task success.";
        imagined["tasks"] = tasks;
        imagined["episodes_per_task"] = 1;
        imagined["world_model"] = world;
        imagined["judge"] = judge;
        // Policies that read the simulator's state get an open-loop twin (openLoopTwin), keyed
        // by the seed each imagined run's policy is reset with; with --open-loop, every policy.
        PluginRegistry registry;
        registry.scan(PluginRegistry::configuredSearchPath(o.executableDir));
        std::map<std::string, std::uint64_t> seedOf; // lineage -> its policy's reset seed
        {
            const Protocol parsed = Protocol::fromJson(imagined);
            for (const RunPlan &plan : expandRuns(parsed))
                seedOf.emplace(parsed.tasks[static_cast<std::size_t>(plan.taskIndex)].id,
                               policySeedOf(plan.seed));
        }
        const auto labelled = latestRuns(ledger, {sha, true, "physics"});
        std::vector<std::string> twins;
        for (auto &entry : imagined["policies"]) {
            const std::string plugin = entry.value("plugin", "");
            const PluginInfo *info = registry.find(plugin);
            const bool readsState = info && info->metadata.value("reads_world_state", false);
            if (!readsState && !openLoop)
                continue;
            const nlohmann::json settings = entry.value("settings", nlohmann::json::object());
            const auto label = physicsLabelOf(labelled, plugin, settings);
            if (!label)
                throw Error(ErrorCode::InvalidInput,
                            plugin + " " + settings.dump() +
                                (readsState ? " reads the simulator's state, and no" : ": no") +
                                " run of it is in " + name + " to replay in its imagined twin");
            const OpenLoopTwin twin =
                openLoopTwin(ledger, *label, labelled, seedOf, frozen->value("horizon", 0));
            const fs::path file =
                dir / "replays" / ("policy-" + std::to_string(twins.size()) + ".json");
            fs::create_directories(file.parent_path());
            writeFileAtomically(file, twin.document.dump() + "\n");
            entry = {{"plugin", "replay.actions"},
                     {"settings", {{"by_seed", file.string()}, {"replays", *label}}}};
            twins.push_back((readsState ? "reads the simulator's state, so in the world model: "
                                        : "in the world model (--open-loop): ") +
                            *label + ": its physics actions replayed open loop (" +
                            std::to_string(twin.episodes) + " starts)");
        }
        writeFileAtomically(dir / "imagined.json", imagined.dump(2) + "\n");
        for (const std::string &twin : twins)
            std::cout << twin << "\n";
        std::cout << starts.size() << " starts of " << name << " written to "
                  << (dir / "starts").string() << "; protocol " << (dir / "imagined.json").string()
                  << " (" << starts.size() << " tasks x " << imagined["policies"].size()
                  << " policies)\nnext: kosmos-cli run " << (dir / "imagined.json").string()
                  << " --ledger " << o.bundle << "\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runFidelity(const FidelityOptionsCli &o)
{
    try {
        Ledger ledger = Ledger::open(o.bundle, {OpenMode::ReadOnly});
        FidelityOptions options;
        options.physicsProtocol = o.physicsProtocols.front();
        options.imaginedProtocol = o.imaginedProtocols.front();
        options.alsoPhysics.assign(o.physicsProtocols.begin() + 1, o.physicsProtocols.end());
        options.alsoImagined.assign(o.imaginedProtocols.begin() + 1, o.imaginedProtocols.end());
        if (!o.judgeConfig.empty())
            options.judgeConfig = resolveJudgeConfig(judgeConfigs(ledger), o.judgeConfig);
        options.inPhysicsProtocols = o.inPhysics;
        const FidelityReport report = fidelityReport(ledger, options);
        // Frame fidelity: the physics episodes' actions replayed open loop in the imagined
        // protocol's world model (in this process; nothing is written), from the same start.
        FrameFidelityCurve curve;
        if (o.replays > 0) {
            const auto protocol = ledger.protocol(report.imaginedProtocol);
            const nlohmann::json world = protocol->value("world_model", nlohmann::json::object());
            PluginRegistry registry;
            registry.scan(PluginRegistry::configuredSearchPath(o.executableDir));
            auto model =
                registry.createWorldModel(world.value("plugin", std::string()),
                                          world.value("settings", nlohmann::json::object()));
            curve = replayInWorldModel(ledger, report, *model, o.replays);
        }
        if (o.json) {
            nlohmann::json out = toJson(report);
            out["frame_fidelity"] = toJson(curve);
            std::cout << out.dump(2) << "\n";
        } else {
            std::cout << toText(report, &curve);
        }
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runFidelityReplay(const FidelityReplayOptions &o)
{
    try {
        const nlohmann::json world = readConfig(o.worldModelConfig, "world-model");
        const LeRobotDataset dataset = LeRobotDataset::open(o.dataset);
        RecordedReplayOptions options;
        if (!o.episodes.empty())
            options.episodes = parseEpisodeList(o.episodes);
        options.camera = o.camera;
        PluginRegistry registry;
        registry.scan(PluginRegistry::configuredSearchPath(o.executableDir));
        const std::string plugin = world.value("plugin", std::string());
        auto model =
            registry.createWorldModel(plugin, world.value("settings", nlohmann::json::object()));
        TerminalProgress bar;
        const RecordedReplay replay =
            replayRecorded(dataset, *model, options, nullptr,
                           [&](int done, int total) { bar.update("replay", done, total); });
        bar.finish();
        if (o.json) {
            nlohmann::json out = toJson(replay);
            out["dataset"] = dataset.root().string();
            out["codebase_version"] = dataset.info().codebaseVersion;
            out["world_model"] = world;
            std::cout << out.dump(2) << "\n";
        } else {
            std::cout << toText(replay, dataset.root().string(), plugin);
        }
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}
