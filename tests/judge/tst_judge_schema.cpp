#include "evaluation/Calibration.h"
#include "judge/JudgeSchema.h"
#include "ledger/Ledger.h"
#include "util/Error.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace kosmos;
using nlohmann::json;

namespace {

json answer(const std::string &integrity, const std::string &completion, json progress)
{
    return {{"integrity", integrity},
            {"collision", "none_visible"},
            {"progress", progress},
            {"completion_evidence", completion},
            {"evidence_frame_indices", {13, 15}},
            {"observable_reasons", "the block sits inside the square"}};
}

ParsedAnswer parsed(const json &j)
{
    return parseJudgeAnswer(j.dump());
}

} // namespace

TEST(JudgeSchema, ClassifiesBareFencedRefusalAndInvalid)
{
    const json good = answer("intact", "met", 5);
    EXPECT_EQ(parseJudgeAnswer(good.dump()).format, FormatClass::BareJson);
    EXPECT_EQ(parseJudgeAnswer("  \n" + good.dump(2) + "\n").format, FormatClass::BareJson);
    EXPECT_EQ(parseJudgeAnswer("Here you go:\n```json\n" + good.dump() + "\n```\n").format,
              FormatClass::FencedJson);
    const auto two =
        parseJudgeAnswer("```json\n" + good.dump() + "\n```\n```json\n" + good.dump() + "\n```");
    EXPECT_EQ(two.format, FormatClass::Invalid);
    EXPECT_NE(two.error.find("2 fenced blocks"), std::string::npos) << two.error;
    EXPECT_EQ(parseJudgeAnswer("I cannot evaluate robot videos.").format, FormatClass::Refusal);
    EXPECT_EQ(parseJudgeAnswer("The robot succeeded.").format, FormatClass::Invalid);
    EXPECT_EQ(parseJudgeAnswer(std::nullopt).format, FormatClass::RequestFailed);
    EXPECT_EQ(parseJudgeAnswer("{\"integrity\": ").format, FormatClass::Invalid);
}

TEST(JudgeSchema, EnforcesEveryCrossFieldRule)
{
    EXPECT_TRUE(judgmentSchemaErrors(answer("intact", "met", 5)).empty());
    EXPECT_TRUE(judgmentSchemaErrors(answer("uncertain", "uncertain", nullptr)).empty());
    EXPECT_FALSE(judgmentSchemaErrors(answer("intact", "met", 4)).empty()) << "met needs 5";
    EXPECT_FALSE(judgmentSchemaErrors(answer("intact", "not_met", 5)).empty())
        << "not_met needs 0-4";
    EXPECT_FALSE(judgmentSchemaErrors(answer("intact", "not_met", nullptr)).empty());
    EXPECT_FALSE(judgmentSchemaErrors(answer("great", "met", 5)).empty());
    auto j = answer("intact", "met", 5);
    j["evidence_frame_indices"] = json::array({16});
    EXPECT_FALSE(judgmentSchemaErrors(j).empty());
    j["evidence_frame_indices"] = json::array();
    EXPECT_FALSE(judgmentSchemaErrors(j).empty());
    j = answer("intact", "met", 5);
    j["observable_reasons"] = std::string(1201, 'x');
    EXPECT_FALSE(judgmentSchemaErrors(j).empty());
    j = answer("intact", "met", 5);
    j["policy"] = "openvla";
    EXPECT_FALSE(judgmentSchemaErrors(j).empty()) << "unexpected fields are refused";
    j = answer("intact", "met", 5);
    j.erase("collision");
    EXPECT_FALSE(judgmentSchemaErrors(j).empty());
}

TEST(JudgeQuorum, SuccessWithLowerMedianProgress)
{
    QuorumSettings s;
    std::vector<ParsedAnswer> a = {
        parsed(answer("intact", "met", 5)), parsed(answer("intact", "met", 5)),
        parsed(answer("intact", "met", 5)), parsed(answer("intact", "not_met", 2)),
        parseJudgeAnswer("junk")};
    const auto q = computeQuorum(a, s);
    EXPECT_EQ(q.outcome, "success");
    EXPECT_EQ(q.progress, 5);
    EXPECT_EQ(q.decisiveVotes, 4);
    a = {parsed(answer("intact", "not_met", 1)), parsed(answer("intact", "not_met", 4)),
         parsed(answer("intact", "not_met", 3)), parsed(answer("intact", "not_met", 2)),
         parsed(answer("intact", "met", 5))};
    const auto f = computeQuorum(a, s);
    EXPECT_EQ(f.outcome, "failure");
    EXPECT_EQ(f.progress, 2) << "lower median of {1,2,3,4}";
}

TEST(JudgeQuorum, UnknownReasonsInTheOriginalOrder)
{
    QuorumSettings s;
    const auto refusal = parseJudgeAnswer("I cannot help with that.");
    const auto failed = parseJudgeAnswer(std::nullopt);
    const auto invalid = parseJudgeAnswer("nope");
    EXPECT_EQ(computeQuorum({refusal, failed, invalid, invalid, invalid}, s).unknownReason,
              "judge_refusal");
    EXPECT_EQ(computeQuorum({failed, failed, invalid, invalid, invalid}, s).unknownReason,
              "judge_sample_failure");
    const auto uncertain = parsed(answer("uncertain", "uncertain", nullptr));
    const auto artifact = parsed(answer("artifact", "met", 5));
    EXPECT_EQ(computeQuorum({uncertain, artifact, uncertain, invalid, invalid}, s).unknownReason,
              "judge_uncertain");
    const auto met = parsed(answer("intact", "met", 5));
    const auto notMet = parsed(answer("intact", "not_met", 1));
    EXPECT_EQ(computeQuorum({met, met, notMet, notMet, uncertain}, s).unknownReason,
              "judge_disagreement");
    EXPECT_EQ(computeQuorum({met, met, uncertain, uncertain, invalid}, s).unknownReason,
              "judge_insufficient_quorum");
    EXPECT_EQ(computeQuorum({met, met, met}, s).outcome, "unknown") << "fewer samples than frozen";
    // All successful, but not the frozen number of samples: the reason says so (it said
    // judge_insufficient_quorum with S4/F0).
    for (const auto &answers : {std::vector<ParsedAnswer>{met, met, met, met},
                                std::vector<ParsedAnswer>{met, met, met, met, met, met}}) {
        const QuorumOutcome q = computeQuorum(answers, s);
        EXPECT_EQ(q.outcome, "unknown");
        EXPECT_EQ(q.unknownReason, "judge_sample_count_mismatch") << answers.size();
        EXPECT_EQ(q.successVotes, static_cast<int>(answers.size()));
    }
}

TEST(JudgeQuorum, SettingsAreValidated)
{
    const auto s = QuorumSettings::fromJson(json::object(), "judge");
    EXPECT_EQ(s.samples, 5);
    EXPECT_EQ(s.seeds.size(), 5u);
    EXPECT_THROW(QuorumSettings::fromJson({{"samples", 3}, {"quorum", 4}}, "judge"), Error);
    EXPECT_THROW(
        QuorumSettings::fromJson({{"samples", 2}, {"seeds", {1, 1}}, {"quorum", 1}}, "judge"),
        Error);
    EXPECT_THROW(QuorumSettings::fromJson({{"samples", 2}, {"seeds", {1}}, {"quorum", 1}}, "judge"),
                 Error);
}

TEST(JudgeFrames, SixteenStrictlyIncreasingFromStartToEnd)
{
    for (int n : {16, 17, 41, 100}) {
        const auto idx = selectJudgeFrames(n);
        ASSERT_EQ(idx.size(), 16u);
        EXPECT_EQ(idx.front(), 0);
        EXPECT_EQ(idx.back(), n - 1);
        for (std::size_t i = 1; i < idx.size(); ++i)
            EXPECT_LT(idx[i - 1], idx[i]) << n;
    }
    EXPECT_THROW(selectJudgeFrames(15), Error);
}

#include "judge/JudgePrompt.h"

TEST(JudgePrompt, TheDefaultTemplateIsVersionedHashedAndBlinded)
{
    const auto &p = defaultPromptTemplate();
    EXPECT_EQ(p.id, "kosmos.judge.prompt/1");
    EXPECT_EQ(p.sha256.size(), 64u);
    EXPECT_NE(p.text.find("{instruction}"), std::string::npos);
    EXPECT_NO_THROW(checkPromptBlinding(p.text));
    const std::string rendered = renderPrompt(p, "put the red block in the green square");
    EXPECT_NE(rendered.find("Task: put the red block in the green square"), std::string::npos);
}

TEST(JudgePrompt, ATemplateThatWouldLeakIsRefused)
{
    try {
        checkPromptBlinding("This OpenVLA policy has a success rate of 80 % on {instruction}.");
        FAIL() << "a leaking template was accepted";
    } catch (const Error &e) {
        const std::string what = e.what();
        for (const char *leak : {"percentage", "'openvla'", "'policy'", "'success rate'"})
            EXPECT_NE(what.find(leak), std::string::npos) << leak << " in " << what;
    }
    EXPECT_THROW(checkPromptBlinding("frames from the Cosmos rollout"), Error);
    EXPECT_NO_THROW(checkPromptBlinding("Task: {instruction}", {"acme.vla"}));
    EXPECT_THROW(
        renderPrompt(defaultPromptTemplate(), "stack the cups like acme.vla does", {"acme.vla"}),
        Error);
}

TEST(JudgeSchema, AnIntegerOutsideItsRangeIsNeverNarrowedIntoIt)
{
    // 4294967301 = 2^32 + 5: read as a 32-bit int it wrapped to 5 and counted as a success.
    const std::string wrapped = R"({"integrity":"intact","collision":"none_visible",)"
                                R"("progress":4294967301,"completion_evidence":"met",)"
                                R"("evidence_frame_indices":[15],"observable_reasons":"x"})";
    const auto p = parseJudgeAnswer(wrapped);
    EXPECT_FALSE(p.schemaValid());
    EXPECT_FALSE(p.decisive());
    EXPECT_NE(p.error.find("progress must be an integer 0-5"), std::string::npos) << p.error;
    EXPECT_FALSE(parsed(answer("intact", "met", 9223372036854775813ull)).schemaValid());
    EXPECT_FALSE(parsed(answer("intact", "not_met", -4294967295ll)).schemaValid());
    json frames = answer("intact", "met", 5);
    frames["evidence_frame_indices"] = {4294967311ull}; // 2^32 + 15
    EXPECT_FALSE(parsed(frames).schemaValid());
}

TEST(JudgeSchema, ObservableReasonsCountCharactersNotBytes)
{
    std::string e1200;
    for (int i = 0; i < 1200; ++i)
        e1200 += "\xc3\xa9"; // é: 2 bytes, 1 character
    json j = answer("intact", "met", 5);
    j["observable_reasons"] = e1200;
    EXPECT_TRUE(parsed(j).schemaValid()) << parsed(j).error;
    j["observable_reasons"] = e1200 + "\xc3\xa9";
    const auto p = parsed(j);
    EXPECT_FALSE(p.schemaValid());
    EXPECT_NE(p.error.find("(1201)"), std::string::npos) << p.error;
}

TEST(JudgeSchema, ADuplicateKeyMakesTheAnswerInvalid)
{
    const std::string twice = R"({"integrity":"intact","collision":"none_visible","progress":5,)"
                              R"("completion_evidence":"not_met","completion_evidence":"met",)"
                              R"("evidence_frame_indices":[15],"observable_reasons":"x"})";
    const auto p = parseJudgeAnswer(twice);
    EXPECT_EQ(p.format, FormatClass::Invalid);
    EXPECT_FALSE(p.decisive());
    EXPECT_NE(p.error.find("\"completion_evidence\" appears twice"), std::string::npos) << p.error;
    const auto fenced = parseJudgeAnswer("```json\n" + twice + "\n```");
    EXPECT_EQ(fenced.format, FormatClass::Invalid);
    // Nested too deep: refused, not walked.
    const auto deep =
        parseJudgeAnswer("{\"a\":" + std::string(5000, '[') + std::string(5000, ']') + "}");
    EXPECT_EQ(deep.format, FormatClass::Invalid);
    EXPECT_NE(deep.error.find("nested deeper"), std::string::npos) << deep.error;
}

TEST(JudgeSchema, HowAnAnswerWasWrittenIsRecordedApartFromWhetherItIsValid)
{
    const json good = answer("intact", "met", 5);
    json bad = good;
    bad["progress"] = 9; // schema-invalid, but still written as bare JSON
    const auto bareInvalid = parseJudgeAnswer(bad.dump());
    EXPECT_EQ(bareInvalid.format, FormatClass::Invalid);
    EXPECT_EQ(bareInvalid.form, AnswerForm::BareJson);
    EXPECT_EQ(answerFormName(bareInvalid.form), "bare_json");

    const auto bare = parseJudgeAnswer(good.dump());
    EXPECT_EQ(bare.format, FormatClass::BareJson);
    EXPECT_EQ(bare.form, AnswerForm::BareJson);

    const auto fenced = parseJudgeAnswer("```json\n" + good.dump() + "\n```");
    EXPECT_EQ(fenced.format, FormatClass::FencedJson);
    EXPECT_EQ(fenced.form, AnswerForm::FencedJson);

    const auto inProse = parseJudgeAnswer("Here you go:\n```json\n" + good.dump() + "\n```\nDone.");
    EXPECT_EQ(inProse.format, FormatClass::FencedJson) << "prose around one block is accepted";
    EXPECT_EQ(inProse.form, AnswerForm::FencedJsonInProse);

    const auto fencedInvalid = parseJudgeAnswer("```json\n" + bad.dump() + "\n```");
    EXPECT_EQ(fencedInvalid.format, FormatClass::Invalid);
    EXPECT_EQ(fencedInvalid.form, AnswerForm::FencedJson);

    EXPECT_EQ(parseJudgeAnswer("I cannot evaluate robot videos.").form, AnswerForm::Other);
    EXPECT_EQ(parseJudgeAnswer("The robot succeeded.").form, AnswerForm::Other);
    EXPECT_EQ(parseJudgeAnswer("").form, AnswerForm::Other);
    EXPECT_EQ(parseJudgeAnswer(std::nullopt).form, AnswerForm::NoAnswer);
}

TEST(JudgeSchema, AByteOrderMarkIsIgnoredTheSameWayBeforeEveryForm)
{
    const std::string bom = "\xEF\xBB\xBF";
    const json good = answer("intact", "met", 5);
    const auto bare = parseJudgeAnswer(bom + good.dump());
    EXPECT_EQ(bare.format, FormatClass::BareJson) << bare.error;
    EXPECT_EQ(bare.form, AnswerForm::BareJson);
    const auto spaced = parseJudgeAnswer("  " + bom + "\n" + good.dump() + "\n");
    EXPECT_EQ(spaced.format, FormatClass::BareJson) << spaced.error;
    const auto fenced = parseJudgeAnswer(bom + "```json\n" + good.dump() + "\n```");
    EXPECT_EQ(fenced.format, FormatClass::FencedJson);
    EXPECT_EQ(fenced.form, AnswerForm::FencedJson) << "the BOM is not prose around the block";
    // Only one leading mark: a second one is content, and content that is not JSON.
    EXPECT_EQ(parseJudgeAnswer(bom + bom + good.dump()).format, FormatClass::Invalid);

    // Answers stored before the rule (schema version 2) are re-read under the rule they were
    // classified by, so a stored verdict never changes under them.
    EXPECT_EQ(parseJudgeAnswer(bom + good.dump(), 1).format, FormatClass::Invalid);
    EXPECT_EQ(parseJudgeAnswer(bom + "```json\n" + good.dump() + "\n```", 1).format,
              FormatClass::FencedJson);
}

TEST(JudgeAudit, BareJsonIsCountedAsWrittenSoItCanExceedSchemaValid)
{
    // Side B writes bare JSON every time, but two of its five answers break the schema: the
    // audit's "bare JSON" (5/5) must be able to exceed its "schema-valid" (3/5).
    test::TempDir dir;
    Ledger ledger = Ledger::create(dir / "audit.kosmos");
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    ledger.submitRun(test::testRunSpec(protocol, 0));
    auto lease = ledger.claim("w", 30000);
    auto a = test::testJudgment();
    for (auto &s : a.samples)
        s.answerForm = "bare_json";
    ledger.recordJudgment(*lease, a);
    auto b = test::testJudgment();
    b.settings["temperature"] = 0.0; // another configuration
    for (int i = 0; i < 5; ++i) {
        auto &s = b.samples[static_cast<std::size_t>(i)];
        if (i < 2) {
            json broken = s.parsed;
            broken["progress"] = 9;
            s.rawText = broken.dump();
        }
        const ParsedAnswer p = parseJudgeAnswer(s.rawText);
        s.formatClass = formatClassName(p.format);
        s.answerForm = answerFormName(p.form);
        s.parsed = p.value;
        if (!p.error.empty())
            s.parseError = p.error;
    }
    b.decisiveVotes = 3;
    ledger.recordJudgment(*lease, b);
    ledger.finishAttempt(*lease, AttemptOutcome::completed());

    const auto configs = judgeConfigs(ledger);
    ASSERT_EQ(configs.size(), 2u);
    const PairedAudit audit = pairedAudit(ledger, configs[0].key, configs[1].key);
    EXPECT_EQ(audit.b.samples, 5);
    EXPECT_EQ(audit.b.bareJson, 5);
    EXPECT_EQ(audit.b.schemaValid, 3);
    EXPECT_EQ(audit.a.bareJson, 5);
    EXPECT_EQ(audit.a.schemaValid, 5);
    EXPECT_TRUE(verifyLedger(ledger).problems.empty());
}
