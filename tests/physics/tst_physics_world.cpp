// The physics reference world: MuJoCo tabletop, headless rendering, success from state.
#include "TestSupport.h"

#include "dataset/LeRobotDataset.h"
#include "dataset/ParquetReader.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "media/DatasetExport.h"
#include "media/LeRobotFrames.h"
#include "physics/PhysicsTabletop.h"
#include "physics/PhysicsWorldModel.h"
#include "physics/ScriptedPhysicsPolicy.h"
#include "pipeline/LeRobotImport.h"
#include "pipeline/RolloutEngine.h"
#include "protocol/Protocol.h"
#include "queries/BatchSummary.h"
#include "queries/RolloutQuery.h"
#include "queries/SameStart.h"
#include "replay/ReplayPolicy.h"
#include "stats/Proportion.h"
#include "util/Error.h"
#include "util/Sha256.h"
#include "verify/LedgerVerifier.h"

#include <atomic>
#include <map>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

using namespace kosmos;
using namespace kosmos::physics;

namespace {

struct Episode
{
    bool success = false;
    int progress = 0;
    int steps = 0;
};

Episode runEpisode(PhysicsWorldModel &world, PhysicsSkill skill, const std::string &instruction,
                   std::uint64_t seed, int horizon = 60, std::vector<cv::Mat> *frames = nullptr)
{
    ScriptedPhysicsPolicy policy(skill);
    WorldStart start;
    start.seed = seed;
    start.instruction = instruction;
    auto first = world.reset(start);
    if (frames)
        frames->insert(frames->end(), first.begin(), first.end());
    policy.reset(seed ^ 0x5bd1e995ULL, instruction);
    Episode e;
    for (; e.steps < horizon; ++e.steps) {
        Observation obs;
        obs.instruction = instruction;
        obs.step = e.steps;
        obs.state = world.state();
        obs.proprio = world.proprio();
        auto produced = world.step(policy.act(obs));
        if (frames)
            frames->insert(frames->end(), produced.begin(), produced.end());
    }
    const auto truth = world.groundTruth();
    e.success = truth->success;
    e.progress = truth->progress;
    return e;
}

} // namespace

TEST(PhysicsWorld, ScriptedSkillsHaveAKnownSpreadOfSuccess)
{
    // 10 seeded episodes per skill and task (horizon 60, 12 s at 5 Hz). The figures, with their
    // Wilson intervals, are in docs/physics-world.md.
    PhysicsWorldModel world(SceneSettings{});
    for (const std::string instruction :
         {"put the red block in the green square", "push the blue block into the purple square"}) {
        std::map<std::string, int> successes;
        const int n = 10;
        for (auto [name, skill] :
             {std::pair{"expert", PhysicsSkill::Expert}, std::pair{"noisy", PhysicsSkill::Noisy},
              std::pair{"confuser", PhysicsSkill::Confuser}}) {
            for (int i = 0; i < n; ++i)
                successes[name] += runEpisode(world, skill, instruction, 1000 + i).success;
            const Proportion p = wilson(successes[name], n);
            std::cout << instruction << " / " << name << ": " << intervalText(p) << "\n";
        }
        EXPECT_GE(successes["expert"], 8) << instruction;
        EXPECT_LT(successes["noisy"], successes["expert"]) << instruction;
        EXPECT_LT(successes["confuser"], successes["expert"]) << instruction;
        EXPECT_GE(successes["confuser"], 2) << instruction; // it does the task when not confused
    }
}

TEST(PhysicsWorld, FramesAreByteIdenticalForTheSameSeedAndActions)
{
    auto record = [](std::uint64_t seed) {
        PhysicsWorldModel world(SceneSettings{});
        std::vector<cv::Mat> frames;
        runEpisode(world, PhysicsSkill::Noisy, "put the red block in the green square", seed, 20,
                   &frames);
        return frames;
    };
    const auto a = record(7);
    const auto b = record(7);
    ASSERT_EQ(a.size(), 21u); // N + 1 for N actions
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        ASSERT_EQ(a[i].size(), cv::Size(320, 256));
        ASSERT_EQ(a[i].type(), CV_8UC3);
        ASSERT_TRUE(a[i].isContinuous() && b[i].isContinuous());
        EXPECT_EQ(std::memcmp(a[i].data, b[i].data, a[i].total() * a[i].elemSize()), 0)
            << "frame " << i << " differs between two runs of the same seed and actions";
    }
    EXPECT_GT(cv::norm(a.front(), a.back(), cv::NORM_L1), 0) << "the scene moved";
    // The frame contract declares the fixed camera the frames come from.
    const auto contract = PhysicsWorldModel(SceneSettings{}).frameContract().toJson();
    ASSERT_EQ(contract["cameras"].size(), 1u);
    EXPECT_EQ(contract["cameras"][0]["name"], "front");
    EXPECT_EQ(FrameContract::fromJson(contract, "frame_contract").cameras, contract["cameras"]);
    const auto other = record(8);
    EXPECT_GT(cv::norm(a.front(), other.front(), cv::NORM_L1), 0) << "another seed, another start";
}

TEST(PhysicsWorld, SuccessIsReadFromTheSimulatorStateOnly)
{
    PhysicsWorldModel world(SceneSettings{128, 128});
    const std::string instruction = "put the red block in the green square";
    StartState start = sampleStart(parseTask(instruction), 3);
    WorldStart ws{start.toJson(), cv::Mat(), 3, instruction, {}};
    world.reset(ws);
    auto truth = world.groundTruth();
    ASSERT_TRUE(truth);
    EXPECT_EQ(truth->source, "physics");
    EXPECT_FALSE(truth->success) << "the sampled start never has the block in its square";

    // The same start with the red block placed in the green square: success at once, whatever
    // anyone would say about the frames.
    start.blocks[0] = {start.regions[0][0] + 0.01, start.regions[0][1] - 0.01};
    start.hand = {start.blocks[0][0], start.blocks[0][1], 0.006}; // fingers open around it
    ws.startState = start.toJson();
    world.reset(ws);
    truth = world.groundTruth();
    EXPECT_TRUE(truth->success) << truth->details.dump();
    EXPECT_EQ(truth->progress, 5);
    EXPECT_EQ(truth->details["start_state"], start.toJson());

    // Gripped, it is not released: not a success until the fingers open again.
    world.step({{0, 0, 0, 0, 0, 0, 0.0}, {0, 0, 0, 0, 0, 0, 0.0}});
    truth = world.groundTruth();
    EXPECT_FALSE(truth->success);
    EXPECT_FALSE(truth->details["released"].get<bool>());
    EXPECT_EQ(truth->progress, 4);
    world.step({{0, 0, 0.02, 0, 0, 0, 1.0}, {0, 0, 0.03, 0, 0, 0, 1.0}});
    EXPECT_TRUE(world.groundTruth()->success);

    // The recorded start replays exactly: the same first frame from the recorded start state as
    // from the seed it was sampled from.
    PhysicsWorldModel a(SceneSettings{128, 128});
    PhysicsWorldModel b(SceneSettings{128, 128});
    const auto fromSeed = a.reset({nlohmann::json::object(), cv::Mat(), 11, instruction, {}});
    const StartState recorded = StartState::fromJson(a.groundTruth()->details["start_state"]);
    const auto fromState = b.reset({recorded.toJson(), cv::Mat(), 999, instruction, {}});
    EXPECT_EQ(cv::norm(fromSeed[0], fromState[0], cv::NORM_L1), 0);
}

TEST(PhysicsWorld, BadInstructionsSettingsAndStatesAreNamed)
{
    auto message = [](auto f) {
        try {
            f();
        } catch (const Error &e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_NE(message([] { parseTask("stack the cups"); }).find("stack the cups"),
              std::string::npos);
    EXPECT_NE(
        message([] { parseTask("put the green block in the red square"); }).find("names no block"),
        std::string::npos);
    EXPECT_NE(message([] { parseTask("put the red block on the plate"); }).find("target square"),
              std::string::npos);
    EXPECT_NE(message([] {
                  SceneSettings::fromJson({{"width", 100}});
              }).find("settings.width"),
              std::string::npos);
    EXPECT_NE(message([] {
                  SceneSettings::fromJson({{"fps", 10}});
              }).find("'fps'"),
              std::string::npos);
    nlohmann::json start =
        sampleStart(parseTask("put the red block in the green square"), 1).toJson();
    start["blocks"]["blue"]["xy"] = {2.0, 0.0};
    EXPECT_NE(message([&] { StartState::fromJson(start); }).find("start_state.blocks.blue.xy"),
              std::string::npos);
    start["blocks"].erase("blue");
    EXPECT_NE(message([&] { StartState::fromJson(start); }).find("blocks.blue is missing"),
              std::string::npos);
    ScriptedPhysicsPolicy policy(PhysicsSkill::Expert);
    policy.reset(1, "put the red block in the green square");
    EXPECT_NE(message([&] { policy.act(Observation{}); }).find("physics.tabletop"),
              std::string::npos)
        << "in a world without state the scripted policy says why it cannot run";
    PhysicsWorldModel world(SceneSettings{64, 64});
    world.reset(
        {nlohmann::json::object(), cv::Mat(), 1, "push the red block into the green square", {}});
    EXPECT_NE(message([&] {
                  world.step({{0, 0, std::nan(""), 0, 0, 0, 1}});
              }).find("non-finite"),
              std::string::npos);
}

namespace {

class PhysicsFactory : public ComponentFactory
{
public:
    std::string version(const std::string &) override { return "1.0.0"; }
    std::unique_ptr<Policy> createPolicy(const ComponentSpec &spec) override
    {
        if (spec.plugin == "replay.actions")
            return std::make_unique<replay::ReplayPolicy>(
                spec.settings.at("file").get<std::string>(), "policy_actions");
        return std::make_unique<ScriptedPhysicsPolicy>(
            physicsSkillByName(spec.settings.value("skill", "expert")));
    }
    std::unique_ptr<WorldModel> createWorldModel(const ComponentSpec &) override
    {
        return std::make_unique<PhysicsWorldModel>(SceneSettings{160, 128});
    }
    std::unique_ptr<Judge> createJudge(const ComponentSpec &) override { return nullptr; }
};

} // namespace

// Two expert and two confuser episodes of "put the red block in the green square".
std::string runPhysicsProtocol(const std::filesystem::path &bundle)
{
    Ledger::create(bundle);
    const Protocol protocol = Protocol::fromJson(
        {{"kosmos_protocol", 1},
         {"name", "physics-engine-test"},
         {"seed", 5},
         {"horizon", 40},
         {"episodes_per_task", 2},
         {"tasks", {{{"id", "pick"}, {"instruction", "put the red block in the green square"}}}},
         {"policies",
          {{{"plugin", "physics.scripted_policy"}, {"settings", {{"skill", "expert"}}}},
           {{"plugin", "physics.scripted_policy"}, {"settings", {{"skill", "confuser"}}}}}},
         {"world_model",
          {{"plugin", "physics.tabletop"}, {"settings", nlohmann::json::object()}}}});
    PhysicsFactory factory;
    RolloutEngine engine(bundle, factory, EngineOptions{1, 30000, 5000, "physics"});
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    const auto result = engine.run(protocol, batch, stop);
    EXPECT_EQ(result.completed, 4);
    return batch.protocolSha256;
}

TEST(PhysicsWorld, TheEngineRecordsPhysicsLabelsAndThePoseTrace)
{
    test::TempDir dir;
    const auto bundle = dir / "physics.kosmos";
    const std::string protocolSha = runPhysicsProtocol(bundle);
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_EQ(ledger.info().labelsBySource.at("physics"), 4);
    EXPECT_EQ(ledger.info().labelsBySource.count("human"), 0u) << "physics is never a human";
    EXPECT_EQ(ledger.info().labelsBySource.count("synthetic_reference"), 0u);
    for (const auto &row : summarizeProtocol(ledger, protocolSha))
        EXPECT_EQ(row.referenceSource, "physics");
    // Each run keeps its object poses per step, its start state in its label.
    sqlite::Statement states(LedgerSql::of(ledger),
                             "SELECT a.sha256 FROM attempt_artifacts aa JOIN artifacts a USING "
                             "(artifact_id) WHERE aa.role = 'world_states' ORDER BY aa.attempt_id");
    int traces = 0;
    while (states.step()) {
        const auto bytes = ledger.artifacts().read(states.text(0));
        const auto doc = nlohmann::json::parse(bytes.begin(), bytes.end());
        EXPECT_EQ(doc["schema"], "kosmos.world_states/1");
        ASSERT_EQ(doc["states"].size(), 41u) << "the start and one state per step";
        EXPECT_TRUE(doc["states"][40]["state"]["blocks"].contains("red"));
        ++traces;
    }
    EXPECT_EQ(traces, 4);
    // The workstation's traces read the poses back per object, one position per frame.
    const RolloutView rollout = loadRollout(ledger, 1);
    ASSERT_EQ(rollout.objectTracks.size(), 4u); // blue, hand, red, yellow
    for (const ObjectTrack &track : rollout.objectTracks) {
        EXPECT_EQ(track.frames.size(), 41u) << track.name;
        EXPECT_EQ(track.frames.back(), 40);
    }
    EXPECT_EQ(rollout.objectTracks[2].name, "red block");
    const auto labels = ledger.labels(1);
    ASSERT_EQ(labels.size(), 1u);
    EXPECT_EQ(labels[0].source, "physics");
    EXPECT_EQ(labels[0].annotatorId, "physics.tabletop");
    EXPECT_TRUE(nlohmann::json::parse(*labels[0].notes).contains("start_state"));
    EXPECT_TRUE(verifyLedger(ledger).problems.empty());
}

// The same runs as a LeRobot v3.0 dataset: read back natively, every action and state bit for
// bit, every frame exactly (lossless) or within the codec's tolerance (H.264), success per
// episode; then imported as recorded runs with the same actions. That LeRobot's own reader loads
// it is checked by tools/lerobot/check_export.py (docs/datasets.md).
TEST(PhysicsWorld, ALeRobotExportReadsBackExactlyAndImportsAgain)
{
    test::TempDir dir;
    const auto bundle = dir / "physics.kosmos";
    runPhysicsProtocol(bundle);
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    std::string why;
    if (!parquetAvailable(&why)) { // says why, writes nothing
        try {
            exportLeRobotDataset(ledger, {"", "", "any"}, dir / "lossless", true);
            ADD_FAILURE() << "exported without the Parquet module";
        } catch (const Error &e) {
            EXPECT_EQ(e.code(), ErrorCode::Unavailable) << e.what();
        }
        EXPECT_FALSE(std::filesystem::exists(dir / "lossless"));
        return;
    }
    const LeRobotExportResult r =
        exportLeRobotDataset(ledger, {"", "", "any"}, dir / "lossless", true);
    EXPECT_EQ(r.episodes, 4);
    EXPECT_EQ(r.frames, 4 * 41);
    EXPECT_TRUE(r.states);
    EXPECT_TRUE(r.proprio);
    const LeRobotExportResult lossy =
        exportLeRobotDataset(ledger, {"", "", "any"}, dir / "h264", false);
    EXPECT_EQ(lossy.videoCodec, "h264");
    const LeRobotDataset exact = LeRobotDataset::open(dir / "lossless");
    const LeRobotDataset h264 = LeRobotDataset::open(dir / "h264");
    EXPECT_EQ(exact.info().codebaseVersion, "v3.0");
    ASSERT_EQ(exact.episodes().size(), 4u);
    double worstPsnr = 1e9;
    for (std::int64_t e = 0; e < 4; ++e) {
        const RolloutView run = loadRollout(ledger, e + 1);
        const LeRobotEpisodeData data = exact.readEpisode(e);
        ASSERT_EQ(data.length(), 41);
        EXPECT_EQ(exact.task(data.taskIndex[0]), "put the red block in the green square");
        const LeRobotTrace *action = data.trace("action");
        ASSERT_TRUE(action);
        for (std::int64_t k = 0; k < 41; ++k)
            for (int j = 0; j < action->width; ++j)
                EXPECT_EQ(action->at(k, j),
                          run.actions[static_cast<std::size_t>(std::min<std::int64_t>(k, 39))]
                                     [static_cast<std::size_t>(j)])
                    << "episode " << e << " row " << k;
        EXPECT_EQ(action->names, run.dimensionNames);
        // observation.state: the proprioception the policy was given, every frame;
        // observation.environment_state: the simulator's tracked state.
        const LeRobotTrace *proprio = data.trace("observation.state");
        ASSERT_TRUE(proprio);
        ASSERT_EQ(run.proprio.size(), 41u);
        ASSERT_EQ(proprio->width, 7);
        for (std::int64_t k = 0; k < 41; ++k)
            for (int j = 0; j < 7; ++j)
                EXPECT_EQ(proprio->at(k, j),
                          run.proprio[static_cast<std::size_t>(k)][static_cast<std::size_t>(j)]);
        EXPECT_EQ(proprio->names[6], "proprio_6");
        const LeRobotTrace *state = data.trace("observation.environment_state");
        ASSERT_TRUE(state);
        int column = 0;
        for (const ObjectTrack &track : run.objectTracks)
            for (std::size_t axis = 0; axis < track.axes.size(); ++axis, ++column)
                for (std::int64_t k = 0; k < 41; ++k)
                    EXPECT_EQ(state->at(k, column),
                              track.values[static_cast<std::size_t>(k)][axis]);
        EXPECT_EQ(column, state->width);
        // Success: the run's physics label, on the last row, and the episode's statistics.
        const auto labels = ledger.labels(e + 1);
        ASSERT_EQ(labels.size(), 1u);
        const double met = labels[0].completion == "met" ? 1.0 : 0.0;
        EXPECT_EQ(data.trace("next.success")->at(40, 0), met);
        EXPECT_EQ(exact.episode(e).outcomes.at("next.success"), met);
        // Frames: lossless exactly the stored pixels; H.264 within its tolerance.
        const LeRobotFrames frames = decodeLeRobotFrames(exact, data, "observation.image");
        const LeRobotFrames near =
            decodeLeRobotFrames(h264, h264.readEpisode(e), "observation.image");
        for (std::size_t k = 0; k < 41; k += 8) {
            const auto bytes = ledger.artifacts().read(run.frames[k].sha256);
            cv::Mat stored = cv::imdecode(bytes, cv::IMREAD_COLOR);
            cv::cvtColor(stored, stored, cv::COLOR_BGR2RGB);
            EXPECT_EQ(cv::norm(frames.frames[k], stored, cv::NORM_INF), 0.0)
                << "episode " << e << " frame " << k;
            worstPsnr = std::min(worstPsnr, cv::PSNR(near.frames[k], stored));
        }
    }
    std::cout << "H.264 export: worst PSNR " << worstPsnr << " dB\n";
    EXPECT_GE(worstPsnr, 32.0); // crf 18 on 160x128 renders: 34.4 dB measured

    // Back into a ledger as recorded runs: the same actions, bit for bit.
    const auto again = dir / "again.kosmos";
    Ledger::create(again);
    Ledger imported = Ledger::open(again);
    const auto results = importLeRobot(imported, dir / "lossless", {});
    ASSERT_EQ(results.size(), 4u);
    for (std::size_t e = 0; e < 4; ++e) {
        const RolloutView original = loadRollout(ledger, static_cast<std::int64_t>(e) + 1);
        const RolloutView back = loadRollout(imported, results[e].run.runId);
        EXPECT_EQ(back.frames.size(), 41u);
        EXPECT_EQ(back.actions, original.actions) << "episode " << e;
    }

    // A used folder or a filter that matches nothing: named, nothing written or changed.
    const auto infoBefore =
        std::filesystem::last_write_time(dir / "lossless" / "meta" / "info.json");
    EXPECT_THROW(exportLeRobotDataset(ledger, {"", "", "any"}, dir / "lossless", true), Error);
    EXPECT_EQ(std::filesystem::last_write_time(dir / "lossless" / "meta" / "info.json"),
              infoBefore);
    EXPECT_THROW(exportLeRobotDataset(ledger, {"", "nobody", "any"}, dir / "none", false), Error);
    EXPECT_FALSE(std::filesystem::exists(dir / "none"));
}

TEST(PhysicsWorld, DatasetExportWritesDemonstrationsWithTheirSuccessSource)
{
    test::TempDir dir;
    const auto bundle = dir / "physics.kosmos";
    const std::string protocolSha = runPhysicsProtocol(bundle);
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const auto out = dir / "dataset";
    const DatasetExportResult r = exportDataset(ledger, {protocolSha.substr(0, 8), "", "any"}, out);
    EXPECT_EQ(r.episodes, 4);
    EXPECT_EQ(r.frames, 4 * 41);
    EXPECT_EQ(r.withoutLabel, 0);
    const auto index = nlohmann::json::parse(std::ifstream(out / "dataset.json"));
    EXPECT_EQ(index["schema"], "kosmos.dataset/1");
    ASSERT_EQ(index["episodes"].size(), 4u);
    int met = 0;
    for (const auto &e : index["episodes"]) {
        const auto episodeDir = out / e["dir"].get<std::string>();
        const auto episode = nlohmann::json::parse(std::ifstream(episodeDir / "episode.json"));
        EXPECT_EQ(episode["success_source"], "physics");
        EXPECT_EQ(episode["instruction"], "put the red block in the green square");
        EXPECT_TRUE(episode["start_state"].contains("blocks"));
        EXPECT_TRUE(std::filesystem::exists(episodeDir / "actions.json"));
        EXPECT_TRUE(std::filesystem::exists(episodeDir / "states.json"));
        // The frames are the stored objects, byte for byte.
        const RolloutView rollout = loadRollout(ledger, episode["run_id"].get<std::int64_t>());
        std::ifstream png(episodeDir / "frames" / "000040.png", std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(png)), {});
        EXPECT_EQ(Sha256::hex(bytes), rollout.frames.at(40).sha256);
        met += episode["success"].get<bool>();
    }
    // Filters: by outcome and by policy; a bad outcome, a used folder and no match are named,
    // and leave nothing behind.
    const auto onlyMet = exportDataset(ledger, {"", "", "met"}, dir / "met");
    EXPECT_EQ(onlyMet.episodes, met);
    EXPECT_EQ(exportDataset(ledger, {"", "confuser", "any"}, dir / "confuser").episodes, 2);
    EXPECT_THROW(exportDataset(ledger, {"", "", "maybe"}, dir / "x"), Error);
    EXPECT_THROW(exportDataset(ledger, {"", "", "any"}, out), Error) << "not empty";
    EXPECT_THROW(exportDataset(ledger, {"", "nobody", "any"}, dir / "none"), Error);
    EXPECT_FALSE(std::filesystem::exists(dir / "none"));
    for (const auto &entry : std::filesystem::directory_iterator(dir.path()))
        EXPECT_EQ(entry.path().filename().string().rfind(".kosmos-dataset-partial", 0),
                  std::string::npos);
}

TEST(PhysicsWorld, ARecordedRunReplaysOpenLoopFromItsStartToTheSameFrames)
{
    test::TempDir dir;
    const auto bundle = dir / "physics.kosmos";
    runPhysicsProtocol(bundle);
    const auto out = dir / "dataset";
    {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        exportDataset(ledger, {"", "expert", "any"}, out);
    }
    const auto episode =
        nlohmann::json::parse(std::ifstream(out / "episode_00000" / "episode.json"));
    const Protocol replay = Protocol::fromJson(
        {{"kosmos_protocol", 1},
         {"name", "physics-replay"},
         {"seed", 99}, // another seed: the start comes from the recorded start state
         {"horizon", 40},
         {"episodes_per_task", 1},
         {"tasks",
          {{{"id", "pick"},
            {"instruction", episode["instruction"]},
            {"start_state", episode["start_state"]}}}},
         {"policies",
          {{{"plugin", "replay.actions"},
            {"settings", {{"file", (out / "episode_00000" / "actions.json").string()}}}}}},
         // Other settings: another world-model component (the factory renders 160 x 128 always).
         {"world_model", {{"plugin", "physics.tabletop"}, {"settings", {{"width", 160}}}}}});
    PhysicsFactory factory;
    RolloutEngine engine(bundle, factory, EngineOptions{1, 30000, 5000, "replay"});
    const auto batch = engine.submit(replay);
    std::atomic<bool> stop{false};
    ASSERT_EQ(engine.run(replay, batch, stop).completed, 1);
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const auto original = loadRollout(ledger, episode["run_id"].get<std::int64_t>());
    sqlite::Statement last(LedgerSql::of(ledger), "SELECT MAX(run_id) FROM runs");
    last.step();
    const auto replayed = loadRollout(ledger, last.int64(0));
    ASSERT_EQ(replayed.frames.size(), original.frames.size());
    for (std::size_t i = 0; i < original.frames.size(); ++i)
        EXPECT_EQ(replayed.frames[i].sha256, original.frames[i].sha256)
            << "frame " << i << ": the same start and actions give the same frame";
    EXPECT_EQ(ledger.labels(last.int64(0)).at(0).completion,
              ledger.labels(episode["run_id"].get<std::int64_t>()).at(0).completion);
    // The compare view finds each from the other: the same recorded start, another world model.
    const auto fromOriginal = runsFromTheSameStart(ledger, episode["run_id"].get<std::int64_t>());
    ASSERT_EQ(fromOriginal.size(), 1u);
    EXPECT_EQ(fromOriginal[0].runId, last.int64(0));
    EXPECT_EQ(fromOriginal[0].matchedBy, "start_state");
    // From the replay: the original, and the confuser run of the same episode (the same seed,
    // so the same sampled start), both in the other world model; never a run of another start.
    const auto fromReplay = runsFromTheSameStart(ledger, last.int64(0));
    ASSERT_EQ(fromReplay.size(), 2u);
    EXPECT_EQ(fromReplay[0].runId, episode["run_id"].get<std::int64_t>());
    for (const auto &match : fromReplay) {
        EXPECT_EQ(match.matchedBy, "start_state");
        EXPECT_EQ(loadRollout(ledger, match.runId).frames.at(0).sha256,
                  original.frames.at(0).sha256)
            << "run " << match.runId << " starts elsewhere";
    }

    // A replay longer than the recording is refused with the counts, not padded.
    replay::ReplayPolicy policy(out / "episode_00000" / "actions.json", "policy_actions");
    Observation obs;
    obs.step = static_cast<int>(policy.size());
    EXPECT_THROW(policy.act(obs), Error);
    EXPECT_THROW(replay::ReplayPolicy(out / "dataset.json", "policy_actions"), Error);
    EXPECT_THROW(replay::ReplayPolicy(out / "episode_00000" / "actions.json", "actions"), Error);

    // Another width, named by dimension_names (a recorded PushT episode): that contract.
    std::ofstream(dir / "pusht.json") << R"({"policy_actions": [[200.5, 310.25], [201, 309]],
        "dimension_names": ["motor_0", "motor_1"], "control_rate_hz": 10})";
    replay::ReplayPolicy pusht(dir / "pusht.json", "policy_actions");
    EXPECT_EQ(pusht.actionContract().dimension(), 2);
    EXPECT_EQ(pusht.actionContract().dimensions[1].name, "motor_1");
    EXPECT_EQ(pusht.actionContract().controlRateHz, 10.0);
    obs.step = 1;
    EXPECT_EQ(pusht.act(obs).front(), (Action{201, 309}));
    std::ofstream(dir / "ragged.json") << R"({"policy_actions": [[1, 2], [3]],
        "dimension_names": ["a", "b"]})";
    EXPECT_THROW(replay::ReplayPolicy(dir / "ragged.json", "policy_actions"), Error);
}
