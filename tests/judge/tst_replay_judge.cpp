#include "judge/JudgeRunner.h"
#include "replay/ReplayJudge.h"
#include "util/Error.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <fstream>

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
