// kosmos-cli merge / submit / status / cancel: wiring of core/scaleout (docs/scale-out.md).
#include "CliCommands.h"
#include "TerminalProgress.h"

#include "host/PluginComponentFactory.h"
#include "host/PluginRegistry.h"
#include "ledger/Ledger.h"
#include "pipeline/RolloutEngine.h"
#include "scaleout/LedgerMerge.h"
#include "scaleout/ScaleOut.h"
#include "util/Error.h"
#include "util/InstallPaths.h"
#include "util/Subprocess.h"

#include <algorithm>
#include <csignal>
#include <iostream>
#include <unistd.h>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {

// submit --local: the shard processes, for the signal handler (fixed before it is installed).
constexpr int kMaxLocalShards = 256;
pid_t g_localShards[kMaxLocalShards];
int g_localShardCount = 0;
volatile std::sig_atomic_t g_localStopped = 0;

// SIGINT / SIGTERM to `submit --local`: each shard stops as a shard does (its run in flight is
// requeued, docs/scale-out.md), then what they finished is merged. Async-signal-safe: kill() only.
void stopLocalShards(int)
{
    g_localStopped = 1;
    for (int i = 0; i < g_localShardCount; ++i)
        ::kill(g_localShards[i], SIGTERM);
}

std::string selfPath()
{
    return executablePath().string();
}

nlohmann::json reportJson(const MergeReport &report)
{
    nlohmann::json sources = nlohmann::json::array();
    for (const auto &s : report.sources)
        sources.push_back({{"path", s.path},
                           {"shard", s.shard ? nlohmann::json(s.shard->text()) : nlohmann::json()},
                           {"runs", s.runs},
                           {"runs_added", s.runsAdded},
                           {"attempts_copied", s.attemptsCopied},
                           {"attempts_present", s.attemptsPresent},
                           {"runs_unfinished", s.runsUnfinished},
                           {"labels_copied", s.labelsCopied},
                           {"artifacts_copied", s.artifactsCopied},
                           {"bytes_copied", s.bytesCopied},
                           {"conflicts", s.conflicts}});
    nlohmann::json conflicts = nlohmann::json::array();
    for (const auto &c : report.conflicts)
        conflicts.push_back({{"source", c.source}, {"run_key", c.runKey}, {"message", c.message}});
    return {{"target", report.target},
            {"sources", sources},
            {"conflicts", conflicts},
            {"runs_unfinished", report.runsUnfinished()}};
}

int printMergeReport(const MergeReport &report, bool json)
{
    if (json) {
        std::cout << reportJson(report).dump(2) << "\n";
    } else {
        for (const auto &s : report.sources)
            std::cout << s.path << (s.shard ? " (shard " + s.shard->text() + ")" : "") << ": "
                      << s.runs << " runs, " << s.runsAdded << " new to the target, "
                      << s.attemptsCopied << " attempts taken (" << s.attemptsPresent
                      << " already there), " << s.artifactsCopied << " objects ("
                      << s.bytesCopied / 1024 << " KiB) copied and hash-checked, " << s.labelsCopied
                      << " labels"
                      << (s.runsUnfinished ? ", " + std::to_string(s.runsUnfinished) +
                                                 " not finished in the shard"
                                           : std::string())
                      << (s.conflicts ? ", " + std::to_string(s.conflicts) + " REFUSED"
                                      : std::string())
                      << "\n";
        for (const auto &c : report.conflicts)
            std::cerr << "refused: run " << c.runKey.substr(0, 16) << "... from " << c.source
                      << ": " << c.message << "\n";
        std::cout << "merged into " << report.target << "\n";
    }
    if (!report.conflicts.empty()) {
        std::cerr << "kosmos-cli: " << report.conflicts.size()
                  << " run(s) refused (listed above; nothing of them was taken from that source)\n";
        return ExitCode::Failed;
    }
    if (report.runsUnfinished() > 0) {
        std::cerr << "kosmos-cli: " << report.runsUnfinished()
                  << " run(s) are not finished in their shards: what they finished was merged; "
                     "run those shards again (sbatch --array=I, or run --shard I/N) and merge "
                     "again (exit "
                  << ExitCode::Unfinished << ")\n";
        return ExitCode::Unfinished;
    }
    return ExitCode::Ok;
}

MergeReport mergeWithProgress(const std::string &target, const std::vector<fs::path> &sources,
                              int runsPerTransaction = 64)
{
    TerminalProgress bar;
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    MergeOptions options;
    options.runsPerTransaction = runsPerTransaction;
    MergeReport report = mergeLedgers(
        target, sources, options, [&](std::size_t i, std::int64_t done, std::int64_t total) {
            if (terminal)
                bar.update("merge " + std::to_string(i + 1) + "/" + std::to_string(sources.size()),
                           done, total);
        });
    bar.finish();
    return report;
}

} // namespace

int runMerge(const std::string &target, const std::vector<std::string> &sources, bool json,
             int runsPerTransaction)
{
    try {
        std::vector<fs::path> paths(sources.begin(), sources.end());
        return printMergeReport(mergeWithProgress(target, paths, runsPerTransaction), json);
    } catch (const Error &e) {
        return reportError(e);
    }
}

namespace {

// Writes the shards' Slurm scripts and submits them (or only writes them, --dry-run).
int submitSlurm(const SubmitOptions &o, const Protocol &protocol, const ShardLayout &layout,
                Ledger &target, ScaleOutJob &job)
{
    SlurmSettings settings;
    settings.cliPath = selfPath();
    settings.jobName = slurmJobName(protocol.name);
    settings.partition = o.partition;
    settings.gres = o.gres;
    settings.timeLimit = o.timeLimit;
    settings.sbatchArgs = o.sbatchArgs;
    settings.workers = o.workers;
    settings.batch = o.batch;
    job.options.update({{"partition", o.partition},
                        {"gres", o.gres},
                        {"time", o.timeLimit},
                        {"sbatch_args", o.sbatchArgs}});
    if (o.dryRun) {
        writeSlurmScripts(layout, settings);
        std::cout << "written, not submitted (--dry-run):\n  " << layout.arrayScript().string()
                  << "\n  " << layout.mergeScript().string() << "\n";
        return ExitCode::Ok;
    }
    const SubmittedJobs jobs = submitToSlurm(layout, settings);
    job.arrayJobId = jobs.arrayJobId;
    job.mergeJobId = jobs.mergeJobId;
    recordSubmission(target, job);
    if (o.json)
        std::cout << nlohmann::json{{"array_job_id", jobs.arrayJobId},
                                    {"merge_job_id", jobs.mergeJobId},
                                    {"shard_dir", layout.dir.string()}}
                         .dump(2)
                  << "\n";
    else
        std::cout << "submitted: job array " << jobs.arrayJobId << " (" << o.shards
                  << " tasks), merge job " << jobs.mergeJobId
                  << " (after the array ends)\nfollow: kosmos-cli status " << o.bundle
                  << "\ncancel: kosmos-cli cancel " << o.bundle << "\n";
    return ExitCode::Ok;
}

// --local: one process per shard on this machine, then the same merge.
int runLocalShards(const SubmitOptions &o, const ShardLayout &layout, Ledger &target,
                   const ScaleOutJob &job)
{
    if (o.shards > kMaxLocalShards)
        throw Error(ErrorCode::InvalidInput,
                    "--local runs at most " + std::to_string(kMaxLocalShards) +
                        " shard processes on one machine, not " + std::to_string(o.shards) +
                        " (use --slurm for more)");
    recordSubmission(target, job);
    const std::string self = selfPath();
    std::vector<pid_t> pids;
    pids.reserve(static_cast<std::size_t>(o.shards));
    for (int i = 0; i < o.shards; ++i) {
        std::vector<std::string> command = {self,
                                            "run",
                                            layout.protocolFile().string(),
                                            "--ledger",
                                            layout.shardBundle(i).string(),
                                            "--shard",
                                            ShardSpec{i, o.shards}.text(),
                                            "--workers",
                                            std::to_string(o.workers)};
        if (o.batch > 1)
            command.insert(command.end(), {"--batch", std::to_string(o.batch)});
        pids.push_back(startCommand(command, layout.shardLog(i).string()));
    }
    for (std::size_t i = 0; i < pids.size(); ++i)
        g_localShards[i] = pids[i];
    g_localShardCount = static_cast<int>(pids.size());
    std::signal(SIGINT, stopLocalShards);
    std::signal(SIGTERM, stopLocalShards);
    int abnormal = 0;
    for (int i = 0; i < o.shards; ++i) {
        const int status = waitCommand(pids[static_cast<std::size_t>(i)]);
        std::cout << "shard " << ShardSpec{i, o.shards}.text() << ": exit " << status
                  << (status == ExitCode::Ok ? "" : " (log: " + layout.shardLog(i).string() + ")")
                  << "\n";
        abnormal += status != ExitCode::Ok && status != ExitCode::RunsFailed &&
                    status != ExitCode::Interrupted;
    }
    g_localShardCount = 0;
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::vector<fs::path> shards;
    shards.reserve(static_cast<std::size_t>(o.shards));
    for (int i = 0; i < o.shards; ++i)
        shards.push_back(layout.shardBundle(i));
    const int code = printMergeReport(mergeWithProgress(o.bundle, shards), o.json);
    if (g_localStopped) {
        std::cerr << "kosmos-cli: stopped; what the shards finished is merged, the rest is "
                     "queued in their ledgers (the same submit --local again resumes them)\n";
        return ExitCode::Interrupted;
    }
    if (abnormal > 0 && code == ExitCode::Ok)
        return ExitCode::Failed;
    return code;
}

} // namespace

int runSubmit(const std::string &executableDir, const SubmitOptions &o)
{
    try {
        Protocol protocol = Protocol::fromFile(o.protocolPath);
        // Every plugin resolves and every setting is accepted before anything is written.
        PluginRegistry registry;
        registry.scan(PluginRegistry::configuredSearchPath(executableDir));
        // The device placed in the protocol itself: the shards run the file written below.
        if (!o.device.empty())
            protocol =
                Protocol::fromJson(placedOnDevice(registry, protocol.document, o.device, o.json));
        PluginComponentFactory factory(registry);
        RolloutEngine engine(o.bundle, factory);
        std::vector<int> perShard(static_cast<std::size_t>(o.shards), 0);
        for (const RunSpec &spec : engine.runSpecs(protocol))
            ++perShard[static_cast<std::size_t>(shardOf(spec.runKey(), o.shards))];

        if (!fs::exists(o.bundle))
            Ledger::create(o.bundle);
        Ledger target = Ledger::open(o.bundle);
        const std::string sha = target.freezeProtocol(protocol.name, protocol.document);
        const ShardLayout layout = ShardLayout::of(o.bundle, o.shards);
        layout.prepare(protocol.document);

        ScaleOutJob job;
        job.protocolSha256 = sha;
        job.launcher = o.slurm ? "slurm" : "local";
        job.shards = o.shards;
        job.shardDir = layout.dir;
        job.options = {{"workers", o.workers}, {"batch", o.batch}, {"runs_per_shard", perShard}};
        std::cout << "protocol " << protocol.name << " (" << sha.substr(0, 16) << "...): ";
        std::size_t total = 0;
        for (int n : perShard)
            total += static_cast<std::size_t>(n);
        std::cout << total << " runs in " << o.shards << " shards (";
        for (std::size_t i = 0; i < perShard.size() && i < 8; ++i)
            std::cout << (i ? ", " : "") << perShard[i];
        std::cout << (perShard.size() > 8 ? ", ..." : "") << " runs)\nshards in "
                  << layout.dir.string() << "\n";

        if (o.slurm)
            return submitSlurm(o, protocol, layout, target, job);
        return runLocalShards(o, layout, target, job);
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runStatus(const std::string &bundle, bool json)
{
    try {
        Ledger target = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto jobs = submissions(target);
        if (jobs.empty())
            throw Error(ErrorCode::NotFound, bundle +
                                                 " has no sharded evaluation (kosmos-cli "
                                                 "submit ... --ledger " +
                                                 bundle + ")");
        const ScaleOutJob &job = jobs.back();
        const auto progress = shardProgress(job.layout(target.bundle()));
        // A shard not started yet shows its share of the runs, not 0.
        const std::vector<std::int64_t> expected = job.expectedRuns();
        SlurmJobStates slurm;
        if (job.launcher == "slurm")
            slurm = slurmJobStates({job.arrayJobId, job.mergeJobId});
        const RunCounts merged = protocolRunCounts(target, job.protocolSha256);
        const std::int64_t mergedRuns = merged.runs;
        const std::int64_t mergedFinished = merged.finished;
        auto taskState = [&](int i) {
            return slurm.state(job.arrayJobId + "_" + std::to_string(i));
        };
        auto jobState = [&](const std::string &id) { return slurm.state(id); };
        if (json) {
            nlohmann::json shards = nlohmann::json::array();
            for (const auto &p : progress)
                shards.push_back({{"index", p.index},
                                  {"bundle", p.bundle.string()},
                                  {"runs", p.runs},
                                  {"completed", p.completed},
                                  {"failed", p.failed},
                                  {"cancelled", p.cancelled},
                                  {"running", p.running},
                                  {"queued", p.queued},
                                  {"expected_runs", expected[static_cast<std::size_t>(p.index)]},
                                  {"slurm_state", taskState(p.index)},
                                  {"error", p.error}});
            std::cout << nlohmann::json{{"launcher", job.launcher},
                                        {"protocol_sha256", job.protocolSha256},
                                        {"array_job_id", job.arrayJobId},
                                        {"merge_job_id", job.mergeJobId},
                                        {"merge_state", jobState(job.mergeJobId)},
                                        {"shards", shards},
                                        {"merged_runs", mergedRuns},
                                        {"merged_finished", mergedFinished},
                                        {"notes", slurm.notes}}
                             .dump(2)
                      << "\n";
            return ExitCode::Ok;
        }
        std::cout << job.launcher << " submission of protocol " << job.protocolSha256.substr(0, 16)
                  << "..., " << job.shards << " shards in " << job.shardDir.string() << "\n";
        if (job.launcher == "slurm")
            std::cout << "job array " << job.arrayJobId << ", merge job " << job.mergeJobId << " "
                      << (jobState(job.mergeJobId).empty() ? "(not in the queue)"
                                                           : jobState(job.mergeJobId))
                      << "\n";
        std::int64_t finished = 0;
        std::int64_t runs = 0;
        for (const auto &p : progress) {
            const std::int64_t share =
                std::max(p.runs, expected[static_cast<std::size_t>(p.index)]);
            finished += p.finished();
            runs += share;
            std::cout << "  shard " << ShardSpec{p.index, job.shards}.text() << ": ";
            if (!p.error.empty())
                std::cout << "unreadable: " << p.error;
            else if (!p.exists)
                std::cout << "no ledger yet";
            else if (p.runs == 0)
                std::cout << "not started (0/" << share << ")";
            else
                std::cout << p.finished() << "/" << p.runs << " finished (completed " << p.completed
                          << ", failed " << p.failed << ", cancelled " << p.cancelled
                          << "), running " << p.running << ", queued " << p.queued;
            if (const std::string s = taskState(p.index); !s.empty())
                std::cout << "  [" << s << "]";
            std::cout << "\n";
        }
        std::cout << "shards: " << finished << "/" << runs << " runs finished; merged into "
                  << bundle << ": " << mergedFinished << "/" << mergedRuns << " finished\n";
        for (const auto &n : slurm.notes)
            std::cout << "note: " << n << "\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runCancel(const std::string &bundle)
{
    try {
        Ledger target = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto jobs = submissions(target);
        const auto it = std::find_if(jobs.rbegin(), jobs.rend(),
                                     [](const ScaleOutJob &j) { return j.launcher == "slurm"; });
        if (it == jobs.rend())
            throw Error(ErrorCode::NotFound, bundle + " has no Slurm submission to cancel");
        cancelSlurmJobs({it->arrayJobId, it->mergeJobId});
        std::cout << "scancel " << it->arrayJobId << " " << it->mergeJobId
                  << ": the shard tasks and the merge job are cancelled; what the shards "
                     "finished stays in their ledgers (kosmos-cli merge "
                  << bundle << " " << it->shardDir.string() << "/shard-*.kosmos takes it)\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}
