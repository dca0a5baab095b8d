// The defects found from outside (issue [mends], docs/reliability.md "Found from outside, third
// round"): each test below failed before its fix.
#include "evaluation/Calibration.h"
#include "ledger/AttemptScope.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "media/ActionFiles.h"
#include "queries/BatchSummary.h"
#include "queries/JudgmentQuery.h"
#include "util/Error.h"
#include "util/FileWrite.h"
#include "util/TextRules.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace kosmos;
using kosmos::test::runProcess;
using kosmos::test::runProcessWithStderr;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

nlohmann::json smallProtocol(int episodes, int horizon)
{
    return test::smallSyntheticProtocol("mends", episodes, horizon);
}

// A ledger with `episodes` finished runs of smallProtocol.
std::string ledgerWithRuns(const TempDir &dir, int episodes)
{
    const auto bundle = (dir / "m.kosmos").string();
    std::ofstream(dir / "p.json") << smallProtocol(episodes, 16).dump();
    EXPECT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const auto r =
        runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return bundle;
}

// An import folder: import.json (with `manifest` merged in), `frames` PNG frames and an
// actions.csv of `frames - 1` rows of `columns` values.
fs::path importFolder(const fs::path &dir, const nlohmann::json &manifest = {}, int frames = 6,
                      int columns = 7, int size = 32)
{
    fs::create_directories(dir / "frames");
    nlohmann::json m = {
        {"task", "t"}, {"instruction", "put the red block in the green square"}, {"fps", 5}};
    for (auto it = manifest.begin(); manifest.is_object() && it != manifest.end(); ++it)
        m[it.key()] = *it;
    std::ofstream(dir / "import.json") << m.dump();
    for (int i = 0; i < frames; ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "%05d.png", i);
        const auto png = test::testImage(size, size, i);
        std::ofstream(dir / "frames" / name, std::ios::binary)
            .write(reinterpret_cast<const char *>(png.data()),
                   static_cast<std::streamsize>(png.size()));
    }
    std::ofstream csv(dir / "actions.csv");
    for (int r = 0; r + 1 < frames; ++r) {
        for (int c = 0; c < columns; ++c)
            csv << (c ? "," : "") << 0.01 * c;
        csv << "\n";
    }
    return dir;
}

std::int64_t count(const std::string &bundle, const std::string &sql)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    sqlite::Statement s(LedgerSql::of(ledger), sql);
    s.step();
    return s.int64(0);
}

// Whether this test may mount file systems of its own (root with mount namespaces, and mounts
// allowed in them): a probe mounts a tmpfs on `dir` in a namespace of its own.
bool canMount(const fs::path &dir)
{
    fs::create_directories(dir);
    return ::geteuid() == 0 && runProcess({"/usr/bin/unshare", "-m", "/bin/sh", "-c",
                                           "mount -t tmpfs tmpfs " + dir.string()})
                                       .exitCode == 0;
}

test::ProcessResult import(const fs::path &folder, const std::string &bundle)
{
    return runProcessWithStderr({test::cliPath(), "import", folder.string(), "--ledger", bundle});
}

} // namespace

// 1. A manifest nested 100,000 deep crashed the importer (SIGSEGV); 10,000 deep met a CHECK
// constraint of the database; 1,000 deep was stored.
TEST(Mends, ADeeplyNestedImportManifestIsRefusedByItsLimit)
{
    TempDir dir;
    const auto bundle = (dir / "i.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    for (const int depth : {1000, 100000}) {
        const fs::path folder = importFolder(dir / ("deep" + std::to_string(depth)));
        std::ofstream(folder / "import.json")
            << R"({"task":"t","instruction":"i","fps":5,"x":)" << std::string(depth, '[')
            << std::string(depth, ']') << "}";
        const auto r = import(folder, bundle);
        EXPECT_EQ(r.exitCode, 4) << r.output;
        EXPECT_NE(r.output.find("nested deeper than 32 levels"), std::string::npos) << r.output;
    }
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs"), 0) << "nothing was written";
}

// 2. inf/nan imported with exit 0, then every export of the run aborted (nlohmann type_error).
TEST(Mends, NonFiniteActionsAreRefusedAtImportWithTheirRowAndColumn)
{
    TempDir dir;
    const auto bundle = (dir / "i.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    for (const char *value : {"inf", "nan", "-inf", "1e400"}) { // (1e400 reads as infinite in CSV)
        const fs::path folder = importFolder(dir / (std::string("nf-") + value));
        std::ofstream(folder / "actions.csv")
            << "dx,dy,dz,a,b,c,g\n0,0,0,0,0,0,1\n0,0," << value << ",0,0,0,1\n0,0,0,0,0,0,1\n"
            << "0,0,0,0,0,0,1\n0,0,0,0,0,0,1\n";
        const auto r = import(folder, bundle);
        EXPECT_NE(r.exitCode, 0) << value;
        EXPECT_NE(r.output.find("row 1 (counted from 0, without a header), column 2 (dz)"),
                  std::string::npos)
            << r.output;
    }
    EXPECT_NE(test::errorOf([&] {
                  std::ofstream(dir / "a.json") << "[[1, 2], [3, 1e400]]";
                  readActions(dir / "a.json");
              }).find("number overflow parsing '1e400'"),
              std::string::npos);
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 0);
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

// 2, for ledgers written before: actions stored as null (NaN) export instead of aborting.
TEST(Mends, ActionsStoredAsNullByAnOlderImportStillExport)
{
    TempDir dir;
    const auto bundle = (dir / "old.kosmos").string();
    {
        Ledger ledger = Ledger::create(bundle);
        const std::string sha = ledger.freezeProtocol("old", test::testProtocol());
        const auto run = ledger.submitRun(test::testRunSpec(sha, 0));
        auto lease = ledger.claim("old-import", 30000, run.runId);
        ASSERT_TRUE(lease);
        for (int i = 0; i < 3; ++i)
            ledger.putArtifact(*lease, "frame", "frame_0000" + std::to_string(i) + ".png",
                               test::testImage(16, 16, i), "image/png");
        const std::string actions =
            R"({"policy_actions":[[0.1,null],[0.2,0.3]],"world_actions":[[0.1,null],[0.2,0.3]],)"
            R"("control_rate_hz":5})";
        ledger.putArtifact(
            *lease, "actions", "actions.json",
            std::span(reinterpret_cast<const std::uint8_t *>(actions.data()), actions.size()),
            "application/json");
        ledger.finishAttempt(*lease, AttemptOutcome::completed());
    }
    auto r = runProcessWithStderr(
        {test::cliPath(), "export", bundle, "1", "--to", (dir / "out").string()});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(test::readFile(dir / "out" / "actions.csv").find("nan"), std::string::npos);
    r = runProcessWithStderr(
        {test::cliPath(), "dataset", "export", bundle, "--to", (dir / "ds").string()});
    EXPECT_TRUE(r.exitCode == 0 || r.exitCode == 4) << r.output;
    EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
}

// 3. A replay file of random bytes: exit 4 with a canonical-JSON error, and the re-judging run
// stayed `running` for good.
TEST(Mends, AJudgeThatCannotBeMadeIsRefusedBeforeAnyRunStarts)
{
    TempDir dir;
    const auto bundle = ledgerWithRuns(dir, 2);
    const auto runsBefore = count(bundle, "SELECT COUNT(*) FROM runs");
    {
        const auto bytes = test::randomBytes(4096, 7);
        std::ofstream(dir / "replay.json", std::ios::binary)
            .write(reinterpret_cast<const char *>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
    }
    std::ofstream(dir / "judge.json")
        << nlohmann::json{{"plugin", "replay.saved_samples"},
                          {"settings", {{"file", (dir / "replay.json").string()}}}}
               .dump();
    for (int i = 0; i < 2; ++i) {
        const auto r = runProcessWithStderr({test::cliPath(), "judge", "--all", "--ledger", bundle,
                                             "--judge", (dir / "judge.json").string()});
        EXPECT_EQ(r.exitCode, 4) << r.output;
        EXPECT_NE(r.output.find("replay file"), std::string::npos) << r.output;
    }
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs"), runsBefore) << "nothing was submitted";
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs WHERE status = 'running'"), 0);
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

// 3, the mechanism: an end whose message holds bytes that are not UTF-8 (a parser quoting a bad
// file) could not be written, and the attempt stayed running.
TEST(Mends, AnAttemptEndsWhateverBytesItsMessageHolds)
{
    TempDir dir;
    Ledger ledger = Ledger::create(dir / "u.kosmos");
    const std::string sha = ledger.freezeProtocol("u", test::testProtocol());
    const auto run = ledger.submitRun(test::testRunSpec(sha, 0));
    {
        const auto scope = AttemptScope::claim(ledger, {"utf8", 30000, 5000}, run.runId);
        ASSERT_TRUE(scope);
        scope->bufferEvent("note", {{"text", std::string("bad \xff\xfe bytes")}});
        EXPECT_EQ(scope->fail("exception", std::string("last read: '\xc3\x28\xa0\xa1'")),
                  AttemptResult::Failed);
    }
    EXPECT_EQ(ledger.run(run.runId)->status, "failed");
    const auto attempts = ledger.attempts(run.runId);
    ASSERT_EQ(attempts.size(), 1u);
    EXPECT_EQ(*attempts[0].errorMessage, "last read: '\xEF\xBF\xBD(\xEF\xBF\xBD\xEF\xBF\xBD'");
    EXPECT_TRUE(verifyLedger(ledger).clean());
    EXPECT_EQ(
        validUtf8("caf\xc3\xa9 \xed\xa0\x80 \xf4\x90\x80\x80"),
        "caf\xc3\xa9 \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
        "\xEF\xBF\xBD")
        << "surrogates and code points above U+10FFFF are replaced byte by byte";
}

// 4. Two `judge --all` at once: one exited 4 with "database is locked (in: BEGIN IMMEDIATE)"
// and left a run `running`.
TEST(Mends, TwoJudgeAllAtOnceBothFinishAndLeaveNothingRunning)
{
    TempDir dir;
    const auto bundle = ledgerWithRuns(dir, 6);
    std::ofstream(dir / "j.json") << R"({"plugin": "synthetic.frame_judge",
                                          "quorum": {"samples": 3, "quorum": 2}})";
    const std::vector<std::string> args = {
        test::cliPath(),          "judge", "--all", "--ledger", bundle, "--judge",
        (dir / "j.json").string()};
    for (int round = 0; round < 2; ++round) {
        const pid_t a = test::startProcess(args, dir / "a.out", true);
        const pid_t b = test::startProcess(args, dir / "b.out", true);
        EXPECT_EQ(test::waitProcess(a).exitCode, 0) << test::readFile(dir / "a.out");
        EXPECT_EQ(test::waitProcess(b).exitCode, 0) << test::readFile(dir / "b.out");
    }
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs WHERE status = 'running'"), 0);
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs WHERE json_extract(key_json, "
                            "'$.seeds.rejudge_of') IS NOT NULL AND status = 'completed'"),
              6)
        << "each run judged once";
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

// 6 and 11. SIGTERM during an import left the run `running` until the next import took it
// over; a second importer of the same folder exited 4 ("held by another live process" is 6).
TEST(Mends, AnInterruptedImportGoesBackToTheQueueAndASecondImporterExitsSix)
{
    TempDir dir;
    const auto bundle = (dir / "i.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const fs::path folder = importFolder(dir / "big", {}, 1500, 7, 96);
    const std::vector<std::string> args = {test::cliPath(), "import", folder.string(), "--ledger",
                                           bundle};
    const pid_t first = test::startProcess(args, dir / "first.out", true);
    for (int i = 0; i < 2000 && count(bundle, "SELECT COUNT(*) FROM attempt_artifacts") < 20; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const auto second = import(folder, bundle);
    EXPECT_EQ(second.exitCode, 6) << second.output;
    EXPECT_NE(second.output.find("another live process"), std::string::npos) << second.output;
    ::kill(first, SIGTERM);
    const auto stopped = test::waitProcess(first);
    ASSERT_EQ(stopped.exitCode, 130) << test::readFile(dir / "first.out");
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs WHERE status = 'queued'"), 1);
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM attempts WHERE error_code = 'interrupted'"), 1);
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
    const auto again = import(folder, bundle);
    EXPECT_EQ(again.exitCode, 0) << again.output;
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 1);
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

// 7. `report --html /dev/full` said "wrote /dev/full" and exited 0; `report --json > /dev/full`
// exited 0.
TEST(Mends, AWriteThatFailsIsAnErrorNeverASuccess)
{
    TempDir dir;
    const auto bundle = ledgerWithRuns(dir, 2);
    auto r = runProcessWithStderr(
        {"/bin/sh", "-c", test::cliPath() + " report " + bundle + " --json > /dev/full"});
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_NE(r.output.find("could not write to standard output"), std::string::npos) << r.output;
    r = runProcessWithStderr({test::cliPath(), "report", bundle, "--html", "/dev/full"});
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_EQ(r.output.find("wrote /dev/full"), std::string::npos) << r.output;
    struct stat st
    {
    };
    ASSERT_EQ(::stat("/dev/full", &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "a device is written in place, never replaced";
    // A failed write leaves the target as it was and no temporary file beside it.
    std::ofstream(dir / "kept.txt") << "old";
    EXPECT_NE(test::errorOf([&] {
                  writeFileAtomically(dir / "missing" / "x.txt", "new");
              }).find("cannot write"),
              std::string::npos);
    writeFileAtomically(dir / "kept.txt", "new");
    EXPECT_EQ(test::readFile(dir / "kept.txt"), "new");
    for (const auto &entry : fs::directory_iterator(dir.path()))
        EXPECT_EQ(entry.path().filename().string().find(".partial-"), std::string::npos);
    // A full disk (a 64 KiB tmpfs, where this test may mount one: root with mount namespaces):
    // packet export and report --png fail with exit 4 and leave nothing behind (they left a
    // partial folder and a 0-byte PNG).
    if (canMount(dir / "probe")) {
        fs::create_directories(dir / "full");
        const std::string full = (dir / "full").string();
        const std::string script =
            "mount -t tmpfs -o size=64k tmpfs " + full + " && (" + test::cliPath() +
            " packet export " + bundle + " --all --to " + full + "/packet; echo packet=$?; " +
            test::cliPath() + " report " + bundle + " --png " + full +
            "/r.png; echo png=$?; ls -A " + full + " | wc -l | sed 's/^/left=/')";
        r = runProcessWithStderr({"/usr/bin/unshare", "-m", "/bin/sh", "-c", script});
        EXPECT_NE(r.output.find("packet=4"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("png=4"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("left=0"), std::string::npos) << r.output;
    }
}

// 8. A clean ledger on read-only media, or with a stray rollback journal beside it, was "not a
// Kosmos ledger" for `info` and `verify`; a 0-byte file was "an SQLite database ... application_id
// 0".
TEST(Mends, ReadersOpenALedgerTheyCannotWrite)
{
    TempDir dir;
    const auto bundle = ledgerWithRuns(dir, 1);
    const fs::path db = fs::path(bundle) / "ledger.sqlite";
    { // closed last by a writer: the write-ahead log is checkpointed and removed
        Ledger writer = Ledger::open(bundle);
    }
    ASSERT_FALSE(fs::exists(db.string() + "-wal")) << "closed cleanly";
    {
        const auto junk = test::randomBytes(2000, 3);
        std::ofstream(db.string() + "-journal", std::ios::binary)
            .write(reinterpret_cast<const char *>(junk.data()),
                   static_cast<std::streamsize>(junk.size()));
    }
    auto r = runProcessWithStderr({test::cliPath(), "info", bundle});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    r = runProcessWithStderr({test::cliPath(), "verify", bundle});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    fs::remove(db.string() + "-journal");
    // Read-only media: a read-only bind mount where this test may make one (root, with mount
    // namespaces); the stray journal above takes the same path through the ledger otherwise.
    if (canMount(dir / "probe")) {
        fs::create_directories(dir / "ro");
        const std::string script = "mount --bind " + dir.path().string() + " " +
                                   (dir / "ro").string() + " && mount -o remount,ro,bind " +
                                   (dir / "ro").string() + " && " + test::cliPath() + " verify " +
                                   (dir / "ro" / "m.kosmos").string() + " && " + test::cliPath() +
                                   " info " + (dir / "ro" / "m.kosmos").string();
        r = runProcessWithStderr({"/usr/bin/unshare", "-m", "/bin/sh", "-c", script});
        EXPECT_EQ(r.exitCode, 0) << r.output;
        EXPECT_NE(r.output.find("clean:"), std::string::npos) << r.output;
    }
    TempDir empty;
    fs::create_directories(empty / "e.kosmos");
    std::ofstream(empty / "e.kosmos" / "ledger.sqlite").close();
    r = runProcessWithStderr({test::cliPath(), "info", (empty / "e.kosmos").string()});
    EXPECT_EQ(r.exitCode, 3) << r.output;
    EXPECT_NE(r.output.find("is an empty file (0 bytes)"), std::string::npos) << r.output;
}

// 9. Two `packet import`s of the same answers at the same moment stored duplicate labels, and
// verify stayed clean.
TEST(Mends, ConcurrentPacketImportsStoreTheLabelsOnceAndVerifyFindsDuplicates)
{
    TempDir dir;
    const auto bundle = ledgerWithRuns(dir, 4);
    const auto packet = dir / "packet";
    ASSERT_EQ(
        runProcess({test::cliPath(), "packet", "export", bundle, "--all", "--to", packet.string()})
            .exitCode,
        0);
    auto answers = nlohmann::json::parse(test::readFile(packet / "answers.json"));
    answers["annotator"] = "ann-1";
    for (auto &a : answers["answers"]) {
        a["integrity"] = "intact";
        a["collision"] = "none_visible";
        a["progress"] = 1;
        a["completion_evidence"] = "not_met";
    }
    std::ofstream(dir / "answers.json") << answers.dump();
    const std::vector<std::string> args = {test::cliPath(),
                                           "packet",
                                           "import",
                                           bundle,
                                           (dir / "answers.json").string(),
                                           "--key",
                                           (dir / "packet.key.json").string()};
    const pid_t a = test::startProcess(args, dir / "a.out", true);
    const pid_t b = test::startProcess(args, dir / "b.out", true);
    const int ea = test::waitProcess(a).exitCode;
    const int eb = test::waitProcess(b).exitCode;
    EXPECT_EQ(std::min(ea, eb), 0);
    EXPECT_EQ(std::max(ea, eb), 4)
        << test::readFile(dir / "a.out") << test::readFile(dir / "b.out");
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM human_labels WHERE source = 'human'"), 4);
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
    // Duplicates written before the import was one transaction are found.
    {
        Ledger ledger = Ledger::open(bundle);
        HumanLabelRecord label = ledger.labels(1).back();
        ledger.addHumanLabel(label);
    }
    const auto r = runProcess({test::cliPath(), "verify", bundle});
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("[duplicate_labels] run 1"), std::string::npos) << r.output;
}

// 10. After kills, a killed attempt's physics label stayed beside the completed attempt's, a
// judgment stayed on an abandoned attempt, and unreferenced object files were left.
TEST(Mends, LabelsAndJudgmentsOfAttemptsThatDidNotEndNeverCount)
{
    TempDir dir;
    Ledger ledger = Ledger::create(dir / "k.kosmos");
    const std::string sha = ledger.freezeProtocol("k", test::testProtocol());
    const auto run = ledger.submitRun(test::testRunSpec(sha, 0));
    {
        // The killed attempt: judged success, and (as older builds wrote it at once) labelled.
        auto lease = ledger.claim("killed", 1000, run.runId); // it writes well within a second
        ASSERT_TRUE(lease);
        ledger.recordJudgment(*lease, test::testJudgment());
        HumanLabelRecord label;
        label.runId = run.runId;
        label.annotatorId = "physics.tabletop";
        label.source = "physics";
        label.progress = 5;
        label.completion = "met";
        ledger.addHumanLabel(label);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1200)); // then its lease expires
    auto lease = ledger.claim("second", 30000, run.runId);
    ASSERT_TRUE(lease);
    EXPECT_EQ(lease->attemptNo, 2);
    HumanLabelRecord truth;
    truth.runId = run.runId;
    truth.annotatorId = "physics.tabletop";
    truth.source = "physics";
    truth.progress = 1;
    truth.completion = "not_met";
    ledger.finishAttempt(*lease, AttemptOutcome::completed(), {truth});
    EXPECT_EQ(ledger.attempts(run.runId)[0].state, "abandoned");

    const auto physics = protocolOutcomes(ledger, sha, "physics");
    ASSERT_EQ(physics.episodes.size(), 1u);
    EXPECT_FALSE(physics.episodes[0].success)
        << "the completed attempt's label, not the killed one's";
    const auto judged = protocolOutcomes(ledger, sha, "judge");
    EXPECT_TRUE(judged.episodes.empty()) << "the abandoned attempt's judgment does not count";
    EXPECT_EQ(judged.missing, 1);
    EXPECT_TRUE(judgmentsOfRun(ledger, run.runId).empty());
    const auto summary = summarizeProtocol(ledger, sha);
    ASSERT_EQ(summary.size(), 1u);
    EXPECT_EQ(summary[0].judge.n, 0);
    EXPECT_EQ(summary[0].reference.successes, 0);
    EXPECT_EQ(summary[0].reference.n, 1);

    // Stray objects: noted by verify, removed by gc when old enough, never a named one.
    const auto stray =
        ledger.artifacts().putBytes(std::string_view("left by a killed writer"), "text/plain");
    const auto young =
        ledger.artifacts().putBytes(std::string_view("being written now"), "text/plain");
    fs::last_write_time(ledger.artifacts().objectPath(stray.sha256),
                        fs::file_time_type::clock::now() - std::chrono::hours(2));
    const auto report = verifyLedger(ledger);
    EXPECT_TRUE(report.clean());
    bool noted = false;
    for (const auto &note : report.notes)
        noted = noted || note.find("2 object file(s) in objects/ that no artifact row names") !=
                             std::string::npos;
    EXPECT_TRUE(noted);
    const StrayRemoval removed = removeStrayObjects(ledger, 600);
    EXPECT_EQ(removed.removed, std::vector<std::string>{stray.sha256});
    EXPECT_EQ(removed.keptYoung, 1);
    EXPECT_TRUE(ledger.artifacts().contains(young.sha256));
    EXPECT_TRUE(verifyLedger(ledger).clean()) << "every named object is still there";
}

// 12. Secrets reached the ledger: import.json's policy.config.api_key and an sk-proj-... source;
// a judge sample redacted in raw_text but not in parsed_json (verify then said NOT CLEAN); an
// annotator name.
TEST(Mends, SecretsNeverEnterTheLedgerAndVerifyAgreesWithTheRedaction)
{
    TempDir dir;
    const auto bundle = (dir / "s.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    auto r =
        import(importFolder(dir / "key", {{"policy",
                                           {{"adapter_id", "p"},
                                            {"adapter_version", "1"},
                                            {"config", {{"api_key", "abcdefghijklmnop1234"}}}}}}),
               bundle);
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_NE(r.output.find("import.json.policy.config.api_key"), std::string::npos) << r.output;
    r = import(importFolder(dir / "source", {{"source", "sk-proj-abcdefghijklmnopqrstuvwx"}}),
               bundle);
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs"), 0);

    // A judge sample that quotes a key: redacted before it is parsed, so verify agrees.
    const fs::path judged = importFolder(dir / "judged", {}, 20);
    nlohmann::json samples = {{"settings", {{"samples", 1}, {"quorum", 1}}}, {"samples", {}}};
    samples["samples"].push_back(
        {{"sample_index", 0},
         {"raw_text", nlohmann::json{{"integrity", "intact"},
                                     {"collision", "none_visible"},
                                     {"progress", 5},
                                     {"completion_evidence", "met"},
                                     {"evidence_frame_indices", {0}},
                                     {"reason", "the key sk-abcdefghijklmnopqrstuvwxyz12 moved"}}
                          .dump()}});
    std::ofstream(judged / "judge_samples.json") << samples.dump();
    r = import(judged, bundle);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM judge_samples WHERE raw_text LIKE '%sk-abc%' "
                            "OR parsed_json LIKE '%sk-abc%'"),
              0);
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM events WHERE type = 'judge_text_screened'"), 1);
    r = runProcess({test::cliPath(), "verify", bundle});
    EXPECT_EQ(r.exitCode, 0) << r.output;

    {
        Ledger ledger = Ledger::open(bundle);
        HumanLabelRecord label;
        label.runId = 1;
        label.annotatorId = "eve sk-abcdefghijklmnopqrstuvwxyz12";
        label.completion = "met";
        label.progress = 5;
        ledger.addHumanLabel(label);
        ledger.addBookmark(1, 0, "token Bearer abcdefghijklmnop",
                           "sk-abcdefghijklmnopqrstuvwxyz12");
    }
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM human_labels WHERE annotator_id LIKE '%sk-%'"),
              0);
    // A raw text that was not screened before it was parsed is refused, never stored beside a
    // parse it no longer matches.
    {
        Ledger ledger = Ledger::open(bundle);
        const std::string sha = ledger.freezeProtocol("s", test::testProtocol());
        const auto run = ledger.submitRun(test::testRunSpec(sha, 0));
        auto lease = ledger.claim("s", 30000, run.runId);
        ASSERT_TRUE(lease);
        JudgmentRecord judgment = test::testJudgment();
        judgment.samples[0].rawText = "token sk-abcdefghijklmnopqrstuvwxyz12";
        EXPECT_NE(test::errorOf([&] {
                      ledger.recordJudgment(*lease, judgment);
                  }).find("was not screened before it was parsed"),
                  std::string::npos);
        ledger.finishAttempt(*lease, AttemptOutcome::failed("test", "done"));
    }
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM annotations WHERE text LIKE '%Bearer ab%' OR "
                            "author LIKE '%sk-%'"),
              0);
}

// 18. Limits that were not held, and messages that said too little.
TEST(Mends, ImportLimitsAndCommandLineValuesAreNamed)
{
    TempDir dir;
    const auto bundle = (dir / "l.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    auto r = import(importFolder(dir / "wide", {}, 6, 65), bundle);
    EXPECT_EQ(r.exitCode, 5) << r.output; // a failed attempt with the reason, as unreadable actions
    EXPECT_NE(r.output.find("65 values per action; an action needs 1 to 64"), std::string::npos)
        << r.output;
    r = import(importFolder(dir / "fast", {{"fps", 1e308}}), bundle);
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_NE(r.output.find("import.json.fps: must be above 0 and at most 1000"), std::string::npos)
        << r.output;
    // A folder whose name is not UTF-8 cannot pass through the command line: said so.
    const fs::path latin1 = dir / "caf\xe9";
    fs::create_directories(latin1);
    r = import(latin1, bundle);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("not UTF-8"), std::string::npos) << r.output;
    // A folder reached through a symbolic link, and input files that are links (they said "Too
    // many levels of symbolic links"), import like what they point at.
    const fs::path real = importFolder(dir / "real");
    fs::create_directory_symlink(real, dir / "link");
    r = import(dir / "link", bundle);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    fs::create_directories(dir / "links");
    std::ofstream(dir / "links" / "import.json")
        << R"({"task": "linked", "instruction": "put the red block in the green square", "fps": 5})";
    fs::create_directory_symlink(real / "frames", dir / "links" / "frames");
    fs::create_symlink(real / "actions.csv", dir / "links" / "actions.csv");
    r = import(dir / "links", bundle);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    fs::create_directory_symlink(dir / "loop", dir / "loop"); // a link to itself
    r = import(dir / "loop", bundle);
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_NE(r.output.find("not a folder (Too many levels of symbolic links)"), std::string::npos)
        << r.output;
    std::ofstream(dir / "p.json") << smallProtocol(1, 16).dump();
    r = runProcessWithStderr(
        {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle, "--workers", "0"});
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--workers must be a whole number from 1 to 64, not '0'"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(count(bundle, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 2);
}
