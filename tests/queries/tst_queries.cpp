// Read models the workstation shows: what a run can be compared with, and the short labels that
// tell components apart.
#include "evaluation/Calibration.h"
#include "ledger/Ledger.h"
#include "queries/BatchSummary.h"
#include "queries/ComponentLabels.h"
#include "queries/LatestRuns.h"
#include "queries/RolloutQuery.h"
#include "queries/SameStart.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <thread>

using namespace kosmos;

TEST(ComponentLabels, TheAdapterAloneWhenUniqueElseTheSettingsThatDiffer)
{
    const auto labels = distinguishingLabels({
        {"synthetic.scripted", {{"skill", "expert"}, {"noise", 0.1}}},
        {"synthetic.scripted", {{"skill", "noisy"}, {"noise", 0.1}}},
        {"openpi.client", {{"url", "http://gpu-node-17.cluster.internal:8000/v1/infer"}}},
        {"torch.policy", {{"checkpoint", {{"step", 1000}, {"ema", true}}}}},
        {"torch.policy", {{"checkpoint", {{"step", 5000}, {"ema", true}}}}},
        {"torch.policy", {{"checkpoint", {{"step", 5000}, {"ema", true}}}}},
        {"bare", nullptr},
    });
    ASSERT_EQ(labels.size(), 7u);
    EXPECT_EQ(labels[0], "skill=expert (synthetic.scripted)");
    EXPECT_EQ(labels[1], "skill=noisy (synthetic.scripted)");
    EXPECT_EQ(labels[2], "openpi.client"); // the only one of its adapter: no settings needed
    EXPECT_EQ(labels[3], "checkpoint.step=1000 (torch.policy)");
    EXPECT_EQ(labels[4], "checkpoint.step=5000 (torch.policy) #1");
    EXPECT_EQ(labels[5], "checkpoint.step=5000 (torch.policy) #2");
    EXPECT_EQ(labels[6], "bare");
    // A long differing value is cut; a key one of them lacks differs too.
    const auto cut = distinguishingLabels(
        {{"a", {{"prompt", std::string(100, 'x')}}}, {"a", {{"prompt", "short"}, {"extra", 1}}}});
    EXPECT_EQ(cut[0], "extra=- prompt=" + std::string(23, 'x') + "\u2026 (a)");
    EXPECT_EQ(cut[1], "extra=1 prompt=short (a)");
    // A model package is named by its folder, always first, even for the only one of its adapter.
    const auto packages = distinguishingLabels(
        {{"torch.generic_policy", {{"package", "/usr/share/kosmos/models/bc-expert-full/"}}},
         {"torch.generic_world_model", {{"package", "models/world"}, {"warmup", 1}}},
         {"torch.generic_policy", {{"package", "/home/u/bc-noisy"}, {"dtype", "bf16"}}}});
    EXPECT_EQ(packages[0], "bc-expert-full dtype=- (torch.generic_policy)");
    EXPECT_EQ(packages[1], "world (torch.generic_world_model)");
    EXPECT_EQ(packages[2], "bc-noisy dtype=bf16 (torch.generic_policy)");
}

TEST(CompareCandidates, TheSameStartFirstOtherPoliciesOnItFirst)
{
    test::TempDir dir;
    Ledger ledger = Ledger::create(dir / "c.kosmos");
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    // Episodes 0 and 1 of one instruction, by policies a and b; the episode seed is the start.
    std::vector<std::int64_t> ids;
    for (const char *policy : {"a", "b"})
        for (int episode = 0; episode < 2; ++episode) {
            RunSpec spec = test::testRunSpec(protocol, episode);
            spec.policy = test::testPolicy(policy);
            spec.seeds["episode"] = 100 + episode;
            ids.push_back(ledger.submitRun(spec).runId);
        }
    // ids: a/0, a/1, b/0, b/1. From a/0: b/0 (same seed, other policy) first, then the others.
    const auto candidates = compareCandidates(ledger, ids[0]);
    ASSERT_EQ(candidates.size(), 3u);
    EXPECT_EQ(candidates[0].runId, ids[2]);
    EXPECT_EQ(candidates[0].matchedBy, "seed");
    EXPECT_TRUE(candidates[0].otherPolicy);
    EXPECT_FALSE(candidates[0].otherWorldModel);
    EXPECT_EQ(candidates[1].matchedBy, "");
    EXPECT_EQ(candidates[1].runId, ids[1]);
    EXPECT_EQ(candidates[2].runId, ids[3]);
    EXPECT_NE(candidates[0].policy.find("synthetic.policy"), std::string::npos)
        << candidates[0].policy;
    EXPECT_EQ(compareCandidates(ledger, ids[0], 1).size(), 1u);
    EXPECT_TRUE(compareCandidates(ledger, 9999).empty()); // an unknown run: nothing, no throw
}

// The schema's component_labels view names a policy once for every reader: the ranking and batch
// summary, calibration's outcomes, the runs table's view, a rollout's view and the comparison
// candidates. A component whose identity holds no settings is named as one with empty settings
// (before, three readers said "ADAPTER {}", "ADAPTER " and "(no policy)" for the same policy).
TEST(LedgerViews, APolicyHasOneLabelEverywhereAlsoWithoutSettings)
{
    test::TempDir dir;
    Ledger ledger = Ledger::create(dir / "v.kosmos");
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    ComponentIdentity bare = test::testPolicy("a");
    bare.adapterId = "bare.policy";
    bare.config = nullptr; // an identity with no settings at all
    RunSpec withSettings = test::testRunSpec(protocol, 0);
    RunSpec without = test::testRunSpec(protocol, 1);
    without.policy = bare;
    RunSpec none = test::testRunSpec(protocol, 2);
    none.policy.reset(); // an imported rollout: no policy component
    const std::int64_t a = ledger.submitRun(withSettings).runId;
    const std::int64_t b = ledger.submitRun(without).runId;
    const std::int64_t c = ledger.submitRun(none).runId;

    const std::string expectedA = withSettings.policy->adapterId + " " +
                                  withSettings.policy->config.dump(); // canonical: no spaces
    const std::map<std::int64_t, std::string> expected{
        {a, expectedA}, {b, "bare.policy {}"}, {c, kNoPolicyLabel}};
    const auto runs = latestRuns(ledger, {protocol, true, std::string("human")});
    ASSERT_EQ(runs.size(), 3u);
    for (const LatestRun &run : runs)
        EXPECT_EQ(run.policyLabel, expected.at(run.runId)) << "run " << run.runId;

    std::set<std::string> summarized;
    for (const PolicySummary &row : summarizeProtocol(ledger, protocol))
        summarized.insert(row.policy);
    EXPECT_EQ(summarized, (std::set<std::string>{expectedA, "bare.policy {}", kNoPolicyLabel}));

    const ProtocolOutcomes outcomes = protocolOutcomes(ledger, protocol, "human");
    ASSERT_EQ(outcomes.missingEpisodes.size(), 3u) << "no run is labelled yet";
    std::set<std::string> named;
    for (const auto &episode : outcomes.missingEpisodes)
        named.insert(episode.policy);
    EXPECT_EQ(named, summarized);

    EXPECT_EQ(loadRollout(ledger, b).policyIdentity, "bare.policy {}");
    const auto candidates = compareCandidates(ledger, a);
    ASSERT_FALSE(candidates.empty());
    for (const auto &candidate : candidates) {
        if (candidate.runId == b) {
            EXPECT_EQ(candidate.policy, "bare.policy {}");
        }
    }
}

// The views read what counts: a judgment of a run's latest attempt only, and a world's ground
// truth only when it was written with or after the latest attempt's start.
TEST(LedgerViews, OnlyTheLatestAttemptsJudgmentAndLabelsCount)
{
    test::TempDir dir;
    Ledger ledger = Ledger::create(dir / "v.kosmos");
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    const std::int64_t run = ledger.submitRun(test::testRunSpec(protocol, 0)).runId;
    {
        auto first = ledger.claim("w1", 2000); // left to expire below
        ASSERT_TRUE(first);
        ledger.recordJudgment(*first, test::testJudgment());
        HumanLabelRecord truth;
        truth.runId = run;
        truth.annotatorId = "world";
        truth.source = "physics";
        truth.completion = "met";
        ledger.addHumanLabel(truth); // written during the first attempt, which never ends
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2100)); // the first lease expires
    auto second = ledger.claim("w2", 30000);
    ASSERT_TRUE(second);
    ASSERT_EQ(second->runId, run);
    auto runs = latestRuns(ledger, {protocol, true, std::string("physics")});
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_FALSE(runs[0].judgeOutcome) << "the first attempt's judgment judged another rollout";
    EXPECT_FALSE(runs[0].worldTruth) << "its ground truth was left by an attempt that never ended";
    EXPECT_FALSE(runs[0].sourceLabel);
    EXPECT_TRUE(judgedRolloutRuns(ledger, protocol).empty());
    ledger.recordJudgment(*second, test::testJudgment());
    HumanLabelRecord truth;
    truth.runId = run;
    truth.annotatorId = "world";
    truth.source = "physics";
    truth.completion = "not_met";
    ledger.finishAttempt(*second, AttemptOutcome::completed(), {truth});
    runs = latestRuns(ledger, {protocol, true, std::string("physics")});
    EXPECT_EQ(runs[0].judgeOutcome, test::testJudgment().outcome);
    EXPECT_EQ(runs[0].worldTruth, "not_met");
    EXPECT_EQ(runs[0].worldTruthSource, "physics");
    EXPECT_EQ(runs[0].reference, "not_met");
    EXPECT_EQ(runs[0].sourceLabel, "not_met");
    EXPECT_EQ(outcomeBy(runs[0], "physics"), "not_met");
    EXPECT_EQ(judgedRolloutRuns(ledger, protocol), (std::vector<std::int64_t>{run}));
}
