// kosmos-cli plugins / run / demo: wiring of the plugin registry and the rollout engine.
#include "CliCommands.h"
#include "DemoProtocol.h"
#include "TerminalProgress.h"

#include "host/PluginComponentFactory.h"
#include "host/PluginRegistry.h"
#include "judge/JudgePrompt.h"
#include "ledger/Ledger.h"
#include "media/RolloutExport.h"
#include "pipeline/Importer.h"
#include "pipeline/LeRobotImport.h"
#include "pipeline/Rejudge.h"
#include "pipeline/RolloutEngine.h"
#include "pipeline/WorkerPool.h"
#include "protocol/DevicePlacement.h"
#include "queries/BatchSummary.h"
#include "queries/BatchThroughput.h"
#include "queries/JudgmentQuery.h"
#include "queries/LatestRuns.h"
#include "util/BoundedJson.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/InstallPaths.h"
#include "util/JsonFields.h"
#include "util/ProcessIdentity.h"
#include "util/Secrets.h"
#include "verify/LedgerVerifier.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sys/resource.h>
#include <unistd.h>

using namespace kosmos;

namespace {

std::atomic<bool> g_stop{false};

void onInterrupt(int)
{
    g_stop = true;
}

// A worker process of `run --isolate` told to stop (by its supervisor, or by the kernel when the
// supervisor died): cancel cleanly between calls, and if a call hangs, end 15 s later anyway.
void onWorkerStop(int)
{
    g_stop = true;
    ::alarm(15);
}

std::vector<std::filesystem::path> pluginFolders(const std::string &executableDir)
{
    return PluginRegistry::configuredSearchPath(executableDir);
}

void scan(PluginRegistry &registry, const std::string &executableDir)
{
    registry.scan(pluginFolders(executableDir));
}

void printSummary(const std::string &bundle, const std::string &protocolSha256);
void printThroughput(const std::string &bundle, const std::string &protocolSha256,
                     std::int64_t sinceMs);

int preview(const std::string &executableDir, const Protocol &protocol, const std::string &bundle,
            bool json, const std::optional<ShardSpec> &shard)
{
    PluginRegistry registry;
    scan(registry, executableDir);
    PluginComponentFactory factory(registry);
    EngineOptions options;
    options.shard = shard;
    const BatchPreview p = RolloutEngine(bundle, factory, options).preview(protocol);
    if (json) {
        std::cout << nlohmann::json{{"protocol", protocol.name},
                                    {"protocol_sha256", p.protocolSha256},
                                    {"runs", p.runs},
                                    {"in_ledger", p.inLedger},
                                    {"finished", p.finished},
                                    {"problems", p.problems}}
                         .dump(2)
                  << "\n";
    } else {
        std::cout << "protocol " << protocol.name << " (" << p.protocolSha256.substr(0, 16)
                  << "...): " << p.runs << " runs" << (shard ? " in shard " + shard->text() : "")
                  << ", " << p.finished << " already finished, " << (p.runs - p.finished)
                  << " to run\n";
        for (const auto &problem : p.problems)
            std::cout << "refused: " << problem << "\n";
    }
    return p.problems.empty() ? ExitCode::Ok : ExitCode::Failed;
}

// The exit status of a batch: interrupted, runs failed, runs left unfinished, or success.
int batchExitCode(const BatchResult &result)
{
    if (g_stop)
        return ExitCode::Interrupted;
    if (result.failed > 0)
        return ExitCode::RunsFailed;
    return result.unfinished() > 0 ? ExitCode::Unfinished : ExitCode::Ok;
}

int execute(const std::string &executableDir, const Protocol &protocol, const std::string &bundle,
            int workers, bool quiet = false, bool retryFailed = false,
            const std::optional<ShardSpec> &shard = std::nullopt, int lockstep = 1)
{
    PluginRegistry registry;
    scan(registry, executableDir);
    PluginComponentFactory factory(registry);
    EngineOptions options;
    options.workers = workers;
    options.batch = lockstep;
    options.shard = shard;
    options.workerName = "kosmos-cli";
    RolloutEngine engine(bundle, factory, options);
    // Threads share one copy of each model; a worker process was checked by its supervisor.
    if (!quiet)
        if (const std::string problem = engine.gpuBudgetProblem(protocol); !problem.empty())
            throw Error(ErrorCode::InvalidInput, "refused before starting: " + problem);
    const SubmittedBatch batch = engine.submit(protocol);
    if (!quiet)
        std::cout << "protocol " << protocol.name << " frozen as "
                  << batch.protocolSha256.substr(0, 16) << "...: " << batch.runIds.size() << " runs"
                  << (shard ? " in shard " + shard->text() : "") << " (" << batch.created
                  << " new, " << batch.existing << " already in the ledger)\n";
    if (retryFailed) {
        const int requeued = engine.retryFailed(batch);
        if (!quiet)
            std::cout << requeued << " failed run(s) queued for a new attempt (their failed "
                      << "attempts stay recorded)\n";
    }

    std::signal(SIGINT, quiet ? onWorkerStop : onInterrupt);
    std::signal(SIGTERM, quiet ? onWorkerStop : onInterrupt);
    const std::int64_t startedMs = nowMs();
    TerminalProgress bar;
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    std::size_t finished = 0;
    const auto result = engine.run(protocol, batch, g_stop, [&](const EngineProgress &p) {
        if (p.kind == EngineProgress::Kind::RunFinished ||
            p.kind == EngineProgress::Kind::RunSkipped)
            ++finished;
        if (terminal) {
            bar.update("runs", static_cast<std::int64_t>(finished),
                       static_cast<std::int64_t>(batch.runIds.size()));
        } else if (p.kind == EngineProgress::Kind::RunFinished) {
            std::cout << "run " << p.runId << " " << p.state
                      << (p.detail.empty() ? "" : ": " + p.detail) << "\n";
        }
        if (terminal && p.kind == EngineProgress::Kind::RunFinished && p.state == "failed") {
            bar.finish();
            std::cerr << "run " << p.runId << " failed: " << p.detail << "\n";
        }
    });
    bar.finish();
    if (quiet) // a worker process: its supervisor prints the summary
        return batchExitCode(result);
    std::cout << "completed " << result.completed << ", failed " << result.failed << ", cancelled "
              << result.cancelled << ", already finished " << result.skipped;
    if (result.finishedElsewhere > 0)
        std::cout << ", finished by another process " << result.finishedElsewhere;
    if (result.unfinished() > 0)
        std::cout << ", NOT FINISHED " << result.unfinished() << " (" << result.busy
                  << " held by another live process, " << result.leaseLost << " lost their lease, "
                  << result.interrupted << " interrupted)";
    std::cout << "\n\n";
    printSummary(bundle, batch.protocolSha256);
    printThroughput(bundle, batch.protocolSha256, startedMs);
    if (g_stop)
        std::cerr << "kosmos-cli: interrupted; " << result.interrupted
                  << " run(s) in flight went back to the queue (their attempts are kept as "
                     "'interrupted'); run the same command again to finish the batch\n";
    else if (result.unfinished() > 0)
        std::cerr << "kosmos-cli: " << result.unfinished()
                  << " run(s) of this protocol are not finished; run the same command again "
                     "when their holder has ended (exit "
                  << ExitCode::Unfinished << ")\n";
    return batchExitCode(result);
}

std::string referenceSourceText(const std::string &source)
{
    if (source == "physics")
        return "physics ground truth, not a human";
    if (source == "synthetic_reference")
        return "synthetic world ground truth, not a human";
    if (source == "mixed")
        return "synthetic and physics ground truth, not a human";
    return "no reference labels";
}

// Where this command's time went (its attempts only): steps/s, frames/s and each stage's share,
// per worker and in all, as the workstation's Run workspace shows it.
void printThroughput(const std::string &bundle, const std::string &protocolSha256,
                     std::int64_t sinceMs)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const BatchThroughput t = batchThroughput(ledger, protocolSha256, sinceMs, nowMs());
    if (t.workers.empty())
        return;
    std::cout << "\nthroughput (this command's attempts; each stage's share of the work; store "
                 "runs beside the rollout):\n"
              << t.text();
}

void printSummary(const std::string &bundle, const std::string &protocolSha256)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    for (const PolicySummary &row : summarizeProtocol(ledger, protocolSha256)) {
        std::cout << row.policy << "\n"
                  << "  runs " << row.runs << ": completed " << row.completed << ", failed "
                  << row.failed << ", cancelled " << row.cancelled << ", unfinished "
                  << row.unfinished << "; validation invalid " << row.validationInvalid << "\n"
                  << "  reference success (" << referenceSourceText(row.referenceSource)
                  << "): " << intervalText(row.reference) << "\n"
                  << "  judge success over decisive judgments:            "
                  << intervalText(row.judge) << "; unknown " << row.judgeUnknown << "\n";
    }
    std::cout << "\nThese are rollouts in a generated, synthetic or simulated world, not evidence "
                 "of real robot-task success.\nledger: "
              << ledger.bundle().string() << "\n";
}

// The supervisor of `run --isolate`: N worker processes (this program, `run --worker-process
// --workers 1`), each claiming runs until none is left. A worker that dies by a signal or exits
// abnormally has its running attempt failed in the ledger with the signal (what it recorded is
// kept), and a replacement is started while runs are still queued.
int supervise(const std::string &executableDir, const std::string &protocolPath,
              const Protocol &protocol, const std::string &bundle, int workers, bool retryFailed,
              const std::optional<ShardSpec> &shard, const std::string &device, int lockstep)
{
    SubmittedBatch batch;
    int requeued = 0;
    {
        PluginRegistry registry;
        scan(registry, executableDir);
        PluginComponentFactory factory(registry);
        EngineOptions options;
        options.workerName = "kosmos-cli";
        options.shard = shard;
        RolloutEngine engine(bundle, factory, options);
        // Each worker process loads its own copy of the models.
        if (const std::string problem = engine.gpuBudgetProblem(protocol, workers);
            !problem.empty())
            throw Error(ErrorCode::InvalidInput, "refused before starting: " + problem);
        batch = engine.submit(protocol);
        if (retryFailed)
            requeued = engine.retryFailed(batch);
    }
    const std::size_t total = batch.runIds.size();
    std::cout << "protocol " << protocol.name << " frozen as " << batch.protocolSha256.substr(0, 16)
              << "...: " << total << " runs (" << batch.created << " new, " << batch.existing
              << " already in the ledger) in " << workers << " worker process(es)\n";
    if (retryFailed)
        std::cout << requeued << " failed run(s) queued for a new attempt (their failed "
                  << "attempts stay recorded)\n";
    std::cout << std::flush;
    const std::int64_t startedMs = nowMs();
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    // The workers: this program with the same protocol, shard and device as the supervisor's.
    WorkerPoolOptions pool;
    pool.executable = executablePath().string();
    pool.arguments = {"run",       protocolPath, "--ledger",        bundle,
                      "--workers", "1",          "--worker-process"};
    if (shard)
        pool.arguments.insert(pool.arguments.end(), {"--shard", shard->text()});
    if (!device.empty())
        pool.arguments.insert(pool.arguments.end(), {"--device", device});
    if (lockstep > 1)
        pool.arguments.insert(pool.arguments.end(), {"--batch", std::to_string(lockstep)});
    pool.workers = workers;
    pool.normalExits = {ExitCode::Ok, ExitCode::RunsFailed, ExitCode::Unfinished,
                        ExitCode::Interrupted};
    pool.orphanExitStatus = ExitCode::Interrupted;
    int crashes = 0;
    WorkerPool(pool).run(g_stop, [&](const WorkerExit &exit) {
        Ledger ledger = Ledger::open(bundle);
        const auto closed = ledger.failAttemptsOfDeadWorker(
            "kosmos-cli-" + std::to_string(exit.pid) + "-",
            AttemptOutcome::failed(
                "worker_crashed", "worker process " + std::to_string(exit.pid) + " " + exit.how(),
                exit.signalled ? std::optional<int>(exit.signal) : std::nullopt));
        std::cerr << "worker process " << exit.pid << " " << exit.how() << "; " << closed.size()
                  << " attempt(s) recorded as failed\n";
        bool queued = false;
        for (std::int64_t runId : batch.runIds)
            queued = queued || ledger.run(runId)->status == "queued";
        ++crashes;
        return queued && crashes <= static_cast<int>(total); // the batch goes on without it
    });
    printSummary(bundle, batch.protocolSha256);
    printThroughput(bundle, batch.protocolSha256, startedMs);
    if (g_stop)
        return ExitCode::Interrupted;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    int unfinished = 0;
    for (std::int64_t runId : batch.runIds) {
        const std::string status = ledger.run(runId)->status;
        if (status == "failed")
            return ExitCode::RunsFailed;
        unfinished += status == "queued" || status == "running";
    }
    if (unfinished > 0) {
        std::cerr << "kosmos-cli: " << unfinished
                  << " run(s) of this protocol are not finished; run the same command again "
                     "(exit "
                  << ExitCode::Unfinished << ")\n";
        return ExitCode::Unfinished;
    }
    return ExitCode::Ok;
}

} // namespace

int runPlugins(const std::string &executableDir, bool json)
{
    PluginRegistry registry;
    const auto folders = pluginFolders(executableDir);
    registry.scan(folders);
    nlohmann::json out = nlohmann::json::array();
    for (const auto &p : registry.plugins()) {
        const std::string loadProblem = p.usable ? registry.loadProblem(p.id) : p.problem;
        const Availability a = loadProblem.empty()
                                   ? registry.availability(p.id, nlohmann::json::object())
                                   : Availability::no(loadProblem);
        if (json) {
            out.push_back(
                {{"path", p.path.string()},
                 {"id", p.id},
                 {"family", p.family},
                 {"version", p.version},
                 {"api_version", p.apiVersion},
                 {"requires", p.metadata.is_object()
                                  ? p.metadata.value("requires", nlohmann::json::object())
                                  : nlohmann::json::object()},
                 // torch plugins: the libtorch they were built with, CUDA, AOTI
                 {"runtime", p.metadata.is_object() ? p.metadata.value("runtime", nlohmann::json())
                                                    : nlohmann::json()},
                 {"settings_schema",
                  p.metadata.is_object()
                      ? p.metadata.value("settings_schema", nlohmann::json::object())
                      : nlohmann::json::object()},
                 {"description", p.metadata.is_object()
                                     ? p.metadata.value("description", std::string())
                                     : std::string()},
                 // What the launcher calls it, where the plugin names itself ("LeRobot policy
                 // (local folder)"); empty: its id.
                 {"title", p.metadata.is_object() ? p.metadata.value("title", std::string())
                                                  : std::string()},
                 // The library loads and speaks this API: it can be chosen, and whether it can
                 // run then depends on its settings ("available" is with no settings at all).
                 {"loads", loadProblem.empty()},
                 {"available", a.available},
                 {"reason", a.reason},
                 // Worlds that know their tasks list them (the launcher offers them).
                 {"tasks", p.metadata.is_object()
                               ? p.metadata.value("tasks", nlohmann::json::array())
                               : nlohmann::json::array()}});
            continue;
        }
        std::cout << (a.available ? "available    " : "UNAVAILABLE  ")
                  << (p.id.empty() ? "?" : p.id) << "  " << (p.family.empty() ? "?" : p.family)
                  << "  v" << (p.version.empty() ? "?" : p.version) << "  api " << p.apiVersion
                  << "\n    " << p.path.string() << "\n";
        if (!a.available)
            std::cout << "    reason: " << a.reason << "\n";
    }
    if (json) {
        std::cout << out.dump(2) << "\n";
    } else {
        std::cout << registry.plugins().size() << " plugin(s) found in:";
        for (const auto &f : folders)
            std::cout << " " << f.lexically_normal().string();
        std::cout << "\n";
    }
    return ExitCode::Ok;
}

namespace {

double peakRssMiB()
{
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB on Linux
}

} // namespace

namespace {

using SmokeClock = std::chrono::steady_clock;

double smokeMs(SmokeClock::time_point t)
{
    return std::chrono::duration<double, std::milli>(SmokeClock::now() - t).count();
}

// One step of a policy plugin. The observation (frame and proprio) comes from the first
// available world model's start, so policies that need proprio can be tested too; else a grey
// frame.
void smokeTestPolicy(PluginRegistry &registry, const std::string &id,
                     const nlohmann::json &settings, const cv::Mat &grey, nlohmann::json &out)
{
    auto t = SmokeClock::now();
    auto policy = registry.createPolicy(id, settings);
    out["create_ms"] = smokeMs(t);
    Observation observation{grey, "put the red block in the green square", 0, {}, nullptr, {}};
    // A world of the policy's own namespace first (physics.scripted_policy reads the
    // physics.tabletop world's state), then any other.
    std::vector<PluginInfo> worlds = registry.plugins();
    const std::string ns = id.substr(0, id.find('.') + 1);
    std::stable_partition(worlds.begin(), worlds.end(),
                          [&](const PluginInfo &w) { return w.id.rfind(ns, 0) == 0; });
    for (const auto &w : worlds) {
        if (w.family != "world_model" || !w.usable ||
            !registry.availability(w.id, nlohmann::json::object()).available)
            continue;
        auto world = registry.createWorldModel(w.id, nlohmann::json::object());
        const auto frames =
            world->reset({nlohmann::json::object(), cv::Mat(), 1, observation.instruction, {}});
        if (!frames.empty())
            observation.image = frames.back();
        observation.proprio = world->proprio();
        observation.state = world->state();
        out["observation_from"] = w.id;
        break;
    }
    policy->reset(1, observation.instruction);
    t = SmokeClock::now();
    const ActionChunk chunk = policy->act(observation);
    out["step_ms"] = smokeMs(t);
    out["call_stats"] = policy->lastCallStats(); // device time, CUDA memory if any
    const ContractCheck check = policy->actionContract().checkChunk(chunk, false);
    out["output"] = std::to_string(chunk.size()) + " action(s) of " +
                    std::to_string(chunk.empty() ? 0 : chunk[0].size()) + " values; contract " +
                    (check.ok() ? "ok" : check.summary());
}

// One step of zero actions in a world model plugin, from a grey start.
void smokeTestWorld(PluginRegistry &registry, const std::string &id, const nlohmann::json &settings,
                    const cv::Mat &grey, nlohmann::json &out)
{
    auto t = SmokeClock::now();
    auto world = registry.createWorldModel(id, settings);
    out["create_ms"] = smokeMs(t);
    const ActionContract contract = world->actionContract();
    WorldStart start{
        nlohmann::json::object(), grey, 1, "put the red block in the green square", {}};
    const auto conditioning = world->reset(start);
    ActionChunk zero(static_cast<std::size_t>(std::max(1, contract.chunkLength)),
                     Action(static_cast<std::size_t>(contract.dimension()), 0.0));
    t = SmokeClock::now();
    const auto frames = world->step(zero);
    out["step_ms"] = smokeMs(t);
    out["call_stats"] = world->lastCallStats();
    out["frames"] = frames.size();
    out["output"] = std::to_string(conditioning.size()) + " conditioning frame(s), " +
                    std::to_string(frames.size()) + " frame(s) for " + std::to_string(zero.size()) +
                    " zero action(s)";
}

// One sample of a judge plugin on 16 grey frames.
void smokeTestJudge(PluginRegistry &registry, const std::string &id, const nlohmann::json &settings,
                    const cv::Mat &grey, nlohmann::json &out)
{
    auto t = SmokeClock::now();
    auto judge = registry.createJudge(id, settings);
    out["create_ms"] = smokeMs(t);
    JudgeRequest request;
    request.frames.assign(16, grey);
    for (int i = 0; i < 16; ++i)
        request.frameIndices.push_back(i);
    request.taskId = "smoke_test";
    request.instruction = "put the red block in the green square";
    request.prompt = renderPrompt(defaultPromptTemplate(), request.instruction);
    t = SmokeClock::now();
    const JudgeAnswer answer = judge->sample(request);
    out["step_ms"] = smokeMs(t);
    if (!answer.rawText)
        throw Error(ErrorCode::InvalidInput, "the judge answered nothing: " + answer.error);
    out["output"] = "answer of " + std::to_string(answer.rawText->size()) + " characters";
}

} // namespace

int runPluginTest(const std::string &executableDir, const std::string &id,
                  const std::string &settingsJson, bool json, PluginProbe probe)
{
    nlohmann::json out = {{"id", id},
                          {"note", "an adapter smoke test: one step on a placeholder input; not "
                                   "evidence of robot-task success"}};
    auto finish = [&](int code) {
        if (json) {
            std::cout << out.dump(2) << "\n";
        } else {
            std::cout << id << ": " << (out.value("ok", false) ? "ok" : "FAILED");
            if (out.contains("error"))
                std::cout << "\n  error: " << out["error"].get<std::string>();
            for (const char *key : {"create_ms", "step_ms", "peak_rss_mib"})
                if (out.contains(key))
                    std::cout << "\n  " << key << ": " << out[key].dump();
            if (out.contains("output"))
                std::cout << "\n  output: " << out["output"].get<std::string>();
            std::cout << "\n  (" << out["note"].get<std::string>() << ")\n";
        }
        return code;
    };
    nlohmann::json settings;
    try {
        settings = nlohmann::json::parse(settingsJson.empty() ? "{}" : settingsJson);
        if (!settings.is_object())
            throw std::runtime_error("not a JSON object");
    } catch (const std::exception &e) {
        out["ok"] = false;
        out["error"] = std::string("--settings: ") + e.what();
        return finish(ExitCode::Usage);
    }
    PluginRegistry registry;
    scan(registry, executableDir);
    const PluginInfo *plugin = registry.find(id);
    if (!plugin) {
        out["ok"] = false;
        out["error"] = "no usable plugin with id '" + id + "' (see kosmos-cli plugins)";
        return finish(ExitCode::Failed);
    }
    out["family"] = plugin->family;
    const Availability available = registry.availability(id, settings);
    out["available"] = available.available;
    if (!available.available) {
        out["ok"] = false;
        out["error"] = "unavailable: " + available.reason;
        out["reason"] = available.reason;
        return finish(ExitCode::Failed);
    }
    if (probe == PluginProbe::Availability) {
        out["ok"] = true;
        out["note"] = "available with these settings (nothing was run)";
        return finish(ExitCode::Ok);
    }
    try {
        const cv::Mat grey(256, 256, CV_8UC3, cv::Scalar(128, 128, 128));
        if (plugin->family == "policy")
            smokeTestPolicy(registry, id, settings, grey, out);
        else if (plugin->family == "world_model")
            smokeTestWorld(registry, id, settings, grey, out);
        else
            smokeTestJudge(registry, id, settings, grey, out);
        out["peak_rss_mib"] = peakRssMiB();
        out["ok"] = true;
        return finish(ExitCode::Ok);
    } catch (const std::exception &e) {
        out["ok"] = false;
        out["error"] = e.what();
        out["peak_rss_mib"] = peakRssMiB();
        return finish(ExitCode::Failed);
    }
}

nlohmann::json placedOnDevice(const PluginRegistry &registry, const nlohmann::json &document,
                              const std::string &device, bool quiet)
{
    // What a plugin's metadata says of its runtime (torch.*: {"libtorch", "cuda", "aoti"}).
    const DevicePlacement placed = placeOnDevice(document, device, [&](const std::string &id) {
        const PluginInfo *p = registry.find(id);
        return p && p->metadata.is_object()
                   ? cudaCapabilityOf(p->metadata.value("runtime", nlohmann::json()))
                   : std::nullopt;
    });
    if (!quiet) {
        std::cout << "device " << device << ":";
        for (const auto &c : placed.placed)
            std::cout << " " << c << ";";
        for (const auto &c : placed.left)
            std::cout << " not " << c << ";";
        std::cout << "\n";
    }
    return placed.document;
}

int runProtocol(const std::string &executableDir, const std::string &protocolPath,
                const std::string &bundle, int workers, bool json, RunMode mode, bool retryFailed,
                const std::string &shardText, const std::string &device, int lockstep)
{
    try {
        const std::optional<ShardSpec> shard =
            shardText.empty() ? std::nullopt
                              : std::optional<ShardSpec>(ShardSpec::parse(shardText, "--shard"));
        Protocol protocol = Protocol::fromFile(protocolPath);
        if (!device.empty()) {
            // Before the protocol is frozen: the device is part of each component's settings.
            PluginRegistry registry;
            scan(registry, executableDir);
            protocol = Protocol::fromJson(placedOnDevice(registry, protocol.document, device,
                                                         mode == RunMode::WorkerProcess || json));
        }
        {
            Ledger::open(bundle);
        } // a clear error before anything else when the ledger is missing
        if (mode == RunMode::DryRun)
            return preview(executableDir, protocol, bundle, json, shard);
        if (mode == RunMode::Isolated)
            return supervise(executableDir, protocolPath, protocol, bundle, workers, retryFailed,
                             shard, device, lockstep);
        if (mode == RunMode::WorkerProcess) // the supervisor records how this process ends
            ProcessIdentity::declareSupervisedByParent();
        return execute(executableDir, protocol, bundle, workers, mode == RunMode::WorkerProcess,
                       retryFailed, shard, lockstep);
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runDemo(const std::string &executableDir, const std::string &bundle, int workers,
            const std::string &world)
{
    try {
        if (world != "synthetic" && world != "physics")
            throw Error(ErrorCode::InvalidInput,
                        "--world must be synthetic or physics, not '" + world + "'");
        const Protocol protocol = Protocol::fromJson(
            nlohmann::json::parse(world == "physics" ? kPhysicsDemoProtocol : kDemoProtocol));
        if (!std::filesystem::exists(std::filesystem::path(bundle) / "ledger.sqlite")) {
            Ledger::create(bundle);
            std::cout << "created ledger " << bundle << "\n";
        }
        return execute(executableDir, protocol, bundle, workers);
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runImport(const std::string &directory, const std::string &bundle)
{
    try {
        Ledger ledger = Ledger::open(bundle);
        std::signal(SIGINT, onInterrupt);
        std::signal(SIGTERM, onInterrupt);
        const ImportResult r = importDirectory(ledger, directory, &g_stop);
        if (r.state == "interrupted") {
            std::cerr << "kosmos-cli: import of " << directory << " interrupted; run " << r.runId
                      << " is back in the queue (its attempt is kept as 'interrupted'): run the "
                         "same import again to finish it\n";
            return ExitCode::Interrupted;
        }
        if (r.state == "already_finished") {
            std::cout << "already imported as run " << r.runId << " (nothing changed)\n";
            return ExitCode::Ok;
        }
        if (r.state == "failed") {
            std::cerr << "kosmos-cli: import of " << directory << " failed [" << r.errorCode
                      << "]: " << r.error << "\nrecorded as run " << r.runId
                      << " (a failed attempt that keeps what was imported)\n";
            return ExitCode::RunsFailed;
        }
        std::cout << "imported " << directory << " as run " << r.runId << ": " << r.frames
                  << " frames, " << r.actions << " actions (provenance: imported)\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runImportLeRobot(const std::string &dataset, const std::string &bundle,
                     const std::string &episodes, const std::string &camera)
{
    try {
        LeRobotImportOptions options;
        if (!episodes.empty())
            options.episodes = parseEpisodeList(episodes);
        options.camera = camera;
        Ledger ledger = Ledger::open(bundle);
        std::signal(SIGINT, onInterrupt);
        std::signal(SIGTERM, onInterrupt);
        TerminalProgress bar;
        const auto results =
            importLeRobot(ledger, dataset, options, &g_stop,
                          [&](int done, int total) { bar.update("episodes", done, total); });
        bar.finish();
        int failed = 0, added = 0, present = 0;
        for (const LeRobotImportResult &r : results) {
            if (r.run.state == "failed") {
                ++failed;
                std::cerr << "kosmos-cli: episode " << r.episode << " failed [" << r.run.errorCode
                          << "]: " << r.run.error << " (recorded as run " << r.run.runId << ")\n";
            } else if (r.run.state == "already_finished") {
                ++present;
            } else if (r.run.state == "completed") {
                ++added;
                std::cout << "episode " << r.episode << " -> run " << r.run.runId << ": "
                          << r.run.frames << " frames, " << r.run.actions << " actions"
                          << (r.label ? ", next.success: " + *r.label : std::string()) << "\n";
            }
        }
        std::cout << "imported " << added << " episode(s) of " << dataset << " as recorded runs; "
                  << present << " already imported; " << failed << " failed\n";
        if (g_stop || (!results.empty() && results.back().run.state == "interrupted")) {
            std::cerr << "kosmos-cli: import interrupted; the same import again finishes it\n";
            return ExitCode::Interrupted;
        }
        return failed > 0 ? ExitCode::RunsFailed : ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runJudge(const std::string &executableDir, const std::string &bundle,
             const std::string &runText, const std::string &configPath)
{
    try {
        json::Limits limits;
        limits.maxBytes = 1u << 20;
        limits.maxDepth = 32;
        limits.rejectDuplicateKeys = true;
        const nlohmann::json config = json::parseFile(configPath, limits);
        refuseSecrets(config, configPath); // before anything is written
        ComponentSpec spec;
        spec.plugin = json::requireString(config, "plugin", configPath);
        if (config.contains("settings"))
            spec.settings = json::requireObject(config, "settings", configPath);
        const QuorumSettings quorum = QuorumSettings::fromJson(
            config.value("quorum", nlohmann::json::object()), configPath + ".quorum");
        PluginRegistry registry;
        scan(registry, executableDir);
        PluginComponentFactory factory(registry);
        factory.checkSettings(spec);
        Ledger ledger = Ledger::open(bundle);
        std::vector<std::int64_t> runs;
        if (runText == "--all") {
            runs = judgeableRuns(ledger);
        } else {
            const auto run = ledger.resolveRun(runText);
            if (!run)
                throw Error(ErrorCode::InvalidInput, "no run '" + runText + "' in " + bundle);
            runs.push_back(run->runId);
        }
        std::signal(SIGINT, onInterrupt);
        const auto outcomes = rejudgeRuns(ledger, factory, spec, quorum, runs, g_stop);
        int failed = 0;
        int busy = 0;
        for (const auto &o : outcomes) {
            std::cout << "run " << o.sourceRunId << ": " << o.state;
            if (o.runId && o.state != "busy")
                std::cout << " (judgment recorded in run " << o.runId << ")";
            std::cout << (o.detail.empty() ? "" : " - " + o.detail) << "\n";
            failed += o.state == "failed";
            busy += o.state == "busy";
        }
        if (g_stop)
            return ExitCode::Interrupted;
        if (failed)
            return ExitCode::RunsFailed;
        if (busy) {
            std::cerr << "kosmos-cli: " << busy
                      << " run(s) not judged: another live process holds them; run the same "
                         "command again when it has ended (exit "
                      << ExitCode::Unfinished << ")\n";
            return ExitCode::Unfinished;
        }
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runJudgments(const std::string &bundle, const std::string &runText, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto run = ledger.resolveRun(runText);
        if (!run)
            throw Error(ErrorCode::InvalidInput, "no run '" + runText + "' in " + bundle);
        const auto judgments = judgmentsOfRun(ledger, run->runId);
        if (json) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto &j : judgments) {
                nlohmann::json samples = nlohmann::json::array();
                for (const auto &s : j.samples)
                    samples.push_back(
                        {{"sample_index", s.sampleIndex},
                         {"try_index", s.tryIndex},
                         {"seed", s.seed ? nlohmann::json(*s.seed) : nlohmann::json()},
                         {"format_class", s.formatClass},
                         {"answer_form", s.answerForm.value_or("")},
                         {"request_sha256",
                          s.requestSha256 ? nlohmann::json(*s.requestSha256) : nlohmann::json()},
                         {"server_model",
                          s.serverModel ? nlohmann::json(*s.serverModel) : nlohmann::json()},
                         {"system_fingerprint", s.systemFingerprint
                                                    ? nlohmann::json(*s.systemFingerprint)
                                                    : nlohmann::json()},
                         {"raw_text", s.rawText ? nlohmann::json(*s.rawText) : nlohmann::json()},
                         {"parse_error",
                          s.parseError ? nlohmann::json(*s.parseError) : nlohmann::json()}});
                out.push_back(
                    {{"judgment_id", j.judgmentId},
                     {"run_id", j.runId},
                     {"rejudged", j.rejudged},
                     {"judge", j.judge},
                     {"outcome", j.outcome},
                     {"unknown_reason",
                      j.unknownReason ? nlohmann::json(*j.unknownReason) : nlohmann::json()},
                     {"progress", j.progress ? nlohmann::json(*j.progress) : nlohmann::json()},
                     {"settings", j.settings},
                     {"frame_indices", j.frameIndices},
                     {"samples", samples}});
            }
            std::cout << out.dump(2) << "\n";
            return ExitCode::Ok;
        }
        std::cout << "run " << run->runId << " (" << run->task.value_or("?")
                  << "): " << judgments.size() << " judgment(s)\n";
        for (const auto &j : judgments) {
            std::cout << "\njudgment " << j.judgmentId
                      << (j.rejudged ? " [re-judged in run " + std::to_string(j.runId) + "]" : "")
                      << "  judge " << j.judge << "\n  outcome " << j.outcome
                      << (j.unknownReason ? " (" + *j.unknownReason + ")" : "") << "  progress "
                      << (j.progress ? std::to_string(*j.progress) : std::string("null"))
                      << "  decisive votes "
                      << (j.decisiveVotes ? std::to_string(*j.decisiveVotes) : std::string("?"))
                      << "\n  settings " << j.settings.dump() << "\n  frames "
                      << j.frameIndices.dump() << "\n";
            for (const auto &s : j.samples) {
                std::string raw = s.rawText.value_or("(no answer)");
                for (auto &c : raw)
                    c = c == '\n' ? ' ' : c;
                if (raw.size() > 160)
                    raw = raw.substr(0, 157) + "...";
                std::cout << "  sample " << s.sampleIndex << (s.tryIndex ? " retry" : "      ")
                          << " seed " << (s.seed ? std::to_string(*s.seed) : std::string("?"))
                          << "  " << s.formatClass
                          << (s.answerForm && *s.answerForm != s.formatClass
                                  ? " (written " + *s.answerForm + ")"
                                  : std::string())
                          << "  " << raw << (s.parseError ? "  [" + *s.parseError + "]" : "")
                          << "\n";
            }
        }
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runDatasetExport(const std::string &bundle, const DatasetFilter &filter,
                     const std::string &directory, const std::string &format, bool lossless,
                     bool json)
{
    try {
        if (format != "kosmos" && format != "lerobot")
            throw Error(ErrorCode::InvalidInput,
                        "--format must be kosmos or lerobot, not '" + format + "'");
        if (lossless && format != "lerobot")
            throw Error(ErrorCode::InvalidInput, "--lossless applies to --format lerobot only");
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        if (format == "lerobot") {
            const LeRobotExportResult r = exportLeRobotDataset(ledger, filter, directory, lossless);
            if (json) {
                std::cout << nlohmann::json({{"format", "lerobot"},
                                             {"codebase_version", "v3.0"},
                                             {"episodes", r.episodes},
                                             {"frames", r.frames},
                                             {"without_label", r.withoutLabel},
                                             {"observation_state", r.proprio},
                                             {"observation_environment_state", r.states},
                                             {"video_codec", r.videoCodec},
                                             {"directory", r.directory.string()}})
                                 .dump(2)
                          << "\n";
            } else {
                std::cout << r.episodes << " episode(s), " << r.frames
                          << " frames, written as a LeRobot v3.0 dataset to "
                          << r.directory.string() << " (video " << r.videoCodec
                          << (r.proprio ? "; observation.state: the world's proprioception" : "")
                          << (r.states ? "; observation.environment_state: the world's state" : "")
                          << ")";
                if (r.withoutLabel > 0)
                    std::cout << "; " << r.withoutLabel
                              << " without a reference label (next.success false, "
                                 "kosmos/success_source empty)";
                std::cout << "\n";
            }
            return ExitCode::Ok;
        }
        const DatasetExportResult r = exportDataset(ledger, filter, directory);
        if (json) {
            std::cout << nlohmann::json({{"episodes", r.episodes},
                                         {"frames", r.frames},
                                         {"without_label", r.withoutLabel},
                                         {"directory", r.directory.string()}})
                             .dump(2)
                      << "\n";
        } else {
            std::cout << r.episodes << " episode(s), " << r.frames << " frames, written to "
                      << r.directory.string() << " (index: dataset.json)";
            if (r.withoutLabel > 0)
                std::cout << "; " << r.withoutLabel << " without a reference label (success null)";
            std::cout << "\n";
        }
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runExport(const std::string &bundle, const std::string &runText, const std::string &directory,
              bool video)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto run = ledger.resolveRun(runText);
        if (!run)
            throw Error(ErrorCode::InvalidInput, "no run '" + runText + "' in " + bundle);
        TerminalProgress bar;
        const auto r =
            exportRollout(ledger, run->runId, directory, video, true, [&](int done, int total) {
                bar.update("export", done, total);
                return !g_stop;
            });
        bar.finish();
        std::cout << "run " << run->runId << ": " << r.frames << " frames to "
                  << r.framesDir.string() << ", " << r.actions << " actions to " << r.csv.string()
                  << (r.video.empty() ? std::string() : ", video " + r.video.string()) << "\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}
