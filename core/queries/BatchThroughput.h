#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

// Where a batch's time went, per worker and in all ([fast-rollouts]; docs/pipeline.md, "Batched
// episodes"): what `kosmos-cli run` prints at its end and the workstation's Run workspace shows
// while the batch runs. Read from the ledger alone: each ended attempt's `timings` event (its
// stage times, the frame pipeline's background work, the lockstep wait) and frame artifacts, and
// the step events of attempts still running.
struct StageTimes
{
    double policyMs = 0;
    double worldModelMs = 0;
    double storeMs = 0;      // encode + write + sync, on the frame pipeline's threads (beside)
    double validationMs = 0; // the measuring beside the rollout and the combining after it
    double judgeMs = 0;
    double lockstepWaitMs = 0; // --batch N: waiting for the other episodes' calls
    double attemptMs = 0;      // the attempts' own wall time, summed

    void add(const StageTimes &other);
    // The stages' work: policy, world model, judge, validation and store (beside).
    double workMs() const { return policyMs + worldModelMs + judgeMs + validationMs + storeMs; }
};

struct WorkerThroughput
{
    std::string worker; // the worker id without its lane (".N" of --batch N)
    int attempts = 0;   // ended, with timings
    int running = 0;
    std::int64_t steps = 0;  // of ended attempts, and so far of running ones
    std::int64_t frames = 0; // frames recorded
    std::int64_t firstStartMs = 0;
    std::int64_t lastEndMs = 0; // or now, while it runs
    StageTimes stages;

    double wallS() const { return static_cast<double>(lastEndMs - firstStartMs) / 1000.0; }
    double stepsPerS() const { return wallS() > 0 ? static_cast<double>(steps) / wallS() : 0; }
    double framesPerS() const { return wallS() > 0 ? static_cast<double>(frames) / wallS() : 0; }
};

struct BatchThroughput
{
    std::vector<WorkerThroughput> workers; // by first start
    WorkerThroughput all;                  // worker "all": every worker together

    // Text for a terminal: one line per worker and one in all, steps/s, frames/s, each stage's
    // share of the work (what bounds the batch) and, with --batch N, how much of their time the
    // lanes waited for each other.
    std::string text() const;
};

// The attempts of one frozen protocol that started at or after `sinceMs` (0: all), read
// incrementally for a view that follows a batch: an ended attempt's timings never change, so
// each read costs what started or was still running since the last one, not the whole batch.
class BatchThroughputReader
{
public:
    BatchThroughputReader(std::string protocolSha256, std::int64_t sinceMs);
    // `nowMs`: the wall clock, the end of what still runs.
    BatchThroughput read(Ledger &ledger, std::int64_t nowMs);

private:
    struct Attempt
    {
        std::string worker;
        std::int64_t startMs = 0;
        std::optional<std::int64_t> endMs;
        bool timed = false; // ended with its timings
        std::int64_t steps = 0;
        std::int64_t frames = 0;
        StageTimes stages;
    };
    std::string m_protocolSha256;
    std::int64_t m_sinceMs;
    std::int64_t m_lastAttemptId = 0;
    std::map<std::int64_t, Attempt> m_attempts; // by attempt id
};

// One read of the above (kosmos-cli run's summary).
BatchThroughput batchThroughput(Ledger &ledger, const std::string &protocolSha256,
                                std::int64_t sinceMs, std::int64_t nowMs);

} // namespace kosmos
