#include "judge/JudgeRunner.h"
#include "replay/ReplayJudge.h"
#include "replay/ReplayPolicy.h"
#include "util/Error.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>

using namespace kosmos;

TEST(ReplayJudge, AnswersFromTheSavedFileAndNeverInventsOne)
{
    test::TempDir dir;
    std::vector<cv::Mat> frames;
    for (int i = 0; i < 16; ++i)
        frames.push_back(cv::Mat(32, 40, CV_8UC3, cv::Scalar(i, 2 * i, 3 * i)));
    JudgeRequest request;
    request.frames = frames;
    request.instruction = "put the red block in the green square";
    const std::string digest = replay::judgeInputDigest(request);
    const std::string answer =
        R"({"integrity":"intact","collision":"none_visible","progress":1,"completion_evidence":"not_met","evidence_frame_indices":[15],"observable_reasons":"no"})";
    nlohmann::json file = {{"answers", nlohmann::json::array()}};
    for (int s = 0; s < 2; ++s) // only two of three samples saved
        file["answers"].push_back({{"input_sha256", digest},
                                   {"sample_index", s},
                                   {"raw_text", answer},
                                   {"decode_ms", 1589}});
    std::ofstream(dir / "replay.json") << file.dump();
    replay::ReplayJudge judge((dir / "replay.json").string());

    QuorumSettings q;
    q.samples = 3;
    q.quorum = 2;
    q.seeds = {1, 2, 3};
    const JudgmentRecord r = runJudge(judge, frames, "t", request.instruction, q, {});
    EXPECT_EQ(r.outcome, "failure");
    EXPECT_EQ(r.samples.at(0).decodeMs, 1589);
    EXPECT_EQ(r.samples.at(2).formatClass, "request_failed");
    EXPECT_NE(r.samples.at(2).parseError->find("no saved answer"), std::string::npos);

    request.frames[3] = cv::Mat(32, 40, CV_8UC3, cv::Scalar(99, 99, 99));
    EXPECT_NE(replay::judgeInputDigest(request), digest) << "other frames, other key";

    file["answers"].push_back(file["answers"][0]);
    std::ofstream(dir / "dup.json") << file.dump();
    EXPECT_THROW(replay::ReplayJudge((dir / "dup.json").string()), Error);
}

// The open-loop twin fidelity prepare writes for a policy that reads the simulator's state: the
// episode chosen by the seed the run's policy is reset with, each step the action recorded at
// that step, in chunks of the recorded contract's length wherever they begin.
TEST(SeededReplay, GivesTheEpisodeOfTheSeedStepByStepAndRefusesWhatItWasNotPreparedFor)
{
    test::TempDir dir;
    ActionContract contract = ActionContract::bridgeEndEffector();
    contract.chunkLength = 3;
    auto row = [](double v) { return nlohmann::json::array({v, 0, 0, 0, 0, 0, 1}); };
    nlohmann::json a = nlohmann::json::array();
    nlohmann::json b = nlohmann::json::array();
    for (int k = 0; k < 5; ++k) {
        a.push_back(row(0.001 * k));
        b.push_back(row(-0.001 * k));
    }
    const nlohmann::json doc = {{"format", "kosmos.replay_by_seed/1"},
                                {"replays", "physics.scripted_policy {\"skill\":\"expert\"}"},
                                {"action_contract", contract.toJson()},
                                {"episodes",
                                 {{{"policy_seed", "18446744073709551615"},
                                   {"lineage", "red#0"},
                                   {"instruction", "put the red block in the green square"},
                                   {"policy_actions", a}},
                                  {{"policy_seed", "7"},
                                   {"lineage", "red#1"},
                                   {"instruction", "other"},
                                   {"policy_actions", b}}}}};
    const auto file = dir / "twin.json";
    std::ofstream(file) << doc.dump();
    replay::SeededReplayPolicy policy(file, doc["replays"]);
    EXPECT_EQ(policy.episodes(), 2u);
    EXPECT_EQ(policy.actionContract().chunkLength, 3);
    policy.reset(18446744073709551615ull, "put the red block in the green square");
    Observation obs;
    obs.step = 1; // a world chunk that cut the last one: the actions from this step on
    ActionChunk chunk = policy.act(obs);
    ASSERT_EQ(chunk.size(), 3u);
    EXPECT_DOUBLE_EQ(chunk[0][0], 0.001);
    EXPECT_DOUBLE_EQ(chunk[2][0], 0.003);
    obs.step = 4; // the last recorded action, then (past the recording) the same again
    chunk = policy.act(obs);
    ASSERT_EQ(chunk.size(), 3u);
    EXPECT_DOUBLE_EQ(chunk[0][0], 0.004);
    EXPECT_DOUBLE_EQ(chunk[2][0], 0.004);
    obs.step = 5;
    EXPECT_THROW(policy.act(obs), Error); // past the recording: named
    policy.reset(7, "other");
    obs.step = 0;
    EXPECT_DOUBLE_EQ(policy.act(obs)[1][0], -0.001);

    auto message = [](auto &&f) {
        try {
            f();
        } catch (const Error &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    // A seed it holds no episode for, another instruction: refused, naming the file.
    std::string m = message([&] { policy.reset(8, "other"); });
    EXPECT_NE(m.find("no episode recorded for seed 8"), std::string::npos) << m;
    EXPECT_NE(m.find("twin.json"), std::string::npos) << m;
    m = message([&] { policy.reset(7, "put the red block in the green square"); });
    EXPECT_NE(m.find("was recorded for 'other'"), std::string::npos) << m;
    // Settings that name another replayed policy than the file's.
    m = message([&] { replay::SeededReplayPolicy(file, "physics.scripted_policy {}"); });
    EXPECT_NE(m.find("not what settings.replays names"), std::string::npos) << m;
    // Settings that say the actions came from the world model, of a file of physics actions, and
    // the other way round (fidelity prepare --in-physics).
    m = message([&] { replay::SeededReplayPolicy(file, doc["replays"], "imagined"); });
    EXPECT_NE(m.find("holds actions from \"physics\""), std::string::npos) << m;
    {
        nlohmann::json imagined = doc;
        imagined["actions_from"] = "imagined";
        std::ofstream(dir / "in-physics.json") << imagined.dump();
        EXPECT_EQ(replay::SeededReplayPolicy(dir / "in-physics.json", doc["replays"], "imagined")
                      .episodes(),
                  2u);
        m = message([&] { replay::SeededReplayPolicy(dir / "in-physics.json", doc["replays"]); });
        EXPECT_NE(m.find("holds actions from \"imagined\""), std::string::npos) << m;
        EXPECT_NE(m.find("in-physics.json"), std::string::npos) << m;
    }
    // Broken files: each named with where.
    const std::vector<std::pair<std::function<void(nlohmann::json &)>, std::string>> broken = {
        {[](nlohmann::json &d) { d["format"] = "kosmos.replay_by_seed/2"; }, "is not a"},
        {[](nlohmann::json &d) { d["episodes"][1]["policy_seed"] = "18446744073709551615"; },
         "recorded twice"},
        {[](nlohmann::json &d) { d["episodes"][0]["policy_seed"] = "-3"; }, "not a decimal seed"},
        {[](nlohmann::json &d) { d["episodes"][0]["policy_seed"] = "12x"; }, "not a decimal seed"},
        {[](nlohmann::json &d) { d["episodes"][0]["policy_seed"] = 12; }, "policy_seed"},
        {[](nlohmann::json &d) {
             d["episodes"][1]["policy_actions"][2] = {1, 2};
         },
         "episodes[1].policy_actions[2] is not 7 numbers"},
        {[](nlohmann::json &d) { d["episodes"][1]["policy_actions"][2][0] = "x"; }, "not a number"},
        {[](nlohmann::json &d) { d["episodes"] = nlohmann::json::array(); }, "has no episodes"},
        {[](nlohmann::json &d) { d.erase("action_contract"); }, "has no action_contract"},
    };
    for (const auto &[edit, expected] : broken) {
        nlohmann::json bad = doc;
        edit(bad);
        std::ofstream(dir / "bad.json", std::ios::trunc) << bad.dump();
        m = message([&] { replay::SeededReplayPolicy(dir / "bad.json", doc["replays"]); });
        EXPECT_NE(m.find(expected), std::string::npos) << expected << " / " << m;
        EXPECT_NE(m.find("bad.json"), std::string::npos) << m;
    }
}
