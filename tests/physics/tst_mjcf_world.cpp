// physics.mjcf (the generic MJCF world, MuJoCo 4 from the wheel) and ALOHA sim on it: task files,
// start sampling (numpy's, so a seed gives gym-aloha's start), predicates and staged rewards,
// determinism per seed, bad input, and runs through the engine with the scripted experts that
// verify clean. Small by design (docs/physics-world.md): at most 20 steps, a 64x64 camera. The
// agreement with gym-aloha is tools/aloha/check_agreement.py, not a test.
#include "TestSupport.h"

#include "mjcf/MjcfScene.h"
#include "mjcf/MjcfTask.h"
#include "mjcf/MjcfWorld.h"
#include "queries/RolloutQuery.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

using namespace kosmos;
using namespace kosmos::mjcf;

namespace {

const std::string kTransfer =
    "Pick up the cube with the right arm and transfer it to the left arm.";
const std::string kInsertion = "Insert the peg into the socket.";

WorldSettings smallSettings()
{
    WorldSettings s;
    s.width = 64;
    s.height = 64;
    s.lookup.packageDirs = {KOSMOS_WORLDS_SITE};
    return s;
}

nlohmann::json builtin(const std::string &name)
{
    for (const auto &[file, text] : builtinTaskFiles()) {
        if (file == name)
            return nlohmann::json::parse(text);
    }
    return nullptr;
}

// The start pose actions: every arm joint where START_ARM_POSE has it, the grippers at 0.0998.
Action startAction()
{
    const Action arm = {0, -0.96, 1.16, 0, -0.3, 0, (0.02239 - 0.01844) / (0.058 - 0.01844)};
    Action a = arm;
    a.insert(a.end(), arm.begin(), arm.end());
    return a;
}

std::string pixelHash(const cv::Mat &m)
{
    return Sha256::hex(
        std::string_view(reinterpret_cast<const char *>(m.data), m.total() * m.elemSize()));
}

} // namespace

TEST(MjcfTask, TheBuiltInAlohaTasksParse)
{
    const auto files = builtinTaskFiles();
    ASSERT_EQ(files.size(), 2u);
    const MjcfTask t = MjcfTask::fromText(files[0].second, files[0].first);
    EXPECT_EQ(t.id, "aloha_transfer_cube");
    EXPECT_EQ(t.instruction, kTransfer);
    EXPECT_EQ(t.contract.dimension(), 14);
    EXPECT_EQ(t.contract.dimensions[6].name, "left_arm_gripper");
    EXPECT_EQ(t.controlRateHz, 50);
    EXPECT_EQ(t.substeps, 10);
    EXPECT_EQ(t.episodeSteps, 400);
    EXPECT_EQ(t.maxReward(), 4);
    EXPECT_EQ(t.stages.size(), 4u);
    EXPECT_EQ(Sha256::isValidHex(t.sha256), true);
    const MjcfTask i = MjcfTask::fromText(files[1].second, files[1].first);
    EXPECT_EQ(i.samples.size(), 2u);
    EXPECT_EQ(i.predicates.count("pin_touched"), 1u);
}

TEST(MjcfTask, ABadTaskFileIsRefusedWithTheFieldNamed)
{
    const auto refused = [](const std::function<void(nlohmann::json &)> &edit) {
        nlohmann::json j = builtin("aloha_transfer_cube.json");
        edit(j);
        return test::errorOf([&] { MjcfTask::fromJson(j, "task.json"); });
    };
    EXPECT_NE(
        refused([](auto &j) { j["substep"] = 10; }).find("task.json: unknown field 'substep'"),
        std::string::npos);
    EXPECT_NE(refused([](auto &j) { j["kosmos_mjcf_task"] = 2; }).find("reads version 1"),
              std::string::npos);
    EXPECT_NE(refused([](auto &j) {
                  j["stages"][1]["when"] = {{"ref", "nowhere"}};
              }).find("task.json.stages[1].when: refers to 'nowhere'"),
              std::string::npos);
    EXPECT_NE(refused([](auto &j) {
                  j["predicates"]["loop"] = {{"ref", "loop"}};
              }).find("'loop' refers to itself"),
              std::string::npos);
    EXPECT_NE(refused([](auto &j) {
                  j["action"]["actuators"].erase(0);
              }).find("dimension 0 (left_arm_waist) drives nothing"),
              std::string::npos);
    EXPECT_NE(refused([](auto &j) { j["success_reward"] = 5; }).find("exceeds every stage"),
              std::string::npos);
    EXPECT_NE(refused([](auto &j) { j["stepping"] = "rk4"; }).find("task.json.stepping"),
              std::string::npos);
    EXPECT_NE(refused([](auto &j) {
                  j["predicates"]["touch_table"] = {{"contact", {"red_box"}}};
              }).find("must be a pair"),
              std::string::npos);
    EXPECT_NE(refused([](auto &j) {
                  j["start"]["sample"]["free_joints"][0]["low"] = {0.3, 0.4, 0.05};
              }).find("low must not exceed high"),
              std::string::npos);
    EXPECT_NE(test::errorOf([] {
                  MjcfTask::fromText("{\"id\": 1, \"id\": 2}", "dup.json");
              }).find("dup.json"),
              std::string::npos);
}

TEST(MjcfWorld, StartsAreNumpysRandomStateSoASeedGivesGymAlohasStart)
{
    // gym_aloha.utils.sample_box_pose(0) and sample_insertion_pose(7), printed by numpy.
    NumpyRandomState rng(0);
    EXPECT_EQ(rng.uniform(0.0, 0.2), 0.10976270078546496);
    EXPECT_EQ(rng.uniform(0.4, 0.6), 0.5430378732744838);
    MjcfWorld world(smallSettings());
    WorldStart start;
    start.seed = 7;
    start.instruction = kInsertion;
    world.reset(start);
    const auto state = world.state();
    const auto peg = state["free_joints"]["red_peg_joint"].get<std::vector<double>>();
    const auto stats = world.lastCallStats();
    const auto socket =
        stats["start_state"]["free_joints"]["blue_socket_joint"].get<std::vector<double>>();
    EXPECT_EQ(stats["start_state"]["free_joints"]["red_peg_joint"][0].get<double>(),
              0.10763082893739573);
    EXPECT_EQ(stats["start_state"]["free_joints"]["red_peg_joint"][1].get<double>(),
              0.555983758448023);
    EXPECT_EQ(socket[0], -0.12765348221690587);
    EXPECT_EQ(socket[1], 0.5955979023993205);
    EXPECT_NEAR(peg[0], 0.10763082893739573, 1e-9); // after mj_forward, not yet stepped
    EXPECT_EQ(stats["start_from"], "seed");
}

TEST(MjcfWorld, TheSameSeedGivesTheSameFramesStatesAndRewards)
{
    const auto run = [](std::uint64_t seed) {
        MjcfWorld world(smallSettings());
        WorldStart start;
        start.seed = seed;
        start.instruction = kTransfer;
        std::vector<std::string> hashes = {pixelHash(world.reset(start).front())};
        Action a = startAction();
        for (int i = 0; i < 10; ++i) {
            a[1] += 0.01; // the left shoulder moves: the picture changes
            hashes.push_back(pixelHash(world.step({a}).front()));
        }
        return std::make_pair(hashes, world.state().dump());
    };
    const auto a = run(3);
    const auto b = run(3);
    EXPECT_EQ(a.first, b.first);
    EXPECT_EQ(a.second, b.second);
    EXPECT_NE(a.first.front(), a.first.back());
    EXPECT_NE(run(4).second, a.second);
}

TEST(MjcfWorld, ProprioceptionContractAndGroundTruthAreAlohas)
{
    MjcfWorld world(smallSettings());
    EXPECT_EQ(world.actionContract().dimension(), 14);
    const FrameContract f = world.frameContract();
    EXPECT_EQ(f.width, 64);
    EXPECT_EQ(f.fps, 50);
    EXPECT_EQ(f.cameras[0]["name"], "top");
    WorldStart start;
    start.seed = 1;
    start.instruction = kTransfer;
    world.reset(start);
    const auto p = world.proprio();
    ASSERT_EQ(p.size(), 14u);
    EXPECT_NEAR(p[1], -0.96, 1e-9);
    EXPECT_NEAR(p[6], (0.02239 - 0.01844) / (0.058 - 0.01844), 1e-9); // normalized gripper
    for (int i = 0; i < 20; ++i)
        world.step({startAction()});
    const auto truth = world.groundTruth();
    ASSERT_TRUE(truth);
    EXPECT_EQ(truth->source, "physics");
    EXPECT_FALSE(truth->success); // nothing touched the cube
    EXPECT_EQ(truth->progress, 0);
    EXPECT_EQ(truth->details["max_reward"], 0);
    EXPECT_EQ(truth->details["steps"], 20);
    EXPECT_EQ(world.lastCallStats()["physics_steps"], 10);
    const auto state = world.state();
    EXPECT_NEAR(state["bodies"]["box"]["pos"][2].get<double>(), 0.02, 0.002); // it fell and rests
}

TEST(MjcfWorld, PredicatesOverTheStateGiveTheStagedReward)
{
    // The transfer cube scene with predicates of each kind, as a task file of the user's.
    test::TempDir dir;
    nlohmann::json j = builtin("aloha_transfer_cube.json");
    j["id"] = "cube_predicates";
    j["instruction"] = "check the predicates";
    j["predicates"] = {
        {"rests_on_table",
         {{"contact", {"table", "red_box"}}}}, // unordered: MuJoCo has (box, table)
        {"ordered_wrong_way", {{"contact", {"table", "red_box"}}, {"ordered", true}}},
        {"near_start",
         {{"inside", {{"body", "box"}, {"min", {0.0, 0.4, 0.0}}, {"max", {0.2, 0.6, 0.1}}}}}},
        {"lifted", {{"above", {{"body", "box"}, {"z", 0.1}}}}},
        {"held_right",
         {{"held",
           {{"geom", "red_box"},
            {"fingers",
             {"vx300s_right/10_left_gripper_finger", "vx300s_right/10_right_gripper_finger"}}}}}}};
    j["stages"] = nlohmann::json::array(
        {{{"name", "resting"},
          {"reward", 1},
          {"when", {{"all", {{{"ref", "rests_on_table"}}, {{"ref", "near_start"}}}}}}},
         {{"name", "wrong_order"}, {"reward", 2}, {"when", {{"ref", "ordered_wrong_way"}}}},
         {{"name", "lifted"},
          {"reward", 3},
          {"when", {{"any", {{{"ref", "lifted"}}, {{"ref", "held_right"}}}}}}},
         {{"name", "not_lifted"}, {"reward", 4}, {"when", {{"not", {{"ref", "lifted"}}}}}}});
    j["success_reward"] = 4;
    std::ofstream(dir / "task.json") << j.dump(1);
    WorldSettings s = smallSettings();
    s.taskFiles = {(dir / "task.json").string()};
    MjcfWorld world(s);
    WorldStart start;
    start.seed = 0;
    start.instruction = "check the predicates";
    world.reset(start);
    for (int i = 0; i < 15; ++i)
        world.step({startAction()});
    // The last stage that holds gives the reward (ACT's reward): resting (1) and not lifted (4);
    // the ordered contact (2) and the lift (3) do not hold.
    EXPECT_EQ(world.state()["reward"], 4);
    const auto truth = world.groundTruth();
    EXPECT_TRUE(truth->success);
    EXPECT_EQ(truth->details["stages_reached"].size(), 4u); // every stage at or below the best
    EXPECT_EQ(truth->details["first_success_step"], 0);
}

TEST(MjcfWorld, BadInputIsRefusedWithWhatWasWrong)
{
    EXPECT_NE(test::errorOf([] {
                  WorldSettings::fromJson({{"widht", 64}});
              }).find("physics.mjcf settings has no field 'widht'"),
              std::string::npos);
    EXPECT_NE(test::errorOf([] {
                  WorldSettings::fromJson({{"width", 70}});
              }).find("divisible by 8"),
              std::string::npos);
    MjcfWorld world(smallSettings());
    WorldStart start;
    start.instruction = "stack the blocks";
    EXPECT_NE(test::errorOf([&] {
                  world.reset(start);
              }).find("has no task 'stack the blocks' (its tasks: '" + kTransfer),
              std::string::npos);
    start.instruction = kInsertion;
    start.startState = {{"free_joints", {{"red_peg_joint", {0.1, 0.5, 0.05, 1, 0, 0, 0}}}}};
    EXPECT_NE(
        test::errorOf([&] { world.reset(start); }).find("lacks the joint 'blue_socket_joint'"),
        std::string::npos);
    start.startState["free_joints"]["blue_socket_joint"] = {0.1, 0.5};
    EXPECT_NE(
        test::errorOf([&] { world.reset(start); }).find("blue_socket_joint must hold 7 numbers"),
        std::string::npos);
    start.startState["free_joints"]["blue_socket_joint"] = {-0.15, 0.5, 0.05, 1, 0, 0, 0};
    start.startState["free_joints"]["red_box_joint"] = {0, 0.5, 0.05, 1, 0, 0, 0};
    EXPECT_NE(test::errorOf([&] {
                  world.reset(start);
              }).find("red_box_joint: the task places no free joint"),
              std::string::npos);
    start.startState["free_joints"].erase("red_box_joint");
    world.reset(start); // a recorded start
    EXPECT_EQ(world.lastCallStats()["start_from"], "start_state");
    EXPECT_NE(test::errorOf([&] { world.step({Action(13, 0.0)}); }).find("an action of 13 values"),
              std::string::npos);
    Action nan = startAction();
    nan[3] = std::nan("");
    EXPECT_NE(test::errorOf([&] { world.step({nan}); }).find("action value 3 is not finite"),
              std::string::npos);
    WorldSettings missing = smallSettings();
    missing.lookup.packageDirs = {"/nonexistent"};
    missing.lookup.python = "/nonexistent/python";
    MjcfWorld lost(missing);
    start.instruction = kTransfer;
    EXPECT_NE(test::errorOf([&] {
                  lost.reset(start);
              }).find("the scene package 'gym_aloha' was not found"),
              std::string::npos);
}

TEST(MjcfWorld, ExpertRunsThroughTheEngineAndTheLedgerVerifiesClean)
{
    test::TempDir dir;
    const std::string ledger = (dir / "L.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", ledger}).exitCode, 0);
    const nlohmann::json world = {
        {"plugin", "physics.mjcf"},
        {"settings", {{"width", 64}, {"height", 64}, {"package_dirs", {KOSMOS_WORLDS_SITE}}}}};
    const nlohmann::json protocol = {
        {"kosmos_protocol", 1},
        {"name", "aloha-small"},
        {"seed", 11},
        {"horizon", 20},
        {"episodes_per_task", 2},
        {"feedback_mode", "closed_loop"},
        {"tasks",
         nlohmann::json::array({{{"id", "aloha_transfer_cube"}, {"instruction", kTransfer}},
                                {{"id", "aloha_insertion"}, {"instruction", kInsertion}}})},
        {"policies",
         nlohmann::json::array(
             {{{"plugin", "mjcf.aloha_expert"},
               {"settings", {{"noise", "high"}, {"package_dirs", {KOSMOS_WORLDS_SITE}}}}}})},
        {"world_model", world}};
    std::ofstream(dir / "p.json") << protocol.dump();
    const auto run = test::runProcessWithStderr(
        {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", ledger});
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_NE(run.output.find("completed 4, failed 0"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("reference success (physics ground truth, not a human): 0/4"),
              std::string::npos)
        << run.output; // 20 steps: the arms are still on their way
    const auto verify = test::runProcessWithStderr({test::cliPath(), "verify", ledger});
    EXPECT_EQ(verify.exitCode, 0) << verify.output;
    // The tracked bodies' poses become the run's object tracks (and a LeRobot export's
    // observation.environment_state); the proprioception its 14-D state.
    {
        Ledger l = Ledger::open(ledger, {OpenMode::ReadOnly});
        const RolloutView rollout = loadRollout(l, 1);
        ASSERT_EQ(rollout.objectTracks.size(), 1u);
        EXPECT_EQ(rollout.objectTracks[0].name, "box");
        EXPECT_EQ(rollout.objectTracks[0].frames.size(), 21u);
        ASSERT_EQ(rollout.proprio.size(), 21u);
        EXPECT_EQ(rollout.proprio[0].size(), 14u);
        const RolloutView insertion = loadRollout(l, 3);
        EXPECT_EQ(insertion.objectTracks.size(), 2u); // peg, socket
    }
    // Rerunning resumes: nothing is run twice, nothing recorded changes.
    const auto again = test::runProcessWithStderr(
        {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", ledger});
    EXPECT_NE(again.output.find("already finished 4"), std::string::npos) << again.output;
}

// End-effector control: a task file whose action places the two mocap bodies (position and
// quaternion) and opens the grippers, on gym-aloha's end-effector scene, moves the welded grippers
// where the action says.
TEST(MjcfWorld, AMocapActionMovesTheEndEffector)
{
    test::TempDir dir;
    nlohmann::json j = builtin("aloha_transfer_cube.json");
    j["id"] = "ee_transfer";
    j["instruction"] = "move the end effectors";
    j["scene"]["file"] = "assets/bimanual_viperx_end_effector_transfer_cube.xml";
    nlohmann::json dims = nlohmann::json::array();
    for (const char *side : {"left", "right"}) {
        for (const char *d : {"x", "y", "z"})
            dims.push_back(
                {{"name", std::string(side) + "_" + d}, {"unit", "m"}, {"min", -1}, {"max", 1}});
        for (const char *d : {"qw", "qx", "qy", "qz"})
            dims.push_back(
                {{"name", std::string(side) + "_" + d}, {"unit", "1"}, {"min", -1}, {"max", 1}});
        dims.push_back(
            {{"name", std::string(side) + "_gripper"}, {"unit", "1"}, {"min", -0.5}, {"max", 1.5}});
    }
    j["action"] = {
        {"dimensions", dims},
        {"mocap", nlohmann::json::array({{{"body", "mocap_left"}, {"pos", 0}, {"quat", 3}},
                                         {{"body", "mocap_right"}, {"pos", 8}, {"quat", 11}}})},
        {"actuators",
         nlohmann::json::array(
             {{{"joint", "vx300s_left/left_finger"}, {"action", 7}, {"range", {0.01844, 0.058}}},
              {{"joint", "vx300s_left/right_finger"}, {"action", 7}, {"range", {-0.01844, -0.058}}},
              {{"joint", "vx300s_right/left_finger"}, {"action", 15}, {"range", {0.01844, 0.058}}},
              {{"joint", "vx300s_right/right_finger"},
               {"action", 15},
               {"range", {-0.01844, -0.058}}}})}};
    j["start"]["ctrl_from_qpos"] = false;
    j["tracked_bodies"] = {"vx300s_left/gripper_link", "box"};
    std::ofstream(dir / "ee.json") << j.dump(1);
    WorldSettings s = smallSettings();
    s.taskFiles = {(dir / "ee.json").string()};
    // One world, one contract: the 16-D end-effector task cannot join the 14-D ALOHA tasks.
    EXPECT_NE(test::errorOf([&] { MjcfWorld mixed(s); }).find("has another action contract"),
              std::string::npos);
    MjcfTask ee = MjcfTask::fromJson(j, "ee.json");
    BoundTask bound(ee, scenePathOf(ee, s.lookup), "physics.mjcf");
    bound.reset(bound.sampleStart(0));
    const auto startPos =
        bound.bodies()["vx300s_left/gripper_link"]["pos"].get<std::vector<double>>();
    const Action hold = {startPos[0], startPos[1], startPos[2] + 0.05, 1, 0, 0, 0, 1,
                         0.31718881,  0.49999888,  0.29525084,         1, 0, 0, 0, 1};
    for (int i = 0; i < 20; ++i) {
        bound.apply(hold);
        bound.step();
    }
    const auto pos = bound.bodies()["vx300s_left/gripper_link"]["pos"].get<std::vector<double>>();
    // The weld holds the gripper 13.5 cm from the mocap body (its relative pose in the scene's
    // reference configuration), so it follows the target's change, not the target itself.
    EXPECT_GT(pos[2], startPos[2] + 0.02) << "the gripper rose with its target";
    EXPECT_GT(bound.proprio()[6], 0.5); // the left gripper opened
}
