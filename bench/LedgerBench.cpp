// kosmos-bench-ledger: the ledger's speed figures (docs/benchmarks.md).
//   kosmos-bench-ledger [WORKDIR] [--quick]
// 1. durable event appends per second, one event per transaction and 100 per transaction;
// 2. artifact ingest of a 256 MiB file against `sha256sum` on the same file, same run;
// 3. opening a ledger of 100,000 runs and 1,000,000 events and reading its counts.
#include "ledger/Ledger.h"
#include "util/CanonicalJson.h"
#include "util/Clock.h"
#include "util/Error.h"

#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

ComponentIdentity component(ComponentFamily family, const std::string &id)
{
    ComponentIdentity c;
    c.family = family;
    c.adapterId = id;
    c.adapterVersion = "1";
    return c;
}

RunSpec spec(const std::string &protocol, std::int64_t episode)
{
    RunSpec s;
    s.protocolSha256 = protocol;
    s.episodeIndex = episode;
    s.policy = component(ComponentFamily::Policy, "bench.policy");
    s.worldModel = component(ComponentFamily::WorldModel, "bench.world_model");
    return s;
}

void benchEvents(const fs::path &dir, bool quick)
{
    const fs::path bundle = dir / "events.kosmos";
    fs::remove_all(bundle);
    Ledger ledger = Ledger::create(bundle);
    const auto protocol = ledger.freezeProtocol("bench", {{"bench", true}});
    ledger.submitRun(spec(protocol, 0));
    auto lease = *ledger.claim("bench", 3600 * 1000);

    const int single = quick ? 300 : 3000;
    auto start = Clock::now();
    for (int i = 0; i < single; ++i)
        ledger.appendEvent(lease, "tick", {{"i", i}, {"stage", "world_model"}});
    const double singleRate = single / secondsSince(start);

    const int batches = quick ? 100 : 1000;
    std::vector<std::pair<std::string, nlohmann::json>> batch;
    for (int i = 0; i < 100; ++i)
        batch.emplace_back("tick", nlohmann::json{{"i", i}, {"stage", "world_model"}});
    start = Clock::now();
    for (int b = 0; b < batches; ++b)
        ledger.appendEvents(lease, batch);
    const double batchedRate = batches * 100 / secondsSince(start);
    std::printf("| durable event appends, 1 per transaction (synchronous=FULL, WAL) | %d events | "
                "%.0f events/s |\n",
                single, singleRate);
    std::printf("| durable event appends, 100 per transaction | %d events | %.0f events/s |\n",
                batches * 100, batchedRate);

    // The anchor, in the same run: the sqlite3 shell inserting the same rows (same run, types,
    // payload text, sequence numbers) into the same table of a ledger in the same state (its
    // triggers active), durable the same way (WAL, synchronous=FULL), in transactions of the
    // same size; then all of them in one transaction, for both.
    const int total = batches * 100;
    const auto rows = [&](int perTransaction, std::int64_t firstSeq) {
        std::string sql = "PRAGMA synchronous = FULL;\n";
        const std::string payload = canonicalJson(batch[0].second);
        for (int i = 0; i < total; ++i) {
            if (i % perTransaction == 0)
                sql += "BEGIN IMMEDIATE;\n";
            sql +=
                "INSERT INTO events (run_id, attempt_id, seq, type, payload_json, created_at_ms) "
                "VALUES (1, 1, " +
                std::to_string(firstSeq + i) + ", 'tick', '" + payload + "', " +
                std::to_string(nowMs()) + ");\n";
            if (i % perTransaction == perTransaction - 1 || i == total - 1)
                sql += "COMMIT;\n";
        }
        return sql;
    };
    const auto shell = [&](const std::string &name, int perTransaction) {
        const fs::path b = dir / name;
        fs::remove_all(b);
        std::int64_t firstSeq = 1;
        {
            Ledger l = Ledger::create(b);
            const auto p = l.freezeProtocol("bench", {{"bench", true}});
            const auto r = l.submitRun(spec(p, 0));
            (void)l.claim("bench", 3600 * 1000);
            firstSeq += static_cast<std::int64_t>(l.events(r.runId, 0, 100000).size());
        }
        const fs::path script = dir / (name + ".sql");
        std::ofstream(script) << rows(perTransaction, firstSeq);
        const std::string command =
            "sqlite3 '" + (b / "ledger.sqlite").string() + "' < '" + script.string() + "'";
        const auto t = Clock::now();
        if (std::system(command.c_str()) != 0) {
            std::printf("(the sqlite3 shell failed: %s)\n", command.c_str());
            return std::nan("");
        }
        return total / secondsSince(t);
    };
    const double shell100 = shell("shell-100.kosmos", 100);
    std::printf("| sqlite3 shell, the same %d rows, 100 per transaction, same run | %d events | "
                "%.0f events/s; **ledger / shell = %.2fx** |\n",
                total, total, shell100, batchedRate / shell100);

    std::vector<std::pair<std::string, nlohmann::json>> all(static_cast<std::size_t>(total),
                                                            batch[0]);
    start = Clock::now();
    ledger.appendEvents(lease, all);
    const double oneRate = total / secondsSince(start);
    const double shellOne = shell("shell-one.kosmos", total);
    std::printf("| durable event appends, %d in one transaction | %d events | %.0f events/s |\n",
                total, total, oneRate);
    std::printf("| sqlite3 shell, the same %d rows in one transaction, same run | %d events | "
                "%.0f events/s; **ledger / shell = %.2fx** |\n",
                total, total, shellOne, oneRate / shellOne);

    // What the ledger's integrity costs: the same rows into a bare table of the same columns
    // (no triggers, no indexes, no foreign keys), one transaction.
    const fs::path bare = dir / "bare.sqlite";
    fs::remove(bare);
    {
        std::ofstream(dir / "bare.sql")
            << "PRAGMA journal_mode = WAL;\nCREATE TABLE events (event_id INTEGER PRIMARY KEY, "
               "run_id INTEGER, attempt_id INTEGER, seq INTEGER, type TEXT, payload_json TEXT, "
               "created_at_ms INTEGER);\n"
            << rows(total, 1);
    }
    const auto t = Clock::now();
    const std::string command =
        "sqlite3 '" + bare.string() + "' < '" + (dir / "bare.sql").string() + "' > /dev/null";
    const bool ok = std::system(command.c_str()) == 0;
    const double bareRate = total / secondsSince(t);
    if (ok)
        std::printf("| sqlite3 shell, the same rows into a bare table (no triggers, indexes or "
                    "keys), one transaction | %d events | %.0f events/s |\n",
                    total, bareRate);
}

void benchIngest(const fs::path &dir, bool quick)
{
    const std::size_t size = (quick ? 32u : 256u) << 20;
    const fs::path file = dir / "ingest.bin";
    {
        std::mt19937_64 rng(42);
        std::vector<std::uint64_t> block(1 << 17);
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        for (std::size_t written = 0; written < size; written += block.size() * 8) {
            for (auto &w : block)
                w = rng();
            out.write(reinterpret_cast<const char *>(block.data()),
                      static_cast<std::streamsize>(block.size() * 8));
        }
    }
    const double mib = static_cast<double>(size) / (1 << 20);
    std::vector<double> shaTimes;
    std::vector<double> ingestTimes;
    std::vector<double> dedupTimes;
    const std::string command = "sha256sum '" + file.string() + "' > /dev/null";
    const fs::path store = dir / "ingest-store";
    for (int round = 0; round < 3; ++round) {
        auto start = Clock::now();
        if (std::system(command.c_str()) != 0)
            throw Error(ErrorCode::Io, "sha256sum failed");
        shaTimes.push_back(secondsSince(start));

        fs::remove_all(store);
        ArtifactStore::initialize(store);
        ArtifactStore artifacts(store);
        start = Clock::now();
        const auto object = artifacts.putFile(file, "application/octet-stream");
        ingestTimes.push_back(secondsSince(start));
        start = Clock::now();
        artifacts.putFile(file, "application/octet-stream"); // already present
        dedupTimes.push_back(secondsSince(start));
    }
    const double sha = mib / median(shaTimes);
    const double ingest = mib / median(ingestTimes);
    const double dedup = mib / median(dedupTimes);
    std::printf("| `sha256sum` of the file (page cache warm) | %.0f MiB | %.0f MiB/s |\n", mib,
                sha);
    std::printf(
        "| artifact ingest: hash + copy + fsync + rename + dir fsync | %.0f MiB | %.0f MiB/s "
        "(%.2fx sha256sum) |\n",
        mib, ingest, ingest / sha);
    std::printf("| artifact ingest of content already stored (hash only) | %.0f MiB | %.0f MiB/s "
                "(%.2fx sha256sum) |\n",
                mib, dedup, dedup / sha);
    fs::remove_all(store);
    fs::remove(file);
}

void exec(sqlite3 *db, const char *sql)
{
    char *error = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK)
        throw Error(ErrorCode::Database, std::string(error ? error : "?") + " in " + sql);
}

void benchOpen(const fs::path &dir, bool quick)
{
    const int runs = quick ? 10000 : 100000;
    const int eventsPerRun = 10;
    const fs::path bundle = dir / "large.kosmos";
    if (!fs::exists(bundle / "ledger.sqlite") || quick) {
        fs::remove_all(bundle);
        std::string protocol;
        {
            Ledger ledger = Ledger::create(bundle);
            protocol = ledger.freezeProtocol("bench", {{"bench", true}});
            ledger.submitRun(spec(protocol, 0)); // registers the components
        }
        // Bulk-build through raw SQL in one transaction (the triggers still check every row).
        const auto start = Clock::now();
        sqlite3 *db = nullptr;
        sqlite3_open((bundle / "ledger.sqlite").c_str(), &db);
        exec(db, "PRAGMA synchronous = OFF; BEGIN");
        sqlite3_stmt *run = nullptr;
        sqlite3_stmt *attempt = nullptr;
        sqlite3_stmt *event = nullptr;
        sqlite3_prepare_v2(db,
                           "INSERT INTO runs (run_key, key_json, protocol_id, episode_index, "
                           "policy_id, world_model_id, status, created_at_ms, finished_at_ms) "
                           "VALUES (printf('%064x', ?1), '{}', 1, ?1, 1, 2, ?2, 0, "
                           "CASE WHEN ?2 IN ('completed','failed') THEN 1 END)",
                           -1, &run, nullptr);
        // Attempts are inserted running, given their events, then closed (as the API does).
        sqlite3_prepare_v2(db,
                           "INSERT INTO attempts (run_id, attempt_no, worker_id, lease_token, "
                           "state, started_at_ms, heartbeat_at_ms, lease_expires_at_ms) "
                           "VALUES (?1, 1, 'w', 'tok' || ?1, 'running', 0, 0, 0)",
                           -1, &attempt, nullptr);
        sqlite3_stmt *close = nullptr;
        sqlite3_prepare_v2(db,
                           "UPDATE attempts SET state = ?2, finished_at_ms = 1, "
                           "seal_sha256 = printf('%064x', 0) WHERE attempt_id = ?1",
                           -1, &close, nullptr);
        sqlite3_prepare_v2(db,
                           "INSERT INTO events (run_id, attempt_id, seq, type, payload_json, "
                           "created_at_ms) VALUES (?1, ?2, ?3, 'tick', '{\"i\":1}', 0)",
                           -1, &event, nullptr);
        for (int r = 2; r <= runs + 1; ++r) { // run 1 came from submitRun
            const char *status = r % 20 == 0   ? "failed"
                                 : r % 50 == 1 ? "queued"
                                 : r % 97 == 0 ? "running"
                                               : "completed";
            sqlite3_bind_int64(run, 1, r);
            sqlite3_bind_text(run, 2, status, -1, SQLITE_STATIC);
            if (sqlite3_step(run) != SQLITE_DONE)
                throw Error(ErrorCode::Database, sqlite3_errmsg(db));
            sqlite3_reset(run);
            sqlite3_int64 attemptId = 0;
            if (std::string(status) != "queued") {
                sqlite3_bind_int64(attempt, 1, r);
                if (sqlite3_step(attempt) != SQLITE_DONE)
                    throw Error(ErrorCode::Database, sqlite3_errmsg(db));
                sqlite3_reset(attempt);
                attemptId = sqlite3_last_insert_rowid(db);
            }
            for (int e = 1; e <= eventsPerRun; ++e) {
                sqlite3_bind_int64(event, 1, r);
                if (attemptId && e > 1)
                    sqlite3_bind_int64(event, 2, attemptId);
                else
                    sqlite3_bind_null(event, 2);
                sqlite3_bind_int64(event, 3, e);
                if (sqlite3_step(event) != SQLITE_DONE)
                    throw Error(ErrorCode::Database, sqlite3_errmsg(db));
                sqlite3_reset(event);
            }
            if (attemptId && std::string(status) != "running") {
                sqlite3_bind_int64(close, 1, attemptId);
                sqlite3_bind_text(close, 2, status, -1, SQLITE_STATIC);
                if (sqlite3_step(close) != SQLITE_DONE)
                    throw Error(ErrorCode::Database, sqlite3_errmsg(db));
                sqlite3_reset(close);
            }
        }
        sqlite3_finalize(run);
        sqlite3_finalize(attempt);
        sqlite3_finalize(event);
        sqlite3_finalize(close);
        exec(db, "COMMIT; PRAGMA wal_checkpoint(TRUNCATE)");
        sqlite3_close(db);
        std::printf("(built a %d-run, %d-event ledger in %.1f s)\n", runs, runs * eventsPerRun,
                    secondsSince(start));
    }
    std::vector<double> times;
    LedgerInfo info;
    for (int i = 0; i < 7; ++i) {
        const auto start = Clock::now();
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        info = ledger.info();
        times.push_back(secondsSince(start) * 1000.0);
    }
    std::printf("| open a ledger of %lld runs and %lld events and read its counts (median of 7, "
                "max %.1f ms) | %s | %.1f ms |\n",
                static_cast<long long>(info.runs), static_cast<long long>(info.events),
                *std::max_element(times.begin(), times.end()),
                (std::to_string(fs::file_size(bundle / "ledger.sqlite") >> 20) + " MiB").c_str(),
                median(times));
}

} // namespace

int main(int argc, char **argv)
{
    fs::path dir = "bench-data";
    bool quick = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--quick")
            quick = true;
        else
            dir = arg;
    }
    try {
        fs::create_directories(dir);
        std::printf("| measurement | size | result |\n|---|---|---|\n");
        benchEvents(dir, quick);
        benchIngest(dir, quick);
        benchOpen(dir, quick);
    } catch (const std::exception &e) {
        std::cerr << "kosmos-bench-ledger: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
