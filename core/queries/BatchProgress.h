#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

// Where one run of a batch stands, read from the ledger alone (its latest attempt, the last
// "step" and "stage" events): what the workstation's progress view shows while worker
// processes write, and again after a restart.
struct RunProgress
{
    std::int64_t runId = 0;
    std::string task;
    std::string policy; // adapter id
    // "ADAPTER SETTINGS-JSON" (labelsOfIdentityTexts names it: a model package by its folder)
    std::string policyIdentity;
    std::string status; // queued | running | completed | failed | cancelled
    int stepsDone = 0;
    int horizon = 0;
    std::string stage; // setup | world_model | policy | validation | judge ... ("" when queued)
    std::optional<std::int64_t> startedAtMs;
    std::optional<std::int64_t> finishedAtMs;
    std::string workerId;
    std::optional<int> workerPid; // from a worker id "<name>-<pid>-<n>" of this machine
    bool cancelRequested = false;
    int shard = -1; // a sharded batch (docs/scale-out.md): the shard whose ledger holds the run
};

// One shard of a sharded batch (core/scaleout): its runs as its own ledger records them, and
// the scheduler's state of its task (Slurm: PENDING, RUNNING, COMPLETED ...; "" when unknown).
struct ShardState
{
    int index = 0;
    int total = 0;
    int finished = 0;
    int running = 0;
    std::string scheduler;
};

struct BatchProgress
{
    std::string protocolSha256;
    std::string protocolName;
    std::vector<RunProgress> runs; // in run order
    int total = 0;
    int queued = 0;
    int running = 0;
    int completed = 0;
    int failed = 0;
    int cancelled = 0;
    // Steps over every run: a completed run counts its horizon, a running one its steps so far, a
    // cancelled or failed one only the steps it did (in both: it will do no more); a queued one
    // counts toward the total only.
    std::int64_t stepsDone = 0;
    std::int64_t stepsTotal = 0;
    std::optional<std::int64_t> startedAtMs; // the first attempt's start
    std::int64_t elapsedMs = 0;
    // Remaining time at the step rate seen so far (nullopt before the first step or when done).
    std::optional<std::int64_t> remainingMs;
    // A sharded batch only: its shards, and the state of the job that merges them.
    std::vector<ShardState> shards;
    std::string mergeState;

    int finished() const { return completed + failed + cancelled; }
    // "36 of 40 runs completed, 4 cancelled": a cancelled or failed run is never counted as
    // finished work (what every progress view shows).
    std::string summary() const;
    bool active() const { return queued + running > 0; }
};

// The progress of every run of one frozen protocol. `nowMs` is the wall clock (ms since epoch).
BatchProgress batchProgress(Ledger &ledger, const std::string &protocolSha256, std::int64_t nowMs);

// Protocols of the ledger with runs queued or running, newest first: batches a later launch of
// the workstation picks up.
std::vector<std::string> activeProtocols(Ledger &ledger);

} // namespace kosmos
