#include "scaleout/ScaleOut.h"

#include "ledger/Ledger.h"
#include "queries/LedgerFacts.h"
#include "util/BoundedJson.h"
#include "util/CanonicalJson.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/Subprocess.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace kosmos {

namespace fs = std::filesystem;

namespace {

// A word for bash, single-quoted.
std::string quoted(const std::string &text)
{
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

void refuseNewline(const std::string &value, const std::string &what)
{
    if (value.find_first_of("\n\r") != std::string::npos)
        throw Error(ErrorCode::InvalidInput, what + " must not contain a line break");
}

std::string absoluteText(const fs::path &p)
{
    return fs::absolute(p).lexically_normal().string();
}

void writeText(const fs::path &path, const std::string &text)
{
    const fs::path tmp = path.string() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush())
            throw Error(ErrorCode::Io, "cannot write " + tmp.string());
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec)
        throw Error(ErrorCode::Io, "cannot write " + path.string() + ": " + ec.message());
}

std::string sbatchHeader(const SlurmSettings &settings)
{
    std::string out;
    auto line = [&](const std::string &option, const std::string &value, const char *what) {
        if (value.empty())
            return;
        refuseNewline(value, what);
        out += "#SBATCH " + option + "=" + value + "\n";
    };
    line("--partition", settings.partition, "the partition");
    for (const auto &arg : settings.sbatchArgs) {
        refuseNewline(arg, "an sbatch argument");
        if (arg.rfind('-', 0) != 0)
            throw Error(ErrorCode::InvalidInput,
                        "sbatch argument '" + arg + "' is not an option (it must start with -)");
        out += "#SBATCH " + arg + "\n";
    }
    return out;
}

} // namespace

ShardLayout ShardLayout::of(const fs::path &target, int count)
{
    if (count < 1 || count > kMaxShards)
        throw Error(ErrorCode::InvalidInput,
                    "the shard count must be 1-" + std::to_string(kMaxShards));
    if (target.extension() != ".kosmos")
        throw Error(ErrorCode::InvalidInput,
                    "a ledger bundle's name must end in .kosmos: " + target.string());
    ShardLayout layout;
    layout.target = fs::absolute(target).lexically_normal();
    if (layout.target.filename().empty())
        layout.target = layout.target.parent_path();
    layout.dir = layout.target.parent_path() / (layout.target.stem().string() + ".shards");
    layout.count = count;
    return layout;
}

fs::path ShardLayout::shardLog(int index) const
{
    return logs() / ("shard-" + std::to_string(index) + ".out");
}

fs::path ShardLayout::shardBundle(int index) const
{
    char name[64];
    std::snprintf(name, sizeof name, "shard-%04d-of-%04d.kosmos", index, count);
    return dir / name;
}

void ShardLayout::prepare(const nlohmann::json &protocolDocument) const
{
    std::error_code ec;
    fs::create_directories(logs(), ec);
    if (ec)
        throw Error(ErrorCode::Io, "cannot create " + logs().string() + ": " + ec.message());
    const std::string text = canonicalJson(protocolDocument) + "\n";
    if (fs::exists(protocolFile())) {
        std::ifstream in(protocolFile(), std::ios::binary);
        std::stringstream existing;
        existing << in.rdbuf();
        if (existing.str() != text)
            throw Error(ErrorCode::InvalidInput,
                        dir.string() + " holds the shards of another protocol (" +
                            protocolFile().string() +
                            " differs); use another OUT ledger, or remove that folder");
    } else {
        writeText(protocolFile(), text);
    }
    for (int i = 0; i < count; ++i)
        if (!fs::exists(shardBundle(i) / "ledger.sqlite"))
            Ledger::create(shardBundle(i));
}

std::string slurmArrayScript(const ShardLayout &layout, const SlurmSettings &settings)
{
    refuseNewline(settings.jobName, "the job name");
    refuseNewline(settings.gres, "--gres");
    refuseNewline(settings.timeLimit, "--time");
    std::string s = "#!/bin/bash\n";
    s += "#SBATCH --job-name=" + settings.jobName + "\n";
    s += "#SBATCH --array=0-" + std::to_string(layout.count - 1) + "\n";
    s += "#SBATCH --output=" + absoluteText(layout.logs() / "shard-%a.out") + "\n";
    if (!settings.gres.empty())
        s += "#SBATCH --gres=" + settings.gres + "\n";
    if (!settings.timeLimit.empty())
        s += "#SBATCH --time=" + settings.timeLimit + "\n";
    s += sbatchHeader(settings);
    s += "# Written by kosmos-cli submit: shard $SLURM_ARRAY_TASK_ID of " +
         std::to_string(layout.count) +
         ". Each task writes only its own shard ledger; resubmitting a task (sbatch "
         "--array=I this script) resumes that shard.\n";
    s += "set -eu\n";
    s += "i=\"$SLURM_ARRAY_TASK_ID\"\n";
    char suffix[48];
    std::snprintf(suffix, sizeof suffix, "-of-%04d.kosmos", layout.count);
    s += "ledger=\"$(printf " + quoted(absoluteText(layout.dir) + "/shard-%04d" + suffix) +
         " \"$i\")\"\n";
    s += "exec " + quoted(settings.cliPath) + " run " +
         quoted(absoluteText(layout.protocolFile())) + " --ledger \"$ledger\" --shard \"$i/" +
         std::to_string(layout.count) + "\" --workers " + std::to_string(settings.workers) +
         (settings.batch > 1 ? " --batch " + std::to_string(settings.batch) : std::string()) + "\n";
    return s;
}

std::string slurmMergeScript(const ShardLayout &layout, const SlurmSettings &settings)
{
    std::string s = "#!/bin/bash\n";
    s += "#SBATCH --job-name=" + settings.jobName + "-merge\n";
    s += "#SBATCH --output=" + absoluteText(layout.logs() / "merge.out") + "\n";
    s += sbatchHeader(settings);
    s += "# Written by kosmos-cli submit: merges the shard ledgers into the target once every "
         "shard task has ended (afterany); what a shard did not finish is reported.\n";
    s += "set -eu\n";
    s += "exec " + quoted(settings.cliPath) + " merge " + quoted(absoluteText(layout.target));
    for (int i = 0; i < layout.count; ++i)
        s += " \\\n    " + quoted(absoluteText(layout.shardBundle(i)));
    return s + "\n";
}

std::string slurmJobName(const std::string &protocolName)
{
    std::string name = "kosmos-" + protocolName.substr(0, 40);
    for (char &c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
            c = '_';
    return name;
}

void writeSlurmScripts(const ShardLayout &layout, const SlurmSettings &settings)
{
    writeText(layout.arrayScript(), slurmArrayScript(layout, settings));
    writeText(layout.mergeScript(), slurmMergeScript(layout, settings));
}

std::string parseSbatchJobId(const std::string &output)
{
    std::string id = output.substr(0, output.find_first_of(";\n"));
    if (id.empty() || id.size() > 20 || id.find_first_not_of("0123456789") != std::string::npos)
        throw Error(ErrorCode::Io, "sbatch answered '" + output.substr(0, 200) + "', not a job id");
    return id;
}

SubmittedJobs submitToSlurm(const ShardLayout &layout, const SlurmSettings &settings)
{
    writeSlurmScripts(layout, settings);
    auto submit = [&](const std::vector<std::string> &argv) {
        const CommandResult r = runCommand(argv, 120000);
        if (!r.ok())
            throw Error(ErrorCode::Io, "sbatch failed: " + r.said());
        return parseSbatchJobId(r.out);
    };
    SubmittedJobs jobs;
    jobs.arrayJobId = submit({"sbatch", "--parsable", absoluteText(layout.arrayScript())});
    jobs.mergeJobId = submit({"sbatch", "--parsable", "--dependency=afterany:" + jobs.arrayJobId,
                              absoluteText(layout.mergeScript())});
    return jobs;
}

ShardLayout ScaleOutJob::layout(const fs::path &target) const
{
    ShardLayout l;
    l.target = target;
    l.dir = shardDir;
    l.count = shards;
    return l;
}

std::vector<std::int64_t> ScaleOutJob::expectedRuns() const
{
    std::vector<std::int64_t> out(static_cast<std::size_t>(std::max(0, shards)), 0);
    const nlohmann::json perShard = options.is_object()
                                        ? options.value("runs_per_shard", nlohmann::json::array())
                                        : nlohmann::json::array();
    for (std::size_t i = 0; i < out.size() && perShard.is_array() && i < perShard.size(); ++i)
        if (perShard[i].is_number_integer())
            out[i] = perShard[i].get<std::int64_t>();
    return out;
}

std::int64_t recordSubmission(Ledger &target, const ScaleOutJob &job)
{
    auto optional = [](const std::string &v) {
        return v.empty() ? std::nullopt : std::optional<std::string>(v);
    };
    return target.addScaleOutJob({0, job.protocolSha256, job.launcher, job.shards,
                                  job.shardDir.string(), optional(job.arrayJobId),
                                  optional(job.mergeJobId), job.options.dump(),
                                  job.submittedAtMs ? job.submittedAtMs : nowMs()});
}

std::vector<ScaleOutJob> submissions(Ledger &target)
{
    std::vector<ScaleOutJob> out;
    for (ScaleOutJobRecord &r : target.scaleOutJobs()) {
        ScaleOutJob j;
        j.id = r.id;
        j.protocolSha256 = std::move(r.protocolSha256);
        j.launcher = std::move(r.launcher);
        j.shards = r.shards;
        j.shardDir = r.shardDir;
        j.arrayJobId = r.arrayJobId.value_or("");
        j.mergeJobId = r.mergeJobId.value_or("");
        try {
            j.options = json::parseBounded(r.optionsJson, "scaleout_jobs.options_json");
        } catch (const Error &) {
            j.options = nlohmann::json::object(); // unreadable: no options (verify says why)
        }
        j.submittedAtMs = r.submittedAtMs;
        out.push_back(std::move(j));
    }
    return out;
}

std::vector<ShardProgress> shardProgress(const ShardLayout &layout)
{
    std::vector<ShardProgress> out;
    for (int i = 0; i < layout.count; ++i) {
        ShardProgress p;
        p.index = i;
        p.bundle = layout.shardBundle(i);
        p.exists = fs::exists(p.bundle / "ledger.sqlite");
        if (p.exists) {
            try {
                Ledger ledger = Ledger::open(p.bundle, {OpenMode::ReadOnly});
                for (const auto &[status, n] : ledger.info().runsByStatus) {
                    p.runs += n;
                    (status == "completed"   ? p.completed
                     : status == "failed"    ? p.failed
                     : status == "cancelled" ? p.cancelled
                     : status == "running"   ? p.running
                                             : p.queued) += n;
                }
            } catch (const Error &e) {
                p.error = e.what();
            }
        }
        out.push_back(std::move(p));
    }
    return out;
}

namespace {

std::map<std::string, std::string> parseStates(const std::string &output, bool skipSteps)
{
    std::map<std::string, std::string> states;
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        const auto bar = line.find('|');
        if (bar == std::string::npos || bar == 0)
            continue;
        const std::string id = line.substr(0, bar);
        if (skipSteps && id.find('.') != std::string::npos)
            continue; // job steps (123.batch)
        // sacct writes "CANCELLED by 0": the state is the first word.
        std::string state = line.substr(bar + 1);
        state = state.substr(0, state.find_first_of(" |"));
        if (!state.empty())
            states[id] = state;
    }
    return states;
}

} // namespace

std::map<std::string, std::string> parseSacctStates(const std::string &output)
{
    return parseStates(output, true);
}

std::map<std::string, std::string> parseSqueueStates(const std::string &output)
{
    return parseStates(output, false);
}

bool isFinalSlurmState(const std::string &state)
{
    static const char *const kFinal[] = {"COMPLETED", "FAILED",        "CANCELLED",
                                         "TIMEOUT",   "OUT_OF_MEMORY", "NODE_FAIL",
                                         "PREEMPTED", "BOOT_FAIL",     "DEADLINE"};
    return std::any_of(std::begin(kFinal), std::end(kFinal),
                       [&](const char *f) { return state == f; });
}

std::string SlurmJobStates::state(const std::string &id) const
{
    const auto it = states.find(id);
    return it == states.end() ? std::string() : it->second;
}

bool SlurmJobStates::live(const std::string &id) const
{
    const std::string s = state(id);
    return !s.empty() && !isFinalSlurmState(s);
}

bool SlurmJobStates::arrayLive(const std::string &arrayJobId) const
{
    const std::string prefix = arrayJobId + "_";
    return std::any_of(states.begin(), states.end(), [&](const auto &entry) {
        return entry.first.rfind(prefix, 0) == 0 && !isFinalSlurmState(entry.second);
    });
}

SlurmJobStates slurmJobStates(const std::vector<std::string> &jobIds)
{
    SlurmJobStates result;
    if (jobIds.empty())
        return result;
    std::string list;
    for (const auto &id : jobIds)
        list += (list.empty() ? "" : ",") + id;
    // sacct first (finished jobs too, when accounting is on), then squeue over it (live state).
    const CommandResult acct = runCommand(
        {"sacct", "--noheader", "--parsable2", "--jobs=" + list, "--format=JobID,State"}, 30000);
    if (acct.ok())
        result.states = parseSacctStates(acct.out);
    else
        result.notes.push_back("sacct: " + acct.said() +
                               " (finished jobs are known only from the shard ledgers)");
    const CommandResult queue =
        runCommand({"squeue", "--noheader", "--array", "--jobs=" + list, "--format=%i|%T"}, 30000);
    // squeue refuses ids of jobs that have left the queue; that is an answer, not a failure.
    result.queueAnswered =
        queue.ok() || (queue.started && queue.said().find("Invalid job id") != std::string::npos);
    if (queue.ok()) {
        for (auto &[id, state] : parseSqueueStates(queue.out))
            result.states[id] = state;
    } else if (!result.queueAnswered) {
        result.notes.push_back("squeue: " + queue.said());
    }
    return result;
}

BatchProgress shardedProgress(const ShardLayout &layout, const std::string &protocolSha256,
                              std::int64_t nowMs, const std::vector<std::int64_t> &expectedRuns,
                              const SlurmJobStates &slurm, const std::string &arrayJobId,
                              const std::string &mergeJobId)
{
    BatchProgress all;
    all.protocolSha256 = protocolSha256;
    for (int i = 0; i < layout.count; ++i) {
        ShardState shard;
        shard.index = i;
        shard.scheduler =
            arrayJobId.empty() ? std::string() : slurm.state(arrayJobId + "_" + std::to_string(i));
        BatchProgress p;
        if (fs::exists(layout.shardBundle(i) / "ledger.sqlite")) {
            try {
                Ledger ledger = Ledger::open(layout.shardBundle(i), {OpenMode::ReadOnly});
                p = batchProgress(ledger, protocolSha256, nowMs);
            } catch (const Error &) {
                // Being created, or unreadable: counted as not started; status names the error.
            }
        }
        if (p.total == 0 && static_cast<std::size_t>(i) < expectedRuns.size()) {
            p.total = static_cast<int>(expectedRuns[static_cast<std::size_t>(i)]);
            p.queued = p.total;
        }
        if (all.protocolName.empty())
            all.protocolName = p.protocolName;
        for (RunProgress &r : p.runs) {
            r.shard = i;
            all.runs.push_back(std::move(r));
        }
        all.total += p.total;
        all.queued += p.queued;
        all.running += p.running;
        all.completed += p.completed;
        all.failed += p.failed;
        all.cancelled += p.cancelled;
        all.stepsDone += p.stepsDone;
        all.stepsTotal += p.stepsTotal;
        if (p.startedAtMs && (!all.startedAtMs || *p.startedAtMs < *all.startedAtMs))
            all.startedAtMs = p.startedAtMs;
        all.elapsedMs = std::max(all.elapsedMs, p.elapsedMs);
        if (p.remainingMs) // shards run side by side: the slowest one
            all.remainingMs = std::max(all.remainingMs.value_or(0), *p.remainingMs);
        shard.total = p.total;
        shard.finished = p.finished();
        shard.running = p.running;
        all.shards.push_back(std::move(shard));
    }
    all.mergeState = mergeJobId.empty() ? std::string() : slurm.state(mergeJobId);
    return all;
}

void cancelSlurmJobs(const std::vector<std::string> &jobIds)
{
    std::vector<std::string> argv = {"scancel"};
    for (const auto &id : jobIds)
        if (!id.empty())
            argv.push_back(id);
    if (argv.size() == 1)
        throw Error(ErrorCode::InvalidInput, "no Slurm job to cancel");
    const CommandResult r = runCommand(argv, 60000);
    if (!r.ok())
        throw Error(ErrorCode::Io, "scancel failed: " + r.said());
}

} // namespace kosmos
