#pragma once

#include "components/Components.h"
#include "ledger/Ledger.h"
#include "ledger/Shard.h"
#include "protocol/Protocol.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kosmos {

// Creates components by plugin id; implemented by the application (plugin registry) or by
// tests. Must be callable from several worker threads at once.
class ComponentFactory
{
public:
    virtual ~ComponentFactory() = default;
    // The plugin's version, for the component identity. Throws Error(NotFound) for an unknown id.
    virtual std::string version(const std::string &pluginId) = 0;
    virtual std::unique_ptr<Policy> createPolicy(const ComponentSpec &spec) = 0;
    virtual std::unique_ptr<WorldModel> createWorldModel(const ComponentSpec &spec) = 0;
    virtual std::unique_ptr<Judge> createJudge(const ComponentSpec &spec) = 0;
    // What identifies the component beyond its settings ({"weights_sha256", "details"}), or
    // null when the plugin says nothing more (no weights).
    virtual nlohmann::json identityOf(const ComponentSpec &) { return nullptr; }
    // Throws Error(InvalidInput) naming each setting that the plugin's settings schema refuses
    // (checked before a protocol is frozen, so bad settings never become N failed runs).
    virtual void checkSettings(const ComponentSpec &) {}
};

struct EngineOptions
{
    int workers = 1;
    std::int64_t leaseMs = 30000;
    std::int64_t heartbeatEveryMs = 5000;
    std::string workerName = "kosmos"; // worker ids: <name>-<pid>-<thread>
    // Runs of the batch held by another live worker: wait for them to end there (or for their
    // holder to die, then run them here) before returning; false: return at once and count
    // them as busy (unfinished).
    bool waitForHeldRuns = true;
    // Only this shard's runs (docs/scale-out.md); the ledger records the shard and refuses
    // any other afterwards. A batch stopped by `stop` never cancels its runs for good (see
    // RolloutEngine::run), so a shard's next job runs what its last one did not finish.
    std::optional<ShardSpec> shard = std::nullopt;
    // Episodes each worker runs in lockstep (--batch N; docs/pipeline.md, "Batched episodes"):
    // N lanes, each its own run with its own lease and records; calls to a policy or world model
    // with a batch dimension are made once for all lanes waiting for one. 1: one run at a time.
    int batch = 1;
};

struct EngineProgress
{
    enum class Kind
    {
        RunStarted,
        Step,
        RunFinished,
        RunSkipped
    };
    Kind kind = Kind::Step;
    std::int64_t runId = 0;
    int step = 0;
    int horizon = 0;
    std::string state;  // RunFinished: completed | failed | cancelled | lease_lost |
                        // interrupted (back in the queue);
                        // RunSkipped: the run's status, or busy (held by another worker)
    std::string detail; // failure reason
};
using ProgressFn = std::function<void(const EngineProgress &)>;

struct SubmittedBatch
{
    std::string protocolSha256;
    std::vector<std::int64_t> runIds; // parallel to plans
    std::vector<RunPlan> plans;
    int created = 0;
    int existing = 0;
};

// What running a protocol would do, without writing anything: its frozen hash, how many runs it
// expands to and how many of those the ledger already holds or has finished (run keys are
// idempotent), and every contract misfit between a policy and the world model, with its reason.
struct BatchPreview
{
    std::string protocolSha256;
    int runs = 0;
    int inLedger = 0;
    int finished = 0;
    std::vector<std::string> problems; // empty: the contracts fit
};

// The checks made before a run's first step: each contract on its own, the conversion from
// the policy's action space to the world model's, and the policy's chunk length against the
// lengths the world model is certified for. nullopt: they fit; else (reason code, message).
std::optional<std::pair<std::string, std::string>> contractMisfit(const ActionContract &policy,
                                                                  const ActionContract &world,
                                                                  const FrameContract &frames);

struct BatchResult
{
    int completed = 0;
    int failed = 0;
    int cancelled = 0;
    int skipped = 0;           // already finished before this call (resume)
    int finishedElsewhere = 0; // held by another worker when this call came to it, finished there
    int busy = 0;              // held by another live worker: not finished by this call
    int leaseLost = 0;         // the lease was taken over mid-run: not finished by this call
    int interrupted = 0; // stopped by `stop` (Ctrl-C, SIGTERM): back in the queue, not finished
    // Runs of the batch this call did not bring to an end (a caller must not report success).
    int unfinished() const { return busy + leaseLost + interrupted; }
};

// A judge's identity: plugin id and version, its settings, the frozen quorum settings and the
// prompt template's id and hash. Part of every run key.
ComponentIdentity makeJudgeIdentity(const std::string &version, const ComponentSpec &judge,
                                    const QuorumSettings &quorum);

// The pipeline: policy -> action contract -> conversion -> world model -> frame contract ->
// ledger, then deterministic validation, then judge samples and the quorum outcome. See
// docs/pipeline.md, "The rollout engine".
class RolloutEngine
{
public:
    RolloutEngine(std::filesystem::path bundle, ComponentFactory &factory,
                  EngineOptions options = {});

    // Freezes the protocol and submits its runs (idempotent: existing runs are returned).
    SubmittedBatch submit(const Protocol &protocol);
    // Puts every failed run of the batch back in the queue for a new attempt (each failed
    // attempt stays recorded as it was). Returns how many were requeued.
    int retryFailed(const SubmittedBatch &batch);
    // Runs every run of the batch that is not finished, with the configured workers. `stop`
    // (Ctrl-C, SIGTERM) interrupts cleanly between steps: the attempt in flight fails as
    // 'interrupted' (what it recorded is kept) and its run goes back to the queue, so that the same
    // call again finishes the batch.
    BatchResult run(const Protocol &protocol, const SubmittedBatch &batch,
                    const std::atomic<bool> &stop, const ProgressFn &progress = {});

    // Resolves the plugins and instantiates each policy and the world model once to check their
    // contracts; reads the ledger, never writes it.
    BatchPreview preview(const Protocol &protocol);

    // The device memory the components declare (a model package's "requirements", resolved
    // into their identity) against the free memory NVML reports, times the processes that each
    // load their own copy. Empty when it fits or nothing runs on CUDA; else the refusal with the
    // numbers. Checked before a batch starts (kosmos-cli run, the dry run), not per worker.
    std::string gpuBudgetProblem(const Protocol &protocol, int processes = 1);

    // Every run of the protocol as it is submitted (plans in order, identities resolved).
    std::vector<RunSpec> runSpecs(const Protocol &protocol);

    // The identities that go into run keys.
    ComponentIdentity policyIdentity(const Protocol &protocol, int policyIndex);
    ComponentIdentity worldModelIdentity(const Protocol &protocol);
    std::optional<ComponentIdentity> judgeIdentity(const Protocol &protocol);

private:
    std::filesystem::path m_bundle;
    ComponentFactory &m_factory;
    EngineOptions m_options;
};

} // namespace kosmos
