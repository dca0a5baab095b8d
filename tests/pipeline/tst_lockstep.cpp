// The lockstep group of --batch N on its own: members out of phase, components of several kinds,
// members leaving mid-way, a batched call that fails.
#include "pipeline/Lockstep.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>
#include <mutex>
#include <random>
#include <thread>

using namespace kosmos;

namespace {

// A policy whose answer is its own id and the step, so that a mixed-up batch shows.
class EchoPolicy : public Policy
{
public:
    explicit EchoPolicy(int id, bool failBatches = false) : m_id(id), m_failBatches(failBatches) {}
    ActionContract actionContract() const override { return ActionContract::bridgeEndEffector(); }
    void reset(std::uint64_t, const std::string &) override {}
    ActionChunk act(const Observation &obs) override
    {
        ++alone;
        return {Action{double(m_id), double(obs.step)}};
    }
    int maxBatch() const override { return 16; }
    std::vector<ActionChunk> actBatch(std::span<Policy *const> episodes,
                                      std::span<const Observation> observations,
                                      std::span<std::exception_ptr>) override
    {
        ++batches;
        largest = std::max(largest.load(), int(episodes.size()));
        if (m_failBatches)
            throw std::runtime_error("the module refuses a batch");
        std::vector<ActionChunk> out;
        for (std::size_t i = 0; i < episodes.size(); ++i)
            out.push_back({Action{double(static_cast<EchoPolicy *>(episodes[i])->m_id),
                                  double(observations[i].step)}});
        return out;
    }
    static inline std::atomic<int> batches{0};
    static inline std::atomic<int> alone{0};
    static inline std::atomic<int> largest{0};

private:
    int m_id;
    bool m_failBatches;
};

class EchoWorld : public WorldModel
{
public:
    ActionContract actionContract() const override { return ActionContract::bridgeEndEffector(); }
    FrameContract frameContract() const override { return {}; }
    std::vector<cv::Mat> reset(const WorldStart &) override { return {}; }
    std::vector<cv::Mat> step(const ActionChunk &actions) override
    {
        return {cv::Mat(1, 1, CV_64F, cv::Scalar(actions.front().front()))};
    }
    int maxBatch() const override { return 2; }
};

} // namespace

TEST(Lockstep, MembersOutOfPhaseWithSeveralComponentsAllFinishWithTheirOwnAnswers)
{
    // Six members: two policy kinds (keys), members that start late and stop early, random work
    // between calls. Every call gets its own member's answer; the group never deadlocks.
    EchoPolicy::batches = 0;
    EchoPolicy::largest = 0;
    LockstepGroup group;
    std::vector<std::thread> members;
    std::atomic<int> wrong{0};
    std::atomic<int> finished{0};
    for (int m = 0; m < 6; ++m) {
        members.emplace_back([&, m] {
            std::mt19937 rng(static_cast<unsigned>(m));
            std::this_thread::sleep_for(std::chrono::milliseconds(m * 3)); // out of phase
            EchoPolicy policy(m);
            EchoWorld world;
            const LockstepGroup::Membership membership(&group);
            const int steps = 20 + m * 5;
            for (int s = 0; s < steps; ++s) {
                Observation obs;
                obs.step = s;
                LockstepGroup::Call call;
                const ActionChunk chunk =
                    group.act(m % 2 ? "policy-a" : "policy-b", policy, obs, call);
                if (chunk.front() != Action{double(m), double(s)} || call.batch < 1)
                    ++wrong;
                const auto frames = group.step("world", world, chunk, call);
                if (frames.size() != 1 || frames.front().at<double>(0, 0) != double(m) ||
                    call.batch > 2)
                    ++wrong;
                std::this_thread::sleep_for(std::chrono::microseconds(rng() % 300));
            }
            ++finished;
        });
    }
    auto joined = std::async(std::launch::async, [&] {
        for (auto &t : members)
            t.join();
    });
    ASSERT_EQ(joined.wait_for(std::chrono::seconds(60)), std::future_status::ready)
        << "the group deadlocked";
    EXPECT_EQ(finished.load(), 6);
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_GT(EchoPolicy::batches.load(), 0);
    EXPECT_LE(EchoPolicy::largest.load(), 3) << "calls of two policy kinds shared a batch";
    EXPECT_GE(group.largestBatch(), 2);
}

TEST(Lockstep, AFailedBatchedCallIsMadeForEachMemberAlone)
{
    EchoPolicy::alone = 0;
    LockstepGroup group;
    std::vector<std::thread> members;
    std::mutex mutex;
    std::vector<std::string> fallbacks;
    std::latch joined(3); // all members in before the first call: the calls meet
    for (int m = 0; m < 3; ++m)
        members.emplace_back([&, m] {
            EchoPolicy policy(m, true);
            const LockstepGroup::Membership membership(&group);
            joined.arrive_and_wait();
            for (int s = 0; s < 5; ++s) {
                Observation obs;
                obs.step = s;
                LockstepGroup::Call call;
                const ActionChunk chunk = group.act("p", policy, obs, call);
                EXPECT_EQ(chunk.front(), (Action{double(m), double(s)}));
                std::lock_guard lock(mutex);
                if (!call.fallback.empty())
                    fallbacks.push_back(call.fallback);
            }
        });
    for (auto &t : members)
        t.join();
    ASSERT_FALSE(fallbacks.empty());
    EXPECT_NE(fallbacks.front().find("refuses a batch"), std::string::npos) << fallbacks.front();
    EXPECT_EQ(EchoPolicy::alone.load(), 15) << "every call answered alone";
}
