// The verbs `kosmos-cli` answers without loading the rest of the program (app/cli/front.cpp):
// `info` and `events` read the ledger only. Also linked into the full program, which offers them
// too (`kosmos-cli info --help`, the shell completion).
#include "CliCommands.h"

#include "ledger/Ledger.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <iostream>
#include <thread>

using namespace kosmos;

namespace {

std::atomic<bool> g_interrupted{false};

void onSignal(int)
{
    g_interrupted = true;
}

std::string isoTime(std::int64_t ms)
{
    const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&seconds, &tm);
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms % 1000));
    return buffer;
}

std::string humanBytes(std::int64_t bytes)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024.0 && unit < 4) {
        value /= 1024.0;
        ++unit;
    }
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
    return buffer;
}

} // namespace

int finishOutput(int code)
{
    errno = 0;
    std::cout.flush();
    const bool failed = !std::cout || std::fflush(stdout) != 0 || std::ferror(stdout);
    if (!failed)
        return code;
    std::cerr << "kosmos-cli: error [io]: could not write to standard output"
              << (errno ? std::string(": ") + std::strerror(errno)
                        : std::string(" (a full disk, or a closed descriptor)"))
              << "\n";
    return code == ExitCode::Ok ? ExitCode::Failed : code;
}

int reportError(const Error &e)
{
    std::cerr << "kosmos-cli: error [" << errorCodeName(e.code()) << "]: " << e.what() << "\n";
    switch (e.code()) {
    case ErrorCode::NoLedger:
    case ErrorCode::NotALedger:
    case ErrorCode::NewerSchema:
    case ErrorCode::MigrationFailed:
        return ExitCode::CannotOpen; // only the ledger itself: an unknown plugin, run or key is 4
    case ErrorCode::Busy:
        return ExitCode::Unfinished; // held by another live process: the same command again

    default:
        return ExitCode::Failed;
    }
}

int runInfo(const std::string &bundle, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const LedgerInfo info = ledger.info();
        if (json) {
            nlohmann::json out = {{"bundle", ledger.bundle().string()},
                                  {"schema_version", info.schemaVersion},
                                  {"creator", info.creatorVersion},
                                  {"runs", info.runs},
                                  {"attempts", info.attempts},
                                  {"events", info.events},
                                  {"artifacts", info.artifacts},
                                  {"artifact_bytes", info.artifactBytes},
                                  {"database_bytes", info.databaseBytes},
                                  {"protocols", info.protocols},
                                  {"judgments", info.judgments},
                                  {"human_labels", info.humanLabels},
                                  {"labels_by_source", info.labelsBySource}};
            for (const auto &[status, count] : info.runsByStatus)
                out["runs_by_status"][status] = count;
            std::cout << out.dump(2) << "\n";
            return ExitCode::Ok;
        }
        std::cout << "ledger         " << ledger.bundle().string() << "\n"
                  << "schema version " << info.schemaVersion << " (created by "
                  << info.creatorVersion << ")\n"
                  << "runs           " << info.runs << "\n";
        for (const auto &[status, count] : info.runsByStatus)
            std::cout << "  " << status << std::string(13 - status.size(), ' ') << count << "\n";
        std::cout << "attempts       " << info.attempts << "\n"
                  << "events         " << info.events << "\n"
                  << "protocols      " << info.protocols << "\n"
                  << "judgments      " << info.judgments << "\n"
                  << "human labels   " << info.humanLabels << "\n";
        for (const auto &[source, count] : info.labelsBySource)
            if (source != "human") // e.g. the demo's synthetic ground truth: not human
                std::cout << "  + " << source << " " << count << "\n";
        std::cout << "artifacts      " << info.artifacts << " (" << humanBytes(info.artifactBytes)
                  << ")\n"
                  << "database       " << humanBytes(info.databaseBytes) << "\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runEvents(const std::string &bundle, const std::string &runText, bool follow, bool json,
              int pollIntervalMs)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const std::optional<RunRecord> run = ledger.resolveRun(runText);
        if (!run) {
            std::cerr << "kosmos-cli: error [not_found]: no run '" << runText << "' in "
                      << ledger.bundle().string() << "\n";
            return ExitCode::Failed;
        }
        std::signal(SIGINT, onSignal);
        std::signal(SIGTERM, onSignal);

        std::int64_t lastSeq = 0;
        std::int64_t lastVersion = -1;
        for (;;) {
            const auto batch = ledger.events(run->runId, lastSeq, 1000);
            for (const EventRecord &e : batch) {
                if (json) {
                    nlohmann::json line = {{"event_id", e.eventId},
                                           {"run_id", e.runId},
                                           {"seq", e.seq},
                                           {"type", e.type},
                                           {"created_at_ms", e.createdAtMs},
                                           {"payload", nlohmann::json::parse(e.payloadJson)}};
                    line["attempt_id"] = e.attemptId ? nlohmann::json(*e.attemptId) : nullptr;
                    std::cout << line.dump() << "\n";
                } else {
                    std::cout << e.seq << "\t" << isoTime(e.createdAtMs) << "\t"
                              << (e.attemptId ? "attempt " + std::to_string(*e.attemptId)
                                              : std::string("run"))
                              << "\t" << e.type << "\t" << e.payloadJson << "\n";
                }
                lastSeq = e.seq;
            }
            std::cout.flush();
            if (batch.size() == 1000)
                continue;
            if (!follow)
                return ExitCode::Ok;
            // Stop once the run has finished and everything it wrote has been printed.
            const auto now = ledger.run(run->runId);
            const bool finished = now && now->finishedAtMs.has_value();
            if (finished && ledger.events(run->runId, lastSeq, 1).empty())
                return ExitCode::Ok;
            // Wait for another process to commit (PRAGMA data_version changes).
            for (;;) {
                if (g_interrupted)
                    return ExitCode::Interrupted;
                const std::int64_t version = ledger.dataVersion();
                if (version != lastVersion) {
                    lastVersion = version;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(pollIntervalMs));
            }
        }
    } catch (const Error &e) {
        return reportError(e);
    } catch (const std::exception &e) {
        std::cerr << "kosmos-cli: error: " << e.what() << "\n";
        return ExitCode::Failed;
    }
}
