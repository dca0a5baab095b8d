#pragma once

#include "ledger/Shard.h"
#include "queries/BatchProgress.h"
#include "queries/LedgerFacts.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

// Where a sharded evaluation of OUT.kosmos keeps its parts: OUT.shards/ beside the bundle, with
// the frozen protocol (protocol.json), one ledger per shard (shard-0003-of-0008.kosmos), the
// Slurm scripts (shards.sbatch, merge.sbatch) and logs/. See docs/scale-out.md.
struct ShardLayout
{
    std::filesystem::path target; // OUT.kosmos
    std::filesystem::path dir;    // OUT.shards
    int count = 1;

    static ShardLayout of(const std::filesystem::path &target, int count);
    std::filesystem::path protocolFile() const { return dir / "protocol.json"; }
    std::filesystem::path shardBundle(int index) const;
    std::filesystem::path logs() const { return dir / "logs"; }
    std::filesystem::path shardLog(int index) const; // logs/shard-I.out, as Slurm's %a writes
    std::filesystem::path arrayScript() const { return dir / "shards.sbatch"; }
    std::filesystem::path mergeScript() const { return dir / "merge.sbatch"; }
    // Creates the folder, the protocol copy and every shard ledger (so the shards' progress can
    // be read before their tasks start); existing shard ledgers are kept (a resubmission).
    void prepare(const nlohmann::json &protocolDocument) const;
};

struct SlurmSettings
{
    std::string cliPath; // kosmos-cli, absolute (compute nodes see the same shared filesystem)
    std::string jobName = "kosmos";
    std::string partition;
    std::string gres;      // e.g. gpu:1, per shard task
    std::string timeLimit; // e.g. 04:00:00, per shard task
    std::vector<std::string> sbatchArgs;
    int workers = 1; // worker threads in each shard task
    int batch = 1;   // episodes each worker runs in lockstep (run --batch; 1: not written)
};

// The job-array script (one task per shard, SLURM_ARRAY_TASK_ID -> shard) and the merge job's
// script. Refuses (Error InvalidInput) settings that would break the script (a newline, an
// sbatch argument that is not an option).
std::string slurmArrayScript(const ShardLayout &layout, const SlurmSettings &settings);
std::string slurmMergeScript(const ShardLayout &layout, const SlurmSettings &settings);

struct SubmittedJobs
{
    std::string arrayJobId;
    std::string mergeJobId;
};

// A job name Slurm accepts, from a protocol name (letters, digits, '-', '_'; 40 characters).
std::string slurmJobName(const std::string &protocolName);
// Writes both scripts (atomically) into the layout's folder.
void writeSlurmScripts(const ShardLayout &layout, const SlurmSettings &settings);

// Writes both scripts and submits them with sbatch (the merge with --dependency=afterany on the
// array); throws Error(Io) with sbatch's own message when a submission fails.
SubmittedJobs submitToSlurm(const ShardLayout &layout, const SlurmSettings &settings);

// One submission as recorded in OUT (table scaleout_jobs).
struct ScaleOutJob
{
    std::int64_t id = 0;
    std::string protocolSha256;
    std::string launcher; // slurm | local
    int shards = 0;
    std::filesystem::path shardDir;
    std::string arrayJobId;
    std::string mergeJobId;
    nlohmann::json options;
    std::int64_t submittedAtMs = 0;

    // Where its shards are (target: the ledger it was submitted from).
    ShardLayout layout(const std::filesystem::path &target) const;
    // How many runs each shard has, as submit counted them (options.runs_per_shard); 0 where
    // unknown.
    std::vector<std::int64_t> expectedRuns() const;
};
std::int64_t recordSubmission(Ledger &target, const ScaleOutJob &job);
std::vector<ScaleOutJob> submissions(Ledger &target);

// A shard's progress, read from its ledger (read-only; a shard being written is fine).
struct ShardProgress
{
    int index = 0;
    std::filesystem::path bundle;
    bool exists = false;
    std::int64_t runs = 0;
    std::int64_t completed = 0;
    std::int64_t failed = 0;
    std::int64_t cancelled = 0;
    std::int64_t running = 0;
    std::int64_t queued = 0;
    std::string error; // why it could not be read
    std::int64_t finished() const { return completed + failed + cancelled; }
};
std::vector<ShardProgress> shardProgress(const ShardLayout &layout);

// Slurm's view of jobs: squeue for those queued or running (array tasks one by one, "123_4"),
// then sacct when accounting is on. note says what was not available.
struct SlurmJobStates
{
    std::map<std::string, std::string> states; // job or task id -> state (PENDING, RUNNING ...)
    std::vector<std::string> notes;
    bool queueAnswered = false; // squeue answered (an empty queue is an answer)

    std::string state(const std::string &id) const; // "" when Slurm did not name it
    // Queued or running as far as Slurm said: named, in a state that is not final.
    bool live(const std::string &id) const;
    // A task of the array ("123_4", "123_[5-7]") is live.
    bool arrayLive(const std::string &arrayJobId) const;
};
// COMPLETED, FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE.
bool isFinalSlurmState(const std::string &state);
// The parsers of what the Slurm commands print (fuzz_scaleout): `sbatch --parsable` ("123" or
// "123;cluster"; Error(Io) for anything else), `sacct --parsable2 --format=JobID,State` and
// `squeue --format=%i|%T` lines into id -> state (job steps such as 123.batch left out).
std::string parseSbatchJobId(const std::string &output);
std::map<std::string, std::string> parseSacctStates(const std::string &output);
std::map<std::string, std::string> parseSqueueStates(const std::string &output);
SlurmJobStates slurmJobStates(const std::vector<std::string> &jobIds);
// The progress of a sharded batch, followed through its shard ledgers (each opened read-only):
// every run of every shard (RunProgress::shard set), the totals summed, one ShardState per
// shard with Slurm's state of its task from `slurm` (array task ARRAY_I), and the merge job's.
// A shard whose ledger holds no run yet counts `expectedRuns[i]` runs as queued.
BatchProgress shardedProgress(const ShardLayout &layout, const std::string &protocolSha256,
                              std::int64_t nowMs, const std::vector<std::int64_t> &expectedRuns,
                              const SlurmJobStates &slurm, const std::string &arrayJobId,
                              const std::string &mergeJobId);

// scancel; throws Error(Io) with scancel's message when it fails.
void cancelSlurmJobs(const std::vector<std::string> &jobIds);

} // namespace kosmos
