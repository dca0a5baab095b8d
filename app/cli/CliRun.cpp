// kosmos-cli plugins / run / demo: wiring of the plugin registry and the rollout engine.
#include "CliCommands.h"
#include "DemoProtocol.h"
#include "TerminalProgress.h"

#include "host/PluginComponentFactory.h"
#include "host/PluginRegistry.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerVerifier.h"
#include "pipeline/BatchSummary.h"
#include "pipeline/Importer.h"
#include "pipeline/RolloutEngine.h"
#include "util/Error.h"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <unistd.h>

using namespace kosmos;

namespace {

std::atomic<bool> g_stop{false};

void onInterrupt(int)
{
    g_stop = true;
}

std::string percent(const std::optional<double> &v)
{
    if (!v)
        return "n/a";
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%.0f%%", *v * 100.0);
    return buffer;
}

std::string rate(const Proportion &p)
{
    if (p.n == 0)
        return "n = 0 (no rate)";
    return std::to_string(p.successes) + "/" + std::to_string(p.n) + " = " + percent(p.rate) +
           " [95% CI " + percent(p.lower) + "-" + percent(p.upper) + "]";
}

void scan(PluginRegistry &registry, const std::string &executableDir)
{
    registry.scan(PluginRegistry::searchPath(executableDir));
}

int execute(const std::string &executableDir, const Protocol &protocol, const std::string &bundle,
            int workers)
{
    PluginRegistry registry;
    scan(registry, executableDir);
    PluginComponentFactory factory(registry);
    EngineOptions options;
    options.workers = workers;
    options.workerName = "kosmos-cli";
    RolloutEngine engine(bundle, factory, options);
    const SubmittedBatch batch = engine.submit(protocol);
    std::cout << "protocol " << protocol.name << " frozen as " << batch.protocolSha256.substr(0, 16)
              << "...: " << batch.runIds.size() << " runs (" << batch.created << " new, "
              << batch.existing << " already in the ledger)\n";

    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    TerminalProgress bar;
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    std::size_t finished = 0;
    const auto result = engine.run(protocol, batch, g_stop, [&](const EngineProgress &p) {
        if (p.kind == EngineProgress::Kind::RunFinished ||
            p.kind == EngineProgress::Kind::RunSkipped)
            ++finished;
        if (terminal) {
            bar.update("runs", static_cast<std::int64_t>(finished),
                       static_cast<std::int64_t>(batch.runIds.size()));
        } else if (p.kind == EngineProgress::Kind::RunFinished) {
            std::cout << "run " << p.runId << " " << p.state
                      << (p.detail.empty() ? "" : ": " + p.detail) << "\n";
        }
        if (terminal && p.kind == EngineProgress::Kind::RunFinished && p.state == "failed") {
            bar.finish();
            std::cerr << "run " << p.runId << " failed: " << p.detail << "\n";
        }
    });
    bar.finish();
    std::cout << "completed " << result.completed << ", failed " << result.failed << ", cancelled "
              << result.cancelled << ", already finished " << result.skipped << "\n\n";

    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    for (const PolicySummary &row : summarizeProtocol(ledger, batch.protocolSha256)) {
        std::cout << row.policy << "\n"
                  << "  runs " << row.runs << ": completed " << row.completed << ", failed "
                  << row.failed << ", cancelled " << row.cancelled << ", unfinished "
                  << row.unfinished << "; validation invalid " << row.validationInvalid << "\n"
                  << "  reference success (synthetic world ground truth): " << rate(row.reference)
                  << "\n"
                  << "  judge success over decisive judgments:            " << rate(row.judge)
                  << "; unknown " << row.judgeUnknown << "\n";
    }
    std::cout << "\nThese are rollouts in a generated or synthetic world, not evidence of real "
                 "robot-task "
                 "success.\nledger: "
              << ledger.bundle().string() << "\n";
    if (g_stop)
        return ExitCode::Interrupted;
    return result.failed > 0 ? ExitCode::RunsFailed : ExitCode::Ok;
}

int reportError(const Error &e)
{
    std::cerr << "kosmos-cli: error [" << errorCodeName(e.code()) << "]: " << e.what() << "\n";
    switch (e.code()) {
    case ErrorCode::NotALedger:
    case ErrorCode::NewerSchema:
    case ErrorCode::MigrationFailed:
        return ExitCode::CannotOpen;
    default:
        return ExitCode::Failed;
    }
}

} // namespace

int runPlugins(const std::string &executableDir, bool json)
{
    PluginRegistry registry;
    const auto folders = PluginRegistry::searchPath(executableDir);
    registry.scan(folders);
    nlohmann::json out = nlohmann::json::array();
    for (const auto &p : registry.plugins()) {
        const Availability a = p.usable ? registry.availability(p.id, nlohmann::json::object())
                                        : Availability::no(p.problem);
        if (json) {
            out.push_back({{"path", p.path.string()},
                           {"id", p.id},
                           {"family", p.family},
                           {"version", p.version},
                           {"api_version", p.apiVersion},
                           {"requires", p.metadata.is_object()
                                            ? p.metadata.value("requires", nlohmann::json::object())
                                            : nlohmann::json::object()},
                           {"available", a.available},
                           {"reason", a.reason}});
            continue;
        }
        std::cout << (a.available ? "available    " : "UNAVAILABLE  ")
                  << (p.id.empty() ? "?" : p.id) << "  " << (p.family.empty() ? "?" : p.family)
                  << "  v" << (p.version.empty() ? "?" : p.version) << "  api " << p.apiVersion
                  << "\n    " << p.path.string() << "\n";
        if (!a.available)
            std::cout << "    reason: " << a.reason << "\n";
    }
    if (json) {
        std::cout << out.dump(2) << "\n";
    } else {
        std::cout << registry.plugins().size() << " plugin(s) found in:";
        for (const auto &f : folders)
            std::cout << " " << f.lexically_normal().string();
        std::cout << "\n";
    }
    return ExitCode::Ok;
}

int runProtocol(const std::string &executableDir, const std::string &protocolPath,
                const std::string &bundle, int workers, bool)
{
    try {
        const Protocol protocol = Protocol::fromFile(protocolPath);
        {
            Ledger::open(bundle);
        } // a clear error before anything else when the ledger is missing
        return execute(executableDir, protocol, bundle, workers);
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runDemo(const std::string &executableDir, const std::string &bundle, int workers)
{
    try {
        const Protocol protocol = Protocol::fromJson(nlohmann::json::parse(kDemoProtocol));
        if (!std::filesystem::exists(std::filesystem::path(bundle) / "ledger.sqlite")) {
            Ledger::create(bundle);
            std::cout << "created ledger " << bundle << "\n";
        }
        return execute(executableDir, protocol, bundle, workers);
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runImport(const std::string &directory, const std::string &bundle)
{
    try {
        Ledger ledger = Ledger::open(bundle);
        const ImportResult r = importDirectory(ledger, directory);
        if (r.state == "already_finished") {
            std::cout << "already imported as run " << r.runId << " (nothing changed)\n";
            return ExitCode::Ok;
        }
        if (r.state == "failed") {
            std::cerr << "kosmos-cli: import of " << directory << " failed [" << r.errorCode
                      << "]: " << r.error << "\nrecorded as run " << r.runId
                      << " (a failed attempt that keeps what was imported)\n";
            return ExitCode::RunsFailed;
        }
        std::cout << "imported " << directory << " as run " << r.runId << ": " << r.frames
                  << " frames, " << r.actions << " actions (provenance: imported)\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}
