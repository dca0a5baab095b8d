// kosmos-cli end to end: every verb, its output and its exit codes.
#include "evaluation/AnnotationPacket.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "ledger/Schema.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <map>
#include <thread>

using namespace kosmos;
using kosmos::test::runProcess;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A ledger with one completed run (3 events + 2 artifacts) and one queued run.
fs::path makeLedger(const TempDir &dir, StoredObject *blobOut = nullptr)
{
    const fs::path bundle = dir / "cli.kosmos";
    Ledger ledger = Ledger::create(bundle);
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    ledger.submitRun(test::testRunSpec(protocol, 0));
    ledger.submitRun(test::testRunSpec(protocol, 1));
    auto lease = ledger.claim("w", 30000);
    const auto blob =
        ledger.artifacts().putBytes(test::randomBytes(2048, 1), "application/octet-stream");
    ledger.attachArtifact(*lease, "blob", "b.bin", blob);
    ledger.putArtifact(*lease, "frame", "f.png", test::testImage(8, 8, 1), "image/png");
    ledger.finishAttempt(*lease, AttemptOutcome::completed());
    if (blobOut)
        *blobOut = blob;
    return bundle;
}

} // namespace

TEST(Cli, InitCreatesALedgerAndRefusesToOverwriteIt)
{
    TempDir dir;
    const auto bundle = (dir / "new.kosmos").string();
    auto r = runProcess({test::cliPath(), "init", bundle});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.output.find("created ledger"), std::string::npos) << r.output;
    EXPECT_TRUE(fs::exists(dir / "new.kosmos" / "ledger.sqlite"));
    r = runProcess({test::cliPath(), "init", bundle});
    EXPECT_EQ(r.exitCode, 4);
}

TEST(Cli, InfoShowsSchemaCountsAndSize)
{
    TempDir dir;
    const auto bundle = makeLedger(dir);
    auto r = runProcess({test::cliPath(), "info", bundle.string()});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.output.find("schema version " + std::to_string(currentSchema().version)),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("completed    1"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("queued       1"), std::string::npos) << r.output;

    r = runProcess({test::cliPath(), "info", (bundle / "ledger.sqlite").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0);
    const auto info = nlohmann::json::parse(r.output);
    EXPECT_EQ(info["runs"], 2);
    EXPECT_EQ(info["runs_by_status"]["completed"], 1);
    EXPECT_EQ(info["artifacts"], 2);
    EXPECT_GT(info["database_bytes"].get<std::int64_t>(), 0);
}

TEST(Cli, TheFrontAnswersLedgerReadsAloneAndExactlyAsTheFullProgram)
{
    TempDir dir;
    const auto bundle = makeLedger(dir).string();
    // `--` is a form the front leaves to the full program (QCommandLineParser: end of options),
    // so each pair below is the same command answered by each of them.
    const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> pairs = {
        {{"info", bundle}, {"info", "--", bundle}},
        {{"info", bundle, "--json"}, {"info", "--json", "--", bundle}},
        {{"events", bundle, "1"}, {"events", "--", bundle, "1"}},
        {{"events", "--json", bundle, "1"}, {"events", "--json", "--", bundle, "1"}},
        {{"events", bundle, "1", "--interval-ms", "5", "--follow"},
         {"events", "--interval-ms=5", "--follow", "--", bundle, "1"}},
        {{"events", bundle, "999"}, {"events", "--", bundle, "999"}},
        {{"info", (dir / "missing.kosmos").string()},
         {"info", "--", (dir / "missing.kosmos").string()}},
        {{"--version"}, {"--version", "--"}},
    };
    for (const auto &[front, full] : pairs) {
        std::vector<std::string> a{test::cliPath()}, b{test::cliPath()};
        a.insert(a.end(), front.begin(), front.end());
        b.insert(b.end(), full.begin(), full.end());
        const auto ra = runProcess(a);
        const auto rb = runProcess(b);
        EXPECT_EQ(ra.exitCode, rb.exitCode) << front[0];
        EXPECT_EQ(ra.output, rb.output) << front[0];
    }

#ifndef KOSMOS_CLI_SPLIT_OFF
    // The front loads neither Qt nor the image codecs nor FFmpeg (the dynamic loader's own log).
    ::setenv("LD_DEBUG", "files", 1);
    ::setenv("LD_DEBUG_OUTPUT", (dir / "ld").string().c_str(), 1);
    const auto r = runProcess({test::cliPath(), "info", bundle});
    ::unsetenv("LD_DEBUG");
    ::unsetenv("LD_DEBUG_OUTPUT");
    EXPECT_EQ(r.exitCode, 0);
    std::string loaded;
    for (const auto &entry : fs::directory_iterator(dir.path()))
        if (entry.path().filename().string().rfind("ld.", 0) == 0)
            loaded += test::readFile(entry.path());
    ASSERT_NE(loaded.find("libsqlite3"), std::string::npos) << "no loader log was written";
    for (const char *heavy : {"libQt6Core", "libopencv_imgcodecs", "libavcodec", "libgdal"})
        EXPECT_EQ(loaded.find(heavy), std::string::npos) << heavy << " was loaded";
#endif
}

TEST(Cli, VerifyExitsZeroWhenCleanAndOneWithEachProblemListed)
{
    TempDir dir;
    StoredObject blob;
    const auto bundle = makeLedger(dir, &blob);
    auto r = runProcess({test::cliPath(), "verify", bundle.string()});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("clean"), std::string::npos);

    fs::resize_file(bundle / "objects" / blob.sha256.substr(0, 2) / blob.sha256.substr(2), 10);
    r = runProcess({test::cliPath(), "verify", bundle.string()});
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("PROBLEM [artifact_size]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(blob.sha256.substr(2, 16)), std::string::npos) << "names the file";

    r = runProcess({test::cliPath(), "verify", bundle.string(), "--json"});
    EXPECT_EQ(r.exitCode, 1);
    const auto report = nlohmann::json::parse(r.output);
    EXPECT_FALSE(report["clean"].get<bool>());
    EXPECT_EQ(report["problems"].size(), 1u);
}

TEST(Cli, EventsPrintsARunsEventsByIdOrKeyPrefix)
{
    TempDir dir;
    const auto bundle = makeLedger(dir);
    auto r = runProcess({test::cliPath(), "events", bundle.string(), "1"});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.output.find("run_submitted"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("attempt_finished"), std::string::npos) << r.output;

    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const std::string prefix = ledger.run(1)->runKey.substr(0, 12);
    r = runProcess({test::cliPath(), "events", bundle.string(), prefix, "--json"});
    EXPECT_EQ(r.exitCode, 0);
    std::istringstream lines(r.output);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
        const auto e = nlohmann::json::parse(line);
        EXPECT_EQ(e["seq"], ++n);
    }
    EXPECT_EQ(n, 3);

    r = runProcess({test::cliPath(), "events", bundle.string(), "99"});
    EXPECT_EQ(r.exitCode, 4);
}

TEST(Cli, EventsFollowSeesAnotherProcessWriteAndStopsWhenTheRunEnds)
{
    TempDir dir;
    const auto bundle = makeLedger(dir); // run 2 is queued
    const auto out = dir / "follow.out";
    const pid_t follower = test::startProcess(
        {test::cliPath(), "events", bundle.string(), "2", "--follow", "--interval-ms", "20"}, out);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto writer = test::runProcess({test::toolPath(), "emit", bundle.string(), "5", "30"});
    ASSERT_EQ(writer.exitCode, 0);
    const auto result = test::waitProcess(follower);
    EXPECT_EQ(result.exitCode, 0);
    const std::string text = test::readFile(out);
    int ticks = 0;
    for (std::size_t pos = text.find("\ttick\t"); pos != std::string::npos;
         pos = text.find("\ttick\t", pos + 1))
        ++ticks;
    EXPECT_EQ(ticks, 5) << text;
    EXPECT_NE(text.find("attempt_finished"), std::string::npos) << text;
}

TEST(Cli, BadInputGetsAClearMessageAndDocumentedExitCode)
{
    TempDir dir;
    EXPECT_EQ(runProcess({test::cliPath()}).exitCode, 2);
    EXPECT_EQ(runProcess({test::cliPath(), "frobnicate", "x"}).exitCode, 2);
    EXPECT_EQ(runProcess({test::cliPath(), "info"}).exitCode, 2);
    EXPECT_EQ(runProcess({test::cliPath(), "events", "a", "b", "--interval-ms", "0"}).exitCode, 2);
    EXPECT_EQ(runProcess({test::cliPath(), "info", (dir / "missing.kosmos").string()}).exitCode, 3);
    std::ofstream(dir / "ledger.sqlite")
        << "not sqlite, just text, long enough to be read as a header";
    EXPECT_EQ(runProcess({test::cliPath(), "verify", (dir / "ledger.sqlite").string()}).exitCode,
              3);
    const auto help = runProcess({test::cliPath(), "--help"});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_NE(help.output.find("Exit codes"), std::string::npos);

    // One verb table: --help lists every verb, each verb has its own help with only its
    // options, and the bash completion knows the same verbs and options.
    const auto completion = runProcess({test::cliPath(), "completion", "bash"});
    ASSERT_EQ(completion.exitCode, 0);
    for (const char *verb :
         {"init",      "info",          "verify",    "events", "plugins", "run",     "judge",
          "judgments", "judge-request", "calibrate", "packet", "rank",    "audit",   "agreement",
          "report",    "export",        "import",    "demo",   "dataset", "fidelity"}) {
        EXPECT_NE(help.output.find(std::string("\n  ") + verb + " "), std::string::npos) << verb;
        EXPECT_NE(completion.output.find(std::string("    ") + verb + ") opts="), std::string::npos)
            << verb;
        const auto own = runProcess({test::cliPath(), verb, "--help"});
        EXPECT_EQ(own.exitCode, 0) << verb;
        EXPECT_EQ(own.output.rfind(std::string("Usage: kosmos-cli ") + verb, 0), 0u) << own.output;
    }
    const auto runHelp = runProcess({test::cliPath(), "run", "--help"});
    EXPECT_NE(runHelp.output.find("--retry-failed"), std::string::npos);
    EXPECT_EQ(runHelp.output.find("--reference-csv"), std::string::npos) << "not run's option";
    EXPECT_NE(completion.output.find("judge-request) opts=\"--help --try --out --send"),
              std::string::npos)
        << completion.output;
    EXPECT_EQ(runProcess({test::cliPath(), "completion", "zsh"}).exitCode, 2);
}

TEST(Cli, PluginsListsEachPluginWithAvailabilityAndReason)
{
    auto r = runProcess({test::cliPath(), "plugins"});
    EXPECT_EQ(r.exitCode, 0);
    for (const char *id :
         {"synthetic.scripted_policy", "synthetic.tabletop", "synthetic.frame_judge"})
        EXPECT_NE(r.output.find(std::string("available    ") + id), std::string::npos) << r.output;

    ::setenv("KOSMOS_PLUGIN_PATH", KOSMOS_FIXTURE_PLUGIN_DIR, 1);
    r = runProcess({test::cliPath(), "plugins", "--json"});
    ::unsetenv("KOSMOS_PLUGIN_PATH");
    ASSERT_EQ(r.exitCode, 0);
    const auto list = nlohmann::json::parse(r.output);
    EXPECT_EQ(list.size(), 17u + KOSMOS_TORCH_PLUGINS + KOSMOS_PHYSICS_PLUGINS);
    int unavailable = 0;
    for (const auto &p : list) {
        // The remote policies and world depend on what listens on 127.0.0.1 here, the MJCF world
        // and the ALOHA experts on whether python3 has gym-aloha: not counted.
        const std::string id = p["id"].get<std::string>();
        if (id.rfind("remote.", 0) == 0 || id == "physics.mjcf" || id == "mjcf.aloha_expert")
            continue;
        if (!p["available"].get<bool>()) {
            ++unavailable;
            EXPECT_FALSE(p["reason"].get<std::string>().empty()) << p.dump();
        }
    }
    EXPECT_EQ(unavailable, 8 + KOSMOS_TORCH_PLUGINS)
        << "wrong API, no metadata, garbage, unloadable, needs weights, HTTP judge, replay "
           "judge and replay policy unconfigured; each torch family without a package";
    // What cannot be loaded at all is apart from what only needs its settings.
    int unloadable = 0;
    for (const auto &p : list) {
        if (!p["loads"].get<bool>())
            ++unloadable;
        if (p["id"] == "synthetic.tabletop") { // a world lists its own tasks
            EXPECT_EQ(p["tasks"][1]["instruction"], "put the blue block in the purple square");
        }
    }
    EXPECT_EQ(unloadable, 4) << "wrong API, no metadata, garbage, unloadable";
}

TEST(Cli, PluginCheckSaysWhetherTheseSettingsCanRunWithoutRunningThem)
{
    auto r = runProcess({test::cliPath(), "plugins", "--check", "synthetic.frame_judge",
                         "--settings", R"({"format_noise": 0.2})", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto out = nlohmann::json::parse(r.output);
    EXPECT_TRUE(out["available"].get<bool>());
    EXPECT_FALSE(out.contains("step_ms")) << "nothing was run";
    r = runProcess({test::cliPath(), "plugins", "--check", "replay.saved_samples", "--settings",
                    R"({"file": "/nonexistent/replay.jsonl"})", "--json"});
    EXPECT_EQ(r.exitCode, 4);
    out = nlohmann::json::parse(r.output);
    EXPECT_FALSE(out["available"].get<bool>());
    EXPECT_NE(out["reason"].get<std::string>().find("/nonexistent/replay.jsonl"), std::string::npos)
        << r.output;
    EXPECT_EQ(runProcess({test::cliPath(), "plugins", "--check", "synthetic.tabletop", "--test",
                          "synthetic.tabletop"})
                  .exitCode,
              2);
}

TEST(Cli, PluginTestRunsOneStepAndReportsTimingMemoryOrTheReason)
{
    for (const char *id :
         {"synthetic.scripted_policy", "synthetic.tabletop", "synthetic.frame_judge"}) {
        const auto r = runProcess({test::cliPath(), "plugins", "--test", id, "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.output;
        const auto out = nlohmann::json::parse(r.output);
        EXPECT_TRUE(out["ok"].get<bool>()) << out.dump();
        EXPECT_GE(out["step_ms"].get<double>(), 0.0);
        EXPECT_GT(out["peak_rss_mib"].get<double>(), 1.0);
        EXPECT_NE(out["note"].get<std::string>().find("not evidence"), std::string::npos);
    }
    auto r = runProcess({test::cliPath(), "plugins", "--test", "openai.chat_judge", "--json"});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(nlohmann::json::parse(r.output)["error"].get<std::string>().find("base_url"),
              std::string::npos)
        << r.output;
    r = runProcess({test::cliPath(), "plugins", "--test", "synthetic.scripted_policy", "--settings",
                    "{\"skill\":"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("--settings"), std::string::npos) << r.output;
    r = runProcess({test::cliPath(), "plugins", "--test", "no.such.plugin"});
    EXPECT_EQ(r.exitCode, 4);
}

TEST(Cli, ThePhysicsWorldRendersInsideThePluginHostProcess)
{
    // MuJoCo's GL loader picks EGL whenever libEGL is in the process (kosmos-cli loads it through
    // Qt): the world must render there, as a loaded plugin, not only in a bare test binary; and
    // the physics demo must record physics labels.
    if (KOSMOS_PHYSICS_PLUGINS == 0u)
        GTEST_SKIP() << "built without MuJoCo";
    for (const char *id : {"physics.tabletop", "physics.scripted_policy"}) {
        const auto r = runProcess({test::cliPath(), "plugins", "--test", id, "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.output;
        EXPECT_TRUE(nlohmann::json::parse(r.output)["ok"].get<bool>()) << r.output;
    }
    TempDir dir;
    const auto bundle = (dir / "physics.kosmos").string();
    const auto r = runProcess(
        {test::cliPath(), "demo", "--world", "physics", "--ledger", bundle, "--workers", "2"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("physics ground truth, not a human"), std::string::npos) << r.output;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_EQ(ledger.info().labelsBySource.at("physics"), 24);
    EXPECT_EQ(runProcess({test::cliPath(), "demo", "--world", "moon", "--ledger", bundle}).exitCode,
              4);
}

TEST(Cli, RunWritesALedgerThatVerifiesAndResumes)
{
    TempDir dir;
    const auto bundle = (dir / "run.kosmos").string();
    nlohmann::json protocol = {
        {"kosmos_protocol", 1},
        {"name", "cli-run"},
        {"seed", 3},
        {"horizon", 20},
        {"episodes_per_task", 2},
        {"tasks", {{{"id", "blue"}, {"instruction", "put the blue block in the purple square"}}}},
        {"policies",
         {{{"plugin", "synthetic.scripted_policy"}, {"settings", {{"skill", "expert"}}}}}},
        {"world_model", {{"plugin", "synthetic.tabletop"}}},
        {"judge", {{"plugin", "synthetic.frame_judge"}}}};
    std::ofstream(dir / "p.json") << protocol.dump(2);
    EXPECT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    auto r = runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("completed 2"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("95% CI"), std::string::npos) << "every rate carries its interval";
    EXPECT_NE(r.output.find("not evidence of real robot-task success"), std::string::npos);
    r = runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.output.find("already finished 2"), std::string::npos) << r.output;
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
    // The synthetic world's ground truth is a label source of its own, never "human".
    r = runProcess({test::cliPath(), "info", bundle});
    EXPECT_NE(r.output.find("human labels   0"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("+ synthetic_reference 2"), std::string::npos) << r.output;
    r = runProcess({test::cliPath(), "info", bundle, "--json"});
    const auto info = nlohmann::json::parse(r.output);
    EXPECT_EQ(info["human_labels"], 0);
    EXPECT_EQ(info["labels_by_source"]["synthetic_reference"], 2);

    protocol["tasks"][0].erase("instruction");
    std::ofstream(dir / "bad.json") << protocol.dump(2);
    r = runProcess({test::cliPath(), "run", (dir / "bad.json").string(), "--ledger", bundle});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_EQ(runProcess({test::cliPath(), "run", (dir / "p.json").string()}).exitCode, 2)
        << "--ledger is required";
}

namespace {
nlohmann::json smallProtocol(int episodes, int horizon)
{
    return test::smallSyntheticProtocol("cli-multi", episodes, horizon);
}
} // namespace

// The allocator and OpenMP defaults of a rollout process (util/ProcessTuning.h) are recorded in
// every attempt's timings, and yield to the user's own settings.
TEST(Cli, RunsRecordTheProcessTuningAndItYieldsToTheUsersSettings)
{
    TempDir dir;
    std::ofstream(dir / "p.json") << smallProtocol(1, 16).dump(2);
    auto processOf = [&](const std::string &name) {
        const auto bundle = (dir / (name + ".kosmos")).string();
        EXPECT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
        const auto r =
            runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
        EXPECT_EQ(r.exitCode, 0) << r.output;
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        sqlite::Statement t(LedgerSql::of(ledger),
                            "SELECT json_extract(payload_json, '$.process') FROM events "
                            "WHERE type = 'timings'");
        if (!t.step())
            return nlohmann::json{{"no timings", name}};
        return nlohmann::json::parse(t.text(0));
    };
    for (const char *name : {"OMP_WAIT_POLICY", "GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_",
                             "MALLOC_TRIM_THRESHOLD_", "KOSMOS_PROCESS_TUNING"})
        ::unsetenv(name);
    auto p = processOf("default");
    EXPECT_EQ(p["tuned"], true);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // A sanitizer's allocator replaces glibc's (AddressSanitizer's refuses mallopt): what was
    // not set is recorded as not set.
    if (!p["malloc_mmap_threshold"].is_null()) {
        EXPECT_EQ(p["malloc_mmap_threshold"], 32 << 20);
    }
#else
    EXPECT_EQ(p["malloc_mmap_threshold"], 32 << 20);
    EXPECT_EQ(p["malloc_trim_threshold"], 256 << 20);
#endif
    EXPECT_EQ(p["omp_wait_policy"], "PASSIVE");

    ::setenv("OMP_WAIT_POLICY", "ACTIVE", 1);
    ::setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=1048576", 1);
    p = processOf("users");
    EXPECT_EQ(p["tuned"], true);
    EXPECT_TRUE(p["malloc_mmap_threshold"].is_null()) << p.dump();
    EXPECT_TRUE(p["malloc_trim_threshold"].is_null()) << p.dump();
    EXPECT_EQ(p["omp_wait_policy"], "ACTIVE");
    ::unsetenv("GLIBC_TUNABLES");

    ::setenv("KOSMOS_PROCESS_TUNING", "0", 1);
    p = processOf("off");
    EXPECT_EQ(p["tuned"], false);
    EXPECT_TRUE(p["malloc_mmap_threshold"].is_null()) << p.dump();
    EXPECT_EQ(p["omp_wait_policy"], "ACTIVE") << "what the process ran with";
    ::unsetenv("KOSMOS_PROCESS_TUNING");
    ::unsetenv("OMP_WAIT_POLICY");
}

TEST(Cli, DryRunCountsWithoutWriting)
{
    TempDir dir;
    const auto bundle = (dir / "dry.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(2, 16).dump(2);
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    auto r = runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle,
                         "--dry-run", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto out = nlohmann::json::parse(r.output);
    EXPECT_EQ(out["runs"], 2);
    EXPECT_EQ(out["finished"], 0);
    EXPECT_EQ(Ledger::open(bundle, {OpenMode::ReadOnly}).info().runs, 0);
    ASSERT_EQ(runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle})
                  .exitCode,
              0);
    r = runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle,
                    "--dry-run", "--json"});
    out = nlohmann::json::parse(r.output);
    EXPECT_EQ(out["finished"], 2);
}

TEST(Cli, IsolatedWorkersSurviveAPluginCrashAndRecordItsSignal)
{
    TempDir dir;
    const auto bundle = (dir / "iso.kosmos").string();
    nlohmann::json protocol = smallProtocol(2, 16);
    protocol["policies"].push_back(
        {{"plugin", "fixture.crash"}, {"settings", {{"crash_at_step", 5}}}});
    std::ofstream(dir / "p.json") << protocol.dump(2);
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ::setenv("KOSMOS_PLUGIN_PATH", KOSMOS_FIXTURE_PLUGIN_DIR, 1);
    auto r = runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle,
                         "--workers", "2", "--isolate"});
    ::unsetenv("KOSMOS_PLUGIN_PATH");
    EXPECT_EQ(r.exitCode, 5) << "some runs failed: " << r.output;
    EXPECT_NE(r.output.find("2 worker process(es)"), std::string::npos) << r.output;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    int crashed = 0;
    int completed = 0;
    for (std::int64_t runId = 1; runId <= 4; ++runId) {
        const auto attempts = ledger.attempts(runId);
        ASSERT_EQ(attempts.size(), 1u) << "run " << runId;
        if (attempts[0].state == "completed")
            ++completed;
        if (attempts[0].errorCode == "worker_crashed") {
            ++crashed;
            EXPECT_EQ(attempts[0].exitSignal, SIGABRT);
            EXPECT_NE(attempts[0].errorMessage->find("signal 6"), std::string::npos);
        }
    }
    EXPECT_EQ(crashed, 2) << "each crashing run failed with its signal";
    EXPECT_EQ(completed, 2) << "the other runs went on in replacement workers";
    // The frames each crashed attempt had recorded: frames are stored off the critical path and
    // recorded at every step once durable, so a crash (here at step 5, with frames 0-5 made)
    // keeps a prefix of them; only those still in the frame pipeline are lost.
    sqlite::Statement frames(LedgerSql::of(ledger),
                             "SELECT aa.attempt_id, aa.name FROM attempt_artifacts aa JOIN "
                             "attempts a USING (attempt_id) WHERE a.error_code = "
                             "'worker_crashed' AND aa.role = 'frame' ORDER BY 1, 2");
    std::map<std::int64_t, std::vector<std::string>> kept;
    while (frames.step())
        kept[frames.int64(0)].push_back(frames.text(1));
    for (const auto &[attempt, names] : kept) {
        EXPECT_LE(names.size(), 6u) << "attempt " << attempt;
        for (std::size_t i = 0; i < names.size(); ++i) {
            char expected[32];
            std::snprintf(expected, sizeof expected, "frame_%05zu.png", i);
            EXPECT_EQ(names[i], expected) << "not a prefix: attempt " << attempt;
        }
    }
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

TEST(Cli, TwoProcessesRunningOneProtocolShareTheWorkThroughLeases)
{
    TempDir dir;
    const auto bundle = (dir / "multi.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(8, 20).dump();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const std::vector<std::string> args = {test::cliPath(), "run", (dir / "p.json").string(),
                                           "--ledger", bundle};
    const pid_t a = test::startProcess(args, dir / "a.out");
    const pid_t b = test::startProcess(args, dir / "b.out");
    EXPECT_EQ(test::waitProcess(a).exitCode, 0) << test::readFile(dir / "a.out");
    EXPECT_EQ(test::waitProcess(b).exitCode, 0) << test::readFile(dir / "b.out");
    Ledger ledger = Ledger::open(bundle);
    const auto info = ledger.info();
    EXPECT_EQ(info.runs, 8);
    EXPECT_EQ(info.attempts, 8) << "no run was executed twice";
    EXPECT_EQ(info.runsByStatus[2].second, 8) << "all completed";
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

TEST(Cli, InterruptPutsTheRunningRunBackInTheQueueAndRunFinishesTheBatch)
{
    TempDir dir;
    const auto bundle = (dir / "int.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(6, 40).dump();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const std::vector<std::string> args = {test::cliPath(), "run", (dir / "p.json").string(),
                                           "--ledger", bundle};
    const pid_t pid = test::startProcess(args, dir / "out");
    {
        Ledger watcher = Ledger::open(bundle, {OpenMode::ReadOnly});
        // Until one run completed and the next is running: between the two the process holds
        // no run, and an interrupt there has nothing to put back (CI's ASan stage hit that).
        for (int i = 0; i < 800; ++i) {
            const auto info = watcher.info();
            if (info.runsByStatus[2].second >= 1 && info.runsByStatus[1].second >= 1)
                break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    ::kill(pid, SIGINT);
    const auto result = test::waitProcess(pid);
    EXPECT_EQ(result.exitCode, 130) << test::readFile(dir / "out");
    Ledger ledger = Ledger::open(bundle);
    const auto info = ledger.info();
    EXPECT_EQ(info.runsByStatus[1].second, 0) << "nothing is left running";
    EXPECT_EQ(info.runsByStatus[4].second, 0) << "stopping never cancels a run for good";
    EXPECT_GE(info.runsByStatus[0].second, 1) << "the interrupted run is back in the queue";
    EXPECT_NE(test::readFile(dir / "out").find("interrupted)"), std::string::npos)
        << "the summary counts it as not finished: " << test::readFile(dir / "out");
    {
        sqlite::Statement s(LedgerSql::of(ledger),
                            "SELECT COUNT(*) FROM attempts WHERE error_code = 'interrupted'");
        s.step();
        EXPECT_GE(s.int64(0), 1) << "its attempt is kept, as interrupted";
    }
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
    // The same command again finishes the batch, the interrupted run included.
    const auto again = runProcess(args);
    EXPECT_EQ(again.exitCode, 0) << again.output;
    EXPECT_EQ(Ledger::open(bundle).info().runsByStatus[2].second, 6) << again.output;
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

TEST(Cli, JudgeRejudgesBesideTheOldJudgmentAndJudgmentsShowsBoth)
{
    TempDir dir;
    const auto bundle = (dir / "judge.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(2, 20).dump();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ASSERT_EQ(runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle})
                  .exitCode,
              0);
    std::ofstream(dir / "j2.json")
        << R"({"plugin": "synthetic.frame_judge", "settings": {"format_noise": 0.5},
                                          "quorum": {"samples": 3, "quorum": 2}})";
    auto r = runProcess({test::cliPath(), "judge", "--all", "--ledger", bundle, "--judge",
                         (dir / "j2.json").string()});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("run 1: completed (judgment recorded in run 3)"), std::string::npos)
        << r.output;
    r = runProcess(
        {test::cliPath(), "judge", "1", "--ledger", bundle, "--judge", (dir / "j2.json").string()});
    EXPECT_NE(r.output.find("already judged"), std::string::npos) << r.output;

    r = runProcess({test::cliPath(), "judgments", bundle, "1", "--json"});
    ASSERT_EQ(r.exitCode, 0);
    const auto list = nlohmann::json::parse(r.output);
    ASSERT_EQ(list.size(), 2u);
    EXPECT_FALSE(list[0]["rejudged"].get<bool>());
    EXPECT_TRUE(list[1]["rejudged"].get<bool>());
    EXPECT_EQ(list[1]["settings"]["samples"], 3);
    EXPECT_GE(list[1]["samples"].size(), 3u);
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);

    std::ofstream(dir / "bad.json") << R"({"plugin": "no.such.judge"})";
    r = runProcess({test::cliPath(), "judge", "--all", "--ledger", bundle, "--judge",
                    (dir / "bad.json").string()});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_EQ(Ledger::open(bundle).info().judgments, 4)
        << "nothing written by a failed configuration";
}

TEST(Cli, ExportWritesARunsFramesActionsAndVideo)
{
    TempDir dir;
    const auto bundle = makeLedger(dir); // run 1 has one frame
    auto r = runProcess(
        {test::cliPath(), "export", bundle.string(), "1", "--to", (dir / "out").string()});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(fs::exists(dir / "out" / "frames" / "frame_00000.png"));
    EXPECT_TRUE(fs::exists(dir / "out" / "actions.csv"));
    r = runProcess(
        {test::cliPath(), "export", bundle.string(), "2", "--to", (dir / "none").string()});
    EXPECT_EQ(r.exitCode, 4) << "run 2 has no frames: " << r.output;
}

TEST(Cli, PluginFoldersSavedInTheSettingsAreSearched)
{
    TempDir config;
    fs::create_directories(config / "kosmos-workstation");
    std::ofstream(config / "kosmos-workstation" / "Kosmos.conf")
        << "[plugins]\nfolders=" << KOSMOS_FIXTURE_PLUGIN_DIR << "\n";
    ::setenv("XDG_CONFIG_HOME", config.path().c_str(), 1);
    const auto r = runProcess({test::cliPath(), "plugins", "--json"});
    ::unsetenv("XDG_CONFIG_HOME");
    ASSERT_EQ(r.exitCode, 0);
    EXPECT_EQ(nlohmann::json::parse(r.output).size(),
              17u + KOSMOS_TORCH_PLUGINS + KOSMOS_PHYSICS_PLUGINS)
        << "10 built-in (+ 8 torch families when libtorch is there, + 2 physics with MuJoCo) + "
           "6 fixtures from the "
           "settings folder";
}

TEST(Cli, CalibrateAndAuditAJudgeOnTheSameClips)
{
    TempDir dir;
    const auto bundle = (dir / "cal.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(4, 16).dump(2);
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ASSERT_EQ(runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle})
                  .exitCode,
              0);
    // Against the synthetic reference labels: every clip is labelled.
    auto r = runProcess({test::cliPath(), "calibrate", bundle, "--labels", "reference", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto cal = nlohmann::json::parse(r.output);
    EXPECT_EQ(cal["labelled_clips"], 4);
    EXPECT_EQ(cal["decisive_pairs"].get<int>() + cal["indecisive_pairs"].get<int>(), 4);
    EXPECT_FALSE(cal["gate_passed"].get<bool>()) << "4 labels are fewer than the 20 needed";
    // Against human labels: none yet, said plainly, no number without its n.
    r = runProcess({test::cliPath(), "calibrate", bundle});
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_NE(r.output.find("not enough labels: 0 decisive of the 20 needed"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("n = 0 (no rate)"), std::string::npos);

    // Ranking with its n, and against reference rates from a CSV.
    std::ofstream(dir / "real.csv") << "policy,rate\nsynthetic.scripted_policy,0.4\n";
    r = runProcess({test::cliPath(), "rank", bundle, "--source", "reference", "--reference-csv",
                    (dir / "real.csv").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto rank = nlohmann::json::parse(r.output);
    EXPECT_EQ(rank["rates"][0]["success"]["n"], 4);
    EXPECT_EQ(rank["reference"]["matched"].size(), 1u);
    EXPECT_TRUE(rank["reference"]["pearson"].is_null()) << "one point has no correlation";
    EXPECT_EQ(runProcess({test::cliPath(), "rank", bundle, "--source", "human"}).exitCode, 4)
        << "no human labels: said, not a rate of 0";

    // A second judge configuration on the same clips, then the paired audit.
    std::ofstream(dir / "judge.json") << nlohmann::json{
        {"plugin", "synthetic.frame_judge"},
        {"settings", {{"format_noise", 0.6}}},
        {"quorum",
         {{"samples", 5}, {"quorum", 3}}}}.dump();
    ASSERT_EQ(runProcess({test::cliPath(), "judge", "--all", "--ledger", bundle, "--judge",
                          (dir / "judge.json").string()})
                  .exitCode,
              0);
    r = runProcess({test::cliPath(), "audit", bundle, "--json"});
    ASSERT_EQ(nlohmann::json::parse(r.output).size(), 2u) << r.output;
    r = runProcess({test::cliPath(), "audit", bundle, "1", "2", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto audit = nlohmann::json::parse(r.output);
    EXPECT_EQ(audit["clips"], 4);
    EXPECT_EQ(audit["a"]["samples"], 20);
    EXPECT_LE(audit["b"]["bare_json"].get<int>(), audit["a"]["bare_json"].get<int>())
        << "more format noise, fewer bare JSON answers";
    EXPECT_TRUE(audit["mcnemar"]["p_exact"].is_number());
    r = runProcess({test::cliPath(), "audit", bundle, "1", "2"});
    EXPECT_NE(r.output.find("schema-valid answers"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("full semantic agreement"), std::string::npos);
    // Bad input: an unknown configuration is named.
    r = runProcess({test::cliPath(), "audit", bundle, "1", "7"});
    EXPECT_EQ(r.exitCode, 4);
}

TEST(Cli, BlindAnnotationPacketsGoOutWithoutIdentitiesAndComeBackHashChecked)
{
    TempDir dir;
    const auto bundle = (dir / "ann.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(3, 16).dump(2);
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ASSERT_EQ(runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle})
                  .exitCode,
              0);
    const auto packet = dir / "packet";
    auto r =
        runProcess({test::cliPath(), "packet", "export", bundle, "--all", "--to", packet.string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    // Blind: the packet names no policy, world model, judge, seed or run.
    std::ifstream packetFile(packet / "packet.json");
    const std::string packetText((std::istreambuf_iterator<char>(packetFile)), {});
    for (const char *leak : {"scripted", "tabletop", "frame_judge", "noisy", "seed", "run_key"})
        EXPECT_EQ(packetText.find(leak), std::string::npos) << leak;
    EXPECT_TRUE(fs::exists(packet / "clip_001" / "frame_0000.png"));
    EXPECT_FALSE(fs::exists(packet / "key.json")) << "the key never travels with the packet";
    const auto keyFile = dir / "packet.key.json";
    ASSERT_TRUE(fs::exists(keyFile));

    std::ifstream templateFile(packet / "answers.json");
    auto answers = nlohmann::json::parse(templateFile);
    answers["annotator"] = "ann-1";
    for (auto &a : answers["answers"]) {
        a["integrity"] = "intact";
        a["collision"] = "none_visible";
        a["progress"] = 2;
        a["completion_evidence"] = "not_met";
    }
    auto attempt = [&](const nlohmann::json &doc) {
        std::ofstream(dir / "answers.json") << doc.dump();
        return runProcess({test::cliPath(), "packet", "import", bundle,
                           (dir / "answers.json").string(), "--key", keyFile.string()});
    };
    auto countLabels = [&] {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        sqlite::Statement s(LedgerSql::of(ledger),
                            "SELECT COUNT(*) FROM human_labels WHERE source = 'human'");
        s.step();
        return s.int64(0);
    };
    // Bad input: each refused with where and what, and nothing written.
    auto bad = answers;
    bad["packet_sha256"] = std::string(64, '0');
    r = attempt(bad);
    EXPECT_EQ(r.exitCode, 4);
    bad = answers;
    bad["answers"][1]["integrity"] = "perfect";
    r = attempt(bad);
    EXPECT_EQ(r.exitCode, 4);
    bad = answers;
    bad["answers"][0]["clip"] = "clip_999";
    EXPECT_EQ(attempt(bad).exitCode, 4);
    bad = answers;
    bad["annotator"] = "";
    EXPECT_EQ(attempt(bad).exitCode, 4);
    EXPECT_EQ(countLabels(), 0) << "a refused file writes nothing";

    // A key with two clips swapped would label the wrong runs: its binding no longer matches.
    const std::string keyText = test::readFile(keyFile);
    auto swapped = nlohmann::json::parse(keyText);
    std::swap(swapped["clips"]["clip_001"], swapped["clips"]["clip_002"]);
    std::ofstream(keyFile) << swapped.dump(2);
    r = attempt(answers);
    EXPECT_EQ(r.exitCode, 4) << r.output;
    auto unbound = nlohmann::json::parse(keyText);
    unbound.erase("binding");
    std::ofstream(keyFile) << unbound.dump(2);
    EXPECT_EQ(attempt(answers).exitCode, 4);
    std::ofstream(keyFile) << keyText;
    EXPECT_EQ(countLabels(), 0) << "a forged key writes nothing";

    r = attempt(answers);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("3 human label(s) by ann-1"), std::string::npos) << r.output;
    EXPECT_EQ(countLabels(), 3);
    // The same answers again: refused, no duplicate labels.
    r = attempt(answers);
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_EQ(countLabels(), 3);
    // Calibration now sees the human labels.
    r = runProcess({test::cliPath(), "calibrate", bundle, "--json", "--min-labels", "3"});
    EXPECT_EQ(nlohmann::json::parse(r.output)["labelled_clips"], 3) << r.output;
}

TEST(Cli, SplitsNeverMixALineage)
{
    int heldOut = 0;
    for (int i = 0; i < 300; ++i) {
        const std::string lineage = "task#" + std::to_string(i);
        const std::string split = splitOfLineage(lineage);
        EXPECT_EQ(split, splitOfLineage(lineage)) << "stable";
        heldOut += split == "held_out";
    }
    EXPECT_GT(heldOut, 60); // about a third of 300
    EXPECT_LT(heldOut, 140);
}

// Runs kosmos-cli with stderr folded into the output (error messages are on stderr).
test::ProcessResult runWithErrors(const std::vector<std::string> &args)
{
    std::string command;
    for (const auto &a : args) {
        std::string quoted = "'";
        for (char c : a)
            quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        command += quoted + "' ";
    }
    return runProcess({"/bin/sh", "-c", command + "2>&1"});
}

TEST(Cli, TwoAnnotatorsAgreementAndTheEvaluationRecord)
{
    TempDir dir;
    const auto bundle = (dir / "rec.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(6, 16).dump(2);
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ASSERT_EQ(runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle})
                  .exitCode,
              0);
    {
        // Two annotators: runs 1-4 held out, 5-6 development; they disagree on run 2 only.
        Ledger ledger = Ledger::open(bundle);
        for (std::int64_t run = 1; run <= 6; ++run)
            for (const char *who : {"alice", "bob"}) {
                HumanLabelRecord label;
                label.runId = run;
                label.annotatorId = who;
                label.split = run <= 4 ? "held_out" : "development";
                label.integrity = "intact";
                label.collision = "none_visible";
                label.progress = run % 2 == 0 ? 5 : 1;
                label.completion = run % 2 == 0 ? "met" : "not_met";
                if (run == 2 && std::string(who) == "bob") {
                    label.completion = "not_met";
                    label.progress = 3;
                }
                ledger.addHumanLabel(label);
            }
    }
    auto r = runProcess({test::cliPath(), "agreement", bundle, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(nlohmann::json::parse(r.output).size(), 2u);
    r = runProcess({test::cliPath(), "agreement", bundle, "alice", "bob", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto agreement = nlohmann::json::parse(r.output);
    EXPECT_EQ(agreement["clips"], 4) << "held-out clips only by default";
    EXPECT_EQ(agreement["agreement"]["successes"], 3);
    EXPECT_EQ(agreement["agreement"]["n"], 4);
    EXPECT_EQ(agreement["disagreements"].size(), 2u) << "completion and progress of run 2";
    EXPECT_EQ(agreement["empty_reason"], "not enough doubly labelled clips: 4 of the 20 needed "
                                         "(held_out)");
    r = runProcess(
        {test::cliPath(), "agreement", bundle, "alice", "bob", "--split", "all", "--json"});
    EXPECT_EQ(nlohmann::json::parse(r.output)["clips"], 6);
    // Bad input: the same annotator twice, an unknown one, an unknown split.
    r = runWithErrors({test::cliPath(), "agreement", bundle, "alice", "alice"});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.output.find("two different annotators"), std::string::npos) << r.output;
    r = runWithErrors({test::cliPath(), "agreement", bundle, "alice", "carol"});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.output.find("'carol' has no human label"), std::string::npos) << r.output;
    EXPECT_EQ(
        runProcess({test::cliPath(), "agreement", bundle, "alice", "bob", "--split", "x"}).exitCode,
        4);

    // The evaluation record: text and JSON carry the protocol hash, n and intervals, both
    // calibrations, the annotators' agreement, and the plain statement.
    r = runProcess({test::cliPath(), "report", bundle, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto record = nlohmann::json::parse(r.output);
    EXPECT_EQ(record["protocol"]["sha256"].get<std::string>().size(), 64u);
    EXPECT_EQ(record["episodes"], 6);
    EXPECT_EQ(record["rates"][0]["success"]["n"], 6);
    EXPECT_EQ(record["calibration_human"]["labelled_clips"], 6) << "the latest label of each run";
    EXPECT_EQ(record["calibration_reference"]["labelled_clips"], 6);
    EXPECT_EQ(record["annotator_agreement"].size(), 1u);
    EXPECT_EQ(record["cells"][0]["missing"], 0);
    EXPECT_EQ(record["components"].size(), 3u) << "policy, world model, judge";
    const std::string statement = record["statement"].dump();
    EXPECT_NE(statement.find("real robot-task success"), std::string::npos) << statement;
    // 6 decisive labels: too few to say anything either way (it read "failed" before).
    EXPECT_NE(statement.find("calibration gate against human labels is inconclusive"),
              std::string::npos)
        << statement;
    EXPECT_EQ(record["record_version"], 2);
    EXPECT_EQ(record["calibration_human"]["gate_verdict"], "inconclusive");
    EXPECT_EQ(record["calibration_human"]["gate_settings"]["min_labelled_successes"], 20);
    r = runProcess({test::cliPath(), "report", bundle});
    EXPECT_NE(r.output.find("What they do not support"), std::string::npos) << r.output;

    // HTML with embedded plots and a PDF, with a paired audit against a second judge.
    std::ofstream(dir / "judge.json") << nlohmann::json{
        {"plugin", "synthetic.frame_judge"},
        {"settings",
         {{"format_noise", 0.6}}}}.dump();
    ASSERT_EQ(runProcess({test::cliPath(), "judge", "--all", "--ledger", bundle, "--judge",
                          (dir / "judge.json").string()})
                  .exitCode,
              0);
    const auto html = dir / "record.html", pdf = dir / "record.pdf";
    r = runProcess({test::cliPath(), "report", bundle, "--audit", "1,2", "--html", html.string(),
                    "--pdf", pdf.string(), "--png", (dir / "record.png").string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    std::ifstream htmlFile(html);
    const std::string text((std::istreambuf_iterator<char>(htmlFile)), {});
    EXPECT_NE(text.find(record["protocol"]["sha256"].get<std::string>()), std::string::npos);
    EXPECT_NE(text.find("data:image/png;base64,iVBOR"), std::string::npos) << "embedded PNG";
    EXPECT_NE(text.find("Paired judge audit"), std::string::npos);
    EXPECT_NE(text.find("not evidence of real robot-task success"), std::string::npos);
    std::ifstream pdfFile(pdf, std::ios::binary);
    const std::string pdfBytes((std::istreambuf_iterator<char>(pdfFile)), {});
    EXPECT_EQ(pdfBytes.rfind("%PDF-", 0), 0u);
    EXPECT_GT(pdfBytes.size(), 10000u);
    EXPECT_GT(fs::file_size(dir / "record.png"), 10000u);

    // Bad input: one audit configuration, an unknown protocol, an unwritable path.
    EXPECT_EQ(runProcess({test::cliPath(), "report", bundle, "--audit", "1"}).exitCode, 2);
    r = runWithErrors({test::cliPath(), "report", bundle, "no-such-protocol"});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.output.find("no protocol 'no-such-protocol'"), std::string::npos) << r.output;
    r = runWithErrors(
        {test::cliPath(), "report", bundle, "--html", (dir / "missing" / "r.html").string()});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.output.find("cannot write the report"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir / "missing"));
}

namespace {

// Waits until `pred` holds (polling the ledger read-only), at most timeout_s.
bool waitFor(const std::function<bool()> &pred, int timeout_s = 30)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
        if (pred())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return pred();
}

int runningAttempts(const std::string &bundle)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT COUNT(DISTINCT a.attempt_id) FROM attempts a "
                        "JOIN events e "
                        "USING (attempt_id) WHERE a.state = 'running' AND "
                        "e.type = 'step'");
    s.step();
    return static_cast<int>(s.int64(0));
}

// Gone, or a zombie nobody reaped yet (in a container, PID 1 may not reap orphans).
bool processStopped(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line))
        return true;
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() &&
           (line[close + 2] == 'Z' || line[close + 2] == 'X');
}

} // namespace

TEST(Cli, AKilledWriterIsTakenOverAtOnceWhenTheRunResumes)
{
    TempDir dir;
    const auto bundle = (dir / "killed.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(1, 600).dump();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const std::vector<std::string> args = {test::cliPath(), "run", (dir / "p.json").string(),
                                           "--ledger", bundle};
    const pid_t pid = test::startProcess(args, dir / "out");
    ASSERT_TRUE(waitFor([&] { return runningAttempts(bundle) > 0; })) << "the run never started";
    ::kill(pid, SIGKILL);
    test::waitProcess(pid);

    // Before: "already finished" and exit 0 for a run still running under a dead lease. Now the
    // dead process's lease is taken over at once (not after its 30 s expiry) and the run ends.
    const auto resumed = runProcess(args);
    EXPECT_EQ(resumed.exitCode, 0) << resumed.output;
    EXPECT_NE(resumed.output.find("completed 1"), std::string::npos) << resumed.output;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const auto attempts = ledger.attempts(1);
    ASSERT_EQ(attempts.size(), 2u);
    EXPECT_EQ(attempts[0].state, "abandoned");
    EXPECT_EQ(attempts[0].errorCode, "worker_died") << attempts[0].errorMessage.value_or("");
    EXPECT_EQ(attempts[1].state, "completed");
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

TEST(Cli, ARunHeldByALiveProcessIsWaitedForAndTakenOverWhenItDies)
{
    TempDir dir;
    const auto bundle = (dir / "held.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(2, 300).dump();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const std::vector<std::string> args = {test::cliPath(), "run", (dir / "p.json").string(),
                                           "--ledger", bundle};
    const pid_t runner = test::startProcess(args, dir / "run.out");
    // While the runner works on run 1 (300 steps), another process takes run 2 and stays alive.
    ASSERT_TRUE(waitFor([&] { return runningAttempts(bundle) > 0; }));
    const pid_t holder = test::startProcess(
        {test::toolPath(), "hold", bundle, "other-process", "600000", "2"}, dir / "hold.out");
    ASSERT_TRUE(waitFor([&] { return !test::readFile(dir / "hold.out").empty(); }));
    ASSERT_EQ(test::readFile(dir / "hold.out").rfind("2 ", 0), 0u)
        << "the holder could not claim run 2: " << test::readFile(dir / "hold.out");
    // The runner finishes run 1, then waits for run 2 instead of calling it finished.
    ASSERT_TRUE(waitFor(
        [&] { return Ledger::open(bundle, {OpenMode::ReadOnly}).run(1)->status == "completed"; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    EXPECT_FALSE(processStopped(runner)) << "the runner returned with run 2 unfinished";
    ::kill(holder, SIGKILL);
    test::waitProcess(holder);
    const auto result = test::waitProcess(runner);
    EXPECT_EQ(result.exitCode, 0) << test::readFile(dir / "run.out");
    EXPECT_NE(test::readFile(dir / "run.out").find("completed 2"), std::string::npos)
        << test::readFile(dir / "run.out");
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_EQ(ledger.run(2)->status, "completed");
    EXPECT_EQ(ledger.attempts(2).front().errorCode, "worker_died");
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

TEST(Cli, RetryFailedGivesFailedRunsANewAttemptAndKeepsTheOldOne)
{
    TempDir dir;
    const auto bundle = (dir / "retry.kosmos").string();
    nlohmann::json protocol = smallProtocol(2, 16);
    protocol["policies"] = {
        {{"plugin", "fixture.crash"}, {"settings", {{"crash_at_step", 2}, {"action", "throw"}}}}};
    std::ofstream(dir / "p.json") << protocol.dump();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ::setenv("KOSMOS_PLUGIN_PATH", KOSMOS_FIXTURE_PLUGIN_DIR, 1);
    const std::vector<std::string> args = {test::cliPath(), "run", (dir / "p.json").string(),
                                           "--ledger", bundle};
    auto r = runProcess(args);
    EXPECT_EQ(r.exitCode, 5) << r.output;
    r = runProcess(args);
    EXPECT_EQ(r.exitCode, 0) << "failed runs are final without --retry-failed: " << r.output;
    EXPECT_NE(r.output.find("already finished 2"), std::string::npos) << r.output;
    auto retried = args;
    retried.push_back("--retry-failed");
    r = runProcess(retried);
    ::unsetenv("KOSMOS_PLUGIN_PATH");
    EXPECT_EQ(r.exitCode, 5) << r.output;
    EXPECT_NE(r.output.find("2 failed run(s) queued for a new attempt"), std::string::npos)
        << r.output;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    for (std::int64_t runId : {1, 2}) {
        const auto attempts = ledger.attempts(runId);
        ASSERT_EQ(attempts.size(), 2u);
        EXPECT_EQ(attempts[0].state, "failed") << "the failed attempt stays recorded";
        EXPECT_EQ(attempts[1].attemptNo, 2);
    }
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

TEST(Cli, IsolatedWorkersStopWhenTheirSupervisorIsKilled)
{
    TempDir dir;
    const auto bundle = (dir / "orphans.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(2, 2000).dump();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const pid_t supervisor = test::startProcess({test::cliPath(), "run", (dir / "p.json").string(),
                                                 "--ledger", bundle, "--isolate", "--workers", "2"},
                                                dir / "out");
    ASSERT_TRUE(waitFor([&] { return runningAttempts(bundle) == 2; }))
        << test::readFile(dir / "out");
    std::vector<pid_t> workers;
    {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        for (std::int64_t runId : {1, 2}) {
            const std::string id = ledger.attempts(runId).back().workerId; // kosmos-cli-PID-0
            workers.push_back(std::stoi(id.substr(11, id.rfind('-') - 11)));
        }
    }
    ::kill(supervisor, SIGKILL);
    test::waitProcess(supervisor);
    for (pid_t worker : workers)
        EXPECT_TRUE(waitFor([&] { return processStopped(worker); }, 15))
            << "worker " << worker << " outlived its supervisor";
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_EQ(ledger.info().runsByStatus[1].second, 0) << "no attempt is left running";
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

TEST(Cli, ExitCodesMatchTheirDocumentationAndRefusalsWriteNothing)
{
    TempDir dir;
    const auto bundle = makeLedger(dir);
    // 3 is only "cannot open the ledger"; an unknown plugin, run or key file is 4.
    auto r = runProcess({test::cliPath(), "events", bundle.string(), "ffffffffffff"});
    EXPECT_EQ(r.exitCode, 4) << "unknown run key";
    r = runProcess({test::cliPath(), "packet", "import", bundle.string(),
                    (dir / "answers.json").string(), "--key", (dir / "missing.key.json").string()});
    EXPECT_EQ(r.exitCode, 4) << "missing packet key";
    nlohmann::json protocol = smallProtocol(1, 16);
    protocol["policies"][0]["plugin"] = "no.such_plugin";
    std::ofstream(dir / "unknown.json") << protocol.dump();
    r = runProcess(
        {test::cliPath(), "run", (dir / "unknown.json").string(), "--ledger", bundle.string()});
    EXPECT_EQ(r.exitCode, 4) << "unknown plugin";
    r = runProcess({test::cliPath(), "run", (dir / "unknown.json").string(), "--ledger",
                    (dir / "missing.kosmos").string()});
    EXPECT_EQ(r.exitCode, 3) << "missing ledger";
    const auto help = runProcess({test::cliPath(), "--help"});
    EXPECT_NE(help.output.find("3    cannot open the ledger"), std::string::npos);
    EXPECT_NE(help.output.find("6    run/judge: runs left unfinished"), std::string::npos);

    // Bad settings and inline secrets are refused by run as by --dry-run, before anything is
    // frozen: no protocol, no component, no run is written.
    const auto before = Ledger::open(bundle, {OpenMode::ReadOnly}).info();
    nlohmann::json badSettings = smallProtocol(1, 16);
    badSettings["policies"][0]["settings"]["skill"] = 7; // the schema wants a string
    std::ofstream(dir / "bad.json") << badSettings.dump();
    nlohmann::json secret = smallProtocol(1, 16);
    secret["judge"]["settings"] = {{"api_key", "sk-abcdefghijklmnopqrstuvwxyz"}};
    std::ofstream(dir / "secret.json") << secret.dump();
    for (const char *file : {"bad.json", "secret.json"}) {
        for (const bool dry : {true, false}) {
            std::vector<std::string> args = {test::cliPath(), "run", (dir / file).string(),
                                             "--ledger", bundle.string()};
            if (dry)
                args.push_back("--dry-run");
            r = runProcess(args);
            EXPECT_EQ(r.exitCode, 4) << file << (dry ? " --dry-run" : "");
        }
    }
    Ledger after = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_EQ(after.info().runs, before.runs);
    sqlite::Statement leaked(LedgerSql::of(after),
                             "SELECT (SELECT COUNT(*) FROM protocols WHERE canonical_json LIKE "
                             "'%sk-abc%'), (SELECT COUNT(*) FROM components WHERE identity_json "
                             "LIKE '%sk-abc%')");
    ASSERT_TRUE(leaked.step());
    EXPECT_EQ(leaked.int64(0) + leaked.int64(1), 0) << "the key reached an immutable table";
}
