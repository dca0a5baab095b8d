#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "util/Error.h"
#include "util/Sha256.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <thread>

using namespace kosmos;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

class LedgerRunsTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_ledger.emplace(Ledger::create(m_dir / "runs.kosmos"));
        m_protocol = m_ledger->freezeProtocol("bridge", test::testProtocol());
    }
    Ledger &ledger() { return *m_ledger; }
    void expectClean()
    {
        const auto report = verifyLedger(ledger());
        for (const auto &p : report.problems)
            ADD_FAILURE() << p.check << " " << p.where << ": " << p.message;
    }

    TempDir m_dir;
    std::optional<Ledger> m_ledger;
    std::string m_protocol;
};

TEST_F(LedgerRunsTest, FreezingAProtocolIsIdempotentAndContentHashed)
{
    nlohmann::json reordered = nlohmann::json::parse(test::testProtocol().dump(4));
    EXPECT_EQ(ledger().freezeProtocol("bridge again", reordered), m_protocol);
    EXPECT_EQ(ledger().info().protocols, 1);
    EXPECT_EQ(*ledger().protocol(m_protocol), test::testProtocol());
    EXPECT_THROW(ledger().freezeProtocol("", test::testProtocol()), Error);
    EXPECT_THROW(ledger().freezeProtocol("arr", nlohmann::json::array()), Error);
}

TEST_F(LedgerRunsTest, SubmittingTheSameInputsReturnsTheSameRun)
{
    const auto first = ledger().submitRun(test::testRunSpec(m_protocol, 0));
    EXPECT_TRUE(first.created);
    auto again = test::testRunSpec(m_protocol, 0);
    again.task = "a different description does not make a different run";
    const auto second = ledger().submitRun(again);
    EXPECT_FALSE(second.created);
    EXPECT_EQ(second.runId, first.runId);
    EXPECT_EQ(second.runKey, first.runKey);
    EXPECT_EQ(ledger().info().runs, 1);
    EXPECT_EQ(ledger().events(first.runId).size(), 1u) << "resubmission wrote an event";

    // Each determining input changes the key.
    auto otherEpisode = test::testRunSpec(m_protocol, 1);
    auto otherSeed = test::testRunSpec(m_protocol, 0);
    otherSeed.seeds["policy"] = 8;
    auto otherPolicy = test::testRunSpec(m_protocol, 0);
    otherPolicy.policy = test::testPolicy("b");
    auto otherWeights = test::testRunSpec(m_protocol, 0);
    otherWeights.worldModel->weightsSha256 = std::string(64, 'e');
    for (const auto &spec : {otherEpisode, otherSeed, otherPolicy, otherWeights}) {
        const auto r = ledger().submitRun(spec);
        EXPECT_TRUE(r.created);
        EXPECT_NE(r.runKey, first.runKey);
    }
    EXPECT_EQ(ledger().info().runs, 5);
}

TEST_F(LedgerRunsTest, RunKeyIsTheHashOfTheDocumentedCanonicalJson)
{
    const auto spec = test::testRunSpec(m_protocol, 4);
    const auto r = ledger().submitRun(spec);
    const auto run = ledger().run(r.runId);
    ASSERT_TRUE(run);
    EXPECT_EQ(run->runKey, Sha256::hex(run->keyJson));
    const auto key = nlohmann::json::parse(run->keyJson);
    EXPECT_EQ(key["kosmos_run_key"], 1);
    EXPECT_EQ(key["protocol_sha256"], m_protocol);
    EXPECT_EQ(key["episode_index"], 4);
    EXPECT_EQ(key["policy"], spec.policy->identitySha256());
    EXPECT_EQ(key["seeds"]["world_model"], 11);
    EXPECT_EQ(ledger().runByKeyPrefix(r.runKey.substr(0, 10))->runId, r.runId);
}

TEST_F(LedgerRunsTest, BadRunSpecsAreRefusedAndNothingIsWritten)
{
    auto unknownProtocol = test::testRunSpec(std::string(64, 'f'), 0);
    EXPECT_THROW(ledger().submitRun(unknownProtocol), Error);
    auto negative = test::testRunSpec(m_protocol, -1);
    EXPECT_THROW(ledger().submitRun(negative), Error);
    auto badSeeds = test::testRunSpec(m_protocol, 0);
    badSeeds.seeds = 5;
    EXPECT_THROW(ledger().submitRun(badSeeds), Error);
    auto badWeights = test::testRunSpec(m_protocol, 0);
    badWeights.policy->weightsSha256 = "not-a-hash";
    EXPECT_THROW(ledger().submitRun(badWeights), Error);
    EXPECT_EQ(ledger().info().runs, 0);
    sqlite::Statement s(LedgerSql::of(ledger()), "SELECT COUNT(*) FROM components");
    s.step();
    EXPECT_EQ(s.int64(0), 0) << "a refused run left component rows behind";
}

TEST_F(LedgerRunsTest, UnknownValuesAreNullNotZero)
{
    RunSpec spec;
    spec.protocolSha256 = m_protocol;
    spec.episodeIndex = 0;
    const auto r = ledger().submitRun(spec);
    sqlite::Statement s(LedgerSql::of(ledger()),
                        "SELECT task, instruction, policy_id, world_model_id, judge_id, "
                        "finished_at_ms, cancel_requested_at_ms FROM runs WHERE run_id = ?");
    s.bind(1, r.runId);
    ASSERT_TRUE(s.step());
    for (int c = 0; c < 7; ++c)
        EXPECT_TRUE(s.isNull(c)) << "column " << c;
}

TEST_F(LedgerRunsTest, AWorkerClaimsRecordsAndFinishes)
{
    const auto r = ledger().submitRun(test::testRunSpec(m_protocol, 0));
    auto lease = ledger().claim("worker-1", 30000);
    ASSERT_TRUE(lease);
    EXPECT_EQ(lease->runId, r.runId);
    EXPECT_EQ(lease->attemptNo, 1);
    EXPECT_EQ(ledger().run(r.runId)->status, "running");
    EXPECT_FALSE(ledger().claim("worker-2", 30000)) << "a leased run was claimed twice";

    EXPECT_FALSE(ledger().heartbeat(*lease, 30000));
    ledger().appendEvent(*lease, "stage", {{"stage", "policy"}});
    const auto frame = test::testImage(16, 16, 3);
    const auto frameId =
        ledger().putArtifact(*lease, "frame", "frame_0000.png", frame, "image/png");
    const auto video = ledger().putArtifact(*lease, "video", "rollout.bin",
                                            test::randomBytes(1000, 1), "application/octet-stream");
    ledger().addProvenance(*lease, frameId, video, "conditioned_on", {{"frame_index", 0}});
    ledger().recordValidation(*lease, {"stage_a", "1", "valid", {}, nullptr});
    ledger().recordJudgment(*lease, test::testJudgment());
    ledger().finishAttempt(*lease, AttemptOutcome::completed());

    const auto run = ledger().run(r.runId);
    EXPECT_EQ(run->status, "completed");
    EXPECT_TRUE(run->finishedAtMs);
    const auto attempts = ledger().attempts(r.runId);
    ASSERT_EQ(attempts.size(), 1u);
    EXPECT_EQ(attempts[0].state, "completed");
    ASSERT_TRUE(attempts[0].sealSha256);
    EXPECT_EQ(*attempts[0].sealSha256, ledger().computeSeal(attempts[0].attemptId));

    const auto events = ledger().events(r.runId);
    ASSERT_EQ(events.size(), 4u);
    EXPECT_EQ(events[0].type, "run_submitted");
    EXPECT_EQ(events[1].type, "attempt_started");
    EXPECT_EQ(events[2].type, "stage");
    EXPECT_EQ(events[3].type, "attempt_finished");
    for (std::size_t i = 0; i < events.size(); ++i)
        EXPECT_EQ(events[i].seq, static_cast<std::int64_t>(i + 1));

    // Nothing more is accepted under the finished lease.
    EXPECT_THROW(ledger().appendEvent(*lease, "late"), Error);
    EXPECT_THROW(ledger().finishAttempt(*lease, AttemptOutcome::failed("late", "late")), Error);
    EXPECT_EQ(ledger().events(r.runId).size(), 4u);
    expectClean();
}

TEST_F(LedgerRunsTest, EventsFromAnotherConnectionAreSeenInOrder)
{
    ledger().submitRun(test::testRunSpec(m_protocol, 0));
    auto lease = ledger().claim("w", 30000);
    Ledger reader = Ledger::open(m_dir / "runs.kosmos", {OpenMode::ReadOnly});
    const auto version = reader.dataVersion();
    const auto before = reader.eventsSince(0);
    ledger().appendEvents(*lease, {{"a", {}}, {"b", {{"n", 1}}}, {"c", {}}});
    EXPECT_NE(reader.dataVersion(), version) << "data_version did not change on a commit";
    const auto after = reader.eventsSince(before.back().eventId);
    ASSERT_EQ(after.size(), 3u);
    EXPECT_EQ(after[0].type, "a");
    EXPECT_EQ(after[2].type, "c");
    EXPECT_EQ(after[2].seq, after[0].seq + 2);
}

TEST_F(LedgerRunsTest, CancellingAQueuedRunEndsItAtOnce)
{
    const auto r = ledger().submitRun(test::testRunSpec(m_protocol, 0));
    EXPECT_TRUE(ledger().requestCancel(r.runId, "operator"));
    EXPECT_EQ(ledger().run(r.runId)->status, "cancelled");
    EXPECT_FALSE(ledger().claim("w", 1000));
    EXPECT_FALSE(ledger().requestCancel(r.runId, "again")) << "already finished";
    EXPECT_THROW(ledger().requestCancel(999, "x"), Error);
    expectClean();
}

TEST_F(LedgerRunsTest, ARunningWorkerSeesTheCancelAtItsNextCheck)
{
    const auto r = ledger().submitRun(test::testRunSpec(m_protocol, 0));
    auto lease = ledger().claim("w", 30000);
    ledger().putArtifact(*lease, "frame", "f0.png", test::testImage(8, 8, 1), "image/png");
    EXPECT_FALSE(ledger().cancelRequested(*lease));

    Ledger gui = Ledger::open(m_dir / "runs.kosmos"); // e.g. the workstation
    EXPECT_TRUE(gui.requestCancel(r.runId, "user pressed cancel"));
    EXPECT_EQ(gui.run(r.runId)->status, "running") << "the worker ends a running run";

    EXPECT_TRUE(ledger().heartbeat(*lease, 30000));
    ledger().finishAttempt(*lease, AttemptOutcome::cancelled("user pressed cancel"));
    EXPECT_EQ(ledger().run(r.runId)->status, "cancelled");
    EXPECT_EQ(ledger().attempts(r.runId)[0].state, "cancelled");
    EXPECT_EQ(ledger().info().artifacts, 1) << "the cancelled attempt keeps its artifacts";
    expectClean();
}

TEST_F(LedgerRunsTest, AFailedRunCanBeRetriedAsANewAttempt)
{
    const auto r = ledger().submitRun(test::testRunSpec(m_protocol, 0));
    auto first = ledger().claim("w", 30000);
    ledger().finishAttempt(*first, AttemptOutcome::failed("cuda_oom", "out of memory"));
    EXPECT_EQ(ledger().run(r.runId)->status, "failed");
    EXPECT_THROW(ledger().retryRun(999), Error);
    ledger().retryRun(r.runId);
    auto second = ledger().claim("w", 30000);
    ASSERT_TRUE(second);
    EXPECT_EQ(second->attemptNo, 2);
    ledger().finishAttempt(*second, AttemptOutcome::completed());
    EXPECT_THROW(ledger().retryRun(r.runId), Error) << "a completed run cannot be retried";
    const auto attempts = ledger().attempts(r.runId);
    ASSERT_EQ(attempts.size(), 2u);
    EXPECT_EQ(attempts[0].errorCode, "cuda_oom");
    expectClean();
}

TEST_F(LedgerRunsTest, AnExpiredLeaseIsTakenOverInProcessToo)
{
    const auto r = ledger().submitRun(test::testRunSpec(m_protocol, 0));
    auto a = ledger().claim("worker-a", 50);
    ASSERT_TRUE(a);
    ledger().appendEvent(*a, "progress", {{"step", 1}});
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    EXPECT_THROW(ledger().appendEvent(*a, "late"), Error) << "expired lease accepted a write";
    auto b = ledger().claim("worker-b", 30000);
    ASSERT_TRUE(b);
    EXPECT_EQ(b->runId, r.runId);
    EXPECT_EQ(b->attemptNo, 2);
    const auto attempts = ledger().attempts(r.runId);
    EXPECT_EQ(attempts[0].state, "abandoned");
    EXPECT_EQ(attempts[0].errorCode, "lease_expired");
    EXPECT_THROW(ledger().heartbeat(*a, 30000), Error);
    ledger().finishAttempt(*b, AttemptOutcome::completed());
    expectClean();
}

TEST_F(LedgerRunsTest, ADeadWorkersAttemptsFailWithTheSignalAndKeepWhatTheyRecorded)
{
    ledger().submitRun(test::testRunSpec(m_protocol, 0));
    ledger().submitRun(test::testRunSpec(m_protocol, 1));
    ledger().submitRun(test::testRunSpec(m_protocol, 2));
    auto dead = ledger().claim("kosmos-cli-4242-0", 30000);
    auto alive = ledger().claim("kosmos-cli-42420-0", 30000); // another pid sharing the prefix
    ASSERT_TRUE(dead && alive);
    ledger().appendEvent(*dead, "step", {{"step", 3}});
    ledger().putArtifact(*dead, "frame", "frame_00000.png", test::testImage(8, 8, 1), "image/png");
    EXPECT_THROW(ledger().failAttemptsOfDeadWorker("kosmos-cli-4242-", AttemptOutcome::completed()),
                 Error);
    const auto closed = ledger().failAttemptsOfDeadWorker(
        "kosmos-cli-4242-",
        AttemptOutcome::failed("worker_crashed", "worker process killed by signal 6 (Aborted)", 6));
    ASSERT_EQ(closed, std::vector<std::int64_t>{dead->attemptId});
    const auto attempts = ledger().attempts(dead->runId);
    EXPECT_EQ(attempts[0].state, "failed");
    EXPECT_EQ(attempts[0].exitSignal, 6);
    EXPECT_EQ(ledger().run(dead->runId)->status, "failed");
    EXPECT_EQ(ledger().info().artifacts, 1) << "what the dead worker stored is kept";
    EXPECT_THROW(ledger().appendEvent(*dead, "late"), Error) << "its lease is over";
    EXPECT_EQ(ledger().run(alive->runId)->status, "running") << "a different worker untouched";
    EXPECT_TRUE(ledger()
                    .failAttemptsOfDeadWorker("kosmos-cli-4242-", AttemptOutcome::failed("x", "y"))
                    .empty());
    ledger().finishAttempt(*alive, AttemptOutcome::completed());
    expectClean();
}

TEST_F(LedgerRunsTest, BadWritesAreRefusedWithReasons)
{
    ledger().submitRun(test::testRunSpec(m_protocol, 0));
    auto lease = ledger().claim("w", 30000);
    EXPECT_THROW(ledger().claim("", 1000), Error);
    EXPECT_THROW(ledger().claim("w", 0), Error);
    EXPECT_THROW(ledger().appendEvent(*lease, ""), Error);
    EXPECT_THROW(ledger().recordValidation(*lease, {"v", "1", "maybe", {}, nullptr}), Error);
    auto judgment = test::testJudgment();
    judgment.outcome = "unknown"; // but no reason
    EXPECT_THROW(ledger().recordJudgment(*lease, judgment), Error);
    judgment.outcome = "victory";
    EXPECT_THROW(ledger().recordJudgment(*lease, judgment), Error);
    StoredObject notStored{std::string(64, 'a'), 3, "text/plain", std::nullopt, false};
    EXPECT_THROW(ledger().attachArtifact(*lease, "x", "y", notStored), Error);
    Lease forged = *lease;
    forged.token = "forged";
    EXPECT_THROW(ledger().appendEvent(forged, "x"), Error);
    ledger().finishAttempt(*lease, AttemptOutcome::completed());
    expectClean();
}

TEST_F(LedgerRunsTest, HumanLabelsAndBookmarks)
{
    const auto r = ledger().submitRun(test::testRunSpec(m_protocol, 0));
    HumanLabelRecord label;
    label.runId = r.runId;
    label.annotatorId = "ann-1";
    label.split = "held_out";
    label.completion = "met";
    label.progress = 5;
    const auto id = ledger().addHumanLabel(label);
    EXPECT_GT(id, 0);
    label.progress = 3; // met needs progress 5
    EXPECT_THROW(ledger().addHumanLabel(label), Error);
    label.progress = 9;
    EXPECT_THROW(ledger().addHumanLabel(label), Error);
    label.progress = 5;
    label.runId = 12345;
    EXPECT_THROW(ledger().addHumanLabel(label), Error);
    EXPECT_EQ(ledger().info().humanLabels, 1);
    EXPECT_GT(ledger().addBookmark(r.runId, 12, "gripper slips here", "me"), 0);
}
