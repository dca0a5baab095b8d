// Scale-out (docs/scale-out.md): deterministic shards, the merge of shard ledgers (idempotent,
// resumable under SIGKILL, refusing conflicts and tampered content), and a real single-node Slurm
// cluster started by the test itself (tests/scaleout/slurm-cluster.sh).
#include "TestSupport.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "ledger/Shard.h"
#include "queries/ProvenanceQuery.h"
#include "scaleout/LedgerMerge.h"
#include "scaleout/ScaleOut.h"
#include "util/Error.h"
#include "util/Sha256.h"
#include "util/Subprocess.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <random>
#include <thread>

using namespace kosmos;
namespace fs = std::filesystem;
using test::runProcess;
using test::TempDir;

namespace {

// 2 policies x 2 tasks x 3 episodes = 12 short runs of the synthetic backends.
nlohmann::json smallProtocol(int episodes = 3, int horizon = 16)
{
    std::ifstream in(fs::path(KOSMOS_EXAMPLES_DIR) / "tabletop-demo.json");
    nlohmann::json doc = nlohmann::json::parse(in);
    doc["name"] = "scaleout-test";
    doc["episodes_per_task"] = episodes;
    doc["horizon"] = horizon;
    doc["policies"].erase(2);
    doc["judge"]["quorum"]["samples"] = 3;
    doc["judge"]["quorum"]["quorum"] = 2;
    return doc;
}

fs::path writeProtocol(const TempDir &dir, const nlohmann::json &doc, const std::string &name)
{
    fs::path path = dir / name;
    std::ofstream(path) << doc.dump(2);
    return path;
}

int cli(const std::vector<std::string> &args, std::string *output = nullptr)
{
    std::vector<std::string> argv = {test::cliPath()};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = runProcess(argv);
    if (output)
        *output = r.output;
    return r.exitCode;
}

void runInto(const fs::path &protocol, const fs::path &bundle, const std::string &shard = {})
{
    if (!fs::exists(bundle)) {
        ASSERT_EQ(cli({"init", bundle.string()}), 0);
    }
    std::vector<std::string> args = {"run", protocol.string(), "--ledger", bundle.string()};
    if (!shard.empty()) {
        args.push_back("--shard");
        args.push_back(shard);
    }
    ASSERT_EQ(cli(args), 0) << bundle;
}

// What must be the same whether a protocol ran on one machine or in shards: each run key with
// its status, its judgments' outcomes and its artifacts' hashes by role and name.
std::string contentDigest(const fs::path &bundle)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    sqlite::Statement s(
        LedgerSql::of(ledger),
        "SELECT r.run_key, r.status, (SELECT group_concat(outcome) FROM judgments j JOIN "
        "attempts a USING (attempt_id) WHERE a.run_id = r.run_id), (SELECT group_concat(x) FROM "
        "(SELECT aa.role || '/' || aa.name || '=' || x.sha256 AS x FROM attempt_artifacts aa JOIN "
        "attempts a USING (attempt_id) JOIN artifacts x USING (artifact_id) WHERE a.run_id = "
        "r.run_id ORDER BY aa.role, aa.name)) FROM runs r ORDER BY r.run_key");
    std::string all;
    while (s.step())
        all += s.text(0) + " " + s.text(1) + " " + s.text(2) + " " + s.text(3) + "\n";
    return Sha256::hex(all);
}

std::int64_t count(const fs::path &bundle, const std::string &sql)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    sqlite::Statement s(LedgerSql::of(ledger), sql);
    return s.step() ? s.int64(0) : -1;
}

// Every table's row count and the run statuses: what an idempotent merge must leave as it was.
std::string tableCounts(const fs::path &bundle)
{
    std::string out;
    for (const char *table :
         {"runs", "attempts", "events", "artifacts", "attempt_artifacts", "provenance",
          "validation_results", "judgments", "judge_samples", "human_labels", "merged_attempts",
          "merged_judgments", "merged_labels", "merge_sources"})
        out += std::string(table) + "=" +
               std::to_string(count(bundle, std::string("SELECT COUNT(*) FROM ") + table)) + " ";
    return out;
}

bool verifies(const fs::path &bundle, std::string *output = nullptr)
{
    return cli({"verify", bundle.string()}, output) == 0;
}

// Three shard ledgers of the small protocol and the same protocol run on one machine.
struct ShardedFixture
{
    TempDir dir;
    fs::path protocol;
    fs::path single;
    std::vector<fs::path> shards;

    explicit ShardedFixture(int count = 3, int episodes = 3)
    {
        protocol = writeProtocol(dir, smallProtocol(episodes), "p.json");
        single = dir / "single.kosmos";
        runInto(protocol, single);
        for (int i = 0; i < count; ++i) {
            shards.push_back(dir / ("shard-" + std::to_string(i) + ".kosmos"));
            runInto(protocol, shards.back(), ShardSpec{i, count}.text());
        }
    }
    std::vector<std::string> mergeArgs(const fs::path &out) const
    {
        std::vector<std::string> args = {"merge", out.string()};
        for (const auto &s : shards)
            args.push_back(s.string());
        return args;
    }
};

} // namespace

TEST(Shards, AssignmentDependsOnlyOnTheRunKeyAndCoversEveryRunOnce)
{
    std::mt19937_64 rng(7);
    std::vector<int> seen(5, 0);
    for (int k = 0; k < 1000; ++k) {
        const std::string key = Sha256::hex(std::to_string(rng()));
        int owners = 0;
        for (int i = 0; i < 5; ++i)
            owners += ShardSpec{i, 5}.contains(key);
        EXPECT_EQ(owners, 1);
        ++seen[static_cast<std::size_t>(shardOf(key, 5))];
        EXPECT_EQ(shardOf(key, 5), shardOf(key, 5));
        EXPECT_EQ(shardOf(key, 1), 0);
    }
    for (int n : seen)
        EXPECT_GT(n, 150) << "a shard of 1000 keys in 5 got far less than its share";
    EXPECT_EQ(ShardSpec::parse("3/8"), (ShardSpec{3, 8}));
    for (const char *bad : {"8/8", "-1/4", "1", "a/4", "1/0", "1/4x", "0/10001", "/4"})
        EXPECT_THROW(ShardSpec::parse(bad, "--shard"), Error) << bad;
    EXPECT_NE(test::errorOf([] { ShardSpec::parse("4/4", "--shard"); }).find("0-3"),
              std::string::npos);
    EXPECT_THROW(shardOf("xyz", 4), Error);
}

TEST(Merge, ShardsMergeIntoTheSameContentAsOneMachineAndAgainChangesNothing)
{
    ShardedFixture f;
    std::int64_t inShards = 0;
    for (const auto &s : f.shards)
        inShards += count(s, "SELECT COUNT(*) FROM runs");
    EXPECT_EQ(inShards, 12);
    EXPECT_EQ(count(f.shards[0], "SELECT COUNT(*) FROM runs") +
                  count(f.shards[1], "SELECT COUNT(*) FROM runs"),
              12 - count(f.shards[2], "SELECT COUNT(*) FROM runs"));

    const fs::path out = f.dir / "out.kosmos";
    std::string output;
    ASSERT_EQ(cli(f.mergeArgs(out), &output), 0) << output;
    std::string report;
    EXPECT_TRUE(verifies(out, &report)) << report;
    EXPECT_EQ(contentDigest(out), contentDigest(f.single));
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM merged_attempts"), 12);
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM merge_sources WHERE shard_json IS NOT NULL"), 3);
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM human_labels"),
              count(f.single, "SELECT COUNT(*) FROM human_labels"));

    {
        // The provenance read model (the workstation's provenance panel) names the shard.
        Ledger merged = Ledger::open(out, {OpenMode::ReadOnly});
        const RunProvenance p = loadProvenance(merged, 1);
        ASSERT_EQ(p.attempts.size(), 1u);
        ASSERT_TRUE(p.attempts[0].merged.is_object());
        EXPECT_TRUE(p.attempts[0].merged["shard"].get<std::string>().ends_with("/3"))
            << p.attempts[0].merged.dump();
        EXPECT_FALSE(p.attempts[0].merged["host"].get<std::string>().empty());
        EXPECT_TRUE(p.attempts[0].merged["slurm"].is_null()) << "run outside Slurm";
        Ledger shard = Ledger::open(f.shards[0], {OpenMode::ReadOnly});
        EXPECT_TRUE(loadProvenance(shard, 1).attempts[0].merged.is_null());
    }
    const std::string before = tableCounts(out);
    ASSERT_EQ(cli(f.mergeArgs(out), &output), 0) << output;
    EXPECT_NE(output.find("0 attempts taken"), std::string::npos) << output;
    EXPECT_EQ(tableCounts(out), before);
    EXPECT_EQ(contentDigest(out), contentDigest(f.single));

    // Verify says what it checked; a hand edit of the merge provenance (the ids a seal was
    // made with) breaks that attempt's seal.
    EXPECT_NE(report.find("12 attempt(s) merged from 3 other ledger(s)"), std::string::npos)
        << report;
    {
        const fs::path edited = f.dir / "edited.kosmos";
        fs::copy(out, edited, fs::copy_options::recursive);
        Ledger ledger = Ledger::open(edited);
        LedgerSql::of(ledger).exec("DROP TRIGGER merged_attempts_no_change");
        LedgerSql::of(ledger).exec(
            "UPDATE merged_attempts SET seal_run_id = seal_run_id + 1 WHERE attempt_id = 1");
        std::string problems;
        EXPECT_FALSE(verifies(edited, &problems));
        EXPECT_NE(problems.find("seal"), std::string::npos) << problems;
    }

    // Merging merges: a ledger made of two shards, then the third, into another target.
    const fs::path partial = f.dir / "partial.kosmos";
    ASSERT_EQ(cli({"merge", partial.string(), f.shards[0].string(), f.shards[1].string()}), 0);
    const fs::path whole = f.dir / "whole.kosmos";
    ASSERT_EQ(cli({"merge", whole.string(), partial.string(), f.shards[2].string()}, &output), 0)
        << output;
    EXPECT_TRUE(verifies(whole, &report)) << report;
    EXPECT_EQ(contentDigest(whole), contentDigest(f.single));
}

TEST(Merge, AShardLedgerTakesOnlyItsShardAndTheTargetCannotBeItsOwnSource)
{
    ShardedFixture f(2, 1);
    std::string output;
    EXPECT_EQ(cli({"run", f.protocol.string(), "--ledger", f.shards[0].string(), "--shard", "1/2"},
                  &output),
              4);
    EXPECT_EQ(cli({"run", f.protocol.string(), "--ledger", f.shards[0].string()}, &output), 4);
    EXPECT_EQ(
        cli({"run", f.protocol.string(), "--ledger", f.single.string(), "--shard", "0/2"}, &output),
        4);
    EXPECT_EQ(cli({"run", f.protocol.string(), "--ledger", f.single.string(), "--shard", "2/2"}),
              4);
    EXPECT_EQ(cli({"merge", f.single.string(), f.single.string()}), 4);
    // A shard ledger whose record names another shard than its runs belong to is refused run by
    // run, with the shard each belongs to.
    {
        Ledger shard = Ledger::open(f.shards[0]);
        LedgerSql::of(shard).exec("UPDATE meta SET value = '{\"count\":2,\"index\":1}' WHERE key = "
                                  "'shard'");
    }
    const fs::path out = f.dir / "wrong-shard.kosmos";
    EXPECT_EQ(cli({"merge", out.string(), f.shards[0].string(), "--json"}, &output), 4);
    EXPECT_NE(output.find("belongs to shard 0/2, not to this ledger's shard 1/2"),
              std::string::npos)
        << output;
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM runs"), 0);
    EXPECT_EQ(cli({"merge", f.single.string(), (f.dir / "missing.kosmos").string()}), 3);
}

TEST(Merge, AMergeKilledAtRandomMomentsLeavesAValidTargetAndTheRerunCompletesIt)
{
    ShardedFixture f(3, 3);
    std::vector<std::string> args = {test::cliPath()};
    for (const auto &a : f.mergeArgs(f.dir / "unused.kosmos"))
        args.push_back(a);
    args.push_back("--runs-per-transaction");
    args.push_back("1");
    // How long a whole merge takes here, to spread the kills over it.
    const auto t0 = std::chrono::steady_clock::now();
    {
        TempDir probe;
        std::vector<std::string> timed = args;
        timed[2] = (probe / "t.kosmos").string();
        ASSERT_EQ(runProcess(timed).exitCode, 0);
    }
    const auto fullMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    // Each round: a fresh target, the merge killed at a random moment of its work, the target
    // checked, then the same merge again, which must complete it to the full content.
    std::mt19937 rng(20261203);
    const std::string full = contentDigest(f.single);
    int killed = 0;
    int partial = 0;
    // The kills are spread over [earliest, window]. The window shrinks when a merge ended before
    // its kill (a machine busy with other tests measured a slow merge above); the earliest moment
    // grows when a kill landed before the merge took anything (start-up, opening the sources), so
    // a loaded machine still gets kills mid-merge instead of failing on timing. Rounds go on until
    // both counts are reached (at most 120).
    double window = static_cast<double>(fullMs);
    double earliest = 0.0;
    for (int round = 0; (killed < 22 || partial < 5) && round < 120; ++round) {
        const fs::path out = f.dir / ("killed-" + std::to_string(round) + ".kosmos");
        std::vector<std::string> roundArgs = args;
        roundArgs[2] = out.string();
        const pid_t pid = test::startProcess(roundArgs);
        const int delay = std::uniform_int_distribution<int>(static_cast<int>(earliest),
                                                             static_cast<int>(window))(rng);
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        ::kill(pid, SIGKILL);
        const bool wasKilled = test::waitProcess(pid).signal == SIGKILL;
        killed += wasKilled;
        if (!wasKilled)
            window = std::max(earliest + 1.0, window * 0.7);
        std::int64_t taken = 0;
        if (fs::exists(out / "ledger.sqlite")) {
            std::string report;
            ASSERT_TRUE(verifies(out, &report)) << "after a kill at " << delay << " ms\n" << report;
            taken = count(out, "SELECT COUNT(*) FROM merged_attempts");
            partial += taken > 0 && taken < 12;
        }
        if (wasKilled && taken == 0)
            earliest = std::min(window * 0.9, std::max(earliest, delay * 0.8));
        std::string output;
        ASSERT_EQ(cli(f.mergeArgs(out), &output), 0) << output;
        EXPECT_EQ(contentDigest(out), full) << "round " << round;
        EXPECT_EQ(count(out, "SELECT COUNT(*) FROM merged_attempts"), 12);
    }
    EXPECT_GE(killed, 20) << "merges must be killed before they end";
    EXPECT_GE(partial, 5) << "kills must land mid-merge, with part of the runs taken";
    std::string report;
    EXPECT_TRUE(verifies(f.dir / "killed-0.kosmos", &report)) << report;
}

TEST(Merge, TheSameRunFromTwoShardsIsRefusedWithTheReasonAndNothingOfItIsTaken)
{
    ShardedFixture f(1, 2);
    // Another machine ran the same protocol on its own: the same run keys, other attempts.
    const fs::path other = f.dir / "other.kosmos";
    runInto(f.protocol, other);
    const fs::path out = f.dir / "out.kosmos";
    ASSERT_EQ(cli({"merge", out.string(), f.shards[0].string()}), 0);
    const std::string before = tableCounts(out);
    const std::string digest = contentDigest(out);
    std::string output;
    EXPECT_EQ(cli({"merge", out.string(), other.string()}, &output), 4) << output;
    EXPECT_EQ(tableCounts(out).substr(0, before.find("merge_sources")),
              before.substr(0, before.find("merge_sources")));
    EXPECT_EQ(contentDigest(out), digest);
    std::string report;
    EXPECT_TRUE(verifies(out, &report)) << report;
}

TEST(Merge, TamperedShardContentIsRefusedAndTheRestIsTaken)
{
    ShardedFixture f(1, 2);
    // One object of one run's frames is changed on disk; one event of another run is edited
    // with the immutability triggers dropped (as a hand edit would).
    std::string objectSha;
    std::string tamperedEventRun;
    {
        Ledger shard = Ledger::open(f.shards[0]);
        sqlite::Statement s(LedgerSql::of(shard),
                            "SELECT x.sha256 FROM artifacts x JOIN attempt_artifacts aa USING "
                            "(artifact_id) JOIN attempts a USING (attempt_id) WHERE a.run_id = 1 "
                            "AND aa.role = 'frame' LIMIT 1");
        ASSERT_TRUE(s.step());
        objectSha = s.text(0);
        const fs::path object = shard.artifacts().objectPath(objectSha);
        fs::permissions(object, fs::perms::owner_write, fs::perm_options::add);
        std::ofstream(object, std::ios::binary | std::ios::app) << "x";
        LedgerSql::of(shard).exec("DROP TRIGGER events_no_update");
        LedgerSql::of(shard).exec(
            "UPDATE events SET payload_json = '{\"stage\":\"edited\"}' WHERE run_id = 2 AND "
            "type = 'stage' AND seq = (SELECT MIN(seq) FROM events WHERE run_id = 2 AND type = "
            "'stage')");
    }
    const fs::path out = f.dir / "out.kosmos";
    std::string output;
    EXPECT_EQ(cli({"merge", out.string(), f.shards[0].string(), "--json"}, &output), 4) << output;
    const auto report = nlohmann::json::parse(output);
    // The changed object may be shared by several runs (identical frames): each is refused.
    const auto refused = static_cast<std::int64_t>(report["conflicts"].size());
    ASSERT_GE(refused, 2) << output;
    const std::string all = report["conflicts"].dump();
    EXPECT_NE(all.find(objectSha), std::string::npos) << all;
    EXPECT_NE(all.find("does not match its seal"), std::string::npos) << all;
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"),
              count(f.single, "SELECT COUNT(*) FROM runs") - refused);
    std::string verify;
    EXPECT_TRUE(verifies(out, &verify)) << verify;
}

TEST(Merge, APartialShardMergesWhatItFinishedAndTheRerunShardCompletesIt)
{
    TempDir dir;
    const fs::path protocol = writeProtocol(dir, smallProtocol(6, 30), "p.json");
    const fs::path shard = dir / "shard.kosmos";
    ASSERT_EQ(cli({"init", shard.string()}), 0);
    // The shard's job dies (SIGKILL) once a few of its runs have finished.
    const pid_t pid = test::startProcess(
        {test::cliPath(), "run", protocol.string(), "--ledger", shard.string(), "--shard", "0/1"});
    for (int i = 0; i < 600; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (fs::exists(shard / "ledger.sqlite") &&
            count(shard, "SELECT COUNT(*) FROM runs WHERE status = 'completed'") >= 3)
            break;
    }
    ::kill(pid, SIGKILL);
    test::waitProcess(pid);
    const std::int64_t finished = count(shard, "SELECT COUNT(*) FROM runs WHERE finished_at_ms IS "
                                               "NOT NULL");
    ASSERT_GE(finished, 3);
    ASSERT_LT(finished, 24) << "the shard finished before it was killed; nothing partial to test";

    const fs::path out = dir / "out.kosmos";
    std::string output;
    EXPECT_EQ(cli({"merge", out.string(), shard.string()}, &output), 6) << output;
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM runs WHERE finished_at_ms IS NOT NULL"), finished);
    std::string report;
    EXPECT_TRUE(verifies(out, &report)) << report;

    // The shard again (its dead holder's attempt is closed as abandoned), then the merge again.
    ASSERT_EQ(cli({"run", protocol.string(), "--ledger", shard.string(), "--shard", "0/1"}), 0);
    ASSERT_EQ(cli({"merge", out.string(), shard.string()}, &output), 0) << output;
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 24);
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM attempts"), count(shard, "SELECT COUNT(*) FROM "
                                                                        "attempts"));
    EXPECT_TRUE(verifies(out, &report)) << report;
}

TEST(LocalSubmit, StoppedBySigtermItMergesWhatFinishedAndTheSameSubmitResumes)
{
    // Each shard runs two episodes in lockstep (--batch 2): stopping and resuming act per run.
    TempDir dir;
    const fs::path protocol = writeProtocol(dir, smallProtocol(6, 30), "p.json");
    const fs::path out = dir / "out.kosmos";
    const std::vector<std::string> submit = {
        test::cliPath(), "submit", protocol.string(), "--ledger", out.string(),
        "--shards",      "2",      "--local",         "--batch",  "2"};
    const pid_t pid = test::startProcess(submit);
    const ShardLayout layout = ShardLayout::of(out, 2);
    for (int i = 0; i < 600; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        const auto p = shardProgress(layout);
        if (p.size() == 2 && p[0].finished() + p[1].finished() >= 3)
            break;
    }
    ::kill(pid, SIGTERM);
    const auto stopped = test::waitProcess(pid);
    EXPECT_EQ(stopped.exitCode, 130) << stopped.output;
    const std::int64_t merged = count(out, "SELECT COUNT(*) FROM runs WHERE status = 'completed'");
    EXPECT_GE(merged, 3);
    ASSERT_LT(merged, 24) << "every run finished before the stop; nothing to resume";
    // Stopping a shard is not cancelling its runs: none is cancelled, the rest is queued there.
    for (const auto &p : shardProgress(layout))
        EXPECT_EQ(p.cancelled, 0);
    std::string report;
    EXPECT_TRUE(verifies(out, &report)) << report;

    const auto again = runProcess(submit);
    ASSERT_EQ(again.exitCode, 0) << again.output;
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 24);
    EXPECT_TRUE(verifies(out, &report)) << report;
    // The shards ran their episodes on two lanes a worker (worker ids NAME-PID-W.LANE).
    EXPECT_GT(count(out, "SELECT COUNT(*) FROM attempts WHERE worker_id LIKE '%.1'"), 0);
}

TEST(Merge, LabelsAndTheirCorrectionsAreMergedOnce)
{
    ShardedFixture f(1, 1);
    std::int64_t first = 0;
    {
        Ledger shard = Ledger::open(f.shards[0]);
        HumanLabelRecord label;
        label.runId = 1;
        label.annotatorId = "ann";
        label.completion = "met";
        label.progress = 5;
        first = shard.addHumanLabel(label);
        label.completion = "not_met";
        label.progress = 2;
        label.supersedesLabelId = first;
        shard.addHumanLabel(label);
    }
    const fs::path out = f.dir / "out.kosmos";
    ASSERT_EQ(cli({"merge", out.string(), f.shards[0].string()}), 0);
    ASSERT_EQ(cli({"merge", out.string(), f.shards[0].string()}), 0);
    const std::int64_t humans = count(out, "SELECT COUNT(*) FROM human_labels WHERE annotator_id "
                                           "= 'ann'");
    EXPECT_EQ(humans, 2);
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM human_labels c JOIN human_labels o ON o.label_id = "
                         "c.supersedes_label_id WHERE c.completion = 'not_met' AND o.completion = "
                         "'met' AND o.run_id = c.run_id"),
              1);
}

TEST(SlurmScripts, TheArrayScriptMapsTheTaskIdToItsShardAndRefusesBrokenSettings)
{
    TempDir dir;
    const ShardLayout layout = ShardLayout::of(dir / "out.kosmos", 12);
    SlurmSettings settings;
    settings.cliPath = "/opt/kosmos/bin/kosmos-cli";
    settings.partition = "gpu";
    settings.gres = "gpu:1";
    settings.timeLimit = "04:00:00";
    settings.sbatchArgs = {"--account=lab"};
    settings.workers = 2;
    const std::string array = slurmArrayScript(layout, settings);
    for (const char *line :
         {"#SBATCH --array=0-11\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --time=04:00:00\n",
          "#SBATCH --partition=gpu\n", "#SBATCH --account=lab\n", "--shard \"$i/12\"",
          "shard-%04d-of-0012.kosmos", "--workers 2"})
        EXPECT_NE(array.find(line), std::string::npos) << line << "\n" << array;
    EXPECT_EQ(array.find("--batch"), std::string::npos) << "one episode at a time: not written";
    settings.batch = 8; // episodes in lockstep on each shard's GPU
    EXPECT_NE(slurmArrayScript(layout, settings).find("--workers 2 --batch 8\n"),
              std::string::npos);
    settings.batch = 1;
    const std::string merge = slurmMergeScript(layout, settings);
    EXPECT_NE(merge.find("merge '" + layout.target.string() + "'"), std::string::npos) << merge;
    EXPECT_NE(merge.find("shard-0011-of-0012.kosmos"), std::string::npos);
    EXPECT_EQ(layout.shardBundle(3).filename(), "shard-0003-of-0012.kosmos");
    settings.sbatchArgs = {"account=lab"};
    EXPECT_THROW(slurmArrayScript(layout, settings), Error);
    settings.sbatchArgs = {"--x\n#SBATCH --y"};
    EXPECT_THROW(slurmArrayScript(layout, settings), Error);
    EXPECT_THROW(ShardLayout::of(dir / "out", 2), Error);
}

// ---- a real single-node Slurm -----------------------------------------------------------------

namespace {

class SlurmCluster
{
public:
    // nodes >= 2: each node a host of its own (network and UTS namespaces, one CPU each) over
    // the same files, as on a cluster with a shared filesystem.
    explicit SlurmCluster(int nodes = 1) : m_dir(m_temp / "slurm")
    {
        const auto r =
            runProcess({KOSMOS_SLURM_SCRIPT, "start", m_dir.string(), std::to_string(nodes)});
        if (r.exitCode != 0)
            throw std::runtime_error("the test's Slurm cluster did not start (exit " +
                                     std::to_string(r.exitCode) + "): " + r.output +
                                     test::readFile(m_dir / "slurmctld.log"));
        ::setenv("SLURM_CONF", (m_dir / "slurm.conf").c_str(), 1);
    }
    ~SlurmCluster()
    {
        runProcess({KOSMOS_SLURM_SCRIPT, "stop", m_dir.string()});
        ::unsetenv("SLURM_CONF");
    }
    const fs::path &dir() const { return m_dir; }

private:
    TempDir m_temp;
    fs::path m_dir;
};

// Waits until `done` or the deadline; true when done.
bool waitFor(const std::function<bool()> &done, int seconds)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        if (done())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return done();
}

bool queueEmpty()
{
    const CommandResult r = runCommand({"squeue", "--noheader"});
    return r.ok() && r.out.empty();
}

// The small protocol run on one machine and submitted to the test's Slurm in shards.
struct SlurmSubmission
{
    TempDir dir;
    fs::path single = dir / "single.kosmos";
    fs::path out = dir / "out.kosmos";
    std::string submitted; // what `submit` printed
};

// Submits, waits until the queue is empty (the merge job included), then checks that the merged
// ledger verifies and holds the same content as the single-machine run.
void submitAndMerge(SlurmSubmission &s, int shards)
{
    const fs::path protocol = writeProtocol(s.dir, smallProtocol(3), "p.json");
    runInto(protocol, s.single);
    ASSERT_EQ(cli({"submit", protocol.string(), "--ledger", s.out.string(), "--shards",
                   std::to_string(shards), "--slurm", "--partition", "debug", "--time", "00:10:00"},
                  &s.submitted),
              0)
        << s.submitted;
    ASSERT_TRUE(waitFor(queueEmpty, 240)) << runCommand({"squeue"}).out;
    std::string report;
    EXPECT_TRUE(verifies(s.out, &report))
        << report << test::readFile(s.dir / "out.shards/logs/merge.out");
    EXPECT_EQ(contentDigest(s.out), contentDigest(s.single));
}

} // namespace

TEST(Slurm, AShardedProtocolRunsThroughSlurmAndMergesToTheSameContentAsOneMachine)
{
    SlurmCluster cluster;
    SlurmSubmission run;
    ASSERT_NO_FATAL_FAILURE(submitAndMerge(run, 3));
    EXPECT_NE(run.submitted.find("job array"), std::string::npos) << run.submitted;
    const fs::path &out = run.out;
    std::string output;
    ASSERT_EQ(cli({"status", out.string(), "--json"}, &output), 0) << output;
    const auto status = nlohmann::json::parse(output);
    EXPECT_EQ(status["merged_finished"], 12) << output;
    for (const auto &s : status["shards"])
        EXPECT_EQ(s["completed"], s["runs"]) << output;
    // Each attempt knows the Slurm task that ran it.
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM merged_attempts WHERE json_extract(slurm_json, "
                         "'$.array_task_id') IS NOT NULL"),
              12);
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM scaleout_jobs WHERE launcher = 'slurm' AND "
                         "array_job_id IS NOT NULL AND merge_job_id IS NOT NULL"),
              1);
}

TEST(Slurm, ShardsOnTwoNodeHostsMergeToTheSameContentAndEachAttemptNamesItsHost)
{
    SlurmCluster cluster(2);
    SlurmSubmission run;
    ASSERT_NO_FATAL_FAILURE(submitAndMerge(run, 4));
    const fs::path &out = run.out;
    // One CPU a node: the four array tasks ran on both hosts, and every merged attempt names the
    // node host that ran it (its own host name), never the submitting one.
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM merged_attempts"), 12);
    EXPECT_EQ(count(out, "SELECT COUNT(DISTINCT host) FROM merged_attempts"), 2);
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM merged_attempts WHERE host IS NULL OR host NOT "
                         "LIKE 'kosmos-%-n_'"),
              0);
    EXPECT_EQ(count(out, "SELECT COUNT(DISTINCT json_extract(slurm_json, '$.array_task_id')) "
                         "FROM merged_attempts"),
              4);
}

TEST(Slurm, AShardCancelledWithScancelIsResubmittedAndTheMergeCompletes)
{
    SlurmCluster cluster;
    TempDir dir;
    const fs::path protocol = writeProtocol(dir, smallProtocol(8, 40), "p.json");
    const fs::path out = dir / "out.kosmos";
    std::string output;
    ASSERT_EQ(
        cli({"submit", protocol.string(), "--ledger", out.string(), "--shards", "2", "--slurm"},
            &output),
        0)
        << output;
    const fs::path shards = dir / "out.shards";
    const ShardLayout layout = ShardLayout::of(out, 2);
    // Cancel once the shards are under way (some runs finished, not all).
    ASSERT_TRUE(waitFor(
        [&] {
            const auto p = shardProgress(layout);
            return p[0].finished() + p[1].finished() >= 2;
        },
        120));
    ASSERT_EQ(cli({"cancel", out.string()}, &output), 0) << output;
    ASSERT_TRUE(waitFor(queueEmpty, 60));
    const auto progress = shardProgress(layout);
    const std::int64_t finished = progress[0].finished() + progress[1].finished();
    ASSERT_LT(finished, 32) << "both shards finished before the cancel";

    // What the shards finished merges; the rest is reported as unfinished.
    EXPECT_EQ(
        cli({"merge", out.string(), layout.shardBundle(0).string(), layout.shardBundle(1).string()},
            &output),
        6)
        << output;
    std::string report;
    EXPECT_TRUE(verifies(out, &report)) << report;

    // Resubmitted (the same array script), then merged: complete.
    const CommandResult again =
        runCommand({"sbatch", "--parsable", (shards / "shards.sbatch").string()});
    ASSERT_TRUE(again.ok()) << again.out << again.err;
    ASSERT_TRUE(waitFor(queueEmpty, 240)) << runCommand({"squeue"}).out;
    ASSERT_EQ(
        cli({"merge", out.string(), layout.shardBundle(0).string(), layout.shardBundle(1).string()},
            &output),
        0)
        << output;
    EXPECT_EQ(count(out, "SELECT COUNT(*) FROM runs WHERE status = 'completed'"), 32);
    EXPECT_TRUE(verifies(out, &report)) << report;
}
