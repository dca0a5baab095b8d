#include "pipeline/RunExecutor.h"

#include "artifacts/ImageCodecs.h"
#include "artifacts/PixelDigest.h"
#include "judge/JudgePrompt.h"
#include "judge/JudgeRunner.h"
#include "judge/JudgeSchema.h"
#include "pipeline/FramePipeline.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/GpuMonitor.h"
#include "util/ProcessTuning.h"
#include "validation/RolloutValidator.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <sys/resource.h>
#include <thread>
#include <typeinfo>

namespace kosmos {

namespace {

using Steady = std::chrono::steady_clock;

std::int64_t peakRssKib()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// CPU time of the calling thread (user + system): an attempt runs on one worker thread, so the
// difference over an attempt is its CPU time (threads a plugin starts itself are not counted).
double threadCpuMs()
{
    rusage usage{};
    getrusage(RUSAGE_THREAD, &usage);
    return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
           static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
}

std::string frameName(int index)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "frame_%05d.png", index);
    return buffer;
}

// A failure of the pipeline at a named stage, with a reason code (a contract reason or an
// error class) that becomes the attempt's error_code.
struct StageFailure
{
    std::string stage;
    std::string code;
    std::string message;
};

class Cancelled
{
};

// The batch was stopped (Ctrl-C, SIGTERM; a shard's scancel, a time limit, preemption): stopping
// never ends a run for good. The attempt fails as 'interrupted' (what it recorded is kept) and the
// run goes back to the queue, so the same command again finishes it.
class Interrupted
{
};

} // namespace

namespace {

// Executes one leased run end to end.
class RunExecutor
{
public:
    RunExecutor(AttemptScope &scope, const Protocol &protocol, const RunPlan &plan,
                ComponentFactory &factory, const std::atomic<bool> &stop,
                const ProgressFn &progress, const std::optional<ComponentIdentity> &judgeIdentity,
                LockstepGroup *lockstep)
        : m_scope(scope), m_ledger(scope.ledger()), m_lease(scope.lease()), m_protocol(protocol),
          m_plan(plan), m_factory(factory), m_stop(stop), m_progress(progress),
          m_judgeIdentity(judgeIdentity),
          m_task(protocol.tasks[static_cast<std::size_t>(plan.taskIndex)]), m_lockstep(lockstep)
    {
    }

    // Runs the pipeline and ends the attempt; returns how it ended. A lost lease ends it as
    // LeaseLost (nothing more is written) whichever write noticed.
    AttemptResult execute()
    {
        const auto start = Steady::now();
        try {
            runPipeline();
            recordTimings(start);
            return m_scope.complete();
        } catch (const Interrupted &) {
            recordTimings(start);
            m_failure = "interrupted: the process was stopped; the run is back in the queue";
            return m_scope.interrupt("run " + std::to_string(m_lease.runId) + ", stage " + m_stage +
                                     ": the process was stopped (Ctrl-C, SIGTERM, scancel, a time "
                                     "limit, preemption); the run is back in the queue");
        } catch (const Cancelled &) {
            recordTimings(start);
            return m_scope.cancel("cancel requested");
        } catch (const StageFailure &f) {
            return fail(f, start);
        } catch (const Error &e) {
            if (e.code() == ErrorCode::LeaseLost) {
                m_failure = e.what();
                return AttemptResult::LeaseLost; // the scope's end finds the lease gone too
            }
            return fail({m_stage, std::string(errorCodeName(e.code())), e.what()}, start);
        } catch (const std::exception &e) {
            return fail({m_stage, "exception", std::string(typeid(e).name()) + ": " + e.what()},
                        start);
        }
    }

private:
    AttemptResult fail(const StageFailure &f, Steady::time_point start)
    {
        m_scope.bufferEvent(
            "stage_failed",
            nlohmann::json{{"stage", f.stage}, {"code", f.code}, {"message", f.message}});
        recordTimings(start);
        m_failure = f.code + ": " + f.message;
        return m_scope.fail(f.code, "run " + std::to_string(m_lease.runId) + ", stage " + f.stage +
                                        ": " + f.message);
    }

    void stage(const std::string &name)
    {
        m_stage = name;
        m_scope.bufferEvent("stage", nlohmann::json{{"stage", name}});
    }

    // Between calls: the lease keeper renews the lease in the background (also during a call
    // that takes minutes); here its findings are acted on.
    void checkCancel()
    {
        m_scope.throwIfLost();
        if (m_scope.cancelRequested())
            throw Cancelled{};
        if (m_stop)
            throw Interrupted{};
    }

    // A policy's act(); when it fails because the run was cancelled meanwhile (a remote policy
    // abandons its request), the run is cancelled, not failed.
    // Its time counts in the policy's stage timing whether it answers or fails (a call that timed
    // out after 60 s is 60 s of the attempt, not 0).
    // In lockstep (--batch N) a policy with a batch dimension is called through the group: the
    // episode's share of the shared call counts as its policy time, the wait for the others
    // apart (critical_path.lockstep_wait_ms).
    ActionChunk actOrCancelled(Policy &policy, const Observation &obs)
    {
        const auto t = Steady::now();
        // Decided once: a batched call that fails may leave the policy declaring no batch.
        const bool viaGroup = m_inLockstep && policy.maxBatch() > 1;
        try {
            ActionChunk chunk;
            if (viaGroup) {
                chunk = m_lockstep->act(policyKey(), policy, obs, m_lastPolicyCall);
                countLockstep(m_lastPolicyCall, m_policyMs);
            } else {
                m_lastPolicyCall = {};
                chunk = policy.act(obs);
                m_policyMs += msSince(t);
            }
            return chunk;
        } catch (...) {
            if (viaGroup)
                countLockstep(m_lastPolicyCall, m_policyMs);
            else
                m_policyMs += msSince(t);
            throwIfStopped();
            throw;
        }
    }

    // True once this run is to stop: the batch interrupted, or a cancel requested for it.
    std::function<bool()> cancelFlag()
    {
        return [this] { return m_stop || m_ledger.cancelRequested(m_lease); };
    }

    // After a component's call failed: if the run was stopped meanwhile (a remote component
    // abandons its request when it is), the run is interrupted or cancelled, not failed.
    void throwIfStopped()
    {
        if (m_stop)
            throw Interrupted{};
        if (m_ledger.cancelRequested(m_lease))
            throw Cancelled{};
    }

    // A world's reset() or step() outside lockstep, its time counted in the world-model stage
    // whether it answers or fails (a call abandoned after 40 s is 40 s of the attempt).
    std::vector<cv::Mat> worldCallOrCancelled(const std::function<std::vector<cv::Mat>()> &call)
    {
        const auto t = Steady::now();
        try {
            auto frames = call();
            m_worldMs += msSince(t);
            return frames;
        } catch (...) {
            m_worldMs += msSince(t);
            throwIfStopped();
            throw;
        }
    }

    void countLockstep(const LockstepGroup::Call &call, double &stageMs)
    {
        stageMs += call.callMs / std::max(1, call.batch);
        m_lockstepWaitMs += call.waitMs;
        ++m_lockstepCalls;
        m_lockstepEpisodes += call.batch;
    }

    // How a call went through the lockstep group, added to its statistics in the step event.
    static void noteBatch(nlohmann::json &stats, const LockstepGroup::Call &call)
    {
        if (call.batch <= 1 && call.fallback.empty())
            return;
        if (!stats.is_object())
            stats = nlohmann::json::object();
        stats["batch"] = call.batch;
        stats["batch_call_ms"] = call.callMs;
        if (!call.fallback.empty())
            stats["batch_fallback"] = "the batched call failed (" + call.fallback +
                                      "); each episode was called on its own";
    }

    // Which calls may share a batched call: the same plugin and settings (written once a run,
    // not at every step).
    const std::string &policyKey()
    {
        if (m_policyKey.empty()) {
            const auto &spec = m_protocol.policies[static_cast<std::size_t>(m_plan.policyIndex)];
            m_policyKey = spec.plugin + " " + spec.settings.dump();
        }
        return m_policyKey;
    }
    const std::string &worldKey()
    {
        if (m_worldKey.empty())
            m_worldKey = m_protocol.worldModel.plugin + " " + m_protocol.worldModel.settings.dump();
        return m_worldKey;
    }

    // A policy call's own statistics (timing, memory) for the step's event, and the images it
    // made (SuSIE's subgoals), stored as "policy_image" artifacts with an event each.
    void notePolicyCall(Policy &policy, int step, nlohmann::json &calls)
    {
        auto stats = policy.lastCallStats();
        noteBatch(stats, m_lastPolicyCall);
        if (!stats.is_null()) {
            noteDevice(stats, m_policyDevice);
            calls.push_back(stats);
        }
        for (const auto &[name, image] : policy.takeImages()) {
            const std::string file = "step-" + std::to_string(step) + "-" + name + ".png";
            m_ledger.putArtifact(m_lease, "policy_image", file, encodeFramePng(image), "image/png");
            m_scope.bufferEvent("policy_image", nlohmann::json{{"step", step}, {"name", file}});
        }
    }

    // A frame goes to the frame pipeline (encoded, hashed, stored and measured off this thread);
    // it is recorded once its object is durable (recordDurableFrames).
    void storeFrame(const cv::Mat &frame)
    {
        if (!m_frames) {
            FramePipeline::Options options;
            // Episodes in lockstep (--batch N) already store N rollouts' frames at once: one
            // store thread each, not two (2N store threads would only contend for the cores).
            if (m_lockstep)
                options.storeThreads = 1;
            m_frames = std::make_unique<FramePipeline>(m_ledger.artifacts().directory(), options);
        }
        m_frames->submit(frame);
    }

    // The frames whose objects are durable, attached in one transaction, each linked to the frame
    // it was predicted from in another (an unchanged frame is the same object: no link).
    void recordFrames(const std::vector<FramePipeline::StoredFrame> &frames)
    {
        if (frames.empty())
            return;
        const auto t = Steady::now();
        Ledger::Batch batch(m_ledger, Ledger::Durability::AtNextSeal);
        std::vector<Ledger::Attachment> attachments;
        attachments.reserve(frames.size());
        for (const auto &f : frames)
            attachments.push_back({"frame", frameName(f.index), f.object});
        const std::vector<std::int64_t> ids = m_ledger.attachArtifacts(m_lease, attachments);
        std::vector<Ledger::ProvenanceLink> links;
        for (std::size_t i = 0; i < ids.size(); ++i) {
            if (m_lastFrameArtifact && *m_lastFrameArtifact != ids[i])
                links.push_back({*m_lastFrameArtifact, ids[i], "predicted_from",
                                 nlohmann::json{{"step", frames[i].index}}});
            m_lastFrameArtifact = ids[i];
        }
        m_ledger.addProvenanceLinks(m_lease, links);
        batch.commit();
        m_recordMs += msSince(t);
    }

    void recordDurableFrames()
    {
        if (m_frames)
            recordFrames(m_frames->takeDurable());
    }

    // Every frame durable and recorded: before the rollout's artifacts that follow, before
    // validation and before the attempt ends.
    void settleFrames()
    {
        if (m_frames && !m_settled) {
            m_settled = true;
            recordFrames(m_frames->finish());
        }
    }

    // On a failure or a cancel: the frames produced so far are evidence too. Best effort (the
    // failure may be the pipeline's own, or the lease may be gone): the attempt ends either way.
    void settleFramesAfterFailure() noexcept
    {
        try {
            settleFrames();
        } catch (...) {
        }
    }

    // What one rollout holds while it runs: its components, their contracts, and what has been
    // produced so far.
    struct Rollout
    {
        std::unique_ptr<Policy> policy;
        std::unique_ptr<WorldModel> world;
        ActionContract policyContract;
        ActionContract worldContract;
        FrameContract frameContract;
        ActionConversion conversion;
        std::vector<cv::Mat> frames;
        ActionChunk policyActions;
        ActionChunk worldActions;
        std::vector<double> timestamps{0.0};
        nlohmann::json states = nlohmann::json::array(); // world->state() after reset and steps
    };

    void runPipeline()
    {
        Rollout r = setUp();
        try {
            rollout(r);
        } catch (...) {
            // Before the rollout's frames go: the pipeline's threads are done with them, and
            // the frames produced so far are recorded (a failure's evidence). The only place:
            // frames are produced inside rollout() alone, so every failure, cancel or interrupt
            // that has frames passes here.
            settleFramesAfterFailure();
            throw;
        }
    }

    void rollout(Rollout &r)
    {
        const auto rolloutStart = Steady::now();
        const double adaptersBefore = m_policyMs + m_worldMs;
        resetWorld(r);
        // In lockstep from the first step to the last (leaving also when the rollout throws)
        // while a component has a batch dimension; otherwise this lane runs on its own. A lane
        // whose components stop batching (a module that refused a batch) leaves at once: the
        // others never wait for a lane that will not come.
        const auto batches = [&r] { return r.policy->maxBatch() > 1 || r.world->maxBatch() > 1; };
        m_inLockstep = m_lockstep && batches();
        std::optional<LockstepGroup::Membership> membership;
        if (m_inLockstep)
            membership.emplace(m_lockstep);
        const cv::Mat startFrame = r.frames.back();
        int step = 0;
        while (step < m_protocol.horizon) {
            if (m_inLockstep && !batches()) {
                membership.reset();
                m_inLockstep = false;
            }
            checkCancel();
            nlohmann::json policyCalls = nlohmann::json::array();
            const cv::Mat seen = // a header: the frames vector grows below
                m_protocol.feedback == FeedbackMode::ClosedLoop ? r.frames.back() : startFrame;
            const ActionChunk chunk = gatherChunk(r, seen, step, policyCalls);
            const ActionChunk converted = convertChunk(r, chunk, step);
            stepWorld(r, converted, step);
            const double dt = 1.0 / r.worldContract.controlRateHz;
            for (std::size_t i = 0; i < chunk.size(); ++i) {
                r.policyActions.push_back(chunk[i]);
                r.worldActions.push_back(converted[i]);
                r.timestamps.push_back(static_cast<double>(r.policyActions.size()) * dt);
            }
            step += static_cast<int>(chunk.size());
            noteState(r, step);
            noteStep(r, step, policyCalls);
        }
        m_inLockstep = false; // nothing below is gated
        membership.reset();
        settleFrames();
        // What the engine added to the adapters' own time, from the world's reset to the last
        // frame recorded durably (docs/benchmarks.md, "Rollout engine"). In lockstep the wait
        // for the other episodes is apart (lockstep_wait_ms).
        m_rolloutOverheadMs =
            msSince(rolloutStart) - (m_policyMs + m_worldMs - adaptersBefore) - m_lockstepWaitMs;
        m_rolloutSteps = step;
        storeActions(r);
        validateAndJudge(r);
        recordGroundTruth(*r.world);
    }

    // Components created, their contracts checked against each other and stored.
    Rollout setUp()
    {
        stage("setup");
        const auto &policySpec = m_protocol.policies[static_cast<std::size_t>(m_plan.policyIndex)];
        Rollout r;
        try {
            r.policy = m_factory.createPolicy(policySpec);
            r.world = m_factory.createWorldModel(m_protocol.worldModel);
        } catch (const Error &e) {
            throw StageFailure{"setup", "component_unavailable", e.what()};
        }
        r.policyContract = r.policy->actionContract();
        r.worldContract = r.world->actionContract();
        r.frameContract = r.world->frameContract();
        r.conversion = ActionConversion::identity(r.policyContract, r.worldContract);
        if (const auto misfit = contractMisfit(r.policyContract, r.worldContract, r.frameContract))
            throw StageFailure{"setup", misfit->first, misfit->second};
        const nlohmann::json contracts = {{"policy_action_contract", r.policyContract.toJson()},
                                          {"world_action_contract", r.worldContract.toJson()},
                                          {"frame_contract", r.frameContract.toJson()},
                                          {"conversion", r.conversion.toJson()},
                                          {"feedback_mode", feedbackModeName(m_protocol.feedback)},
                                          {"seed", m_plan.seed},
                                          {"task", m_task.id},
                                          {"instruction", m_task.instruction}};
        storeJson("contracts", "contracts.json", contracts.dump(2));
        return r;
    }

    void storeJson(const std::string &role, const std::string &name, const std::string &text)
    {
        m_ledger.putArtifact(
            m_lease, role, name,
            std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()),
            "application/json");
    }

    // World reset: its conditioning frames, checked and stored; the policy reset.
    void resetWorld(Rollout &r)
    {
        stage("world_model");
        WorldStart startSpec{m_task.startState, cv::Mat(), m_plan.seed, m_task.instruction,
                             cancelFlag()};
        r.frames = worldCallOrCancelled([&] { return r.world->reset(startSpec); });
        if (static_cast<int>(r.frames.size()) != r.frameContract.conditioningFrames)
            throw StageFailure{"world_model", std::string(reasonName(Reason::FrameCountMismatch)),
                               "reset returned " + std::to_string(r.frames.size()) +
                                   " conditioning frames, the contract " +
                                   std::to_string(r.frameContract.conditioningFrames)};
        for (std::size_t i = 0; i < r.frames.size(); ++i)
            checkAndStoreFrame(r, r.frames[i], static_cast<int>(i));
        recordDurableFrames();
        r.policy->reset(policySeedOf(m_plan.seed), m_task.instruction);
        noteState(r, 0);
    }

    // The world's state (a simulator's object poses) and its proprioception (what a policy is
    // given) after a call: the world_states artifact, which dataset export turns into LeRobot's
    // observation.state (proprioception) and observation.environment_state (the state).
    void noteState(Rollout &r, int step)
    {
        nlohmann::json state = r.world->state();
        const std::vector<double> proprio = r.world->proprio();
        if (state.is_null() && proprio.empty())
            return;
        nlohmann::json entry = {{"step", step}, {"state", std::move(state)}};
        if (!proprio.empty())
            entry["proprio"] = proprio;
        r.states.push_back(std::move(entry));
    }

    void checkAndStoreFrame(const Rollout &r, const cv::Mat &frame, int index)
    {
        const auto check = r.frameContract.checkFrame(frame, index);
        if (!check.ok())
            throw StageFailure{"world_model", std::string(reasonName(check.violations[0].reason)),
                               check.summary()};
        storeFrame(frame);
    }

    // The policy's next chunk on the frame it sees, checked. A world model that takes exactly L
    // actions per call (Cosmos 12, IRASim 15) and a policy that gives fewer: the policy is asked
    // again, on the same latest frame (the world has produced nothing new yet), until L actions
    // are gathered. Never longer than the world's chunk or the steps left.
    ActionChunk gatherChunk(Rollout &r, const cv::Mat &seen, int step, nlohmann::json &policyCalls)
    {
        m_stage = "policy";
        Observation obs;
        obs.image = seen;
        obs.instruction = m_task.instruction;
        obs.proprio = r.world->proprio();
        // The state noted after the world's last call (no second serialisation per step).
        obs.state = r.states.empty() ? nlohmann::json() : r.states.back()["state"];
        obs.cancelled = cancelFlag();
        const int worldChunk = r.frameContract.certifiedChunkLengths.size() == 1
                                   ? r.frameContract.certifiedChunkLengths.front()
                                   : 0;
        ActionChunk chunk;
        do {
            obs.step = step + static_cast<int>(chunk.size());
            const ActionChunk more = actOrCancelled(*r.policy, obs);
            notePolicyCall(*r.policy, obs.step, policyCalls);
            const auto check = r.policyContract.checkChunk(more);
            if (!check.ok())
                throw StageFailure{"policy", std::string(reasonName(check.violations[0].reason)),
                                   "step " + std::to_string(obs.step) + ": " + check.summary()};
            chunk.insert(chunk.end(), more.begin(), more.end());
        } while (worldChunk > 0 && static_cast<int>(chunk.size()) < worldChunk &&
                 step + static_cast<int>(chunk.size()) < m_protocol.horizon);
        if (worldChunk > 0 && static_cast<int>(chunk.size()) > worldChunk)
            chunk.resize(static_cast<std::size_t>(worldChunk));
        if (static_cast<int>(chunk.size()) > m_protocol.horizon - step)
            chunk.resize(static_cast<std::size_t>(m_protocol.horizon - step));
        return chunk;
    }

    // The chunk in the world model's action space, checked against its contract and its chunk
    // lengths.
    ActionChunk convertChunk(const Rollout &r, const ActionChunk &chunk, int step)
    {
        m_stage = "conversion";
        ActionChunk converted;
        for (const auto &a : chunk)
            converted.push_back(r.conversion.apply(a));
        const auto worldCheck = r.worldContract.checkChunk(converted, false);
        const auto lengthCheck =
            r.frameContract.checkChunkLength(static_cast<int>(converted.size()));
        if (!worldCheck.ok() || !lengthCheck.ok()) {
            const auto &v = worldCheck.ok() ? lengthCheck : worldCheck;
            throw StageFailure{"conversion", std::string(reasonName(v.violations[0].reason)),
                               "step " + std::to_string(step) + ": " + v.summary()};
        }
        return converted;
    }

    // One world-model call: its frames counted, checked and stored.
    void stepWorld(Rollout &r, const ActionChunk &converted, int step)
    {
        m_stage = "world_model";
        std::vector<cv::Mat> produced;
        if (m_inLockstep && r.world->maxBatch() > 1) {
            try {
                produced = m_lockstep->step(worldKey(), *r.world, converted, m_lastWorldCall);
            } catch (...) {
                countLockstep(m_lastWorldCall, m_worldMs);
                throw;
            }
            countLockstep(m_lastWorldCall, m_worldMs);
        } else {
            m_lastWorldCall = {};
            produced = worldCallOrCancelled([&] { return r.world->step(converted); });
        }
        const int expected = static_cast<int>(converted.size()) * r.frameContract.framesPerAction;
        if (static_cast<int>(produced.size()) != expected)
            throw StageFailure{
                "world_model", std::string(reasonName(Reason::FrameCountMismatch)),
                "step " + std::to_string(step) + ": " + std::to_string(converted.size()) +
                    " actions need " + std::to_string(expected) +
                    " new frames, the world model returned " + std::to_string(produced.size())};
        for (const auto &frame : produced) {
            const int index = static_cast<int>(r.frames.size());
            checkAndStoreFrame(r, frame, index);
            r.frames.push_back(frame);
        }
    }

    // The step's event (its policy and world calls), flushed every 10 steps, and progress.
    void noteStep(Rollout &r, int step, const nlohmann::json &policyCalls)
    {
        nlohmann::json stepEvent = {{"step", step}, {"frames", r.frames.size()}};
        if (!policyCalls.empty())
            stepEvent["policy_calls"] = policyCalls;
        auto worldCall = r.world->lastCallStats();
        noteBatch(worldCall, m_lastWorldCall);
        if (!worldCall.is_null()) {
            noteDevice(worldCall, m_worldDevice);
            stepEvent["world_call"] = worldCall;
        }
        m_scope.bufferEvent("step", stepEvent);
        // The frames made durable since the last step are recorded at every step (a worker that
        // crashes keeps all but those still in the pipeline); events every 10 steps. One commit,
        // made durable against a power loss by the attempt's end.
        const bool flushEvents = m_scope.bufferedEvents() >= 10;
        auto durable =
            m_frames ? m_frames->takeDurable() : std::vector<FramePipeline::StoredFrame>{};
        if (flushEvents || !durable.empty()) {
            Ledger::Batch batch(m_ledger, Ledger::Durability::AtNextSeal);
            recordFrames(durable);
            if (flushEvents)
                m_scope.flush();
            batch.commit();
        }
        if (m_progress)
            m_progress(
                {EngineProgress::Kind::Step, m_lease.runId, step, m_protocol.horizon, "", ""});
    }

    // Actions, as executed, with their timestamps.
    void storeActions(const Rollout &r)
    {
        nlohmann::json names = nlohmann::json::array();
        for (const auto &d : r.policyContract.dimensions)
            names.push_back(d.name + " [" + d.unit + "]");
        const nlohmann::json actions = {{"policy_actions", r.policyActions},
                                        {"world_actions", r.worldActions},
                                        {"timestamps_s", r.timestamps},
                                        {"control_rate_hz", r.worldContract.controlRateHz},
                                        {"dimension_names", names}};
        storeJson("actions", "actions.json", actions.dump());
        if (!r.states.empty())
            storeJson("world_states", "states.json",
                      nlohmann::json{{"schema", "kosmos.world_states/1"},
                                     {"control_rate_hz", r.worldContract.controlRateHz},
                                     {"states", r.states}}
                          .dump());
    }

    // Deterministic validation, then the (blinded) judge unless the rollout is invalid.
    void validateAndJudge(const Rollout &r)
    {
        stage("validation");
        auto t = Steady::now();
        RolloutEvidence evidence{r.frames,       r.timestamps,    0,
                                 r.worldActions, r.worldContract, r.frameContract};
        // The pixel measurements were taken beside the rollout (the frame pipeline).
        const ValidationReport validation =
            validateRollout(evidence, {}, m_frames ? &m_frames->measurements() : nullptr);
        m_validationMs += msSince(t);
        m_ledger.recordValidation(m_lease, validation.toRecord());
        if (!m_protocol.judge)
            return;
        stage("judge");
        if (validation.verdict == "invalid") {
            m_scope.bufferEvent("judge_skipped",
                                nlohmann::json{{"reason", "the rollout failed validation"}});
            return;
        }
        t = Steady::now();
        judge(r.frames);
        m_judgeMs += msSince(t);
    }

    // Ground truth from a world that knows it: its own label source.
    void recordGroundTruth(WorldModel &world)
    {
        const auto truth = world.groundTruth();
        if (!truth)
            return;
        // A world may speak only for itself: never as a person or an imported reference.
        if (truth->source != "synthetic_reference" && truth->source != "physics")
            throw StageFailure{"world_model", "invalid_ground_truth",
                               "the world model reported ground truth as source '" + truth->source +
                                   "'; a world may report only "
                                   "synthetic_reference or physics"};
        HumanLabelRecord label;
        label.runId = m_lease.runId;
        label.annotatorId = m_protocol.worldModel.plugin;
        label.source = truth->source;
        label.progress = truth->progress;
        label.completion = truth->success ? "met" : "not_met";
        label.integrity = "intact";
        label.notes = truth->details.dump();
        m_scope.bufferGroundTruth(std::move(label));
    }

    void judge(const std::vector<cv::Mat> &frames)
    {
        std::unique_ptr<Judge> judge;
        try {
            judge = m_factory.createJudge(*m_protocol.judge);
        } catch (const Error &e) {
            throw StageFailure{"judge", "component_unavailable", e.what()};
        }
        JudgmentRecord record;
        try {
            // Blinded: the prompt may not name this run's policy or world model.
            record =
                runJudge(*judge, frames, m_task.id, m_task.instruction, m_protocol.quorum,
                         {m_protocol.policies[static_cast<std::size_t>(m_plan.policyIndex)].plugin,
                          m_protocol.worldModel.plugin},
                         [this] { checkCancel(); });
        } catch (const PromptNotBlinded &e) {
            throw StageFailure{"judge", "prompt_not_blinded", e.what()};
        } catch (const Error &e) {
            if (e.code() == ErrorCode::LeaseLost)
                throw;
            throw StageFailure{"judge", std::string(errorCodeName(e.code())), e.what()};
        }
        if (m_judgeIdentity)
            record.judgeComponentId = m_ledger.registerComponent(*m_judgeIdentity);
        m_ledger.recordJudgment(m_lease, record);
    }

    static void noteDevice(const nlohmann::json &stats, std::optional<std::string> &device)
    {
        if (stats.is_object() && stats.contains("device") && stats["device"].is_string())
            device = stats["device"].get<std::string>();
    }
    static nlohmann::json optional(const std::optional<std::string> &v)
    {
        return v ? nlohmann::json(*v) : nlohmann::json();
    }
    // One line for people: "cuda:0", "policy cpu, world model cuda:0", or "not reported".
    std::string deviceSummary() const
    {
        if (!m_policyDevice && !m_worldDevice)
            return "not reported";
        if (m_policyDevice == m_worldDevice)
            return *m_policyDevice;
        return "policy " + m_policyDevice.value_or("not reported") + ", world model " +
               m_worldDevice.value_or("not reported");
    }

    bool usesCuda() const
    {
        for (const auto &d : {m_policyDevice, m_worldDevice})
            if (d && d->rfind("cuda", 0) == 0)
                return true;
        return false;
    }

    void recordTimings(Steady::time_point start)
    {
        const double total = msSince(start);
        const double adapters = m_policyMs + m_worldMs + m_judgeMs;
        const FramePipeline::Timings frames =
            m_frames ? m_frames->timings() : FramePipeline::Timings{};
        nlohmann::json timings = {
            {"total_ms", total},
            // encode_and_store and the measuring part of validation run on the frame pipeline's
            // threads, beside the rollout; see "critical_path" for what the rollout waited.
            {"stage_ms",
             {{"policy", m_policyMs},
              {"world_model", m_worldMs},
              {"encode_and_store", frames.encodeMs + frames.writeMs + frames.syncMs},
              {"validation", m_validationMs + frames.measureMs},
              {"judge", m_judgeMs}}},
            {"orchestration_ms", total - adapters},
            {"critical_path",
             {{"rollout_overhead_ms", m_rolloutOverheadMs},
              {"steps", m_rolloutSteps},
              {"frame_handoff_ms", frames.handoffMs},
              {"backpressure_ms", frames.blockedMs},
              {"frames_settle_ms", frames.finishMs},
              {"frames_record_ms", m_recordMs},
              {"validation_ms", m_validationMs},
              // --batch N: waiting for the other episodes' calls (not in rollout_overhead_ms),
              // and how many episodes the calls through the lockstep group served on average.
              {"lockstep_wait_ms", m_lockstepWaitMs},
              {"lockstep_mean_batch",
               m_lockstepCalls ? static_cast<double>(m_lockstepEpisodes) / m_lockstepCalls : 0.0}}},
            {"background",
             {{"png_encode_ms", frames.encodeMs},
              {"object_write_ms", frames.writeMs},
              {"sync_ms", frames.syncMs},
              {"syncs", frames.syncs},
              {"store_threads", frames.storeThreads},
              {"measure_ms", frames.measureMs}}},
            // As the adapters reported them (a torch adapter says
            // cpu / cuda:N); null when an adapter does not say.
            {"devices",
             {{"policy", optional(m_policyDevice)}, {"world_model", optional(m_worldDevice)}}},
            {"device", deviceSummary()},
            // The GPUs as NVML saw them at the attempt's end, where a component ran on CUDA.
            {"gpu", usesCuda() ? GpuMonitor::instance().sample().toJson() : nlohmann::json()},
            {"cpu_ms", threadCpuMs() - m_cpuStartMs},
            {"peak_rss_kib", peakRssKib()},
            // The process's allocator and OpenMP defaults (util/ProcessTuning.h).
            {"process", processTuningJson()}};
        m_scope.bufferEvent("timings", timings); // written with the attempt's end
    }

    AttemptScope &m_scope;
    Ledger &m_ledger;
    const Lease &m_lease;
    const Protocol &m_protocol;
    const RunPlan &m_plan;
    ComponentFactory &m_factory;
    const std::atomic<bool> &m_stop;
    const ProgressFn &m_progress;
    const std::optional<ComponentIdentity> &m_judgeIdentity;
    const TaskSpec &m_task;
    std::string m_stage = "setup";
    std::optional<std::int64_t> m_lastFrameArtifact;
    std::optional<std::string> m_policyDevice, m_worldDevice;
    double m_policyMs = 0, m_worldMs = 0, m_validationMs = 0, m_judgeMs = 0;
    std::string m_policyKey, m_worldKey; // policyKey(), worldKey()
    double m_recordMs = 0, m_rolloutOverheadMs = 0;
    LockstepGroup *m_lockstep = nullptr;
    bool m_inLockstep = false;
    LockstepGroup::Call m_lastPolicyCall, m_lastWorldCall;
    double m_lockstepWaitMs = 0;
    int m_lockstepCalls = 0, m_lockstepEpisodes = 0;
    int m_rolloutSteps = 0;
    std::unique_ptr<FramePipeline> m_frames;
    bool m_settled = false;
    double m_cpuStartMs = threadCpuMs();

    std::string m_failure;

public:
    // "code: message" of a failed attempt, empty otherwise.
    const std::string &failure() const { return m_failure; }
};

} // namespace

RunExecution executeRun(AttemptScope &scope, const Protocol &protocol, const RunPlan &plan,
                        ComponentFactory &factory, const std::atomic<bool> &stop,
                        const ProgressFn &progress,
                        const std::optional<ComponentIdentity> &judgeIdentity,
                        LockstepGroup *lockstep)
{
    RunExecutor executor(scope, protocol, plan, factory, stop, progress, judgeIdentity, lockstep);
    const AttemptResult end = executor.execute();
    return {end, executor.failure()};
}

} // namespace kosmos
