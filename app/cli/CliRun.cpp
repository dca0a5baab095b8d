// kosmos-cli plugins / run / demo: wiring of the plugin registry and the rollout engine.
#include "CliCommands.h"
#include "DemoProtocol.h"
#include "TerminalProgress.h"

#include "host/PluginComponentFactory.h"
#include "host/PluginRegistry.h"
#include "judge/JudgmentQuery.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerVerifier.h"
#include "media/RolloutExport.h"
#include "pipeline/BatchSummary.h"
#include "pipeline/Importer.h"
#include "pipeline/Rejudge.h"
#include "util/JsonFields.h"

#include "pipeline/RolloutEngine.h"
#include "util/Error.h"
#include <fstream>

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

std::vector<std::filesystem::path> pluginFolders(const std::string &executableDir)
{
    return PluginRegistry::configuredSearchPath(executableDir);
}

void scan(PluginRegistry &registry, const std::string &executableDir)
{
    registry.scan(pluginFolders(executableDir));
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

} // namespace

int runPlugins(const std::string &executableDir, bool json)
{
    PluginRegistry registry;
    const auto folders = pluginFolders(executableDir);
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

int runJudge(const std::string &executableDir, const std::string &bundle,
             const std::string &runText, const std::string &configPath)
{
    try {
        std::ifstream in(configPath);
        if (!in)
            throw Error(ErrorCode::InvalidInput, "cannot read judge configuration " + configPath);
        nlohmann::json config;
        try {
            config = nlohmann::json::parse(in);
        } catch (const nlohmann::json::exception &e) {
            throw Error(ErrorCode::InvalidInput,
                        configPath + ": not valid JSON (" + e.what() + ")");
        }
        ComponentSpec spec;
        spec.plugin = json::requireString(config, "plugin", configPath);
        if (config.contains("settings"))
            spec.settings = json::requireObject(config, "settings", configPath);
        const QuorumSettings quorum = QuorumSettings::fromJson(
            config.value("quorum", nlohmann::json::object()), configPath + ".quorum");
        PluginRegistry registry;
        scan(registry, executableDir);
        PluginComponentFactory factory(registry);
        Ledger ledger = Ledger::open(bundle);
        std::vector<std::int64_t> runs;
        if (runText == "--all") {
            runs = judgeableRuns(ledger);
        } else {
            const auto run = ledger.resolveRun(runText);
            if (!run)
                throw Error(ErrorCode::InvalidInput, "no run '" + runText + "' in " + bundle);
            runs.push_back(run->runId);
        }
        std::signal(SIGINT, onInterrupt);
        const auto outcomes = rejudgeRuns(ledger, factory, spec, quorum, runs, g_stop);
        int failed = 0;
        for (const auto &o : outcomes) {
            std::cout << "run " << o.sourceRunId << ": " << o.state;
            if (o.runId)
                std::cout << " (judgment recorded in run " << o.runId << ")";
            std::cout << (o.detail.empty() ? "" : " - " + o.detail) << "\n";
            failed += o.state == "failed";
        }
        if (g_stop)
            return ExitCode::Interrupted;
        return failed ? ExitCode::RunsFailed : ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runJudgments(const std::string &bundle, const std::string &runText, bool json)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto run = ledger.resolveRun(runText);
        if (!run)
            throw Error(ErrorCode::InvalidInput, "no run '" + runText + "' in " + bundle);
        const auto judgments = judgmentsOfRun(ledger, run->runId);
        if (json) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto &j : judgments) {
                nlohmann::json samples = nlohmann::json::array();
                for (const auto &s : j.samples)
                    samples.push_back(
                        {{"sample_index", s.sampleIndex},
                         {"try_index", s.tryIndex},
                         {"seed", s.seed ? nlohmann::json(*s.seed) : nlohmann::json()},
                         {"format_class", s.formatClass},
                         {"raw_text", s.rawText ? nlohmann::json(*s.rawText) : nlohmann::json()},
                         {"parse_error",
                          s.parseError ? nlohmann::json(*s.parseError) : nlohmann::json()}});
                out.push_back(
                    {{"judgment_id", j.judgmentId},
                     {"run_id", j.runId},
                     {"rejudged", j.rejudged},
                     {"judge", j.judge},
                     {"outcome", j.outcome},
                     {"unknown_reason",
                      j.unknownReason ? nlohmann::json(*j.unknownReason) : nlohmann::json()},
                     {"progress", j.progress ? nlohmann::json(*j.progress) : nlohmann::json()},
                     {"settings", j.settings},
                     {"frame_indices", j.frameIndices},
                     {"samples", samples}});
            }
            std::cout << out.dump(2) << "\n";
            return ExitCode::Ok;
        }
        std::cout << "run " << run->runId << " (" << run->task.value_or("?")
                  << "): " << judgments.size() << " judgment(s)\n";
        for (const auto &j : judgments) {
            std::cout << "\njudgment " << j.judgmentId
                      << (j.rejudged ? " [re-judged in run " + std::to_string(j.runId) + "]" : "")
                      << "  judge " << j.judge << "\n  outcome " << j.outcome
                      << (j.unknownReason ? " (" + *j.unknownReason + ")" : "") << "  progress "
                      << (j.progress ? std::to_string(*j.progress) : std::string("null"))
                      << "  decisive votes "
                      << (j.decisiveVotes ? std::to_string(*j.decisiveVotes) : std::string("?"))
                      << "\n  settings " << j.settings.dump() << "\n  frames "
                      << j.frameIndices.dump() << "\n";
            for (const auto &s : j.samples) {
                std::string raw = s.rawText.value_or("(no answer)");
                for (auto &c : raw)
                    c = c == '\n' ? ' ' : c;
                if (raw.size() > 160)
                    raw = raw.substr(0, 157) + "...";
                std::cout << "  sample " << s.sampleIndex << (s.tryIndex ? " retry" : "      ")
                          << " seed " << (s.seed ? std::to_string(*s.seed) : std::string("?"))
                          << "  " << s.formatClass << "  " << raw
                          << (s.parseError ? "  [" + *s.parseError + "]" : "") << "\n";
            }
        }
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}

int runExport(const std::string &bundle, const std::string &runText, const std::string &directory,
              bool video)
{
    try {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto run = ledger.resolveRun(runText);
        if (!run)
            throw Error(ErrorCode::InvalidInput, "no run '" + runText + "' in " + bundle);
        TerminalProgress bar;
        const auto r =
            exportRollout(ledger, run->runId, directory, video, true, [&](int done, int total) {
                bar.update("export", done, total);
                return !g_stop;
            });
        bar.finish();
        std::cout << "run " << run->runId << ": " << r.frames << " frames to "
                  << r.framesDir.string() << ", " << r.actions << " actions to " << r.csv.string()
                  << (r.video.empty() ? std::string() : ", video " + r.video.string()) << "\n";
        return ExitCode::Ok;
    } catch (const Error &e) {
        return reportError(e);
    }
}
