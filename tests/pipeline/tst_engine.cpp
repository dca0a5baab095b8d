#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "media/RolloutExport.h"
#include "media/VideoDecoder.h"
#include "pipeline/RolloutEngine.h"
#include "queries/BatchProgress.h"
#include "queries/BatchSummary.h"
#include "queries/BatchThroughput.h"
#include "synthetic/FrameJudge.h"
#include "synthetic/ScriptedPolicy.h"
#include "synthetic/TabletopWorldModel.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/Secrets.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <functional>

#include <fstream>
#include <limits>
#include <thread>

using namespace kosmos;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

// Policies that break their contract on purpose.
class FaultyPolicy : public synthetic::ScriptedPolicy
{
public:
    FaultyPolicy(std::string mode)
        : ScriptedPolicy(synthetic::PolicySkill::byName("expert")), m_mode(std::move(mode))
    {
    }
    ActionContract actionContract() const override
    {
        ActionContract c = ScriptedPolicy::actionContract();
        if (m_mode == "chunk4")
            c.chunkLength = 4;
        return c;
    }
    ActionChunk act(const Observation &obs) override
    {
        ActionChunk chunk = ScriptedPolicy::act(obs);
        if (obs.step == 3 && m_mode == "six_numbers")
            chunk[0].pop_back();
        if (obs.step == 3 && m_mode == "nan")
            chunk[0][1] = std::numeric_limits<double>::quiet_NaN();
        if (obs.step == 3 && m_mode == "throws")
            throw std::runtime_error("CUDA error: out of memory");
        if (obs.step == 2 && m_mode.rfind("slow:", 0) == 0) // one call of N ms (a slow model)
            std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(m_mode.substr(5))));
        return chunk;
    }
    // "on_cuda": reports its calls as a torch adapter on a GPU does.
    nlohmann::json lastCallStats() const override
    {
        if (m_mode != "on_cuda")
            return nullptr;
        return {{"call_ms", 1.0}, {"device", "cuda:0"}, {"cuda_peak_allocated_bytes", 1 << 20}};
    }

private:
    std::string m_mode;
};

class ShortWorld : public synthetic::TabletopWorldModel
{
public:
    std::vector<cv::Mat> step(const ActionChunk &actions) override
    {
        auto frames = TabletopWorldModel::step(actions);
        if (++m_steps == 5)
            frames.clear(); // the wrong number of frames
        return frames;
    }

private:
    int m_steps = 0;
};

// A world model that claims its ground truth is a person's label.
class ForgingWorld : public synthetic::TabletopWorldModel
{
public:
    std::optional<GroundTruth> groundTruth() const override
    {
        auto truth = TabletopWorldModel::groundTruth();
        if (truth)
            truth->source = "human";
        return truth;
    }
};

// A world model certified for single-action chunks only.
class SingleStepWorld : public synthetic::TabletopWorldModel
{
public:
    FrameContract frameContract() const override
    {
        FrameContract c = TabletopWorldModel::frameContract();
        c.certifiedChunkLengths = {1};
        return c;
    }
};

// Components with a batch dimension (--batch N): the scripted policy and the tabletop, each
// batched call counted. "fail_odd_seeds": the policy throws at step 3 of episodes whose reset
// seed is odd.
std::atomic<int> g_batchedCalls{0};
std::atomic<int> g_largestBatch{0};

void countBatch(std::size_t n)
{
    ++g_batchedCalls;
    int seen = g_largestBatch.load();
    while (static_cast<int>(n) > seen && !g_largestBatch.compare_exchange_weak(seen, int(n))) {
    }
}

class BatchingPolicy : public synthetic::ScriptedPolicy
{
public:
    explicit BatchingPolicy(bool failOddSeeds)
        : ScriptedPolicy(synthetic::PolicySkill::byName("noisy")), m_failOdd(failOddSeeds)
    {
    }
    void reset(std::uint64_t seed, const std::string &instruction) override
    {
        m_seed = seed;
        ScriptedPolicy::reset(seed, instruction);
    }
    ActionChunk act(const Observation &obs) override
    {
        if (m_failOdd && m_seed % 2 == 1 && obs.step == 3)
            throw Error(ErrorCode::InvalidInput,
                        "episode with seed " + std::to_string(m_seed) + " fails at step 3");
        return ScriptedPolicy::act(obs);
    }
    int maxBatch() const override { return 8; }
    std::vector<ActionChunk> actBatch(std::span<Policy *const> episodes,
                                      std::span<const Observation> observations,
                                      std::span<std::exception_ptr> failures) override
    {
        countBatch(episodes.size());
        return Policy::actBatch(episodes, observations, failures);
    }

private:
    bool m_failOdd = false;
    std::uint64_t m_seed = 0;
};

class BatchingWorld : public synthetic::TabletopWorldModel
{
public:
    int maxBatch() const override { return 3; } // smaller than --batch 4: calls of 3 and 1
    std::vector<std::vector<cv::Mat>> stepBatch(std::span<WorldModel *const> episodes,
                                                std::span<const ActionChunk> actions,
                                                std::span<std::exception_ptr> failures) override
    {
        countBatch(episodes.size());
        return WorldModel::stepBatch(episodes, actions, failures);
    }
};

class TestFactory : public ComponentFactory
{
public:
    std::string version(const std::string &id) override
    {
        if (id.rfind("test.", 0) != 0)
            throw Error(ErrorCode::NotFound, "unknown plugin id '" + id + "'");
        return "1.0.0";
    }
    std::unique_ptr<Policy> createPolicy(const ComponentSpec &spec) override
    {
        const std::string mode = spec.settings.value("mode", "expert");
        if (mode == "batching" || mode == "batching_fail_odd_seeds")
            return std::make_unique<BatchingPolicy>(mode == "batching_fail_odd_seeds");
        if (mode == "expert" || mode == "noisy" || mode == "confused")
            return std::make_unique<synthetic::ScriptedPolicy>(
                synthetic::PolicySkill::byName(mode));
        return std::make_unique<FaultyPolicy>(mode);
    }
    std::unique_ptr<WorldModel> createWorldModel(const ComponentSpec &spec) override
    {
        if (spec.settings.value("mode", "") == "short")
            return std::make_unique<ShortWorld>();
        if (spec.settings.value("mode", "") == "batching")
            return std::make_unique<BatchingWorld>();
        if (spec.settings.value("mode", "") == "forging")
            return std::make_unique<ForgingWorld>();
        if (spec.settings.value("mode", "") == "single_step")
            return std::make_unique<SingleStepWorld>();
        return std::make_unique<synthetic::TabletopWorldModel>();
    }
    std::unique_ptr<Judge> createJudge(const ComponentSpec &) override
    {
        return std::make_unique<synthetic::FrameJudge>(0.1);
    }
    // As a torch adapter resolves a package that declares its device memory.
    nlohmann::json identityOf(const ComponentSpec &spec) override
    {
        if (!spec.settings.contains("gpu_mib"))
            return nullptr;
        return {{"details",
                 {{"device", spec.settings.value("device", "cuda:0")},
                  {"device_memory_bytes",
                   spec.settings["gpu_mib"].get<std::int64_t>() * 1024 * 1024}}}};
    }
};

nlohmann::json protocolJson(const std::string &policyMode = "expert", int episodes = 2)
{
    return {{"kosmos_protocol", 1},
            {"name", "engine-test"},
            {"seed", 42},
            {"horizon", 30},
            {"episodes_per_task", episodes},
            {"tasks",
             {{{"id", "red_to_green"},
               {"instruction", "put the red block in the green square"},
               {"start_state", {{"randomize_m", 0.02}}}}}},
            {"policies", {{{"plugin", "test.policy"}, {"settings", {{"mode", policyMode}}}}}},
            {"world_model", {{"plugin", "test.world"}, {"settings", nlohmann::json::object()}}},
            {"judge", {{"plugin", "test.judge"}}}};
}

struct Fixture
{
    TempDir dir;
    fs::path bundle = dir / "engine.kosmos";
    TestFactory factory;
    Fixture() { Ledger::create(bundle); }
};

// Runs one expert episode into the fixture's ledger; its run id.
std::int64_t runOneExpertEpisode(Fixture &f)
{
    const Protocol protocol = Protocol::fromJson(protocolJson("expert", 1));
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    EXPECT_EQ(engine.run(protocol, batch, stop).completed, 1);
    return batch.runIds[0];
}

std::vector<std::string> artifactHashes(Ledger &ledger, std::int64_t runId, const std::string &role)
{
    sqlite::Statement s(
        LedgerSql::of(ledger),
        "SELECT x.sha256 FROM attempt_artifacts aa JOIN artifacts x USING (artifact_id) "
        "JOIN attempts a USING (attempt_id) WHERE a.run_id = ? AND aa.role = ? ORDER BY aa.name");
    s.bind(1, runId).bind(2, role);
    std::vector<std::string> out;
    while (s.step())
        out.push_back(s.text(0));
    return out;
}

void expectClean(const fs::path &bundle)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const auto report = verifyLedger(ledger);
    for (const auto &p : report.problems)
        ADD_FAILURE() << p.check << " " << p.where << ": " << p.message;
}

} // namespace

TEST(Engine, RunsEndToEndAndRecordsEveryStage)
{
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson());
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    EXPECT_EQ(batch.created, 2);
    std::atomic<bool> stop{false};
    const auto result = engine.run(protocol, batch, stop);
    EXPECT_EQ(result.completed, 2);

    Ledger ledger = Ledger::open(f.bundle);
    const std::int64_t run = batch.runIds[0];
    EXPECT_EQ(ledger.run(run)->status, "completed");
    EXPECT_EQ(artifactHashes(ledger, run, "frame").size(), 31u) << "N + 1 frames";
    EXPECT_EQ(artifactHashes(ledger, run, "actions").size(), 1u);
    // The 16 frames the judge was shown are the rollout's own frame objects (stored once).
    const auto judged = artifactHashes(ledger, run, "judge_frame");
    const auto rolled = artifactHashes(ledger, run, "frame");
    EXPECT_EQ(judged.size(), 16u);
    for (const auto &sha : judged)
        EXPECT_NE(std::find(rolled.begin(), rolled.end(), sha), rolled.end()) << sha;
    EXPECT_EQ(artifactHashes(ledger, run, "contracts").size(), 1u);
    sqlite::Statement v(LedgerSql::of(ledger), "SELECT COUNT(*) FROM validation_results");
    v.step();
    EXPECT_EQ(v.int64(0), 2);
    sqlite::Statement j(LedgerSql::of(ledger),
                        "SELECT COUNT(*), MIN(frame_indices_json) FROM judgments");
    j.step();
    EXPECT_EQ(j.int64(0), 2);
    EXPECT_EQ(nlohmann::json::parse(j.text(1)).size(), 16u);
    sqlite::Statement labels(
        LedgerSql::of(ledger),
        "SELECT COUNT(*) FROM human_labels WHERE source = 'synthetic_reference'");
    labels.step();
    EXPECT_EQ(labels.int64(0), 2) << "ground truth is its own label source";
    bool timings = false;
    for (const auto &e : ledger.events(run)) {
        if (e.type != "timings")
            continue;
        const auto t = nlohmann::json::parse(e.payloadJson);
        timings = t.contains("stage_ms") && t.contains("cpu_ms");
        // The synthetic components run in process and report no device: it is not "cpu".
        EXPECT_EQ(t["device"], "not reported");
        EXPECT_TRUE(t["devices"]["policy"].is_null());
        EXPECT_TRUE(t["devices"]["world_model"].is_null());
    }
    EXPECT_TRUE(timings);
    expectClean(f.bundle);
}

TEST(Engine, PreviewCountsRunsAndRefusesMisfittingContractsWithoutWriting)
{
    Fixture f;
    RolloutEngine engine(f.bundle, f.factory);
    const Protocol protocol = Protocol::fromJson(protocolJson());
    auto preview = engine.preview(protocol);
    EXPECT_EQ(preview.runs, 2);
    EXPECT_EQ(preview.inLedger, 0);
    EXPECT_TRUE(preview.problems.empty()) << preview.problems[0];
    EXPECT_EQ(Ledger::open(f.bundle).info().runs, 0) << "a preview writes nothing";
    const auto batch = engine.submit(protocol);
    EXPECT_EQ(engine.preview(protocol).protocolSha256, batch.protocolSha256);
    std::atomic<bool> stop{false};
    engine.run(protocol, batch, stop);
    preview = engine.preview(protocol);
    EXPECT_EQ(preview.inLedger, 2);
    EXPECT_EQ(preview.finished, 2);

    // A policy chunk of 4 against a world model certified for chunks of 1: refused, with why.
    nlohmann::json misfit = protocolJson("chunk4");
    misfit["world_model"]["settings"] = {{"mode", "single_step"}};
    preview = engine.preview(Protocol::fromJson(misfit));
    ASSERT_EQ(preview.problems.size(), 1u);
    EXPECT_NE(preview.problems[0].find("chunk_length"), std::string::npos) << preview.problems[0];
    EXPECT_NE(preview.problems[0].find("test.policy"), std::string::npos) << preview.problems[0];
}

TEST(Engine, BatchProgressIsReadFromTheLedgerAlone)
{
    Fixture f;
    RolloutEngine engine(f.bundle, f.factory);
    const Protocol protocol = Protocol::fromJson(protocolJson("expert", 3));
    const auto batch = engine.submit(protocol);
    Ledger ledger = Ledger::open(f.bundle);
    auto p = batchProgress(ledger, batch.protocolSha256, 1000);
    EXPECT_EQ(p.total, 3);
    EXPECT_EQ(p.queued, 3);
    EXPECT_TRUE(p.active());
    EXPECT_EQ(p.stepsTotal, 3 * 30);
    EXPECT_FALSE(p.remainingMs);
    EXPECT_EQ(activeProtocols(ledger), std::vector<std::string>{batch.protocolSha256});

    // A worker in another process is 10 steps into run 1.
    auto lease = ledger.claim("other-process-0", 30000, batch.runIds[0]);
    ledger.appendEvent(*lease, "stage", {{"stage", "world_model"}});
    ledger.appendEvent(*lease, "step", {{"step", 10}, {"frames", 11}});
    p = batchProgress(ledger, batch.protocolSha256, lease->expiresAtMs - 30000 + 2000);
    EXPECT_EQ(p.running, 1);
    EXPECT_EQ(p.runs[0].stepsDone, 10);
    EXPECT_EQ(p.runs[0].stage, "world_model");
    EXPECT_EQ(p.runs[0].workerId, "other-process-0");
    EXPECT_FALSE(p.runs[0].workerPid) << "not a <name>-<pid>-<n> id";
    EXPECT_EQ(p.stepsDone, 10);
    ASSERT_TRUE(p.remainingMs);
    EXPECT_NEAR(static_cast<double>(*p.remainingMs), 80.0 * 2000 / 10, 2000.0)
        << "80 steps left at the rate seen so far";
    ledger.requestCancel(batch.runIds[0], "test");
    EXPECT_TRUE(batchProgress(ledger, batch.protocolSha256, 0).runs[0].cancelRequested);
    ledger.finishAttempt(*lease, AttemptOutcome::cancelled("test"));

    std::atomic<bool> stop{false};
    engine.run(protocol, batch, stop);
    p = batchProgress(ledger, batch.protocolSha256, 0);
    EXPECT_EQ(p.completed, 2);
    EXPECT_EQ(p.cancelled, 1);
    EXPECT_FALSE(p.active());
    // The cancelled run did 10 of its 30 steps: they count as done, its other 20 not at all
    // (it read "3 of 3 runs finished (100% of steps)" with the run cancelled at 10).
    EXPECT_EQ(p.stepsDone, 2 * 30 + 10);
    EXPECT_EQ(p.stepsDone, p.stepsTotal);
    EXPECT_EQ(p.summary(), "2 of 3 runs completed, 1 cancelled");
    EXPECT_TRUE(activeProtocols(ledger).empty());
    EXPECT_TRUE(batchProgress(ledger, std::string(64, 'a'), 0).runs.empty());
}

TEST(Engine, SameProtocolAndSeedsGiveByteIdenticalFramesAndActions)
{
    Fixture a;
    Fixture b;
    const Protocol protocol = Protocol::fromJson(protocolJson("noisy"));
    std::atomic<bool> stop{false};
    RolloutEngine ea(a.bundle, a.factory);
    RolloutEngine eb(b.bundle, b.factory, EngineOptions{2, 30000, 5000, "other"});
    const auto ba = ea.submit(protocol);
    const auto bb = eb.submit(protocol);
    ea.run(protocol, ba, stop);
    eb.run(protocol, bb, stop);
    Ledger la = Ledger::open(a.bundle);
    Ledger lb = Ledger::open(b.bundle);
    for (std::size_t i = 0; i < ba.runIds.size(); ++i) {
        EXPECT_EQ(la.run(ba.runIds[i])->runKey, lb.run(bb.runIds[i])->runKey);
        EXPECT_EQ(artifactHashes(la, ba.runIds[i], "frame"),
                  artifactHashes(lb, bb.runIds[i], "frame"));
        EXPECT_EQ(artifactHashes(la, ba.runIds[i], "actions"),
                  artifactHashes(lb, bb.runIds[i], "actions"));
    }
}

namespace {

// Everything a run recorded that must not depend on --batch: its key, its attempt's status and
// error, its frames, actions, states, validation verdict and ground truth.
std::string runRecord(Ledger &ledger, std::int64_t runId)
{
    const auto run = ledger.run(runId);
    std::string out = run->runKey + " " + run->status + "\n";
    for (const char *role : {"frame", "actions", "world_states", "contracts"})
        for (const auto &h : artifactHashes(ledger, runId, role))
            out += std::string(role) + " " + h + "\n";
    sqlite::Statement v(LedgerSql::of(ledger),
                        "SELECT v.verdict, v.reason_codes_json FROM validation_results v JOIN "
                        "attempts a USING (attempt_id) WHERE a.run_id = ?");
    v.bind(1, runId);
    while (v.step())
        out += "validation " + v.text(0) + " " + v.text(1) + "\n";
    sqlite::Statement g(LedgerSql::of(ledger),
                        "SELECT source, completion, progress FROM human_labels WHERE run_id = ?");
    g.bind(1, runId);
    while (g.step())
        out += "label " + g.text(0) + " " + g.text(1) + " " + g.text(2) + "\n";
    sqlite::Statement e(LedgerSql::of(ledger), "SELECT error_code FROM attempts WHERE run_id = ?");
    e.bind(1, runId);
    while (e.step())
        out += "error " + (e.isNull(0) ? std::string("none") : e.text(0)) + "\n";
    return out;
}

nlohmann::json batchingProtocol(const std::string &policyMode, int episodes)
{
    nlohmann::json p = protocolJson(policyMode, episodes);
    p["world_model"]["settings"] = {{"mode", "batching"}};
    p.erase("judge");
    return p;
}

} // namespace

// One protocol run one episode at a time and with --batch 4 (one worker), each into a ledger of
// its own; `between` runs after the first.
struct AloneAndInLockstep
{
    Fixture one;
    Fixture four;
    SubmittedBatch b1;
    SubmittedBatch b4;
    BatchResult r1;
    BatchResult r4;

    explicit AloneAndInLockstep(const Protocol &protocol, const std::function<void()> &between = {})
    {
        std::atomic<bool> stop{false};
        RolloutEngine e1(one.bundle, one.factory);
        EngineOptions options;
        options.workers = 1;
        options.batch = 4;
        RolloutEngine e4(four.bundle, four.factory, options);
        b1 = e1.submit(protocol);
        b4 = e4.submit(protocol);
        r1 = e1.run(protocol, b1, stop);
        if (between)
            between();
        r4 = e4.run(protocol, b4, stop);
    }

    // Run by run, the records of both ledgers are the same.
    void expectSameRuns() const
    {
        Ledger l1 = Ledger::open(one.bundle);
        Ledger l4 = Ledger::open(four.bundle);
        ASSERT_EQ(b1.runIds.size(), b4.runIds.size());
        for (std::size_t i = 0; i < b1.runIds.size(); ++i)
            EXPECT_EQ(runRecord(l1, b1.runIds[i]), runRecord(l4, b4.runIds[i])) << "run " << i;
    }
};

TEST(Engine, EpisodesInLockstepAreTheSameRunsAsOneAtATime)
{
    // --batch 4 with a batched policy (at most 8 a call) and world model (at most 3): the same
    // runs, keys, frames, actions, states, verdicts and labels as --batch 1, byte for byte.
    const Protocol protocol = Protocol::fromJson(batchingProtocol("batching", 8));
    g_batchedCalls = 0;
    g_largestBatch = 0;
    const AloneAndInLockstep runs(
        protocol, [] { EXPECT_EQ(g_batchedCalls.load(), 0) << "--batch 1 made a batched call"; });
    EXPECT_EQ(runs.r1.completed, 8);
    EXPECT_EQ(runs.r4.completed, 8);
    EXPECT_GT(g_batchedCalls.load(), 0);
    EXPECT_GE(g_largestBatch.load(), 2);
    EXPECT_LE(g_largestBatch.load(), 4);
    runs.expectSameRuns();
    Ledger l4 = Ledger::open(runs.four.bundle);
    // The timings say how the calls were shared.
    sqlite::Statement t(LedgerSql::of(l4),
                        "SELECT max(json_extract(payload_json, "
                        "'$.critical_path.lockstep_mean_batch')) FROM events WHERE type = "
                        "'timings'");
    ASSERT_TRUE(t.step());
    EXPECT_GT(t.real(0), 1.0);
    // Where the time went, per worker: the four lanes are one worker.
    const BatchThroughput through = batchThroughput(l4, runs.b4.protocolSha256, 0, nowMs());
    ASSERT_EQ(through.workers.size(), 1U) << through.text();
    EXPECT_EQ(through.all.attempts, 8);
    EXPECT_EQ(through.all.steps, 8 * 30);
    EXPECT_EQ(through.all.frames, 8 * 31);
    EXPECT_GT(through.all.stages.lockstepWaitMs, 0.0);
    EXPECT_GT(through.all.stepsPerS(), 0.0);
    EXPECT_NE(through.text().find("lanes waited"), std::string::npos) << through.text();
    expectClean(runs.four.bundle);
}

TEST(Engine, ThroughputIsReadPerWorkerFromTheRunsTimings)
{
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson("expert", 4));
    RolloutEngine engine(f.bundle, f.factory, EngineOptions{2, 30000, 5000, "through"});
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    const std::int64_t before = nowMs();
    ASSERT_EQ(engine.run(protocol, batch, stop).completed, 4);
    Ledger ledger = Ledger::open(f.bundle, {OpenMode::ReadOnly});
    const BatchThroughput t = batchThroughput(ledger, batch.protocolSha256, before, nowMs());
    EXPECT_GE(t.workers.size(), 1U);
    EXPECT_LE(t.workers.size(), 2U);
    EXPECT_EQ(t.all.attempts, 4);
    EXPECT_EQ(t.all.steps, 4 * 30);
    EXPECT_EQ(t.all.frames, 4 * 31);
    EXPECT_GT(t.all.stages.worldModelMs, 0.0);
    EXPECT_GT(t.all.stages.storeMs, 0.0);
    EXPECT_GT(t.all.stages.judgeMs, 0.0);
    EXPECT_GE(t.all.stages.attemptMs,
              t.all.stages.policyMs + t.all.stages.worldModelMs + t.all.stages.judgeMs);
    EXPECT_NE(t.text().find("frames/s"), std::string::npos) << t.text();
    // Shares of the work (the five stages), which add up to a whole at any --batch.
    EXPECT_NEAR(t.all.stages.workMs(),
                t.all.stages.policyMs + t.all.stages.worldModelMs + t.all.stages.judgeMs +
                    t.all.stages.validationMs + t.all.stages.storeMs,
                1e-9);
    EXPECT_NE(t.text().find("work: policy"), std::string::npos) << t.text();
    EXPECT_NE(t.text().find("ms a run"), std::string::npos) << t.text();
    // Attempts before `since` are not this command's.
    EXPECT_EQ(batchThroughput(ledger, batch.protocolSha256, nowMs() + 1000, nowMs()).all.attempts,
              0);
    EXPECT_TRUE(batchThroughput(ledger, "no-such-protocol", 0, nowMs()).workers.empty());
}

TEST(Engine, ThroughputReadAsTheBatchGoesIsTheSameAsReadOnceAtTheEnd)
{
    // The Run workspace's reader: read after each run ends (on another connection), each time
    // only what started or was running since, and at the end the same as one read of it all.
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson("expert", 4));
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    Ledger reading = Ledger::open(f.bundle, {OpenMode::ReadOnly});
    BatchThroughputReader reader(batch.protocolSha256, 0);
    EXPECT_TRUE(reader.read(reading, nowMs()).workers.empty());
    std::vector<int> seen;
    ASSERT_EQ(engine
                  .run(protocol, batch, stop,
                       [&](const EngineProgress &p) {
                           if (p.kind == EngineProgress::Kind::RunFinished)
                               seen.push_back(reader.read(reading, nowMs()).all.attempts);
                       })
                  .completed,
              4);
    ASSERT_EQ(seen.size(), 4U);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    const std::int64_t now = nowMs();
    const BatchThroughput incremental = reader.read(reading, now);
    const BatchThroughput once = batchThroughput(reading, batch.protocolSha256, 0, now);
    EXPECT_EQ(incremental.all.attempts, 4);
    EXPECT_EQ(incremental.all.attempts, once.all.attempts);
    EXPECT_EQ(incremental.all.running, once.all.running);
    EXPECT_EQ(incremental.all.steps, once.all.steps);
    EXPECT_EQ(incremental.all.frames, once.all.frames);
    EXPECT_EQ(incremental.all.stages.workMs(), once.all.stages.workMs());
    EXPECT_EQ(incremental.all.stages.attemptMs, once.all.stages.attemptMs);
    EXPECT_EQ(incremental.text(), once.text());
}

TEST(Engine, AFailingEpisodeInLockstepEndsOnlyItself)
{
    // Episodes with odd seeds throw at step 3, inside batched calls: only those fail, with their
    // own error; the others complete exactly as alone.
    const Protocol protocol = Protocol::fromJson(batchingProtocol("batching_fail_odd_seeds", 6));
    const AloneAndInLockstep runs(protocol);
    EXPECT_GT(runs.r1.failed, 0);
    EXPECT_GT(runs.r1.completed, 0);
    EXPECT_EQ(runs.r4.failed, runs.r1.failed);
    EXPECT_EQ(runs.r4.completed, runs.r1.completed);
    runs.expectSameRuns();
    expectClean(runs.four.bundle);
}

TEST(Engine, ContractViolationsFailTheAttemptWithTheirReasonAndKeepItsArtifacts)
{
    for (const auto &[mode, code] : std::vector<std::pair<std::string, std::string>>{
             {"six_numbers", "action_dimension_mismatch"},
             {"nan", "action_non_finite"},
             {"throws", "exception"}}) {
        Fixture f;
        const Protocol protocol = Protocol::fromJson(protocolJson(mode, 1));
        RolloutEngine engine(f.bundle, f.factory);
        const auto batch = engine.submit(protocol);
        std::atomic<bool> stop{false};
        const auto result = engine.run(protocol, batch, stop);
        EXPECT_EQ(result.failed, 1) << mode;
        Ledger ledger = Ledger::open(f.bundle);
        const auto attempts = ledger.attempts(batch.runIds[0]);
        ASSERT_EQ(attempts.size(), 1u);
        EXPECT_EQ(attempts[0].state, "failed");
        EXPECT_EQ(attempts[0].errorCode, code) << mode;
        EXPECT_NE(attempts[0].errorMessage->find("stage policy"), std::string::npos)
            << *attempts[0].errorMessage;
        EXPECT_NE(attempts[0].errorMessage->find("run " + std::to_string(batch.runIds[0])),
                  std::string::npos);
        EXPECT_EQ(artifactHashes(ledger, batch.runIds[0], "frame").size(), 4u)
            << "frames 0-3 are kept";
        expectClean(f.bundle);
    }
}

TEST(Engine, AWorldModelReturningTheWrongNumberOfFramesFails)
{
    Fixture f;
    auto doc = protocolJson("expert", 1);
    doc["world_model"]["settings"] = {{"mode", "short"}};
    const Protocol protocol = Protocol::fromJson(doc);
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    engine.run(protocol, batch, stop);
    Ledger ledger = Ledger::open(f.bundle);
    const auto attempt = ledger.attempts(batch.runIds[0]).at(0);
    EXPECT_EQ(attempt.errorCode, "frame_count_mismatch");
    EXPECT_NE(attempt.errorMessage->find("returned 0"), std::string::npos) << *attempt.errorMessage;
}

TEST(Engine, AWorldCannotRecordItsGroundTruthAsAHumanLabel)
{
    Fixture f;
    auto doc = protocolJson("expert", 1);
    doc["world_model"]["settings"] = {{"mode", "forging"}};
    const Protocol protocol = Protocol::fromJson(doc);
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    engine.run(protocol, batch, stop);
    Ledger ledger = Ledger::open(f.bundle);
    const auto attempt = ledger.attempts(batch.runIds[0]).at(0);
    EXPECT_EQ(attempt.errorCode, "invalid_ground_truth");
    EXPECT_NE(attempt.errorMessage->find("'human'"), std::string::npos) << *attempt.errorMessage;
    EXPECT_TRUE(ledger.labels(batch.runIds[0]).empty()) << "no label forged";
}

TEST(Engine, AnInterruptMidRunKeepsWhatWasProducedAndResumeFinishesTheRest)
{
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson("expert", 3));
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    const auto first = engine.run(protocol, batch, stop, [&](const EngineProgress &p) {
        if (p.kind == EngineProgress::Kind::Step && p.runId == batch.runIds[1] && p.step == 10)
            stop = true; // Ctrl-C in the middle of the second run
    });
    EXPECT_EQ(first.completed, 1);
    EXPECT_EQ(first.cancelled, 0) << "stopping never cancels a run for good";
    EXPECT_EQ(first.interrupted, 1);
    EXPECT_EQ(first.unfinished(), 1) << "an interrupted run is not finished";
    Ledger ledger = Ledger::open(f.bundle);
    EXPECT_EQ(ledger.run(batch.runIds[1])->status, "queued") << "back in the queue";
    EXPECT_EQ(ledger.attempts(batch.runIds[1]).at(0).state, "failed");
    EXPECT_EQ(ledger.attempts(batch.runIds[1]).at(0).errorCode, "interrupted");
    EXPECT_GE(artifactHashes(ledger, batch.runIds[1], "frame").size(), 10u)
        << "the interrupted attempt keeps its frames";
    EXPECT_EQ(ledger.run(batch.runIds[2])->status, "queued");

    // Running again resumes: the finished run is skipped, the interrupted and the queued one run.
    stop = false;
    const auto again = engine.submit(protocol);
    EXPECT_EQ(again.created, 0);
    EXPECT_EQ(again.runIds, batch.runIds);
    const auto second = engine.run(protocol, again, stop);
    EXPECT_EQ(second.skipped, 1);
    EXPECT_EQ(second.completed, 2);
    EXPECT_EQ(ledger.attempts(batch.runIds[1]).size(), 2u) << "the interrupted attempt is kept";
    expectClean(f.bundle);
}

TEST(Engine, ACancelRequestFromAnotherConnectionStopsTheRun)
{
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson("expert", 1));
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    Ledger gui = Ledger::open(f.bundle);
    engine.run(protocol, batch, stop, [&](const EngineProgress &p) {
        if (p.kind == EngineProgress::Kind::Step && p.step == 5)
            gui.requestCancel(p.runId, "user pressed cancel");
    });
    EXPECT_EQ(gui.run(batch.runIds[0])->status, "cancelled");
}

TEST(Engine, BadProtocolsNameTheFieldAndChangeNothing)
{
    Fixture f;
    auto expectError = [&](nlohmann::json doc, const std::string &mentions) {
        try {
            const Protocol p = Protocol::fromJson(doc);
            RolloutEngine engine(f.bundle, f.factory);
            engine.submit(p);
            ADD_FAILURE() << "accepted: " << mentions;
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find(mentions), std::string::npos) << e.what();
        }
    };
    auto doc = protocolJson();
    doc["tasks"][0].erase("instruction");
    expectError(doc, "protocol.tasks[0].instruction: missing required field");
    doc = protocolJson();
    doc.erase("horizon");
    expectError(doc, "protocol.horizon");
    doc = protocolJson();
    doc["policies"][0]["plugin"] = "openvla.gpu";
    expectError(doc, "unknown plugin id 'openvla.gpu'");
    doc = protocolJson();
    doc["horizon"] = 5;
    expectError(doc, "the judge needs at least 16 frames");
    doc = protocolJson();
    doc["judge"]["quorum"] = {{"samples", 3}, {"quorum", 4}};
    expectError(doc, "protocol.judge.quorum.quorum");
    Ledger ledger = Ledger::open(f.bundle);
    EXPECT_EQ(ledger.info().runs, 0);
    EXPECT_EQ(ledger.info().protocols, 0);
}

TEST(Engine, AnInstructionThatNamesThePolicyIsNotSentToTheJudge)
{
    Fixture f;
    auto doc = protocolJson("expert", 1);
    doc["tasks"][0]["instruction"] = "put the red block in the green square as test.policy does";
    const Protocol protocol = Protocol::fromJson(doc);
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    engine.run(protocol, batch, stop);
    Ledger ledger = Ledger::open(f.bundle);
    const auto attempt = ledger.attempts(batch.runIds[0]).at(0);
    EXPECT_EQ(attempt.errorCode, "prompt_not_blinded");
    EXPECT_NE(attempt.errorMessage->find("'test.policy'"), std::string::npos)
        << *attempt.errorMessage;
    sqlite::Statement s(LedgerSql::of(ledger), "SELECT COUNT(*) FROM judge_samples");
    s.step();
    EXPECT_EQ(s.int64(0), 0) << "nothing reached the judge";
}

TEST(Engine, TheDemoProtocolRecoversTheDesignedRanking)
{
    TempDir dir;
    const fs::path bundle = dir / "demo.kosmos";
    Ledger::create(bundle);
    std::ifstream in(std::string(KOSMOS_EXAMPLES_DIR) + "/tabletop-demo.json");
    const Protocol protocol = Protocol::fromJson(nlohmann::json::parse(in));
    class DemoFactory : public TestFactory
    {
    public:
        std::string version(const std::string &) override { return "1.0.0"; }
        std::unique_ptr<Policy> createPolicy(const ComponentSpec &spec) override
        {
            return std::make_unique<synthetic::ScriptedPolicy>(
                synthetic::PolicySkill::byName(spec.settings.at("skill")));
        }
    } factory;
    RolloutEngine engine(bundle, factory, EngineOptions{2, 30000, 5000, "demo"});
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    const auto result = engine.run(protocol, batch, stop);
    EXPECT_EQ(result.completed, 60);
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const auto rows = summarizeProtocol(ledger, batch.protocolSha256);
    ASSERT_EQ(rows.size(), 3u);
    const double expert = *rows[0].reference.rate;
    const double noisy = *rows[1].reference.rate;
    const double confused = *rows[2].reference.rate;
    EXPECT_GT(expert, noisy);
    EXPECT_GT(noisy, confused);
    for (const auto &row : rows) {
        EXPECT_EQ(row.reference.n, 20);
        EXPECT_TRUE(row.reference.lower && row.reference.upper)
            << "a rate always carries its interval";
        std::cout << "[ demo ] " << row.policy << ": reference " << row.reference.successes << "/"
                  << row.reference.n << ", judge " << row.judge.successes << "/" << row.judge.n
                  << " (unknown " << row.judgeUnknown << ")\n";
    }
}

TEST(Engine, AWorldChunkIsGatheredFromPolicyChunksThatDivideIt)
{
    // A world model certified for chunks of 12 (Cosmos) takes policies of chunk 1, 4 or 12: the
    // engine gathers 12 actions from consecutive calls. A chunk of 5 does not divide 12 and is a
    // misfit before any run; a world with several certified lengths keeps the plain rule.
    const ActionContract world = ActionContract::bridgeEndEffector();
    FrameContract frames;
    frames.certifiedChunkLengths = {12};
    for (int chunk : {1, 4, 12}) {
        ActionContract policy = ActionContract::bridgeEndEffector();
        policy.chunkLength = chunk;
        EXPECT_FALSE(contractMisfit(policy, world, frames)) << chunk;
    }
    ActionContract five = ActionContract::bridgeEndEffector();
    five.chunkLength = 5;
    const auto misfit = contractMisfit(five, world, frames);
    ASSERT_TRUE(misfit);
    EXPECT_NE(misfit->second.find("chunks of 12 actions; policy chunks of 5 do not divide it"),
              std::string::npos)
        << misfit->second;
    frames.certifiedChunkLengths = {4, 8};
    ActionContract two = ActionContract::bridgeEndEffector();
    two.chunkLength = 2;
    EXPECT_TRUE(contractMisfit(two, world, frames));
}

namespace {

// One run whose policy makes a single call of callMs, under a lease of leaseMs renewed every
// everyMs: the run must complete (the lease is renewed during the call), not lose its lease.
void expectASlowCallKeepsTheLease(std::int64_t callMs, std::int64_t leaseMs, std::int64_t everyMs)
{
    Fixture f;
    nlohmann::json json = protocolJson("slow:" + std::to_string(callMs), 1);
    json["horizon"] = 16;
    const Protocol protocol = Protocol::fromJson(json);
    RolloutEngine engine(f.bundle, f.factory, EngineOptions{1, leaseMs, everyMs, "slow"});
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    std::vector<EngineProgress> finished;
    const auto result = engine.run(protocol, batch, stop, [&](const EngineProgress &p) {
        if (p.kind == EngineProgress::Kind::RunFinished)
            finished.push_back(p);
    });
    EXPECT_EQ(result.completed, 1);
    EXPECT_EQ(result.leaseLost, 0);
    EXPECT_EQ(result.unfinished(), 0);
    ASSERT_EQ(finished.size(), 1u);
    EXPECT_EQ(finished[0].state, "completed") << finished[0].detail;
    Ledger ledger = Ledger::open(f.bundle);
    EXPECT_EQ(ledger.run(batch.runIds[0])->status, "completed");
    const auto attempts = ledger.attempts(batch.runIds[0]);
    ASSERT_EQ(attempts.size(), 1u) << "one attempt, never taken over";
    EXPECT_EQ(attempts[0].state, "completed");
    expectClean(f.bundle);
}

} // namespace

TEST(Engine, ACallLongerThanTheLeaseKeepsTheLeaseRenewedInTheBackground)
{
    // A 4 s call under a 1.5 s lease: before the lease keeper this ended in lease_lost.
    expectASlowCallKeepsTheLease(4000, 1500, 300);
}

TEST(Engine, AFortyFiveSecondCallKeepsTheDefaultThirtySecondLease)
{
    const EngineOptions defaults;
    ASSERT_EQ(defaults.leaseMs, 30000);
    expectASlowCallKeepsTheLease(45000, defaults.leaseMs, defaults.heartbeatEveryMs);
}

TEST(Engine, RunsHeldByAnotherLiveWorkerAreReportedUnfinishedNotSkipped)
{
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson("expert", 2));
    EngineOptions options;
    options.waitForHeldRuns = false;
    RolloutEngine engine(f.bundle, f.factory, options);
    const auto batch = engine.submit(protocol);
    Ledger ledger = Ledger::open(f.bundle);
    auto held = ledger.claim("another-worker-0", 60000, batch.runIds[1]); // alive: this process
    ASSERT_TRUE(held);
    std::atomic<bool> stop{false};
    std::vector<std::string> skipped;
    auto result = engine.run(protocol, batch, stop, [&](const EngineProgress &p) {
        if (p.kind == EngineProgress::Kind::RunSkipped)
            skipped.push_back(p.state);
    });
    EXPECT_EQ(result.completed, 1);
    EXPECT_EQ(result.skipped, 0) << "a run still running is not 'already finished'";
    EXPECT_EQ(result.busy, 1);
    EXPECT_EQ(result.unfinished(), 1);
    EXPECT_EQ(skipped, std::vector<std::string>{"busy"});

    ledger.finishAttempt(*held, AttemptOutcome::failed("test", "the other worker failed"));
    result = engine.run(protocol, batch, stop);
    EXPECT_EQ(result.skipped, 2);
    EXPECT_EQ(result.unfinished(), 0);
}

TEST(Engine, FailedRunsAreRetriedWithANewAttemptAndTheFailedOneKept)
{
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson("throws", 2));
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    EXPECT_EQ(engine.run(protocol, batch, stop).failed, 2);
    EXPECT_EQ(engine.retryFailed(batch), 2);
    EXPECT_EQ(engine.retryFailed(batch), 0) << "queued runs are not requeued twice";
    const auto again = engine.run(protocol, batch, stop);
    EXPECT_EQ(again.failed, 2);
    EXPECT_EQ(again.skipped, 0);
    Ledger ledger = Ledger::open(f.bundle);
    for (const std::int64_t runId : batch.runIds) {
        const auto attempts = ledger.attempts(runId);
        ASSERT_EQ(attempts.size(), 2u);
        EXPECT_EQ(attempts[0].state, "failed");
        EXPECT_EQ(attempts[1].state, "failed");
        EXPECT_EQ(attempts[1].attemptNo, 2);
    }
    expectClean(f.bundle);
}

TEST(Engine, ByDefaultARunHeldElsewhereIsWaitedForUntilItEndsThere)
{
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson("expert", 2));
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    Ledger ledger = Ledger::open(f.bundle);
    auto held = ledger.claim("another-worker-0", 60000, batch.runIds[0]);
    ASSERT_TRUE(held);
    std::thread other([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        Ledger own = Ledger::open(f.bundle);
        own.finishAttempt(*held, AttemptOutcome::completed());
    });
    std::atomic<bool> stop{false};
    const auto result = engine.run(protocol, batch, stop);
    other.join();
    EXPECT_EQ(result.completed, 1);
    EXPECT_EQ(result.finishedElsewhere, 1);
    EXPECT_EQ(result.unfinished(), 0);
}

TEST(Protocol, UnboundedInputIsRefusedWithTheFieldAndTheLimit)
{
    // Too many runs: the product is named before anything is expanded.
    nlohmann::json many = protocolJson("expert", 1000000);
    many["tasks"].push_back({{"id", "second"}, {"instruction", "push the blue block"}});
    EXPECT_NE(test::errorOf([&] { Protocol::fromJson(many); })
                  .find("1 policies x 2 tasks x 1000000 episodes = 2000000 runs, more than the "
                        "100000"),
              std::string::npos)
        << test::errorOf([&] { Protocol::fromJson(many); });
    // A 10 MB instruction (it grew a ledger to 1.2 GB): refused naming the field.
    nlohmann::json longText = protocolJson();
    longText["tasks"][0]["instruction"] = std::string(10u << 20, 'x');
    EXPECT_NE(test::errorOf([&] {
                  Protocol::fromJson(longText);
              }).find("protocol.tasks[0].instruction: 10485760 bytes, more than the 4096"),
              std::string::npos);
    nlohmann::json longName = protocolJson();
    longName["name"] = std::string(300, 'n');
    EXPECT_NE(test::errorOf([&] { Protocol::fromJson(longName); }).find("protocol.name: 300 bytes"),
              std::string::npos);
    // Nested 100k deep in a file: refused by the parser, no stack overflow.
    TempDir dir;
    std::ofstream(dir / "deep.json")
        << "{\"kosmos_protocol\": 1, \"x\": " << std::string(100000, '[')
        << std::string(100000, ']') << "}";
    EXPECT_NE(test::errorOf([&] {
                  Protocol::fromFile((dir / "deep.json").string());
              }).find("nested deeper than 32 levels"),
              std::string::npos);
    nlohmann::json deep = protocolJson();
    nlohmann::json *at = &deep["tasks"][0]["start_state"];
    for (int i = 0; i < 40; ++i)
        at = &((*at)["x"] = nlohmann::json::object());
    EXPECT_NE(test::errorOf([&] { Protocol::fromJson(deep); }).find("nested deeper"),
              std::string::npos);
    std::ofstream(dir / "dup.json") << R"({"kosmos_protocol": 1, "name": "a", "name": "b"})";
    EXPECT_NE(test::errorOf([&] {
                  Protocol::fromFile((dir / "dup.json").string());
              }).find("\"name\" appears twice"),
              std::string::npos);
}

TEST(Protocol, SecretsAreRefusedAtParseTimeBeforeAnythingIsWritten)
{
    nlohmann::json inline_key = protocolJson();
    inline_key["judge"]["settings"] = {{"api_key", "not-a-real-key-but-a-key"}};
    EXPECT_NE(test::errorOf([&] {
                  Protocol::fromJson(inline_key);
              }).find("protocol.judge.settings.api_key: a key named like a credential"),
              std::string::npos);
    nlohmann::json value = protocolJson();
    value["policies"][0]["settings"]["header"] = "Bearer abcdefghijklmnop1234";
    EXPECT_NE(test::errorOf([&] { Protocol::fromJson(value); })
                  .find("protocol.policies[0].settings.header: a value that looks like a "
                        "credential"),
              std::string::npos);
    nlohmann::json openai = protocolJson();
    openai["world_model"]["settings"]["note"] = "sk-proj-abcdefghijklmnopqrstuvwx";
    EXPECT_THROW(Protocol::fromJson(openai), Error);
    nlohmann::json pointer = protocolJson();
    pointer["judge"]["settings"] = {{"api_key_env", "OPENAI_API_KEY"}, {"max_tokens", 300}};
    EXPECT_NO_THROW(Protocol::fromJson(pointer)) << "naming the variable is the right way";

    // The engine refuses before freezing: the ledger holds no protocol, no component.
    Fixture f;
    EXPECT_THROW(Protocol::fromJson(inline_key), Error);
    Ledger ledger = Ledger::open(f.bundle);
    sqlite::Statement protocols(LedgerSql::of(ledger), "SELECT COUNT(*) FROM protocols");
    protocols.step();
    EXPECT_EQ(protocols.int64(0), 0);
}

TEST(Redaction, SecretsEchoedByAServerAreRedactedFromStoredText)
{
    registerSecret("my-registered-key-123456");
    EXPECT_EQ(redactSecrets("401: bad key my-registered-key-123456 given"),
              "401: bad key [redacted] given");
    EXPECT_EQ(redactSecrets("Authorization: Bearer abc.def-ghi_jkl0123"),
              "Authorization: [redacted]");
    EXPECT_EQ(redactSecrets("Incorrect API key provided: sk-abcdefghijklmnopqrstuvwxyz12"),
              "Incorrect API key provided: [redacted]");
    const std::string hash(64, 'a');
    EXPECT_EQ(redactSecrets("sha256 " + hash), "sha256 " + hash) << "hashes stay";
}

TEST(Export, AFailureMidwayLeavesNoPartialOutput)
{
    Fixture f;
    const std::int64_t run = runOneExpertEpisode(f);
    Ledger ledger = Ledger::open(f.bundle);
    const auto frames = artifactHashes(ledger, run, "frame");
    ASSERT_EQ(frames.size(), 31u);

    const fs::path out = f.dir / "export";
    const auto good = exportRollout(ledger, run, out, false, false);
    EXPECT_EQ(good.frames, 31);
    EXPECT_TRUE(fs::exists(out / "frames" / "frame_00030.png"));
    EXPECT_TRUE(fs::exists(out / "actions.csv"));

    // Cancelled after 5 frames: nothing new is left, the earlier export is untouched.
    const fs::path cancelled = f.dir / "cancelled";
    const auto c =
        exportRollout(ledger, run, cancelled, false, false, [](int done, int) { return done < 5; });
    EXPECT_TRUE(c.cancelled);
    EXPECT_TRUE(fs::is_empty(cancelled)) << "a cancelled export left files";

    // Frame 20 no longer matches its hash: the export fails midway and leaves nothing behind.
    const fs::path object = ledger.artifacts().objectPath(frames[20]);
    fs::permissions(object, fs::perms::owner_write, fs::perm_options::add);
    std::ofstream(object, std::ios::binary | std::ios::app) << "x";
    const fs::path failed = f.dir / "failed";
    EXPECT_THROW(exportRollout(ledger, run, failed, true, true), Error);
    EXPECT_TRUE(fs::is_empty(failed)) << "a failed export left partial output";
}

TEST(Export, TheVideoOverlayNeverClipsAndNamesThePolicy)
{
    // A 160x128 frame (the physics camera): enlarged to 320 wide, captions above and below it,
    // the frame itself untouched in between, every dimension even.
    cv::Mat small(128, 160, CV_8UC3, cv::Scalar(40, 80, 120));
    const cv::Mat out =
        captionFrame(small, {"run 7  bc-expert-full (torch.generic_policy)", "judge: success"},
                     "step 3  a=[0.010 0.020 0.030 ... 1.00]");
    EXPECT_EQ(out.cols, 320);
    const int above = 2 * 16 + 4; // two caption lines
    EXPECT_EQ(out.rows, above + 256 + 16);
    EXPECT_EQ(out.rows % 2, 0);
    cv::Mat enlarged;
    cv::resize(small, enlarged, {}, 2, 2, cv::INTER_NEAREST);
    EXPECT_EQ(cv::norm(out(cv::Rect(0, above, 320, 256)), enlarged, cv::NORM_INF), 0.0);
    // Text in both caption lines above and in the line below (white pixels in each band).
    auto lit = [&](int from, int to) {
        cv::Mat band;
        cv::cvtColor(out(cv::Range(from, to), cv::Range::all()), band, cv::COLOR_BGR2GRAY);
        return cv::countNonZero(band > 200);
    };
    EXPECT_GT(lit(0, 18), 20);
    EXPECT_GT(lit(18, 36), 20);
    EXPECT_GT(lit(above + 256, out.rows), 20);
    // A wide frame is not enlarged.
    EXPECT_EQ(captionFrame(cv::Mat(256, 320, CV_8UC3), {"a"}, "b").cols, 320);

    // Exported: the video's frames carry the captions.
    Fixture f;
    const std::int64_t run = runOneExpertEpisode(f);
    Ledger ledger = Ledger::open(f.bundle);
    const auto result = exportRollout(ledger, run, f.dir / "video", true, true);
    const DecodedVideo video = decodeVideo(result.video);
    ASSERT_EQ(video.frames.size(), 31u);
    EXPECT_EQ(video.frames[0].cols, 320);
    EXPECT_EQ(video.frames[0].rows, 256 + 36 + 16);
}

TEST(Engine, AWorkerThreadThatCannotOpenTheLedgerIsReportedAfterJoinNotTerminated)
{
    // Each worker thread opens its own connection; when that fails (here: the ledger was moved
    // away after submitting), the error reaches the caller once every thread has joined,
    // instead of escaping a thread into std::terminate.
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson());
    RolloutEngine engine(f.bundle, f.factory, EngineOptions{3, 30000, 5000, "gone"});
    const auto batch = engine.submit(protocol);
    fs::rename(f.bundle, f.bundle.string() + ".moved");
    std::atomic<bool> stop{false};
    try {
        engine.run(protocol, batch, stop);
        ADD_FAILURE() << "ran without a ledger";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::NoLedger) << e.what();
    }
    fs::rename(f.bundle.string() + ".moved", f.bundle);
    Ledger ledger = Ledger::open(f.bundle, {OpenMode::ReadOnly});
    for (const std::int64_t run : batch.runIds)
        EXPECT_EQ(ledger.run(run)->status, "queued") << "nothing was claimed, nothing lost";
}

TEST(Engine, ABatchWhoseDeclaredGpuMemoryDoesNotFitIsRefusedWithTheNumbersBeforeAnyInstance)
{
    // The fake NVML: cuda:0 has 20 GiB free of 80, cuda:1 78 GiB.
    ::setenv("KOSMOS_NVML_LIBRARY", KOSMOS_FAKE_NVML, 1);
    Fixture f;
    nlohmann::json p = protocolJson();
    p["policies"] = {{{"plugin", "test.policy"}, {"settings", {{"gpu_mib", 6144}}}},
                     {{"plugin", "test.policy"}, {"settings", {{"gpu_mib", 10240}}}}};
    p["world_model"]["settings"] = {{"gpu_mib", 8192}};
    RolloutEngine engine(f.bundle, f.factory);
    // One policy at a time beside the world model: 10 + 8 GiB fit in 20.
    EXPECT_EQ(engine.gpuBudgetProblem(Protocol::fromJson(p)), "");
    // Two worker processes each load their own copy: 36 GiB do not.
    EXPECT_EQ(engine.gpuBudgetProblem(Protocol::fromJson(p), 2),
              "gpu_budget: cuda:0 (Fake GPU A): the components declare 36.0 GiB, 20.0 GiB of "
              "80.0 GiB are free");
    p["world_model"]["settings"] = {{"gpu_mib", 16384}};
    const BatchPreview preview = engine.preview(Protocol::fromJson(p));
    ASSERT_EQ(preview.problems.size(), 1u);
    EXPECT_EQ(preview.problems[0], "gpu_budget: cuda:0 (Fake GPU A): the components declare 26.0 "
                                   "GiB, 20.0 GiB of 80.0 GiB are free");
    EXPECT_EQ(preview.runs, 4); // 2 policies x 2 episodes, counted all the same
    // On another device it fits; on the CPU nothing is checked.
    p["world_model"]["settings"] = {{"gpu_mib", 16384}, {"device", "cuda:1"}};
    EXPECT_EQ(engine.gpuBudgetProblem(Protocol::fromJson(p)), "");
    p["world_model"]["settings"] = {{"gpu_mib", 1 << 24}, {"device", "cpu"}};
    EXPECT_EQ(engine.gpuBudgetProblem(Protocol::fromJson(p)), "");
}

TEST(Engine, AnAttemptOnCudaRecordsTheGpusAsNvmlSawThem)
{
    ::setenv("KOSMOS_NVML_LIBRARY", KOSMOS_FAKE_NVML, 1);
    Fixture f;
    const Protocol protocol = Protocol::fromJson(protocolJson("on_cuda", 1));
    RolloutEngine engine(f.bundle, f.factory);
    const auto batch = engine.submit(protocol);
    std::atomic<bool> stop{false};
    EXPECT_EQ(engine.run(protocol, batch, stop).completed, 1);
    Ledger ledger = Ledger::open(f.bundle, {OpenMode::ReadOnly});
    bool seen = false;
    for (const auto &e : ledger.events(batch.runIds[0])) {
        if (e.type != "timings")
            continue;
        const auto t = nlohmann::json::parse(e.payloadJson);
        EXPECT_EQ(t["devices"]["policy"], "cuda:0");
        ASSERT_TRUE(t["gpu"].is_object()) << t.dump();
        EXPECT_EQ(t["gpu"]["available"], true);
        EXPECT_EQ(t["gpu"]["devices"].size(), 2u);
        EXPECT_EQ(t["gpu"]["devices"][0]["name"], "Fake GPU A");
        seen = true;
    }
    EXPECT_TRUE(seen);
    // On the CPU nothing of the GPUs is recorded.
    Fixture cpu;
    const Protocol plain = Protocol::fromJson(protocolJson("expert", 1));
    RolloutEngine cpuEngine(cpu.bundle, cpu.factory);
    const auto cpuBatch = cpuEngine.submit(plain);
    cpuEngine.run(plain, cpuBatch, stop);
    Ledger cpuLedger = Ledger::open(cpu.bundle, {OpenMode::ReadOnly});
    for (const auto &e : cpuLedger.events(cpuBatch.runIds[0]))
        if (e.type == "timings") {
            EXPECT_TRUE(nlohmann::json::parse(e.payloadJson)["gpu"].is_null());
        }
}
