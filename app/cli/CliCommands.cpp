#include "CliCommands.h"

#include "TerminalProgress.h"
#include "ledger/Ledger.h"
#include "util/Error.h"
#include "util/GpuMonitor.h"
#include "verify/LedgerVerifier.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <thread>

using namespace kosmos;

int runInit(const std::string &bundle)
{
    try {
        Ledger ledger = Ledger::create(bundle);
        std::cout << "created ledger " << ledger.bundle().string() << " (schema version "
                  << ledger.schemaVersion() << ")\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runGpus(bool json)
{
    const GpuSnapshot snapshot = GpuMonitor::instance().sample();
    if (json) {
        std::cout << snapshot.toJson().dump(2) << "\n";
        return 0;
    }
    if (!snapshot.available || snapshot.devices.empty()) {
        std::cout << snapshot.summary() << "\n";
        return 0;
    }
    std::cout << "driver " << snapshot.driverVersion << "\n";
    for (const GpuDevice &d : snapshot.devices) {
        std::printf(
            "cuda:%d  %-24s %8.1f GiB free of %8.1f GiB  busy %s\n", d.index, d.name.c_str(),
            static_cast<double>(d.freeBytes) / (1ll << 30),
            static_cast<double>(d.totalBytes) / (1ll << 30),
            d.utilizationPercent < 0 ? "-" : (std::to_string(d.utilizationPercent) + "%").c_str());
        for (const GpuProcess &p : d.processes)
            std::printf("        pid %d holds %.1f GiB\n", p.pid,
                        static_cast<double>(p.usedBytes) / (1ll << 30));
    }
    std::fflush(stdout);
    return 0;
}

int runGc(const std::string &bundle, int minAgeSeconds, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle);
        const StrayRemoval r = removeStrayObjects(ledger, minAgeSeconds);
        if (json) {
            std::cout << nlohmann::json({{"bundle", ledger.bundle().string()},
                                         {"removed", r.removed},
                                         {"failed", r.failed},
                                         {"kept_younger_than_min_age", r.keptYoung}})
                             .dump(2)
                      << "\n";
        } else {
            for (const auto &sha : r.failed)
                std::cout << "could not remove " << ledger.artifacts().objectPath(sha).string()
                          << "\n";
            std::cout << "removed " << r.removed.size()
                      << " object file(s) that no artifact row names";
            if (r.keptYoung > 0)
                std::cout << "; kept " << r.keptYoung << " younger than " << minAgeSeconds
                          << " s (a writer may be about to record them)";
            std::cout << " in " << ledger.bundle().string() << "\n";
        }
        return r.failed.empty() ? ExitCode::Ok : ExitCode::Failed;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runVerify(const std::string &bundle, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        TerminalProgress progress;
        const VerifyReport result =
            verifyLedger(ledger, [&](std::string_view stage, std::int64_t done,
                                     std::int64_t total) { progress.update(stage, done, total); });
        progress.finish();
        if (json) {
            nlohmann::json out = {{"bundle", ledger.bundle().string()},
                                  {"clean", result.clean()},
                                  {"runs_checked", result.runsChecked},
                                  {"attempts_checked", result.attemptsChecked},
                                  {"events_checked", result.eventsChecked},
                                  {"artifacts_checked", result.artifactsChecked},
                                  {"judge_samples_checked", result.judgeSamplesChecked},
                                  {"judgments_rechecked", result.judgmentsRechecked},
                                  {"notes", result.notes},
                                  {"problems", nlohmann::json::array()}};
            for (const auto &p : result.problems)
                out["problems"].push_back(
                    {{"check", p.check}, {"where", p.where}, {"message", p.message}});
            std::cout << out.dump(2) << "\n";
        } else {
            for (const auto &p : result.problems)
                std::cout << "PROBLEM [" << p.check << "] " << p.where << ": " << p.message << "\n";
            for (const auto &note : result.notes)
                std::cout << "note: " << note << "\n";
            std::cout << (result.clean() ? "clean: " : "NOT CLEAN: ") << result.problems.size()
                      << " problem(s); checked " << result.runsChecked << " runs, "
                      << result.attemptsChecked << " attempts, " << result.eventsChecked
                      << " events, " << result.artifactsChecked << " artifacts, "
                      << result.judgeSamplesChecked << " judge samples, rechecked "
                      << result.judgmentsRechecked << " judgments in " << ledger.bundle().string()
                      << "\n";
        }
        return result.clean() ? ExitCode::Ok : ExitCode::ProblemsFound;
    } catch (const Error &e) {
        return reportError(e);
    }
}
