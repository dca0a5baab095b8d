#pragma once

#include "components/Components.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace kosmos {

// Episodes of one worker run in lockstep (`kosmos-cli run --batch N`; docs/pipeline.md, "Batched
// episodes"). Each episode runs on a lane thread of its own, with its own lease, components and
// records, exactly as with --batch 1; a lane whose policy or world model declares a batch
// dimension (maxBatch() > 1) joins the group for its rollout, and its calls to that component
// wait at the group until every member is waiting for a call. Then the waiting calls of the
// longest-waiting member's component (the same plugin and settings: `key`) are made as one call
// (actBatch / stepBatch, at most maxBatch() episodes), on the thread that found them ready, and
// those members go on; the others wait for the next round. Calls of different components never
// share a call, and a member waiting for its world model never blocks one waiting for its policy:
// whenever all members wait, some call is made, so the group cannot deadlock. An episode's own
// failure in a batched call is that episode's alone; when the batched call itself throws, each
// of its episodes is called on its own.
class LockstepGroup
{
public:
    // What a call through the group did, for the run's timings and step events.
    struct Call
    {
        double callMs = 0;    // the (shared) call itself
        double waitMs = 0;    // waiting for the other members before it
        int batch = 1;        // episodes served by the call
        std::string fallback; // the batched call's error when its episodes were called alone
    };

    // A lane's membership for one rollout (RAII): joins on construction, leaves on destruction
    // (also when the rollout throws), so the others never wait for a lane that has gone.
    class Membership
    {
    public:
        explicit Membership(LockstepGroup *group);
        ~Membership();
        Membership(const Membership &) = delete;
        Membership &operator=(const Membership &) = delete;

    private:
        LockstepGroup *m_group;
    };

    ActionChunk act(const std::string &key, Policy &policy, const Observation &observation,
                    Call &call);
    std::vector<cv::Mat> step(const std::string &key, WorldModel &world, const ActionChunk &actions,
                              Call &call);

    // The largest batch made so far (for tests and the bench).
    int largestBatch() const;

private:
    struct Waiter
    {
        bool policy = true;
        std::string key;
        Policy *policyComponent = nullptr;
        const Observation *observation = nullptr;
        WorldModel *worldComponent = nullptr;
        const ActionChunk *actions = nullptr;
        ActionChunk chunk;           // policy: the answer
        std::vector<cv::Mat> frames; // world model: the answer
        std::exception_ptr failure;
        Call call;
        bool done = false;
    };

    void join();
    void leave();
    // Waits until a round has answered `me`; `call` says how; rethrows the episode's failure.
    void wait(Waiter &me, Call &call);
    // Called with the lock held and every member waiting; releases it during the call.
    void runRound(std::unique_lock<std::mutex> &lock);
    static void callAlone(Waiter &w);

    mutable std::mutex m_mutex;
    std::condition_variable m_changed;
    int m_members = 0;
    bool m_calling = false; // a round's call is being made (its members are not waiting)
    std::deque<Waiter *> m_waiting;
    int m_largest = 0;
};

} // namespace kosmos
