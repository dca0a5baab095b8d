// remote.lerobot end to end, with the real bridge (python/kosmos_serve/lerobot_policy.py) over a
// stand-in for LeRobot's policy API (tests/fixtures/lerobot-standin: LeRobot's calling
// convention, a small torch policy with an action queue and seeded noise; Debian's python3-torch,
// no LeRobot): the adapter starts a bridge per concurrent episode, reuses it from run to run and
// stops it with the batch, from the CLI and from the workstation's run controller; the ledger
// records exactly what the bridge answered; what cannot be fed, a policy that raises or fails to
// load, and an interpreter without LeRobot are named; a worker killed by SIGKILL leaves no bridge
// behind. LeRobot itself: tools/lerobot/check_workstation_actions.py and tst_lerobot_wire.
#include "NumpyMsgpack.h"
#include "TestSupport.h"
#include "ledger/Ledger.h"
#include "run/RunController.h"
#include "util/Sha256.h"

#include <QCoreApplication>
#include <QEventLoop>

#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {

const fs::path kStandIn = fs::path(KOSMOS_SOURCE_DIR) / "tests/fixtures/lerobot-standin";

// The stand-in on the bridge's PYTHONPATH for this process and what it starts.
struct StandInPath
{
    StandInPath() { ::setenv("PYTHONPATH", (kStandIn / "site").c_str(), 1); }
    ~StandInPath() { ::unsetenv("PYTHONPATH"); }
};

// A copy of the stand-in checkpoint in `dir` (a path no other test's bridge has), with
// config.json's fields replaced by `changes`.
fs::path checkpoint(const test::TempDir &dir, const std::string &name,
                    const nlohmann::json &changes = nlohmann::json::object())
{
    const fs::path folder = dir / name;
    fs::create_directories(folder);
    fs::copy_file(kStandIn / "checkpoint/model.safetensors", folder / "model.safetensors");
    nlohmann::json config =
        nlohmann::json::parse(test::readFile(kStandIn / "checkpoint/config.json"));
    config.merge_patch(changes);
    std::ofstream(folder / "config.json") << config.dump(2);
    return folder;
}

nlohmann::json policy(const fs::path &folder, const fs::path &record = {})
{
    nlohmann::json settings = {{"checkpoint", folder.string()}, {"python", "/usr/bin/python3"}};
    if (!record.empty())
        settings["record"] = record.string();
    return {{"plugin", "remote.lerobot"}, {"settings", settings}};
}

nlohmann::json protocol(const std::string &name, const nlohmann::json &policies, int episodes,
                        int horizon)
{
    return {{"kosmos_protocol", 1},
            {"name", name},
            {"seed", 11},
            {"horizon", horizon},
            {"episodes_per_task", episodes},
            {"tasks", {{{"id", "red"}, {"instruction", "put the red block in the green square"}}}},
            // One policy given alone ({policy(...)} is that object to nlohmann) or a list.
            {"policies", policies.is_array() ? policies : nlohmann::json::array({policies})},
            {"world_model",
             {{"plugin", "synthetic.tabletop"}, {"settings", nlohmann::json::object()}}}};
}

// The bridges running for a checkpoint folder (its path is on their command line).
std::vector<int> bridgesFor(const fs::path &folder)
{
    std::vector<int> pids;
    for (const auto &entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        std::ifstream in(entry.path() / "cmdline", std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        std::string cmdline = text.str();
        for (char &c : cmdline)
            if (c == '\0')
                c = ' ';
        if (cmdline.find("lerobot_policy.py") != std::string::npos &&
            cmdline.find(folder.string() + " ") != std::string::npos)
            pids.push_back(std::stoi(name));
    }
    return pids;
}

bool noBridgeWithin(const fs::path &folder, std::chrono::seconds limit)
{
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!bridgesFor(folder).empty()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
}

// The actions a recorded bridge answered, in order.
std::vector<std::vector<double>> repliedActions(const fs::path &record)
{
    std::vector<std::vector<double>> out;
    for (int i = 0;; ++i) {
        const fs::path reply = record / ("reply-" + std::to_string(i) + ".msgpack");
        if (!fs::exists(reply))
            break;
        const remote::MsgValue r = remote::unpackOpenPi(test::readFile(reply), "reply");
        if (const remote::MsgValue *a = r.find("actions")) {
            std::vector<double> action;
            for (std::int64_t k = 0; k < a->array.count(); ++k)
                action.push_back(a->array.at(k));
            out.push_back(action);
        }
    }
    return out;
}

std::vector<std::vector<double>> exportedActions(const std::string &bundle, int run,
                                                 const fs::path &to)
{
    const auto r = test::runProcessWithStderr(
        {test::cliPath(), "export", bundle, std::to_string(run), "--to", to.string()});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    std::ifstream csv(to / "actions.csv");
    std::string line;
    std::getline(csv, line); // header
    std::vector<std::vector<double>> out;
    while (std::getline(csv, line)) {
        std::vector<double> row;
        std::stringstream fields(line);
        std::string field;
        for (int column = 0; std::getline(fields, field, ','); ++column)
            if (column >= 2)
                row.push_back(std::stod(field));
        out.push_back(row);
    }
    return out;
}

std::string allErrors(const std::string &bundle)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    std::string text;
    for (std::int64_t run = 1; run <= ledger.info().runs; ++run)
        for (const AttemptRecord &a : ledger.attempts(run))
            text += a.errorMessage.value_or("") + "\n----\n";
    return text;
}

} // namespace

TEST(RemoteLeRobot, TheCliRecordsWhatTheBridgeAnsweredAndHashesTheCheckpoint)
{
    const StandInPath path;
    test::TempDir dir;
    const fs::path folder = checkpoint(dir, "ckpt");
    const auto bundle = (dir / "l.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    std::ofstream(dir / "p.json")
        << protocol("lerobot-cli", {policy(folder, dir / "record")}, 2, 6).dump();
    const auto r = test::runProcessWithStderr(
        {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("completed 2, failed 0"), std::string::npos) << r.output;
    // The run key names the checkpoint's files and the interpreter's LeRobot.
    EXPECT_NE(r.output.find(Sha256::fileHex(folder / "config.json")), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("0.0.0+kosmos.standin"), std::string::npos) << r.output;
    // One bridge served both episodes (reused), and it is gone with the batch.
    std::vector<fs::path> records;
    for (const auto &e : fs::directory_iterator(dir / "record"))
        records.push_back(e.path());
    ASSERT_EQ(records.size(), 1u);
    EXPECT_TRUE(noBridgeWithin(folder, std::chrono::seconds(5)));
    // The ledger's actions are the bridge's answers, value for value, episode after episode.
    const auto replied = repliedActions(records[0]);
    ASSERT_EQ(replied.size(), 12u) << "two episodes of six steps";
    auto recorded = exportedActions(bundle, 1, dir / "e1");
    const auto second = exportedActions(bundle, 2, dir / "e2");
    recorded.insert(recorded.end(), second.begin(), second.end());
    EXPECT_EQ(recorded, replied);
    EXPECT_NE(replied[0], replied[6]) << "each episode seeded by its run";
    const auto verify = test::runProcess({test::cliPath(), "verify", bundle});
    EXPECT_EQ(verify.exitCode, 0) << verify.output;
}

// What Run > New batch does: a detached `kosmos-cli run --isolate` with two worker processes,
// each starting its own bridge; none is left when the batch is done.
TEST(RemoteLeRobot, TheWorkstationRunsACheckpointAndItsBridgesStopWithTheBatch)
{
    const StandInPath path;
    test::TempDir dir;
    const fs::path folder = checkpoint(dir, "ckpt");
    const auto bundle = (dir / "gui.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ui::RunController controller(QString::fromStdString(test::cliPath()));
    controller.setLedger(QString::fromStdString(bundle));
    ASSERT_TRUE(controller.start(protocol("lerobot-gui", {policy(folder)}, 4, 5), 2));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
    while ((controller.progress().total == 0 || controller.active()) &&
           std::chrono::steady_clock::now() < deadline) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_FALSE(controller.active());
    EXPECT_EQ(controller.progress().completed, 4) << allErrors(bundle);
    EXPECT_TRUE(noBridgeWithin(folder, std::chrono::seconds(5)));
}

TEST(RemoteLeRobot, WhatCannotRunIsNamedInTheAttemptOrTheAvailability)
{
    test::TempDir dir;
    const fs::path plain = checkpoint(dir, "plain");
    {
        // An interpreter without LeRobot: said before anything runs.
        const auto r =
            test::runProcessWithStderr({test::cliPath(), "plugins", "--check", "remote.lerobot",
                                        "--settings", policy(plain)["settings"].dump()});
        EXPECT_NE(r.output.find("/usr/bin/python3 lacks lerobot"), std::string::npos) << r.output;
        const auto none = test::runProcessWithStderr(
            {test::cliPath(), "plugins", "--check", "remote.lerobot", "--settings",
             nlohmann::json{{"checkpoint", dir.path().string()}}.dump()});
        EXPECT_NE(none.output.find("has no config.json"), std::string::npos) << none.output;
    }
    const StandInPath path;
    const nlohmann::json policies = {
        policy(checkpoint(dir, "raises", {{"raise_at_step", 3}})),
        policy(checkpoint(dir, "load", {{"fail_at_load", true}})),
        policy(checkpoint(
            dir, "keypoints",
            {{"input_features",
              {{"observation.environment_state", {{"type", "ENV"}, {"shape", {16}}}}}}})),
        policy(checkpoint(
            dir, "state3",
            {{"input_features", {{"observation.state", {{"type", "STATE"}, {"shape", {3}}}}}}}))};
    const auto bundle = (dir / "bad.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    std::ofstream(dir / "p.json") << protocol("lerobot-bad", policies, 1, 6).dump();
    const auto r = test::runProcessWithStderr(
        {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    EXPECT_NE(r.exitCode, 0);
    const std::string errors = allErrors(bundle);
    for (const char *expected :
         {"stand-in raised at step 3", "Traceback", "this checkpoint fails to load (fail_at_load)",
          "exited with code", "observation.environment_state (ENV, [16]) cannot be fed",
          "observation.state takes 3 values; the world reports 5"})
        EXPECT_NE(errors.find(expected), std::string::npos) << expected << "\n" << errors;
    for (const char *name : {"raises", "load", "keypoints", "state3"})
        EXPECT_TRUE(noBridgeWithin(dir / name, std::chrono::seconds(5))) << name;
}

// A policy that overshoots its training range (the stand-in's gripper shifted up by 0.6): its
// contract (the range plus the margin) refuses the action, unless clip_to_range clips it to the
// checkpoint's range, and then each clipped step records what the policy said.
TEST(RemoteLeRobot, ClipToRangeExecutesTheRangeAndRecordsWhatThePolicySaid)
{
    const StandInPath path;
    test::TempDir dir;
    const fs::path folder = checkpoint(dir, "over", {{"gripper_offset", 0.6}});
    nlohmann::json clipped = policy(folder);
    clipped["settings"]["clip_to_range"] = true;
    const auto bundle = (dir / "c.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    std::ofstream(dir / "p.json")
        << protocol("lerobot-clip", nlohmann::json::array({policy(folder), clipped}), 1, 4).dump();
    const auto r = test::runProcessWithStderr(
        {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    EXPECT_NE(r.output.find("completed 1, failed 1"), std::string::npos) << r.output;
    EXPECT_NE(allErrors(bundle).find("action_6 = 1.2"), std::string::npos) << allErrors(bundle);
    std::string events;
    for (const char *run : {"1", "2"})
        events += test::runProcess({test::cliPath(), "events", bundle, run}).output;
    EXPECT_NE(events.find("clipped_from"), std::string::npos) << events;
}

TEST(RemoteLeRobot, AWorkerKilledBySigkillLeavesNoBridgeBehind)
{
    const StandInPath path;
    test::TempDir dir;
    const fs::path folder = checkpoint(dir, "ckpt");
    const auto bundle = (dir / "k.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    std::ofstream(dir / "p.json") << protocol("lerobot-kill", {policy(folder)}, 50, 200).dump();
    const pid_t cli =
        test::startProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (bridgesFor(folder).empty() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_FALSE(bridgesFor(folder).empty()) << "the bridge never started";
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ::kill(cli, SIGKILL);
    test::waitProcess(cli);
    EXPECT_TRUE(noBridgeWithin(folder, std::chrono::seconds(5)))
        << "the bridge outlived its worker";
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
