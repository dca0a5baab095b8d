// The judge runner with judges that batch (Judge::maxBatch / sampleBatch, plugin API 4): a
// judgment's samples go in as few calls as the judge allows, and the record is the one a judge
// asked one sample at a time would have made, retries and failures included.
#include "judge/JudgeRunner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

using namespace kosmos;

namespace {

const std::string kValid =
    R"({"integrity":"intact","collision":"none_visible","progress":PROGRESS,"completion_evidence":"EVIDENCE","evidence_frame_indices":[15],"observable_reasons":"seen"})";

// Answers from the request alone: sample 1's first try is not JSON (it earns the retry), sample
// 3 fails as a request, the others succeed when their seed is even.
class ScriptedJudge : public Judge
{
public:
    explicit ScriptedJudge(int maxBatch, bool batchThrows = false)
        : m_maxBatch(maxBatch), m_batchThrows(batchThrows)
    {
    }

    JudgeAnswer sample(const JudgeRequest &request) override
    {
        ++singleCalls;
        return answer(request);
    }
    int maxBatch() const override { return m_maxBatch; }
    std::vector<JudgeAnswer> sampleBatch(std::span<const JudgeRequest> requests) override
    {
        ++batchCalls;
        largest = std::max(largest, static_cast<int>(requests.size()));
        if (m_batchThrows)
            throw std::runtime_error("this module takes one input");
        std::vector<JudgeAnswer> out;
        for (const JudgeRequest &r : requests)
            out.push_back(answer(r));
        return out;
    }

    int singleCalls = 0;
    int batchCalls = 0;
    int largest = 0;

private:
    static JudgeAnswer answer(const JudgeRequest &r)
    {
        JudgeAnswer a;
        if (r.sampleIndex == 1 && r.tryIndex == 0) {
            a.rawText = "I think it worked";
        } else if (r.sampleIndex == 3) {
            a.error = "connection refused";
        } else {
            const bool met = r.seed % 2 == 0;
            std::string text = kValid;
            text.replace(text.find("PROGRESS"), 8, met ? "5" : "2");
            text.replace(text.find("EVIDENCE"), 8, met ? "met" : "not_met");
            a.rawText = text;
            a.finishReason = "stop";
        }
        a.decodeMs = 7;
        return a;
    }

    int m_maxBatch;
    bool m_batchThrows;
};

std::vector<cv::Mat> frames()
{
    std::vector<cv::Mat> out;
    for (int i = 0; i < 20; ++i)
        out.push_back(cv::Mat(24, 32, CV_8UC3, cv::Scalar(i, 3 * i, 5 * i)));
    return out;
}

QuorumSettings quorum()
{
    QuorumSettings q;
    q.samples = 5;
    q.quorum = 3;
    q.seeds = {10, 12, 14, 7, 16};
    return q;
}

JudgmentRecord judge(Judge &j)
{
    return runJudge(j, frames(), "t", "put the red block in the green square", quorum(), {});
}

void expectSameRecord(const JudgmentRecord &a, const JudgmentRecord &b)
{
    EXPECT_EQ(a.outcome, b.outcome);
    EXPECT_EQ(a.unknownReason, b.unknownReason);
    EXPECT_EQ(a.progress, b.progress);
    EXPECT_EQ(a.decisiveVotes, b.decisiveVotes);
    EXPECT_EQ(a.screenedSamples, b.screenedSamples);
    ASSERT_EQ(a.samples.size(), b.samples.size());
    for (std::size_t i = 0; i < a.samples.size(); ++i) {
        SCOPED_TRACE("sample record " + std::to_string(i));
        const JudgeSampleRecord &x = a.samples[i], &y = b.samples[i];
        EXPECT_EQ(x.sampleIndex, y.sampleIndex);
        EXPECT_EQ(x.tryIndex, y.tryIndex);
        EXPECT_EQ(x.seed, y.seed);
        EXPECT_EQ(x.rawText, y.rawText);
        EXPECT_EQ(x.formatClass, y.formatClass);
        EXPECT_EQ(x.parseError, y.parseError);
        EXPECT_EQ(x.parsed, y.parsed);
        EXPECT_EQ(x.request, y.request); // the request document, seed and try included
    }
}

} // namespace

TEST(JudgeRunner, SamplesAskedInBatchesMakeTheRecordOfOneAtATime)
{
    ScriptedJudge alone(1);
    const JudgmentRecord reference = judge(alone);
    EXPECT_EQ(alone.singleCalls, 6); // five samples and one retry
    EXPECT_EQ(alone.batchCalls, 0);
    // Sample 1 retried right after its first try; sample 3 failed as a request.
    ASSERT_EQ(reference.samples.size(), 6U);
    EXPECT_EQ(reference.samples[1].sampleIndex, 1);
    EXPECT_EQ(reference.samples[2].sampleIndex, 1);
    EXPECT_EQ(reference.samples[2].tryIndex, 1);
    EXPECT_EQ(reference.samples[4].formatClass, "request_failed");
    EXPECT_NE(reference.samples[4].parseError->find("connection refused"), std::string::npos);

    for (int maxBatch : {2, 3, 5, 64}) {
        SCOPED_TRACE("maxBatch " + std::to_string(maxBatch));
        ScriptedJudge batched(maxBatch);
        expectSameRecord(judge(batched), reference);
        EXPECT_LE(batched.largest, maxBatch);
    }
    ScriptedJudge all(64);
    judge(all);
    EXPECT_EQ(all.batchCalls, 1) << "five first tries in one call";
    EXPECT_EQ(all.singleCalls, 1) << "the one retry alone";
}

TEST(JudgeRunner, ABatchedCallThatThrowsIsAskedOneRequestAtATime)
{
    ScriptedJudge alone(1);
    const JudgmentRecord reference = judge(alone);
    ScriptedJudge refusing(8, /*batchThrows=*/true);
    expectSameRecord(judge(refusing), reference);
    EXPECT_EQ(refusing.batchCalls, 1);
    EXPECT_EQ(refusing.singleCalls, 6);
}

TEST(JudgeRunner, CancellingBetweenCallsStopsTheJudgment)
{
    ScriptedJudge j(2);
    int checks = 0;
    EXPECT_THROW(runJudge(j, frames(), "t", "put the red block in the green square", quorum(), {},
                          [&] {
                              if (++checks == 2)
                                  throw std::runtime_error("cancelled");
                          }),
                 std::runtime_error);
    EXPECT_EQ(j.batchCalls, 1) << "the first call made, the second never";
}
