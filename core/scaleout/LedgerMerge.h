#pragma once

#include "ledger/Shard.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

// A run the merge refused to take from a source: the same run key with another protocol or
// other sealed content in the target, a seal or artifact hash that does not check, a reference
// it cannot follow. Nothing of that run was taken from that source; the rest was.
struct MergeConflict
{
    std::string source; // the source bundle
    std::string runKey;
    std::string message;
};

struct MergeSourceReport
{
    std::string path;
    std::optional<ShardSpec> shard; // its meta "shard", if it is a shard ledger
    int runs = 0;                   // runs in the source
    int runsAdded = 0;              // runs the target did not have
    int attemptsCopied = 0;         // finished attempts taken (with everything they recorded)
    int attemptsPresent = 0;        // finished attempts the target already had (a merge run again)
    int runsUnfinished = 0; // runs not finished in the source (queued, running, or a running
                            // attempt): what was finished of them is taken; merge again later
    int labelsCopied = 0;
    int artifactsCopied = 0; // objects copied (hash-checked on the way)
    std::int64_t bytesCopied = 0;
    int conflicts = 0;
};

struct MergeReport
{
    std::string target;
    std::vector<MergeSourceReport> sources;
    std::vector<MergeConflict> conflicts;
    int runsUnfinished() const;
};

struct MergeOptions
{
    int runsPerTransaction = 64; // a killed merge loses at most this much work
};

// (source index, runs done, runs in the source)
using MergeProgress = std::function<void(std::size_t, std::int64_t, std::int64_t)>;

// Merges ledgers (shard ledgers from `kosmos-cli run --shard`, or any other ledgers) into
// `target`, created when it does not exist (docs/scale-out.md). Keyed by run key; takes every
// finished attempt with its events, artifacts (each object re-hashed while it is copied),
// provenance, validations, judgments and samples, each attempt's seal recomputed in the target
// and compared with the source's before it is kept; and the runs' labels. Idempotent (merging
// again changes nothing), resumable (runsPerTransaction runs per transaction: a merge killed at
// any point leaves the target valid and the next merge completes it). Sources are opened
// read-only and never changed. Throws Error for what stops the whole merge (a source that is not
// a ledger, the target itself given as a source, I/O); per-run refusals are in the report.
MergeReport mergeLedgers(const std::filesystem::path &target,
                         const std::vector<std::filesystem::path> &sources,
                         const MergeOptions &options = {}, const MergeProgress &progress = {});

} // namespace kosmos
