// The fidelity report on a small fixed ledger: three policies, four starts of one task, physics
// labels and judged imagined runs written through the ledger API, every number worked out by
// hand (the correlations also with numpy: Pearson 0.56362, Spearman 0.5, MMRV 1/6).
#include "evaluation/Calibration.h"
#include "evaluation/Fidelity.h"
#include "ledger/Ledger.h"
#include "queries/LatestRuns.h"
#include "util/Error.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>

using namespace kosmos;
using kosmos::test::TempDir;

namespace {

class FidelityTest : public ::testing::Test
{
protected:
    void SetUp() override { m_ledger.emplace(Ledger::create(m_dir / "f.kosmos")); }

    TempDir m_dir;
    std::optional<Ledger> m_ledger;
    std::string m_physics;
    std::string m_imagined;
};

} // namespace

TEST_F(FidelityTest, TheReportPairsStartsAndComputesEveryNumber)
{
    std::tie(m_physics, m_imagined) = test::writeFidelityFixture(*m_ledger);
    FidelityOptions options;
    options.physicsProtocol = m_physics;
    options.imaginedProtocol = m_imagined;
    options.replicates = 500;
    const FidelityReport r = fidelityReport(*m_ledger, options);
    EXPECT_EQ(r.pairs.size(), 12u);
    EXPECT_EQ(r.unpairedPhysics, 1);
    EXPECT_EQ(r.unpairedImagined, 1);
    ASSERT_EQ(r.policies.size(), 3u);
    // By physics rate: A 3/4, B 2/4, C 0/4.
    EXPECT_NE(r.policies[0].policy.find("\"A\""), std::string::npos) << r.policies[0].policy;
    EXPECT_EQ(r.policies[0].physics.successes, 3);
    EXPECT_EQ(r.policies[0].physics.n, 4);
    EXPECT_EQ(r.policies[0].imagined.successes, 2);
    EXPECT_EQ(r.policies[0].harsh, 1);
    EXPECT_EQ(r.policies[0].lenient, 0);
    EXPECT_EQ(r.policies[1].imagined.successes, 3);
    EXPECT_EQ(r.policies[1].lenient, 1);
    EXPECT_EQ(r.policies[2].imagined.successes, 1);
    EXPECT_EQ(r.policies[2].imagined.n, 3);
    EXPECT_EQ(r.policies[2].imaginedMissing, 1);
    EXPECT_EQ(r.policies[2].imaginedInvalid, 1) << "its rollout failed validation";
    EXPECT_EQ(r.policies[0].imaginedInvalid, 0);
    EXPECT_EQ(r.policies[2].lenient, 1);
    ASSERT_TRUE(r.pearson.value && r.spearman.value && r.mmrv.value);
    EXPECT_NEAR(*r.pearson.value, 0.5636214801906779, 1e-9);
    EXPECT_NEAR(*r.spearman.value, 0.5, 1e-9);
    EXPECT_NEAR(*r.mmrv.value, 1.0 / 6.0, 1e-9);
    ASSERT_TRUE(r.pearson.lower && r.pearson.upper);
    EXPECT_LE(*r.pearson.lower, *r.pearson.value);
    EXPECT_GE(*r.pearson.upper, *r.pearson.value);
    // Decisive in both: physics success 4 / 1 (world success / failure), physics failure 2 / 4.
    EXPECT_EQ(r.confusion[1][1], 4);
    EXPECT_EQ(r.confusion[1][0], 1);
    EXPECT_EQ(r.confusion[0][1], 2);
    EXPECT_EQ(r.confusion[0][0], 4);
    EXPECT_EQ(r.agreement.successes, 8);
    EXPECT_EQ(r.agreement.n, 11);
    // Four starts cannot separate any pair at 95 %: every order is indeterminate somewhere.
    EXPECT_EQ(r.pairsSameOrder + r.pairsOppositeOrder + r.pairsIndeterminate, 3);
    ASSERT_EQ(r.orderLines.size(), 3u);
    for (const auto &line : r.orderLines)
        EXPECT_TRUE(std::any_of(r.policies.begin(), r.policies.end(), [&](const auto &p) {
            return line.rfind(policyDisplayName(p.policy) + " vs ", 0) == 0;
        })) << line;
    // The same inputs and seed give the same intervals.
    const FidelityReport again = fidelityReport(*m_ledger, options);
    EXPECT_EQ(*again.pearson.lower, *r.pearson.lower);
    const std::string text = toText(r, nullptr);
    EXPECT_NE(text.find("not real robot-task success"), std::string::npos) << text;
    EXPECT_EQ(toJson(r)["episodes"]["agreement"]["n"], 11);
}

// A policy that reads the simulator's state has an open-loop twin in the world model
// (kosmos-cli fidelity prepare: replay.actions by seed, settings.replays naming it): its imagined
// runs are paired with its physics runs, and it is marked open loop in the report, its text and
// its JSON. A policy without a twin is not.
TEST_F(FidelityTest, AnOpenLoopTwinIsPairedWithThePolicyItReplaysAndMarked)
{
    std::tie(m_physics, m_imagined) =
        test::writeFidelityFixture(*m_ledger, {{"A", {1, 0, 0, 0}}, {"X", {1, 1, 1, 0}}},
                                   {{"A", {1, 0, 0, 1}}, {"replay:X", {1, 1, 0, 0}}});
    FidelityOptions options;
    options.physicsProtocol = m_physics;
    options.imaginedProtocol = m_imagined;
    options.replicates = 200;
    const FidelityReport r = fidelityReport(*m_ledger, options);
    EXPECT_EQ(r.pairs.size(), 8u);
    EXPECT_EQ(r.unpairedPhysics, 0);
    EXPECT_EQ(r.unpairedImagined, 0);
    ASSERT_EQ(r.policies.size(), 2u);
    const FidelityPolicy &x = r.policies[0]; // 3/4 in physics
    EXPECT_NE(x.policy.find("\"variant\":\"X\""), std::string::npos) << x.policy;
    EXPECT_EQ(x.policy.rfind("synthetic.policy ", 0), 0u) << "named as in physics: " << x.policy;
    EXPECT_TRUE(x.openLoopReplay);
    EXPECT_EQ(x.imagined.successes, 2);
    EXPECT_EQ(x.harsh, 1);
    EXPECT_FALSE(r.policies[1].openLoopReplay);
    EXPECT_EQ(r.openLoopPolicies, std::vector<std::string>{x.policy});
    const std::string text = toText(r, nullptr);
    EXPECT_NE(text.find("open loop: synthetic.policy"), std::string::npos) << text;
    const nlohmann::json j = toJson(r);
    EXPECT_EQ(j["policies"][0]["open_loop_replay"], true);
    EXPECT_EQ(j["policies"][1]["open_loop_replay"], false);
}

// The imagined actions replayed in physics (kosmos-cli fidelity prepare --in-physics) split the
// per-episode disagreement: worked out by hand. Per pair (physics, imagined, in-physics):
// A: 111 110 101 000 -> agree, cancelled, world model and judge (harsh), agree;
// B: 111 011 110 000 -> agree, reaction, cancelled, agree;
// C: 000 000 010 01- -> agree, agree, world model and judge (lenient), without a replay.
// Imagined against in-physics over 11 pairs: [in-physics][imagined] 00: 4, 01: 3, 10: 1, 11: 3,
// agreement 7/11, kappa (77 - 59) / (121 - 59) = 18/62; physics against in-physics: 8/11,
// kappa (88 - 62) / (121 - 62) = 26/59.
TEST_F(FidelityTest, TheImaginedActionsInPhysicsSplitTheDisagreement)
{
    std::tie(m_physics, m_imagined) = test::writeFidelityFixture(
        *m_ledger, {{"A", {1, 1, 1, 0}}, {"B", {1, 0, 1, 0}}, {"C", {0, 0, 0, 0}}},
        {{"A", {1, 1, 0, 0}}, {"B", {1, 1, 1, 0}}, {"C", {0, 0, 1, 1}}});
    EXPECT_TRUE(inPhysicsReplaysOf(*m_ledger, {m_imagined}).empty());
    // The judge read A's and C's replays: on A's third (a harsh error of the world model and
    // judge) it says failure again, as on the imagined frames (its own error); on C's third (a
    // lenient one) failure, the physics label (the imagined frames showed a success).
    const std::string replays =
        test::writeInPhysicsRuns(*m_ledger, "imag-in-physics",
                                 {{"A", {1, 0, 1, 0}}, {"B", {1, 1, 0, 0}}, {"C", {0, 0, 0, -1}}},
                                 {{"A", {1, 0, 0, 0}}, {"C", {0, 0, 0, -1}}});
    // Found by name ("<imagined>-in-physics"), as the Fidelity tab offers it; not for a protocol
    // without them.
    EXPECT_EQ(inPhysicsReplaysOf(*m_ledger, {m_imagined}), std::vector<std::string>{replays});
    EXPECT_TRUE(inPhysicsReplaysOf(*m_ledger, {m_imagined, m_physics}).empty());
    FidelityOptions options;
    options.physicsProtocol = m_physics;
    options.imaginedProtocol = m_imagined;
    options.replicates = 100;
    EXPECT_TRUE(fidelityReport(*m_ledger, options).closedLoop.protocols.empty());
    options.inPhysicsProtocols = {"imag-in-physics"};
    const FidelityReport r = fidelityReport(*m_ledger, options);
    const ClosedLoopSplit &s = r.closedLoop;
    ASSERT_EQ(s.protocols.size(), 1u);
    EXPECT_EQ(s.name, "imag-in-physics");
    EXPECT_EQ(s.triples, 11);
    EXPECT_EQ(s.agree, 6);
    EXPECT_EQ(s.cancelled, 2);
    EXPECT_EQ(s.reaction, 1);
    EXPECT_EQ(s.worldJudge, 2);
    EXPECT_EQ(s.worldLenient, 1);
    EXPECT_EQ(s.worldHarsh, 1);
    EXPECT_EQ(s.withoutReplay, 1);
    EXPECT_EQ(s.worldJudgeJudged, 2);
    EXPECT_EQ(s.judgeRepeats, 1);
    EXPECT_EQ(s.confusion[0][0], 4);
    EXPECT_EQ(s.confusion[0][1], 3);
    EXPECT_EQ(s.confusion[1][0], 1);
    EXPECT_EQ(s.confusion[1][1], 3);
    EXPECT_EQ(s.agreement.successes, 7);
    EXPECT_EQ(s.agreement.n, 11);
    ASSERT_TRUE(s.kappa.kappa);
    EXPECT_NEAR(*s.kappa.kappa, 18.0 / 62.0, 1e-12);
    EXPECT_EQ(s.actionsAgreement.successes, 8);
    EXPECT_EQ(s.actionsAgreement.n, 11);
    ASSERT_TRUE(s.actionsKappa.kappa);
    EXPECT_NEAR(*s.actionsKappa.kappa, 26.0 / 59.0, 1e-12);
    ASSERT_EQ(s.policies.size(), 3u); // the report's order: A, B, C
    EXPECT_EQ(s.policies[0].policy, r.policies[0].policy);
    EXPECT_EQ(s.policies[0].inPhysics.successes, 2);
    EXPECT_EQ(s.policies[0].inPhysics.n, 4);
    EXPECT_EQ(s.policies[0].worldJudge, 1);
    EXPECT_EQ(s.policies[1].reaction, 1);
    EXPECT_EQ(s.policies[1].worldJudge, 0);
    EXPECT_EQ(s.policies[2].inPhysics.n, 3);
    EXPECT_EQ(s.policies[2].worldJudge, 1);
    // Every disagreement of the report is a reaction, an error on the actions, or unsplit.
    int disagree = 0;
    for (const auto &p : r.policies)
        disagree += p.lenient + p.harsh;
    EXPECT_EQ(s.reaction + s.worldJudge + s.withoutReplay, disagree);
    const std::string text = toText(r, nullptr);
    EXPECT_NE(text.find("of 11 pairs decisive in all three, 6 agree; 1 the policy acted otherwise"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("2 the world model or the judge erred on the very actions (1 lenient, 1 "
                        "harsh)"),
              std::string::npos)
        << text;
    const nlohmann::json j = toJson(r)["closed_loop_split"];
    EXPECT_EQ(j["reaction"], 1);
    EXPECT_EQ(j["world_model_and_judge"], 2);
    EXPECT_EQ(j["without_replay"], 1);
    EXPECT_EQ(j["judge_repeats_in_physics"], 1);
    EXPECT_NE(text.find("the same call as on the imagined frames in 1 (the judge's error), the "
                        "physics label in 1"),
              std::string::npos)
        << text;
    EXPECT_EQ(j["policies"][2]["in_physics"]["n"], 3);
    options.inPhysicsProtocols.clear();
    EXPECT_TRUE(toJson(fidelityReport(*m_ledger, options))["closed_loop_split"].is_null());
    options.inPhysicsProtocols = {"imag-in-physics"};

    // What cannot be the replays: named, nothing changed.
    auto refused = [&](std::vector<std::string> protocols, const std::string &why) {
        FidelityOptions o = options;
        o.inPhysicsProtocols = std::move(protocols);
        try {
            fidelityReport(*m_ledger, o);
            ADD_FAILURE() << "accepted: " << why;
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
        }
    };
    refused({"phys"}, "--in-physics names the physics protocol phys");
    refused({"imag"}, "--in-physics names the imagined protocol imag");
    test::writeInPhysicsRuns(*m_ledger, "not-replays", {{"synthetic.policy:A", {1}}});
    refused({"not-replays"}, "not-replays has a run of ");
    test::writeInPhysicsRuns(*m_ledger, "again", {{"A", {1}}});
    refused({"imag-in-physics", "again"}, "is replayed in two of the --in-physics protocols");
    refused({"nope"}, "nope");
}

// A policy evaluated later on the same starts (its own physics protocol with the same seed,
// tasks, episodes, horizon and world, and its imagined protocol from the same start frames)
// joins the study: one report over every policy, the protocols named together. What cannot be
// the same starts, the same world model and judge, or holds a policy twice, is refused naming it.
TEST_F(FidelityTest, ProtocolsOfPoliciesAddedOnTheSameStartsJoinOneReport)
{
    const nlohmann::json same = {{"seed", 5}, {"horizon", 50}};
    const nlohmann::json imagined = {{"judge", "j"}, {"horizon", 50}};
    test::writeFidelityProtocols(*m_ledger, "study", "study-imagined", same, imagined,
                                 {{"A", {1, 1, 0, 0}}, {"B", {0, 0, 0, 1}}},
                                 {{"A", {1, 0, 0, 0}}, {"B", {0, 0, 0, 1}}});
    test::writeFidelityProtocols(*m_ledger, "expert", "expert-imagined", same, imagined,
                                 {{"X", {1, 1, 1, 1}}}, {{"replay:X", {1, 1, 1, 0}}});
    FidelityOptions options;
    options.physicsProtocol = "study";
    options.imaginedProtocol = "study-imagined";
    options.alsoPhysics = {"expert"};
    options.alsoImagined = {"expert-imagined"};
    options.replicates = 200;
    const FidelityReport r = fidelityReport(*m_ledger, options);
    EXPECT_EQ(r.physicsName, "study + expert");
    EXPECT_EQ(r.imaginedName, "study-imagined + expert-imagined");
    EXPECT_EQ(r.physicsProtocols.size(), 2u);
    EXPECT_EQ(r.pairs.size(), 12u);
    EXPECT_EQ(r.unpairedPhysics + r.unpairedImagined, 0);
    ASSERT_EQ(r.policies.size(), 3u);
    EXPECT_NE(r.policies[0].policy.find("\"X\""), std::string::npos);
    EXPECT_TRUE(r.policies[0].openLoopReplay);
    EXPECT_EQ(r.policies[0].physics.successes, 4);
    EXPECT_EQ(toJson(r)["physics_protocols"].size(), 2u);
    // The Fidelity tab offers them as one entry: "<name>-imagined" of each.
    const auto groups = fidelityGroups(*m_ledger);
    ASSERT_EQ(groups.size(), 1u);
    ASSERT_EQ(groups[0].physics.size(), 2u);
    EXPECT_EQ(groups[0].physics[1].first, "expert");
    EXPECT_EQ(groups[0].imagined[1].first, "expert-imagined");

    auto refused = [&](const std::vector<std::string> &physics,
                       const std::vector<std::string> &imaginedAlso) {
        FidelityOptions o = options;
        o.alsoPhysics = physics;
        o.alsoImagined = imaginedAlso;
        try {
            fidelityReport(*m_ledger, o);
        } catch (const Error &e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
            return std::string(e.what());
        }
        return std::string("no error");
    };
    // Other starts (another seed), another judge, the same policy twice, a protocol twice.
    test::writeFidelityProtocols(*m_ledger, "other-seed", "other-seed-imagined",
                                 {{"seed", 6}, {"horizon", 50}}, {{"judge", "k"}, {"horizon", 50}},
                                 {{"Y", {1, 0, 0, 0}}}, {{"Y", {1, 0, 0, 0}}});
    std::string m = refused({"other-seed"}, {});
    EXPECT_NE(m.find("other-seed cannot join study: its seed differs"), std::string::npos) << m;
    m = refused({}, {"other-seed-imagined"});
    EXPECT_NE(m.find("its judge differs"), std::string::npos) << m;
    test::writeFidelityProtocols(*m_ledger, "again", "again-imagined", same, imagined,
                                 {{"A", {1, 1, 1, 1}}}, {{"A", {1, 1, 1, 1}}});
    m = refused({"again"}, {"again-imagined"});
    EXPECT_NE(m.find("has runs in both study and again"), std::string::npos) << m;
    m = refused({"expert", "expert"}, {});
    EXPECT_NE(m.find("named twice"), std::string::npos) << m;
    // Imagined protocols whose same start has another start frame.
    auto withFrame = [&](const std::string &frame) {
        return nlohmann::json{
            {"judge", "j"},
            {"horizon", 50},
            {"tasks", {{{"id", "t#0"}, {"start_state", {{"frame_sha256", frame}}}}}}};
    };
    test::writeFidelityProtocols(*m_ledger, "f1", "f1-imagined", same, withFrame("aa"),
                                 {{"F", {1}}}, {{"F", {1}}});
    test::writeFidelityProtocols(*m_ledger, "f2", "f2-imagined", same, withFrame("bb"),
                                 {{"G", {1}}}, {{"G", {1}}});
    FidelityOptions frames;
    frames.physicsProtocol = "f1";
    frames.imaginedProtocol = "f1-imagined";
    frames.alsoPhysics = {"f2"};
    frames.alsoImagined = {"f2-imagined"};
    frames.replicates = 20;
    try {
        fidelityReport(*m_ledger, frames);
        ADD_FAILURE() << "other start frames joined";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("start t#0 has another start frame in f2-imagined"),
                  std::string::npos)
            << e.what();
    }
}

TEST(FidelityText, PoliciesAreNamedWithoutWhatTheirAdapterResolved)
{
    // A policy's identity carries what its adapter resolved (device, file hashes, threads): the
    // table and the pairwise orders name it by what the protocol said.
    EXPECT_EQ(policyDisplayName(R"(torch.generic_policy {"package":"models/a","resolved":)"
                                R"({"device":"cpu","threads":1}})"),
              R"(torch.generic_policy {"package":"models/a"})");
    EXPECT_EQ(policyDisplayName("synthetic.policy {\"variant\":\"A\"}"),
              "synthetic.policy {\"variant\":\"A\"}");
}

TEST_F(FidelityTest, ProtocolsThatCannotBeComparedAreNamedErrors)
{
    std::tie(m_physics, m_imagined) = test::writeFidelityFixture(*m_ledger);
    FidelityOptions same;
    same.physicsProtocol = m_physics;
    same.imaginedProtocol = m_physics;
    EXPECT_NE(test::errorOf([&] { fidelityReport(*m_ledger, same); }).find("are the same"),
              std::string::npos);
    FidelityOptions swapped;
    swapped.physicsProtocol = m_imagined; // judged, no physics labels
    swapped.imaginedProtocol = m_physics;
    EXPECT_NE(
        test::errorOf([&] { fidelityReport(*m_ledger, swapped); }).find("has no physics labels"),
        std::string::npos);
}

namespace {

std::string variantOf(const LatestRun &run)
{
    return nlohmann::json::parse(run.policyLabel.substr(run.policyLabel.find(' ') + 1))
        .value("variant", std::string());
}

} // namespace

// The report read with another judge configuration than the protocols' own: each run's latest
// judgment by it, recorded when it re-judged the recorded rollouts, on both sides; rollouts it has
// not judged count as without a verdict and are counted; the protocols' own reading is unchanged.
TEST_F(FidelityTest, AnotherJudgeConfigurationReadsTheSameRollouts)
{
    std::tie(m_physics, m_imagined) = test::writeFidelityFixture(*m_ledger);
    // judge-2 sees in the imagined rollouts of A and B exactly what physics saw from their starts
    // (A 1 1 1 0, B 1 0 1 0), in A's physics rollouts the physics labels, and nothing of C's.
    const std::map<std::string, std::vector<bool>> truth = {{"A", {1, 1, 1, 0}},
                                                            {"B", {1, 0, 1, 0}}};
    for (const LatestRun &run : latestRuns(*m_ledger, {m_imagined, true, std::nullopt})) {
        const auto it = truth.find(variantOf(run));
        const auto hash = run.task.find('#');
        const std::size_t start = std::stoul(run.task.substr(hash + 1));
        if (it != truth.end() && start < it->second.size())
            test::rejudgeRun(*m_ledger, run.runId, it->second[start]);
        if (run.validation == "invalid") // C's fourth: judged again, but it failed validation
            test::rejudgeRun(*m_ledger, run.runId, true);
    }
    for (const LatestRun &run : latestRuns(*m_ledger, {m_physics, true, std::nullopt}))
        if (variantOf(run) == "A" && run.episodeIndex < 4)
            test::rejudgeRun(*m_ledger, run.runId,
                             truth.at("A")[static_cast<std::size_t>(run.episodeIndex)]);

    const auto configs = judgeConfigs(*m_ledger);
    ASSERT_EQ(configs.size(), 2u);
    const std::string judge2 = configs[1].key;
    ASSERT_NE(judge2.find("0.25"), std::string::npos) << judge2;
    FidelityOptions options;
    options.physicsProtocol = m_physics;
    options.imaginedProtocol = m_imagined;
    options.replicates = 200;
    options.judgeConfig = judge2;
    const FidelityReport r = fidelityReport(*m_ledger, options);
    EXPECT_EQ(r.judgeConfig, judge2);
    ASSERT_EQ(r.policies.size(), 3u);
    EXPECT_EQ(r.policies[0].imagined.successes, 3); // A: the protocol's own judge said 2 of 4
    EXPECT_EQ(r.policies[0].imagined.n, 4);
    EXPECT_EQ(r.policies[0].harsh + r.policies[0].lenient, 0);
    EXPECT_EQ(r.policies[1].imagined.successes, 2); // B: 3 of 4
    EXPECT_EQ(r.policies[2].imagined.n, 0) << "C's imagined runs were not judged by judge-2";
    EXPECT_EQ(r.policies[2].imaginedMissing, 4);
    EXPECT_EQ(r.policies[2].imaginedInvalid, 1) << "a re-judged invalid rollout does not count";
    // Not judged by it: A's start t#9 and C's three valid imagined rollouts (its fourth failed
    // validation, so no judge ever saw it); of physics, every run but A's first four.
    EXPECT_EQ(r.imaginedNotJudgedByConfig, 4);
    EXPECT_EQ(r.physicsNotJudgedByConfig, 9);
    EXPECT_EQ(r.agreement.successes, 8); // A and B: every decisive pair agrees
    EXPECT_EQ(r.agreement.n, 8);
    EXPECT_EQ(r.judgeOnPhysics.sensitivity.successes, 3);
    EXPECT_EQ(r.judgeOnPhysics.sensitivity.n, 3);
    EXPECT_EQ(r.judgeOnPhysics.specificity.n, 1);
    EXPECT_EQ(r.judgeOnPhysics.unjudged, 9);
    const std::string text = toText(r, nullptr);
    EXPECT_NE(text.find("Judged by " + judge2), std::string::npos) << text;
    EXPECT_NE(text.find("4 imagined, 9 physics"), std::string::npos) << text;
    const nlohmann::json json = toJson(r);
    EXPECT_EQ(json["judge_configuration"]["key"], judge2);
    EXPECT_EQ(json["judge_configuration"]["imagined_not_judged"], 4);

    // The protocols' own judge: as before any re-judgment.
    options.judgeConfig.clear();
    const FidelityReport own = fidelityReport(*m_ledger, options);
    EXPECT_TRUE(own.judgeConfig.empty());
    EXPECT_EQ(own.policies[0].imagined.successes, 2);
    EXPECT_EQ(own.policies[1].imagined.successes, 3);
    EXPECT_EQ(own.agreement.n, 11);
    EXPECT_TRUE(toJson(own)["judge_configuration"].is_null());
    EXPECT_EQ(toText(own, nullptr).find("Judged by"), std::string::npos);

    // A configuration no judgment has is a named error.
    options.judgeConfig = "synthetic.judge 1.0.0 {}";
    EXPECT_NE(test::errorOf([&] {
                  fidelityReport(*m_ledger, options);
              }).find("no judgment in this ledger has the judge configuration"),
              std::string::npos);

    // kosmos-cli fidelity --config: the configuration by its number (as kosmos-cli audit lists
    // them) or its key; the comparison tool says whose verdicts each side counts.
    m_ledger.reset();
    const std::string bundle = (m_dir / "f.kosmos").string();
    const auto byNumber =
        test::runProcess({test::cliPath(), "fidelity", bundle, "--physics", "phys", "--imagined",
                          "imag", "--replays", "0", "--config", "2", "--json"});
    ASSERT_EQ(byNumber.exitCode, 0) << byNumber.output;
    EXPECT_EQ(nlohmann::json::parse(byNumber.output)["judge_configuration"]["key"], judge2);
    const auto report = (m_dir / "judge-2.json").string();
    std::ofstream(report) << byNumber.output;
    const auto compared = test::runProcess(
        {"/usr/bin/python3", std::string(KOSMOS_SOURCE_DIR) + "/tools/fidelity_compare.py", report,
         report});
    ASSERT_EQ(compared.exitCode, 0) << compared.output;
    EXPECT_NE(compared.output.find("| judged by | `" + judge2 + "` (not judged by it: 4 imagined"),
              std::string::npos)
        << compared.output;
    const auto byKey =
        test::runProcess({test::cliPath(), "fidelity", bundle, "--physics", "phys", "--imagined",
                          "imag", "--replays", "0", "--config", judge2});
    ASSERT_EQ(byKey.exitCode, 0) << byKey.output;
    EXPECT_NE(byKey.output.find("Judged by " + judge2), std::string::npos) << byKey.output;
    const auto unknown =
        test::runProcessWithStderr({test::cliPath(), "fidelity", bundle, "--physics", "phys",
                                    "--imagined", "imag", "--replays", "0", "--config", "3"});
    EXPECT_NE(unknown.exitCode, 0);
    EXPECT_NE(unknown.output.find("no judge configuration '3' (2 in this ledger"),
              std::string::npos)
        << unknown.output;
}

// Physics gives five policies 4, 1, 0, 0, 0 successes of 20 (a third seed's held-out starts, at
// a fifth of the size): the correlations read as excellent before (Pearson 0.829, MMRV 0.006);
// now the report says they are not informative, why, and how much more data would change that.
TEST(FidelityHonesty, CorrelationsOverRatesPhysicsCannotTellApartAreNotInformative)
{
    test::TempDir dir;
    Ledger ledger = Ledger::create(dir / "flat.kosmos");
    auto successes = [](int k, int n, int offset = 0) {
        std::vector<int> v(static_cast<std::size_t>(n), 0);
        for (int i = 0; i < k; ++i)
            v[static_cast<std::size_t>((i + offset) % n)] = 1;
        return v;
    };
    test::writeFidelityFixture(ledger,
                               {{"P1", successes(4, 20)},
                                {"P2", successes(1, 20)},
                                {"P3", successes(0, 20)},
                                {"P4", successes(0, 20)},
                                {"P5", successes(0, 20)}},
                               {{"P1", successes(5, 20)},
                                {"P2", successes(2, 20, 3)},
                                {"P3", successes(1, 20, 7)},
                                {"P4", successes(1, 20, 9)},
                                {"P5", successes(0, 20)}});
    FidelityOptions options;
    options.physicsProtocol = "phys";
    options.imaginedProtocol = "imag";
    options.replicates = 300;
    const FidelityReport r = fidelityReport(ledger, options);
    EXPECT_EQ(r.physicsSpread.levels, 1);
    EXPECT_EQ(r.physicsSpread.atZero, 3);
    EXPECT_EQ(r.physicsSpread.orderedPairs, 0);
    EXPECT_FALSE(r.correlationsInformative());
    ASSERT_TRUE(r.pearson.value.has_value()) << "still computed and shown";
    const std::string text = toText(r, nullptr);
    EXPECT_NE(text.find("NOT INFORMATIVE: the correlations and MMRV below say nothing"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("rests on the 0 pairwise order(s) physics states"), std::string::npos);
    EXPECT_NE(text.find("physics episodes per policy would tell them apart"), std::string::npos);
    const auto json = toJson(r);
    EXPECT_FALSE(json["correlations_informative"].get<bool>());
    EXPECT_EQ(json["spread"]["distinguishable_levels"], 1);
    EXPECT_EQ(json["mmrv_rests_on_orders"], 0);
    EXPECT_EQ(json["plan"]["separate"].size(), 10u) << "every pair is indeterminate in physics";
    EXPECT_EQ(json["plan"]["starts"], 20);
}

TEST(FrameFidelity, PsnrAndSsimOfKnownImages)
{
    const cv::Mat grey(32, 32, CV_8UC3, cv::Scalar::all(100));
    EXPECT_DOUBLE_EQ(framePsnr(grey, grey), 99.0);
    EXPECT_NEAR(frameSsim(grey, grey), 1.0, 1e-12);
    // A uniform offset of 10 grey levels: MSE 100, PSNR 10 log10(255^2 / 100) = 28.1308 dB.
    const cv::Mat brighter(32, 32, CV_8UC3, cv::Scalar::all(110));
    EXPECT_NEAR(framePsnr(grey, brighter), 28.1308, 1e-3);
    // Constant images: SSIM = (2 mu_x mu_y + C1) / (mu_x^2 + mu_y^2 + C1).
    const double c1 = 6.5025;
    EXPECT_NEAR(frameSsim(grey, brighter), (2 * 100 * 110 + c1) / (100 * 100 + 110 * 110 + c1),
                1e-9);
    FrameFidelityCurve curve;
    addReplay(curve, {grey, grey, grey}, {grey, grey, brighter});
    addReplay(curve, {grey, grey}, {grey, brighter});
    EXPECT_EQ(curve.episodes, 2);
    ASSERT_EQ(curve.psnrMean.size(), 2u);
    EXPECT_NEAR(curve.psnrMean[0], (99.0 + 28.1308) / 2, 1e-3);
    EXPECT_EQ(curve.count[1], 1);
    // What the workstation reads back from kosmos-cli fidelity --json.
    const FrameFidelityCurve back = frameFidelityFromJson(toJson(curve));
    EXPECT_EQ(back.episodes, 2);
    EXPECT_EQ(back.count, curve.count);
    EXPECT_NEAR(back.psnrMean[0], curve.psnrMean[0], 1e-3);
    EXPECT_TRUE(frameFidelityFromJson({{"psnr_db", {1, 2}}, {"ssim", {1}}}).psnrMean.empty())
        << "mismatched lengths are refused";
}

namespace {

// k successes of n, spread over the starts.
std::vector<int> spreadSuccesses(int k, int n, int offset = 0)
{
    std::vector<int> v(static_cast<std::size_t>(n), 0);
    for (int i = 0; i < k; ++i)
        v[static_cast<std::size_t>((i * n / std::max(k, 1) + offset) % n)] = 1;
    return v;
}

const FidelityGoal &goalOf(const std::vector<FidelityGoal> &goals, const std::string &id)
{
    const auto it =
        std::find_if(goals.begin(), goals.end(), [&](const auto &g) { return g.id == id; });
    if (it == goals.end())
        throw std::runtime_error("no goal " + id);
    return *it;
}

// The report over a new ledger holding these outcomes (writeFidelityFixture's form).
FidelityReport reportOf(const std::map<std::string, std::vector<int>> &physics,
                        const std::map<std::string, std::vector<int>> &imagined,
                        const std::map<std::string, std::vector<int>> &judgedPhysics, int tasks = 1)
{
    test::TempDir dir;
    Ledger ledger = Ledger::create(dir / "goals.kosmos");
    test::writeFidelityFixture(ledger, physics, imagined, judgedPhysics, tasks);
    FidelityOptions options;
    options.physicsProtocol = "phys";
    options.imaginedProtocol = "imag";
    options.replicates = 300;
    return fidelityReport(ledger, options);
}

} // namespace

// [benchmark-fidelity]'s goals decided on a small fixed ledger: eight policies from 50 starts
// whose physics rates spread (0% .. 96%), a world model that sees exactly what physics sees, and
// a judge that reads the physics rollouts right: every goal met. Then a world model that turns
// a tenth of the outcomes over, and a judge that misses successes: the goals say which fail.
TEST(FidelityGoals, EachGoalIsDecidedOnWhatTheReportMeasured)
{
    const std::vector<int> rates = {0, 4, 12, 20, 28, 36, 44, 48}; // successes of 50
    std::map<std::string, std::vector<int>> physics, same, judged, flipped, missing;
    for (std::size_t i = 0; i < rates.size(); ++i) {
        const std::string name = "P" + std::to_string(i);
        physics[name] = spreadSuccesses(rates[i], 50);
        same[name] = physics[name];
        judged[name] = physics[name];
        flipped[name] = physics[name];
        missing[name] = physics[name];
        for (std::size_t e = i; e < 50; e += 10)
            flipped[name][e] = 1 - flipped[name][e]; // a tenth turned over
        for (std::size_t e = 0; e < 50; ++e)
            if (missing[name][e] == 1 && e % 2 == 0)
                missing[name][e] = 0; // the judge misses about half the successes
    }
    {
        const FidelityReport r = reportOf(physics, same, judged);
        EXPECT_EQ(r.judgeOnPhysics.sensitivity.n, 192);
        EXPECT_EQ(r.judgeOnPhysics.sensitivity.successes, 192);
        EXPECT_EQ(r.judgeOnPhysics.specificity.n, 208);
        const auto goals = fidelityGoals(r);
        ASSERT_EQ(goals.size(), 6u);
        for (const auto &g : goals) {
            ASSERT_TRUE(g.met.has_value()) << g.id << ": " << g.measured;
            EXPECT_TRUE(*g.met) << g.id << ": " << g.measured;
            EXPECT_FALSE(g.anchors.empty()) << g.id;
        }
        EXPECT_NE(goalOf(goals, "spread").measured.find("8 policies, physics rates 0% to 96%"),
                  std::string::npos)
            << goalOf(goals, "spread").measured;
        const std::string text = toText(r, nullptr);
        EXPECT_NE(text.find("[met]     kappa"), std::string::npos) << text;
        EXPECT_NE(text.find("sensitivity 192/192"), std::string::npos) << text;
        const auto json = toJson(r);
        ASSERT_EQ(json["goals"].size(), 6u);
        EXPECT_TRUE(json["goals"][0]["met"].get<bool>());
        EXPECT_EQ(json["judge_on_physics"]["specificity"]["n"], 208);
    }
    {
        const FidelityReport r = reportOf(physics, flipped, missing);
        const auto goals = fidelityGoals(r);
        ASSERT_TRUE(goalOf(goals, "kappa").met.has_value());
        EXPECT_TRUE(*goalOf(goals, "spread").met) << "physics is unchanged";
        EXPECT_FALSE(*goalOf(goals, "judge").met) << goalOf(goals, "judge").measured;
        EXPECT_NE(goalOf(goals, "judge").measured.find("sensitivity 96/192"), std::string::npos)
            << goalOf(goals, "judge").measured;
        ASSERT_TRUE(r.kappa.kappa.has_value());
        EXPECT_LT(*r.kappa.kappa, 0.9);
        EXPECT_EQ(*goalOf(goals, "kappa").met, *r.kappa.kappa >= 0.6);
    }
}

// A judge that reads one task and not the other: the totals hide it, the report's lines by task
// show it (text, JSON, the judge goal's measured line, which the Fidelity tab shows).
TEST(FidelityGoals, TheJudgeOnPhysicsIsAlsoReportedTaskByTask)
{
    std::map<std::string, std::vector<int>> physics, judged;
    for (int i = 0; i < 4; ++i) {
        const std::string name = "P" + std::to_string(i);
        physics[name] = spreadSuccesses(10 + 10 * i, 50);
        judged[name] = physics[name];
        for (std::size_t e = 0; e < 50; e += 2)
            judged[name][e] = 0; // task t0 (even starts): every success judged a failure
    }
    const FidelityReport r = reportOf(physics, physics, judged, 2);
    int successes[2] = {0, 0}, failures[2] = {0, 0};
    for (const auto &[name, outcomes] : physics)
        for (std::size_t e = 0; e < outcomes.size(); ++e)
            ++(outcomes[e] ? successes : failures)[e % 2];
    ASSERT_EQ(r.judgeOnPhysics.byTask.size(), 2u);
    const auto &t0 = r.judgeOnPhysics.byTask[0];
    const auto &t1 = r.judgeOnPhysics.byTask[1];
    EXPECT_EQ(t0.task, "t0");
    EXPECT_EQ(t0.sensitivity.successes, 0);
    EXPECT_EQ(t0.sensitivity.n, successes[0]);
    EXPECT_EQ(t0.specificity.successes, failures[0]);
    EXPECT_EQ(t1.task, "t1");
    EXPECT_EQ(t1.sensitivity.successes, successes[1]);
    EXPECT_EQ(t1.sensitivity.n, successes[1]);
    EXPECT_EQ(r.judgeOnPhysics.sensitivity.n, successes[0] + successes[1]);
    EXPECT_EQ(r.judgeOnPhysics.sensitivity.successes, successes[1]);
    const std::string t0Line = "t0: sensitivity 0/" + std::to_string(successes[0]);
    EXPECT_NE(toText(r, nullptr).find(t0Line), std::string::npos) << toText(r, nullptr);
    const auto judgeGoal = goalOf(fidelityGoals(r), "judge");
    EXPECT_NE(judgeGoal.measured.find("; by task: t0 sensitivity 0/"), std::string::npos)
        << judgeGoal.measured;
    const auto json = toJson(r);
    ASSERT_EQ(json["judge_on_physics"]["by_task"].size(), 2u);
    EXPECT_EQ(json["judge_on_physics"]["by_task"][0]["task"], "t0");
    EXPECT_EQ(json["judge_on_physics"]["by_task"][0]["sensitivity"]["successes"], 0);
    EXPECT_EQ(json["judge_on_physics"]["by_task"][1]["sensitivity"]["n"], successes[1]);
    // One task: no lines by task in the goal (the totals are that task's).
    EXPECT_EQ(
        goalOf(fidelityGoals(reportOf(physics, physics, judged)), "judge").measured.find("by task"),
        std::string::npos);
}

TEST_F(FidelityTest, GoalsThatCannotBeDecidedSayWhy)
{
    // Three policies from four starts, no judge on the physics rollouts: the judge's goal is
    // undecided and says why; the spread goal is not met (3 policies).
    std::tie(m_physics, m_imagined) = test::writeFidelityFixture(*m_ledger);
    FidelityOptions options;
    options.physicsProtocol = m_physics;
    options.imaginedProtocol = m_imagined;
    options.replicates = 200;
    const auto goals = fidelityGoals(fidelityReport(*m_ledger, options));
    EXPECT_FALSE(goalOf(goals, "judge").met.has_value());
    EXPECT_EQ(goalOf(goals, "judge").measured,
              "the physics protocol's rollouts have no judge verdicts");
    EXPECT_FALSE(*goalOf(goals, "spread").met);
    EXPECT_FALSE(*goalOf(goals, "pearson").met) << "not informative: never met";
    EXPECT_NE(goalOf(goals, "pearson").measured.find("not informative"), std::string::npos);
}

// tools/fidelity_compare.py (the study's two seeds side by side) reads what `kosmos-cli fidelity
// --json` writes: the same report twice differs by nothing; anything else is refused by name.
TEST_F(FidelityTest, TheComparisonToolReadsTheCommandLineReport)
{
    std::tie(m_physics, m_imagined) = test::writeFidelityFixture(*m_ledger);
    m_ledger.reset(); // kosmos-cli opens it
    const std::string bundle = (m_dir / "f.kosmos").string();
    const auto report = test::runProcess({test::cliPath(), "fidelity", bundle, "--physics", "phys",
                                          "--imagined", "imag", "--replays", "0", "--json"});
    ASSERT_EQ(report.exitCode, 0) << report.output;
    const auto json = (m_dir / "report.json").string();
    std::ofstream(json) << report.output;
    const std::string tool = std::string(KOSMOS_SOURCE_DIR) + "/tools/fidelity_compare.py";
    const auto same = test::runProcess({"/usr/bin/python3", tool, json, json});
    ASSERT_EQ(same.exitCode, 0) << same.output;
    EXPECT_NE(same.output.find("| Pearson | 0.564 ["), std::string::npos) << same.output;
    EXPECT_NE(same.output.find("| +0.000 |"), std::string::npos) << same.output;
    EXPECT_NE(same.output.find("| judge: "), std::string::npos) << "the goals, per seed";
    const auto other = (m_dir / "other.json").string();
    std::ofstream(other) << R"({"schema": "kosmos.rank/1"})";
    const auto refused = test::runProcessWithStderr({"/usr/bin/python3", tool, json, other});
    EXPECT_NE(refused.exitCode, 0);
    EXPECT_NE(refused.output.find("expected kosmos.fidelity/1"), std::string::npos)
        << refused.output;
}
