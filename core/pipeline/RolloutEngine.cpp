#include "pipeline/RolloutEngine.h"
#include "queries/LedgerFacts.h"

#include "pipeline/RunExecutor.h"

#include "artifacts/ImageCodecs.h"
#include "judge/JudgePrompt.h"
#include "judge/JudgeSchema.h"
#include "ledger/AttemptScope.h"
#include "util/CanonicalJson.h"
#include "util/Error.h"
#include "util/GpuMonitor.h"
#include "util/Sha256.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace kosmos {

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
        if (!recorded && hasRuns(ledger))
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

int RolloutEngine::retryFailed(const SubmittedBatch &batch)
{
    Ledger ledger = Ledger::open(m_bundle);
    std::vector<std::int64_t> failed;
    for (const std::int64_t runId : batch.runIds)
        if (const auto run = ledger.run(runId); run && run->status == "failed")
            failed.push_back(runId);
    return static_cast<int>(ledger.retryFailedRuns(failed).requeued.size());
}

namespace {

void countEnd(BatchResult &result, AttemptResult end)
{
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
    // One lane: claims runs one after the other and executes them (a worker is one lane, or N
    // lanes in lockstep with --batch N), with its own ledger connection.
    auto lane = [&](const std::string &workerId, LockstepGroup *lockstep) {
        Ledger ledger = Ledger::open(m_bundle);
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
            const RunExecution execution = executeRun(*scope, protocol, batch.plans[i], m_factory,
                                                      stop, report, judge, lockstep);
            const AttemptResult end = execution.end;
            {
                std::lock_guard lock(mutex);
                countEnd(result, end);
            }
            report({EngineProgress::Kind::RunFinished, runId, protocol.horizon, protocol.horizon,
                    std::string(attemptResultName(end)), execution.failure});
        }
    };
    // An error a worker cannot record in the ledger (it cannot open it, the disk is gone) stops
    // the batch: the other workers finish their current run, then the first such error is
    // rethrown here, after every thread has joined (never std::terminate from a thread).
    std::exception_ptr firstError;
    auto guardedLane = [&](const std::string &workerId, LockstepGroup *lockstep) {
        try {
            lane(workerId, lockstep);
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!firstError)
                firstError = std::current_exception();
            broken = true;
        }
    };
    const int lanes = std::max(1, m_options.batch);
    auto guarded = [&](int index) {
        const std::string workerId =
            m_options.workerName + "-" + std::to_string(::getpid()) + "-" + std::to_string(index);
        if (lanes == 1) {
            guardedLane(workerId, nullptr);
            return;
        }
        LockstepGroup group;
        std::vector<std::thread> laneThreads;
        for (int l = 1; l < lanes; ++l)
            laneThreads.emplace_back(guardedLane, workerId + "." + std::to_string(l), &group);
        guardedLane(workerId + ".0", &group);
        for (auto &t : laneThreads)
            t.join();
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
