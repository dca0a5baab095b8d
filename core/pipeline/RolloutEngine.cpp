#include "pipeline/RolloutEngine.h"

#include "artifacts/ImageCodecs.h"
#include "artifacts/PixelDigest.h"
#include "judge/JudgePrompt.h"
#include "judge/JudgeRunner.h"
#include "judge/JudgeSchema.h"
#include "ledger/AttemptScope.h"
#include "pipeline/FramePipeline.h"
#include "util/CanonicalJson.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/GpuMonitor.h"
#include "util/Sha256.h"
#include "validation/RolloutValidator.h"

#include <opencv2/core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <sys/resource.h>
#include <thread>
#include <typeinfo>
#include <unistd.h>

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

RolloutEngine::RolloutEngine(std::filesystem::path bundle, ComponentFactory &factory,
                             EngineOptions options)
    : m_bundle(std::move(bundle)), m_factory(factory), m_options(std::move(options))
{
    if (m_options.workers < 1)
        throw Error(ErrorCode::InvalidInput, "--workers must be at least 1");
}

namespace {

// A plugin's own identity beyond its settings (model package hashes, resolved runtime): the
// weights hash and a "resolved" entry in the config, so both enter the run key.
void addResolvedIdentity(ComponentIdentity &id, const nlohmann::json &extra)
{
    if (!extra.is_object())
        return;
    if (extra.contains("weights_sha256") && extra["weights_sha256"].is_string())
        id.weightsSha256 = extra["weights_sha256"].get<std::string>();
    if (extra.contains("details"))
        id.config["resolved"] = extra["details"];
}

} // namespace

ComponentIdentity RolloutEngine::policyIdentity(const Protocol &p, int policyIndex)
{
    const auto &spec = p.policies.at(static_cast<std::size_t>(policyIndex));
    ComponentIdentity id;
    id.family = ComponentFamily::Policy;
    id.adapterId = spec.plugin;
    id.adapterVersion = m_factory.version(spec.plugin);
    id.config = spec.settings;
    addResolvedIdentity(id, m_factory.identityOf(spec));
    return id;
}

ComponentIdentity RolloutEngine::worldModelIdentity(const Protocol &p)
{
    ComponentIdentity id;
    id.family = ComponentFamily::WorldModel;
    id.adapterId = p.worldModel.plugin;
    id.adapterVersion = m_factory.version(p.worldModel.plugin);
    id.config = {{"settings", p.worldModel.settings},
                 {"feedback_mode", feedbackModeName(p.feedback)}};
    addResolvedIdentity(id, m_factory.identityOf(p.worldModel));
    return id;
}

ComponentIdentity makeJudgeIdentity(const std::string &version, const ComponentSpec &judge,
                                    const QuorumSettings &quorum)
{
    ComponentIdentity id;
    id.family = ComponentFamily::Judge;
    id.adapterId = judge.plugin;
    id.adapterVersion = version;
    id.config = {{"settings", judge.settings},
                 {"quorum", quorum.toJson()},
                 {"prompt", defaultPromptTemplate().id},
                 {"prompt_sha256", defaultPromptTemplate().sha256}};
    return id;
}

std::optional<ComponentIdentity> RolloutEngine::judgeIdentity(const Protocol &p)
{
    if (!p.judge)
        return std::nullopt;
    return makeJudgeIdentity(m_factory.version(p.judge->plugin), *p.judge, p.quorum);
}

std::optional<std::pair<std::string, std::string>> contractMisfit(const ActionContract &policy,
                                                                  const ActionContract &world,
                                                                  const FrameContract &frames)
{
    const ActionConversion conversion = ActionConversion::identity(policy, world);
    // A world model with one certified chunk length L gathers L actions from consecutive policy
    // calls when the policy's chunk divides L (the engine's loop); otherwise the policy's chunk
    // itself must be certified.
    ContractCheck length;
    if (frames.certifiedChunkLengths.size() == 1 && policy.chunkLength > 0 &&
        frames.certifiedChunkLengths.front() % policy.chunkLength == 0) {
        // gathered: fits
    } else if (frames.certifiedChunkLengths.size() == 1 &&
               policy.chunkLength < frames.certifiedChunkLengths.front()) {
        length.add(Reason::ChunkLengthUncertified,
                   "the world model takes chunks of " +
                       std::to_string(frames.certifiedChunkLengths.front()) +
                       " actions; policy chunks of " + std::to_string(policy.chunkLength) +
                       " do not divide it (set the policy to execute a divisor)");
    } else {
        length = frames.checkChunkLength(policy.chunkLength);
    }
    for (const auto &[who, check] :
         {std::pair{"policy_contract", policy.checkSelf()},
          std::pair{"world_contract", world.checkSelf()},
          std::pair{"conversion", conversion.checkAgainst(policy, world)},
          std::pair{"chunk_length", length}}) {
        if (!check.ok())
            return std::pair{std::string(reasonName(check.violations[0].reason)),
                             std::string(who) + ": " + check.summary()};
    }
    return std::nullopt;
}

std::vector<RunSpec> RolloutEngine::runSpecs(const Protocol &protocol)
{
    // Every component's settings against its plugin's schema, before anything is frozen.
    auto check = [&](const ComponentSpec &spec, const std::string &where) {
        try {
            m_factory.checkSettings(spec);
        } catch (const Error &e) {
            throw Error(e.code(), where + ": " + e.what());
        }
    };
    for (std::size_t i = 0; i < protocol.policies.size(); ++i)
        check(protocol.policies[i], "protocol.policies[" + std::to_string(i) + "]");
    check(protocol.worldModel, "protocol.world_model");
    if (protocol.judge)
        check(*protocol.judge, "protocol.judge");
    std::vector<ComponentIdentity> policies;
    policies.reserve(protocol.policies.size());
    for (int i = 0; i < static_cast<int>(protocol.policies.size()); ++i)
        policies.push_back(policyIdentity(protocol, i));
    const auto world = worldModelIdentity(protocol);
    const auto judge = judgeIdentity(protocol);
    const std::string protocolSha = Sha256::hex(canonicalJson(protocol.document));
    std::vector<RunSpec> specs;
    for (const RunPlan &plan : expandRuns(protocol)) {
        RunSpec spec;
        spec.protocolSha256 = protocolSha;
        spec.episodeIndex = plan.episodeIndex;
        spec.policy = policies[static_cast<std::size_t>(plan.policyIndex)];
        spec.worldModel = world;
        spec.judge = judge;
        spec.seeds = {{"episode", plan.seed}};
        const auto &task = protocol.tasks[static_cast<std::size_t>(plan.taskIndex)];
        spec.task = task.id;
        spec.instruction = task.instruction;
        specs.push_back(std::move(spec));
    }
    return specs;
}

std::string RolloutEngine::gpuBudgetProblem(const Protocol &protocol, int processes)
{
    std::vector<ComponentIdentity> components;
    components.reserve(protocol.policies.size() + 2);
    for (int i = 0; i < static_cast<int>(protocol.policies.size()); ++i)
        components.push_back(policyIdentity(protocol, i));
    components.push_back(worldModelIdentity(protocol));
    if (auto judge = judgeIdentity(protocol))
        components.push_back(*judge);
    // A batch runs one policy at a time beside the world model and the judge: the largest
    // policy counts, not their sum.
    std::map<std::string, std::int64_t> policyMax;
    std::vector<std::pair<std::string, std::int64_t>> declared;
    for (const ComponentIdentity &c : components) {
        const nlohmann::json resolved = c.config.value("resolved", nlohmann::json::object());
        if (!resolved.is_object() || !resolved.contains("device_memory_bytes") ||
            !resolved["device_memory_bytes"].is_number_integer())
            continue;
        const std::string device = resolved.value("device", std::string("cpu"));
        const std::int64_t bytes =
            resolved["device_memory_bytes"].get<std::int64_t>() * std::max(1, processes);
        if (c.family == ComponentFamily::Policy)
            policyMax[device] = std::max(policyMax[device], bytes);
        else
            declared.emplace_back(device, bytes);
    }
    for (const auto &[device, bytes] : policyMax)
        declared.emplace_back(device, bytes);
    bool cuda = false;
    for (const auto &entry : declared)
        cuda = cuda || entry.first.rfind("cuda", 0) == 0;
    if (!cuda)
        return {};
    const std::string problem = kosmos::gpuBudgetProblem(declared, GpuMonitor::instance().sample());
    return problem.empty() ? problem : "gpu_budget: " + problem;
}

BatchPreview RolloutEngine::preview(const Protocol &protocol)
{
    const std::vector<RunSpec> specs = runSpecs(protocol);
    BatchPreview preview;
    preview.protocolSha256 = Sha256::hex(canonicalJson(protocol.document));
    // Device memory first: instances below would take it.
    std::string budget = gpuBudgetProblem(protocol);
    if (!budget.empty())
        preview.problems.push_back(std::move(budget));
    // Contracts: one instance of each policy against one of the world model.
    if (preview.problems.empty()) { // the budget refused: no instance is created
        try {
            const auto worldModel = m_factory.createWorldModel(protocol.worldModel);
            for (std::size_t i = 0; i < protocol.policies.size(); ++i) {
                const auto policy = m_factory.createPolicy(protocol.policies[i]);
                if (const auto misfit =
                        contractMisfit(policy->actionContract(), worldModel->actionContract(),
                                       worldModel->frameContract()))
                    preview.problems.push_back("policy " + std::to_string(i) + " (" +
                                               protocol.policies[i].plugin + ") and world model " +
                                               protocol.worldModel.plugin + ": " + misfit->first +
                                               ": " + misfit->second);
            }
        } catch (const Error &e) {
            preview.problems.push_back(std::string("component_unavailable: ") + e.what());
        }
    }
    Ledger ledger = Ledger::open(m_bundle, {OpenMode::ReadOnly});
    for (const RunSpec &spec : specs) {
        if (m_options.shard && !m_options.shard->contains(spec.runKey()))
            continue;
        ++preview.runs;
        if (const auto run = ledger.runByKeyPrefix(spec.runKey())) {
            ++preview.inLedger;
            if (run->finishedAtMs)
                ++preview.finished;
        }
    }
    return preview;
}

SubmittedBatch RolloutEngine::submit(const Protocol &protocol)
{
    // Resolve every plugin first: an unknown id changes nothing in the ledger.
    const std::vector<RunSpec> specs = runSpecs(protocol);
    Ledger ledger = Ledger::open(m_bundle);
    // A shard ledger takes only its shard's runs, and only ever that shard's (a second shard
    // written into it would be merged twice). A ledger that is no shard refuses a shard's run
    // once it holds runs of its own: it is a full evaluation, not a shard.
    if (const auto recorded = ledger.meta("shard"); recorded || m_options.shard) {
        const auto bound = recorded ? ShardSpec::fromMetaJson(*recorded) : std::nullopt;
        if (!m_options.shard)
            throw Error(ErrorCode::InvalidInput, m_bundle.string() + " is the ledger of shard " +
                                                     (bound ? bound->text() : *recorded) +
                                                     "; run it with --shard " +
                                                     (bound ? bound->text() : "as before") +
                                                     " (its runs are that shard's only)");
        if (!recorded && sqlite::Statement(ledger.database(), "SELECT 1 FROM runs LIMIT 1").step())
            throw Error(ErrorCode::InvalidInput,
                        m_bundle.string() + " already holds runs of a whole evaluation; a shard "
                                            "needs a ledger of its own (a new bundle)");
        ledger.setMetaOnce("shard", m_options.shard->metaJson());
    }
    SubmittedBatch batch;
    batch.protocolSha256 = ledger.freezeProtocol(protocol.name, protocol.document);
    const std::vector<RunPlan> plans = expandRuns(protocol);
    for (std::size_t i = 0; i < specs.size(); ++i) {
        if (m_options.shard && !m_options.shard->contains(specs[i].runKey()))
            continue;
        const SubmitResult r = ledger.submitRun(specs[i]);
        batch.runIds.push_back(r.runId);
        batch.plans.push_back(plans[i]);
        (r.created ? batch.created : batch.existing)++;
    }
    return batch;
}

RetryResult retryFailedRuns(Ledger &ledger, const std::vector<std::int64_t> &runIds)
{
    RetryResult result;
    for (const std::int64_t runId : runIds) {
        const auto run = ledger.run(runId);
        if (!run || run->status != "failed") {
            result.skipped.push_back("run " + std::to_string(runId) + " is " +
                                     (run ? run->status : std::string("missing")));
            continue;
        }
        const auto protocol = ledger.protocol(run->protocolSha256);
        if (!protocol || !protocol->contains("kosmos_protocol")) {
            result.skipped.push_back("run " + std::to_string(runId) +
                                     " was imported, not run: there is nothing to run again");
            continue;
        }
        ledger.retryRun(runId);
        result.requeued.push_back(runId);
        if (std::none_of(result.protocols.begin(), result.protocols.end(),
                         [&](const nlohmann::json &p) { return p == *protocol; }))
            result.protocols.push_back(*protocol);
    }
    return result;
}

int RolloutEngine::retryFailed(const SubmittedBatch &batch)
{
    Ledger ledger = Ledger::open(m_bundle);
    std::vector<std::int64_t> failed;
    for (const std::int64_t runId : batch.runIds)
        if (const auto run = ledger.run(runId); run && run->status == "failed")
            failed.push_back(runId);
    return static_cast<int>(retryFailedRuns(ledger, failed).requeued.size());
}

namespace {

// Executes one leased run end to end.
class RunExecutor
{
public:
    RunExecutor(AttemptScope &scope, const Protocol &protocol, const RunPlan &plan,
                ComponentFactory &factory, const std::atomic<bool> &stop,
                const ProgressFn &progress, const std::optional<ComponentIdentity> &judgeIdentity)
        : m_scope(scope), m_ledger(scope.ledger()), m_lease(scope.lease()), m_protocol(protocol),
          m_plan(plan), m_factory(factory), m_stop(stop), m_progress(progress),
          m_judgeIdentity(judgeIdentity),
          m_task(protocol.tasks[static_cast<std::size_t>(plan.taskIndex)])
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
    ActionChunk actOrCancelled(Policy &policy, const Observation &obs)
    {
        const auto t = Steady::now();
        try {
            ActionChunk chunk = policy.act(obs);
            m_policyMs += msSince(t);
            return chunk;
        } catch (...) {
            m_policyMs += msSince(t);
            if (obs.cancelled && obs.cancelled()) {
                if (m_stop)
                    throw Interrupted{};
                throw Cancelled{};
            }
            throw;
        }
    }

    // A policy call's own statistics (timing, memory) for the step's event, and the images it
    // made (SuSIE's subgoals), stored as "policy_image" artifacts with an event each.
    void notePolicyCall(Policy &policy, int step, nlohmann::json &calls)
    {
        if (auto stats = policy.lastCallStats(); !stats.is_null()) {
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
        if (!m_frames)
            m_frames = std::make_unique<FramePipeline>(m_ledger.artifacts().directory(),
                                                       FramePipeline::Options{});
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
        const cv::Mat startFrame = r.frames.back();
        int step = 0;
        while (step < m_protocol.horizon) {
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
        settleFrames();
        // What the engine added to the adapters' own time, from the world's reset to the last
        // frame recorded durably (docs/benchmarks.md, "Rollout engine").
        m_rolloutOverheadMs = msSince(rolloutStart) - (m_policyMs + m_worldMs - adaptersBefore);
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
        const auto t = Steady::now();
        WorldStart startSpec{m_task.startState, cv::Mat(), m_plan.seed, m_task.instruction};
        r.frames = r.world->reset(startSpec);
        m_worldMs += msSince(t);
        if (static_cast<int>(r.frames.size()) != r.frameContract.conditioningFrames)
            throw StageFailure{"world_model", std::string(reasonName(Reason::FrameCountMismatch)),
                               "reset returned " + std::to_string(r.frames.size()) +
                                   " conditioning frames, the contract " +
                                   std::to_string(r.frameContract.conditioningFrames)};
        for (std::size_t i = 0; i < r.frames.size(); ++i)
            checkAndStoreFrame(r, r.frames[i], static_cast<int>(i));
        recordDurableFrames();
        r.policy->reset(m_plan.seed ^ 0x5bd1e995ULL, m_task.instruction);
        noteState(r, 0);
    }

    // The world's own state (a simulator's object poses), when it has one, after each call.
    void noteState(Rollout &r, int step)
    {
        nlohmann::json state = r.world->state();
        if (state.is_null())
            return;
        r.states.push_back({{"step", step}, {"state", std::move(state)}});
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
        obs.cancelled = [this] { return m_stop || m_ledger.cancelRequested(m_lease); };
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
        const auto t = Steady::now();
        const std::vector<cv::Mat> produced = r.world->step(converted);
        m_worldMs += msSince(t);
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
        if (auto worldCall = r.world->lastCallStats(); !worldCall.is_null()) {
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
              {"validation_ms", m_validationMs}}},
            {"background",
             {{"png_encode_ms", frames.encodeMs},
              {"object_write_ms", frames.writeMs},
              {"sync_ms", frames.syncMs},
              {"syncs", frames.syncs},
              {"measure_ms", frames.measureMs}}},
            // As the adapters reported them (a torch adapter says
            // cpu / cuda:N); null when an adapter does not say.
            {"devices",
             {{"policy", optional(m_policyDevice)}, {"world_model", optional(m_worldDevice)}}},
            {"device", deviceSummary()},
            // The GPUs as NVML saw them at the attempt's end, where a component ran on CUDA.
            {"gpu", usesCuda() ? GpuMonitor::instance().sample().toJson() : nlohmann::json()},
            {"cpu_ms", threadCpuMs() - m_cpuStartMs},
            {"peak_rss_kib", peakRssKib()}};
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
    double m_recordMs = 0, m_rolloutOverheadMs = 0;
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

BatchResult RolloutEngine::run(const Protocol &protocol, const SubmittedBatch &batch,
                               const std::atomic<bool> &stop, const ProgressFn &progress)
{
    BatchResult result;
    std::mutex mutex;
    std::atomic<std::size_t> next{0};
    // Runs another live worker held when they came up: tried again once the batch's own runs
    // are handed out, until they end there or become claimable here (their holder died).
    std::deque<std::size_t> held;
    const auto judge = judgeIdentity(protocol);
    ProgressFn report = [&](const EngineProgress &p) {
        if (progress) {
            std::lock_guard lock(mutex);
            progress(p);
        }
    };
    std::atomic<bool> broken{false}; // a worker stopped on an error it could not record
    auto nextIndex = [&]() -> std::optional<std::pair<std::size_t, bool>> {
        if (broken)
            return std::nullopt;
        const std::size_t i = next.fetch_add(1);
        if (i < batch.runIds.size())
            return std::make_pair(i, false);
        std::lock_guard lock(mutex);
        if (held.empty())
            return std::nullopt;
        const std::size_t h = held.front();
        held.pop_front();
        return std::make_pair(h, true);
    };
    auto worker = [&](int index) {
        Ledger ledger = Ledger::open(m_bundle);
        const std::string workerId =
            m_options.workerName + "-" + std::to_string(::getpid()) + "-" + std::to_string(index);
        while (!stop) {
            const auto picked = nextIndex();
            if (!picked)
                break;
            const auto [i, retry] = *picked;
            const std::int64_t runId = batch.runIds[i];
            const auto run = ledger.run(runId);
            if (!run || run->finishedAtMs) {
                std::lock_guard lock(mutex);
                ++(retry ? result.finishedElsewhere : result.skipped);
                if (progress)
                    progress({EngineProgress::Kind::RunSkipped, runId, 0, protocol.horizon,
                              run ? run->status : "", ""});
                continue;
            }
            const auto scope = AttemptScope::claim(
                ledger, {workerId, m_options.leaseMs, m_options.heartbeatEveryMs}, runId);
            if (!scope) {
                // Another live worker (this or another process) holds it: not finished here.
                if (m_options.waitForHeldRuns) {
                    {
                        std::lock_guard lock(mutex);
                        held.push_back(i);
                    }
                    if (retry) // only held runs are left: poll, do not spin
                        std::this_thread::sleep_for(std::chrono::milliseconds(200));
                    continue;
                }
                std::lock_guard lock(mutex);
                ++result.busy;
                if (progress)
                    progress({EngineProgress::Kind::RunSkipped, runId, 0, protocol.horizon, "busy",
                              "held by another live worker"});
                continue;
            }
            report({EngineProgress::Kind::RunStarted, runId, 0, protocol.horizon, "", ""});
            RunExecutor executor(*scope, protocol, batch.plans[i], m_factory, stop, report, judge);
            const AttemptResult end = executor.execute();
            {
                std::lock_guard lock(mutex);
                switch (end) {
                case AttemptResult::Completed:
                    ++result.completed;
                    break;
                case AttemptResult::Failed:
                    ++result.failed;
                    break;
                case AttemptResult::Cancelled:
                    ++result.cancelled;
                    break;
                case AttemptResult::Interrupted:
                    ++result.interrupted;
                    break;
                case AttemptResult::LeaseLost:
                    ++result.leaseLost;
                    break;
                }
            }
            report({EngineProgress::Kind::RunFinished, runId, protocol.horizon, protocol.horizon,
                    std::string(attemptResultName(end)), executor.failure()});
        }
    };
    // An error a worker cannot record in the ledger (it cannot open it, the disk is gone) stops
    // the batch: the other workers finish their current run, then the first such error is
    // rethrown here, after every thread has joined (never std::terminate from a thread).
    std::exception_ptr firstError;
    auto guarded = [&](int index) {
        try {
            worker(index);
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!firstError)
                firstError = std::current_exception();
            broken = true;
        }
    };
    prepareImageCodecs(); // before the workers' first frame encodes, not racing in them
    std::vector<std::thread> threads;
    for (int w = 1; w < m_options.workers; ++w)
        threads.emplace_back(guarded, w);
    guarded(0);
    for (auto &t : threads)
        t.join();
    if (firstError)
        std::rethrow_exception(firstError);
    result.busy += static_cast<int>(held.size()); // left when stopped
    return result;
}

} // namespace kosmos
