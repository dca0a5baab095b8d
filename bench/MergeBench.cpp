// kosmos-bench-merge: merge throughput of shard ledgers (docs/benchmarks.md, docs/scale-out.md).
//   kosmos-bench-merge [WORKDIR] [--shards N] [--runs R] [--quick]
// Writes N shard ledgers of R finished runs each (one attempt, 12 events, two 8 KiB artifacts,
// a validation), then times, in the same run: `cp -r` of the N bundles, and mergeLedgers() of
// them into a new ledger (every object re-hashed, every seal recomputed), then the same merge
// again (idempotent: nothing to take), and `kosmos verify`-equivalent counts.
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "ledger/Shard.h"
#include "scaleout/LedgerMerge.h"
#include "util/Error.h"
#include "util/Subprocess.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>
#include <vector>

using namespace kosmos;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

ComponentIdentity component(ComponentFamily family, const std::string &id)
{
    ComponentIdentity c;
    c.family = family;
    c.adapterId = id;
    c.adapterVersion = "1";
    return c;
}

std::int64_t directoryBytes(const fs::path &dir)
{
    std::int64_t total = 0;
    for (const auto &e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file())
            total += static_cast<std::int64_t>(e.file_size());
    return total;
}

void writeShard(const fs::path &bundle, int shard, int shards, int runsPerShard,
                const std::string &protocolName, std::mt19937_64 &rng)
{
    Ledger ledger = Ledger::create(bundle);
    LedgerSql::of(ledger).exec("PRAGMA synchronous = OFF"); // generation only; the merge is durable
    const std::string protocol =
        ledger.freezeProtocol(protocolName, {{"bench", "merge"}, {"shards", shards}});
    // (No "shard" record: these runs are not assigned by run key, and the merge checks that.)
    static_cast<void>(shards);
    std::vector<std::uint8_t> bytes(8192);
    for (int r = 0; r < runsPerShard; ++r) {
        RunSpec spec;
        spec.protocolSha256 = protocol;
        spec.episodeIndex = static_cast<std::int64_t>(shard) * runsPerShard + r;
        spec.policy = component(ComponentFamily::Policy, "bench.policy");
        spec.worldModel = component(ComponentFamily::WorldModel, "bench.world_model");
        ledger.submitRun(spec);
        auto lease = ledger.claim("bench-" + std::to_string(shard), 60000);
        std::vector<std::pair<std::string, nlohmann::json>> events;
        for (int e = 0; e < 10; ++e)
            events.push_back({"step", {{"step", e}, {"reward", static_cast<double>(e) / 10}}});
        ledger.appendEvents(*lease, events);
        for (int a = 0; a < 2; ++a) {
            for (auto &b : bytes)
                b = static_cast<std::uint8_t>(rng());
            ledger.putArtifact(*lease, "frame", "frame-" + std::to_string(a) + ".bin", bytes,
                               "application/octet-stream");
        }
        ValidationRecord v;
        v.validator = "bench";
        v.validatorVersion = "1";
        v.verdict = "valid";
        ledger.recordValidation(*lease, v);
        ledger.finishAttempt(*lease, AttemptOutcome::completed());
    }
}

} // namespace

int main(int argc, char **argv)
{
    fs::path work = fs::temp_directory_path() / "kosmos-bench-merge";
    int shards = 100;
    int runs = 100;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--quick") {
            shards = 10;
            runs = 50;
        } else if (a == "--shards" && i + 1 < argc) {
            shards = std::stoi(argv[++i]);
        } else if (a == "--runs" && i + 1 < argc) {
            runs = std::stoi(argv[++i]);
        } else {
            work = a;
        }
    }
    try {
        fs::remove_all(work);
        fs::create_directories(work / "shards");
        std::mt19937_64 rng(20261203);
        auto t = Clock::now();
        std::vector<fs::path> bundles;
        for (int s = 0; s < shards; ++s) {
            bundles.push_back(work / "shards" / ("shard-" + std::to_string(s) + ".kosmos"));
            writeShard(bundles.back(), s, shards, runs, "merge-bench", rng);
        }
        const std::int64_t bytes = directoryBytes(work / "shards");
        std::printf("wrote %d shards x %d runs (%.1f MiB) in %.1f s\n", shards, runs,
                    static_cast<double>(bytes) / (1 << 20), secondsSince(t));

        ::sync();
        t = Clock::now();
        const CommandResult copy =
            runCommand({"cp", "-r", (work / "shards").string(), (work / "copy").string()}, 3600000);
        ::sync(); // cp's data on disk, as the merge's fsyncs put it
        const double cpSeconds = secondsSince(t);
        if (!copy.ok())
            throw Error(ErrorCode::Io, "cp -r failed: " + copy.err);

        t = Clock::now();
        const MergeReport report = mergeLedgers(work / "merged.kosmos", bundles);
        const double mergeSeconds = secondsSince(t);
        std::int64_t attempts = 0;
        std::int64_t objects = 0;
        std::int64_t copied = 0;
        for (const auto &s : report.sources) {
            attempts += s.attemptsCopied;
            objects += s.artifactsCopied;
            copied += s.bytesCopied;
        }
        t = Clock::now();
        const MergeReport again = mergeLedgers(work / "merged.kosmos", bundles);
        const double againSeconds = secondsSince(t);
        int againTaken = 0;
        for (const auto &s : again.sources)
            againTaken += s.attemptsCopied;

        const double totalRuns = static_cast<double>(shards) * runs;
        const double mib = static_cast<double>(bytes) / (1 << 20);
        std::printf("cp -r of the shard bundles:   %7.2f s  %8.0f runs/s  %7.1f MiB/s\n", cpSeconds,
                    totalRuns / cpSeconds, mib / cpSeconds);
        std::printf("merge (hash + seal checked):  %7.2f s  %8.0f runs/s  %7.1f MiB/s "
                    "(%lld attempts, %lld objects, %.1f MiB of objects, %zu conflicts)\n",
                    mergeSeconds, totalRuns / mergeSeconds, mib / mergeSeconds,
                    static_cast<long long>(attempts), static_cast<long long>(objects),
                    static_cast<double>(copied) / (1 << 20), report.conflicts.size());
        std::printf("merge again (idempotent):     %7.2f s  %8.0f runs/s  (%d attempts taken)\n",
                    againSeconds, totalRuns / againSeconds, againTaken);
        fs::remove_all(work);
        return report.conflicts.empty() && againTaken == 0 ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "kosmos-bench-merge: %s\n", e.what());
        return 1;
    }
}
