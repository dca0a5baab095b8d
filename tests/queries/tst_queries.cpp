// Read models the workstation shows: what a run can be compared with, and the short labels that
// tell components apart.
#include "ledger/Ledger.h"
#include "queries/ComponentLabels.h"
#include "queries/SameStart.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

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
