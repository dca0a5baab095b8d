#include "pipeline/Lockstep.h"

#include "util/Clock.h"

#include <algorithm>
#include <chrono>

namespace kosmos {

namespace {
using Steady = std::chrono::steady_clock;

std::string messageOf(const std::exception_ptr &failure)
{
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception &e) {
        return e.what();
    } catch (...) {
        return "an unknown exception";
    }
}
} // namespace

LockstepGroup::Membership::Membership(LockstepGroup *group) : m_group(group)
{
    if (m_group)
        m_group->join();
}

LockstepGroup::Membership::~Membership()
{
    if (m_group)
        m_group->leave();
}

void LockstepGroup::join()
{
    std::lock_guard lock(m_mutex);
    ++m_members;
}

void LockstepGroup::leave()
{
    {
        std::lock_guard lock(m_mutex);
        --m_members;
    }
    m_changed.notify_all(); // the others may all be waiting now
}

int LockstepGroup::largestBatch() const
{
    std::lock_guard lock(m_mutex);
    return m_largest;
}

ActionChunk LockstepGroup::act(const std::string &key, Policy &policy,
                               const Observation &observation, Call &call)
{
    Waiter me;
    me.policy = true;
    me.key = key;
    me.policyComponent = &policy;
    me.observation = &observation;
    wait(me, call);
    return std::move(me.chunk);
}

std::vector<cv::Mat> LockstepGroup::step(const std::string &key, WorldModel &world,
                                         const ActionChunk &actions, Call &call)
{
    Waiter me;
    me.policy = false;
    me.key = key;
    me.worldComponent = &world;
    me.actions = &actions;
    wait(me, call);
    return std::move(me.frames);
}

void LockstepGroup::wait(Waiter &me, Call &call)
{
    const auto start = Steady::now();
    std::unique_lock lock(m_mutex);
    m_waiting.push_back(&me);
    for (;;) {
        if (me.done)
            break;
        if (!m_calling && static_cast<int>(m_waiting.size()) >= m_members) {
            runRound(lock); // perhaps not this member's call: then it waits for the next round
            continue;
        }
        m_changed.wait(lock);
    }
    me.call.waitMs = std::max(0.0, msSince(start) - me.call.callMs);
    lock.unlock();
    call = me.call;
    if (me.failure)
        std::rethrow_exception(me.failure);
}

void LockstepGroup::callAlone(Waiter &w)
{
    try {
        if (w.policy)
            w.chunk = w.policyComponent->act(*w.observation);
        else
            w.frames = w.worldComponent->step(*w.actions);
    } catch (...) {
        w.failure = std::current_exception();
    }
}

void LockstepGroup::runRound(std::unique_lock<std::mutex> &lock)
{
    // The longest-waiting member's component, and every waiting call of the same one.
    Waiter *first = m_waiting.front();
    const int limit = std::max(1, first->policy ? first->policyComponent->maxBatch()
                                                : first->worldComponent->maxBatch());
    std::vector<Waiter *> round;
    for (auto it = m_waiting.begin(); it != m_waiting.end();) {
        Waiter *w = *it;
        if (static_cast<int>(round.size()) < limit && w->policy == first->policy &&
            w->key == first->key) {
            round.push_back(w);
            it = m_waiting.erase(it);
        } else {
            ++it;
        }
    }
    m_calling = true;
    m_largest = std::max(m_largest, static_cast<int>(round.size()));
    lock.unlock();

    const auto start = Steady::now();
    std::string fallback;
    if (round.size() == 1) {
        callAlone(*round.front());
    } else {
        try {
            if (first->policy) {
                std::vector<Policy *> episodes;
                std::vector<Observation> observations;
                for (Waiter *w : round) {
                    episodes.push_back(w->policyComponent);
                    observations.push_back(*w->observation);
                }
                std::vector<std::exception_ptr> failures(round.size());
                std::vector<ActionChunk> chunks =
                    round.front()->policyComponent->actBatch(episodes, observations, failures);
                if (chunks.size() != round.size())
                    throw std::runtime_error("actBatch returned " + std::to_string(chunks.size()) +
                                             " chunks for " + std::to_string(round.size()) +
                                             " episodes");
                for (std::size_t i = 0; i < round.size(); ++i) {
                    round[i]->chunk = std::move(chunks[i]);
                    round[i]->failure = failures[i];
                }
            } else {
                std::vector<WorldModel *> episodes;
                std::vector<ActionChunk> actions;
                for (Waiter *w : round) {
                    episodes.push_back(w->worldComponent);
                    actions.push_back(*w->actions);
                }
                std::vector<std::exception_ptr> failures(round.size());
                std::vector<std::vector<cv::Mat>> frames =
                    round.front()->worldComponent->stepBatch(episodes, actions, failures);
                if (frames.size() != round.size())
                    throw std::runtime_error("stepBatch returned frames for " +
                                             std::to_string(frames.size()) + " episodes of " +
                                             std::to_string(round.size()));
                for (std::size_t i = 0; i < round.size(); ++i) {
                    round[i]->frames = std::move(frames[i]);
                    round[i]->failure = failures[i];
                }
            }
        } catch (...) {
            // Each episode on its own: a failure stays with the episode it belongs to.
            fallback = messageOf(std::current_exception());
            for (Waiter *w : round) {
                w->chunk.clear();
                w->frames.clear();
                w->failure = nullptr;
                callAlone(*w);
            }
        }
    }
    const double ms = msSince(start);

    lock.lock();
    for (Waiter *w : round) {
        w->call.callMs = ms;
        w->call.batch = static_cast<int>(round.size());
        w->call.fallback = fallback;
        w->done = true;
    }
    m_calling = false;
    m_changed.notify_all();
}

} // namespace kosmos
