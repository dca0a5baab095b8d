// The OpenAI-compatible judge against a real local HTTP server that misbehaves on request.
#include "FakeChatServer.h"
#include "TestSupport.h"

#include "artifacts/ArtifactStore.h"
#include "judge/JudgeRequestRecord.h"
#include "judge/JudgeRunner.h"
#include "ledger/Ledger.h"
#include "openai/ChatReply.h"
#include "openai/OpenAiJudge.h"
#include "queries/JudgmentQuery.h"
#include "util/Error.h"
#include "util/Sha256.h"
#include "verify/LedgerVerifier.h"

#include <gtest/gtest.h>

#include <QCoreApplication>

#include <set>

using namespace kosmos;
namespace fs = std::filesystem;
using B = kosmos::test::FakeChatServer::Behaviour;

namespace {

std::vector<cv::Mat> frames()
{
    std::vector<cv::Mat> out;
    for (int i = 0; i < 20; ++i)
        out.push_back(cv::Mat(64, 80, CV_8UC3, cv::Scalar(10 * i, 100, 200)));
    return out;
}

openai::OpenAiJudge judgeFor(const test::FakeChatServer &server,
                             nlohmann::json extra = nlohmann::json::object())
{
    nlohmann::json settings = {{"base_url", server.baseUrl()},
                               {"model", "qwen2.5-vl"},
                               {"timeout_s", 0.5},
                               {"max_retries", 1},
                               {"backoff_s", 0.01}};
    settings.update(extra);
    return openai::OpenAiJudge(openai::JudgeSettings::fromJson(settings));
}

JudgmentRecord judgeOnce(openai::OpenAiJudge &judge, int samples = 5)
{
    QuorumSettings q;
    q.samples = samples;
    q.quorum = std::min(3, samples);
    q.seeds.resize(static_cast<std::size_t>(samples));
    for (int i = 0; i < samples; ++i)
        q.seeds[static_cast<std::size_t>(i)] = 100 + i;
    return runJudge(judge, frames(), "task", "put the red block in the green square", q, {});
}

} // namespace

TEST(OpenAiJudge, SendsTheChatCompletionsSubsetAndRecordsEverySample)
{
    test::FakeChatServer server;
    auto judge = judgeFor(server);
    const JudgmentRecord r = judgeOnce(judge);
    EXPECT_EQ(r.outcome, "success");
    ASSERT_EQ(r.samples.size(), 5u);
    EXPECT_EQ(r.samples[0].formatClass, "bare_json");
    EXPECT_EQ(r.samples[0].generatedTokens, 42);
    EXPECT_EQ(r.samples[0].finishReason, "stop");
    EXPECT_TRUE(r.samples[0].decodeMs.has_value());
    const auto requests = server.requests();
    ASSERT_EQ(requests.size(), 5u) << "one request per sample, each with its own seed";
    const auto body = nlohmann::json::parse(requests[2].substr(requests[2].find("\r\n\r\n") + 4));
    EXPECT_EQ(body["model"], "qwen2.5-vl");
    EXPECT_EQ(body["seed"], 102);
    EXPECT_EQ(body["temperature"], 0.7);
    EXPECT_EQ(body["max_tokens"], 512);
    EXPECT_EQ(body["response_format"]["type"], "json_schema");
    const auto &content = body["messages"][0]["content"];
    ASSERT_EQ(content.size(), 17u) << "the prompt and 16 frames";
    EXPECT_EQ(content[1]["image_url"]["url"].get<std::string>().rfind("data:image/png;base64,", 0),
              0u);
    EXPECT_EQ(content[0]["text"].get<std::string>().find("OpenVLA"), std::string::npos);
    EXPECT_NE(requests[0].find("POST /v1/chat/completions"), std::string::npos);
}

TEST(OpenAiJudge, EveryMisbehaviourBecomesARecordedFailureNeverAVerdict)
{
    for (const B b : {B::Status500, B::NotJson, B::Truncated, B::Huge, B::Slow}) {
        test::FakeChatServer server;
        server.setBehaviours({b});
        auto judge = judgeFor(server, {{"max_body_bytes", 1 << 20}, {"max_retries", 0}});
        const JudgmentRecord r = judgeOnce(judge, 3);
        EXPECT_EQ(r.outcome, "unknown") << static_cast<int>(b);
        EXPECT_EQ(r.unknownReason, "judge_sample_failure") << static_cast<int>(b);
        for (const auto &s : r.samples) {
            EXPECT_EQ(s.formatClass, "request_failed") << static_cast<int>(b);
            EXPECT_FALSE(s.rawText.has_value());
            EXPECT_TRUE(s.parseError.has_value() && !s.parseError->empty());
        }
    }
}

TEST(OpenAiJudge, RetriesWithBackoffOn429And5xx)
{
    test::FakeChatServer server;
    server.setBehaviours({B::Status429, B::Status500, B::Ok});
    auto judge = judgeFor(server, {{"max_retries", 2}});
    const JudgmentRecord r = judgeOnce(judge, 1);
    EXPECT_EQ(r.samples.at(0).formatClass, "bare_json");
    EXPECT_EQ(server.requests().size(), 3u);
}

TEST(OpenAiJudge, AnEndpointThatIsDownIsReportedNotFaked)
{
    int port = 0;
    {
        test::FakeChatServer server;
        port = server.port();
    } // closed: nothing listens there now
    const nlohmann::json settings = {{"base_url", "http://127.0.0.1:" + std::to_string(port)},
                                     {"model", "m"},
                                     {"max_retries", 0}};
    const Availability a = openai::checkAvailability(settings, true);
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("unreachable"), std::string::npos) << a.reason;
    openai::OpenAiJudge judge(openai::JudgeSettings::fromJson(settings));
    const JudgmentRecord r = judgeOnce(judge, 2);
    EXPECT_EQ(r.unknownReason, "judge_sample_failure");
    EXPECT_FALSE(openai::checkAvailability(nlohmann::json::object(), false).available);
    EXPECT_THROW(openai::JudgeSettings::fromJson({{"base_url", "ftp://x"}, {"model", "m"}}), Error);
    EXPECT_THROW(openai::JudgeSettings::fromJson(
                     {{"base_url", "http://x"}, {"model", "m"}, {"api_key", "sk"}}),
                 Error)
        << "a key is never a setting";
}

TEST(OpenAiJudge, ProseEarnsOneFormatRetryAndNFewerThanAskedFailsTheMissingSamples)
{
    test::FakeChatServer server;
    server.setBehaviours({B::Prose, B::Ok});
    auto judge = judgeFor(server);
    const JudgmentRecord r = judgeOnce(judge, 1);
    ASSERT_EQ(r.samples.size(), 2u);
    EXPECT_EQ(r.samples[0].formatClass, "invalid");
    EXPECT_EQ(r.samples[1].tryIndex, 1);
    EXPECT_EQ(r.samples[1].formatClass, "bare_json");

    test::FakeChatServer batch;
    batch.setBehaviours({B::FewerChoices});
    auto batched = judgeFor(batch, {{"use_n", true}});
    const JudgmentRecord b = judgeOnce(batched, 5);
    EXPECT_EQ(batch.requests().size(), 1u) << "one request with n = 5";
    ASSERT_EQ(b.samples.size(), 5u);
    EXPECT_EQ(b.samples[1].formatClass, "bare_json");
    for (int i = 2; i < 5; ++i) {
        EXPECT_EQ(b.samples[static_cast<std::size_t>(i)].formatClass, "request_failed");
        EXPECT_NE(b.samples[static_cast<std::size_t>(i)].parseError->find("returned 2 of 5"),
                  std::string::npos);
    }
    EXPECT_EQ(b.outcome, "unknown");
    EXPECT_EQ(b.unknownReason, "judge_insufficient_quorum");
}

TEST(OpenAiJudge, TheKeyIsSentButNeverWrittenToTheLedger)
{
    test::TempDir dir;
    ::setenv("KOSMOS_TEST_JUDGE_KEY", "sk-test-SECRET-4242", 1);
    test::FakeChatServer server;
    auto judge = judgeFor(server, {{"api_key_env", "KOSMOS_TEST_JUDGE_KEY"}});
    Ledger ledger = Ledger::create(dir / "k.kosmos");
    const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
    ledger.submitRun(test::testRunSpec(protocol, 0));
    auto lease = ledger.claim("w", 30000);
    ledger.recordJudgment(*lease, judgeOnce(judge, 3));
    ledger.finishAttempt(*lease, AttemptOutcome::completed());
    ::unsetenv("KOSMOS_TEST_JUDGE_KEY");
    EXPECT_NE(server.requests().at(0).find("Authorization: Bearer sk-test-SECRET-4242"),
              std::string::npos);
    for (const char *file : {"ledger.sqlite", "ledger.sqlite-wal"}) {
        const std::string bytes = test::readFile(dir / "k.kosmos" / file);
        EXPECT_EQ(bytes.find("SECRET-4242"), std::string::npos) << file;
    }
}

TEST(OpenAiJudge, EveryCallsExactRequestIsKeptAndRebuildsByteForByte)
{
    test::TempDir dir;
    test::FakeChatServer server;
    auto judge = judgeFor(server);
    const fs::path bundle = dir / "p.kosmos";
    {
        Ledger ledger = Ledger::create(bundle);
        const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
        ledger.submitRun(test::testRunSpec(protocol, 0));
        auto lease = ledger.claim("w", 30000);
        ledger.recordJudgment(*lease, judgeOnce(judge, 3));
        ledger.finishAttempt(*lease, AttemptOutcome::completed());
    }
    const auto requests = server.requests();
    ASSERT_EQ(requests.size(), 3u);
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const auto judgments = judgmentsOfRun(ledger, 1);
    ASSERT_EQ(judgments.size(), 1u);
    ASSERT_EQ(judgments[0].samples.size(), 3u);
    std::set<std::string> distinct;
    for (std::size_t i = 0; i < 3; ++i) {
        const auto &sample = judgments[0].samples[i];
        EXPECT_EQ(sample.serverModel, "fake/served-model-7b");
        EXPECT_EQ(sample.systemFingerprint, "fp_fake_0001");
        ASSERT_TRUE(sample.requestSha256);
        distinct.insert(*sample.requestSha256);
        const auto bytes = ledger.artifacts().read(*sample.requestSha256);
        const auto doc = nlohmann::json::parse(bytes.begin(), bytes.end());
        EXPECT_EQ(doc["schema"], kJudgeRequestSchema);
        EXPECT_EQ(doc["seed"], 100 + static_cast<int>(i));
        EXPECT_EQ(doc["frames_png_sha256"].size(), 16u);
        EXPECT_NE(doc["wire"]["body_template"].get<std::string>().find("\"model\":\"qwen2.5-vl\""),
                  std::string::npos);
        EXPECT_EQ(doc["wire"]["url"], server.baseUrl() + "/v1/chat/completions");
        EXPECT_LT(bytes.size(), 16000u) << "images are kept by hash, not inline";
        // The body rebuilt from the ledger is byte for byte the body the server received.
        const std::string sent = requests[i].substr(requests[i].find("\r\n\r\n") + 4);
        EXPECT_EQ(rebuildJudgeWireBody(doc, ledger.artifacts()), sent);
    }
    EXPECT_EQ(distinct.size(), 3u) << "one request per sample (each its own seed)";

    // kosmos-cli judge-request writes the same bytes, and replays them to another endpoint.
    const std::string sent1 = requests[1].substr(requests[1].find("\r\n\r\n") + 4);
    auto r = test::runProcess({test::cliPath(), "judge-request", bundle.string(), "1", "1", "--out",
                               (dir / "request.json").string()});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(test::readFile(dir / "request.json"), sent1);
    test::FakeChatServer other;
    r = test::runProcess({test::cliPath(), "judge-request", bundle.string(), "1", "1", "--send",
                          other.baseUrl(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    ASSERT_EQ(other.requests().size(), 1u);
    const std::string replayed = other.requests()[0];
    EXPECT_NE(replayed.find("POST /v1/chat/completions "), std::string::npos);
    EXPECT_EQ(replayed.substr(replayed.find("\r\n\r\n") + 4), sent1) << "byte for byte";
    const auto out = nlohmann::json::parse(r.output);
    EXPECT_EQ(out["server_model"], "fake/served-model-7b");
    EXPECT_EQ(out["answers"][0]["format_class"], "bare_json");
    EXPECT_EQ(out["answers"][0]["same_as_recorded"], true);
    // Bad input gets a clear error: a sample that does not exist, a malformed URL.
    r = test::runProcess({test::cliPath(), "judge-request", bundle.string(), "1", "7"});
    EXPECT_EQ(r.exitCode, 4);
    r = test::runProcess(
        {test::cliPath(), "judge-request", bundle.string(), "1", "0", "--send", "ftp://x"});
    EXPECT_EQ(r.exitCode, 4);
    for (const auto &p : verifyLedger(ledger).problems) // (this attempt has no rollout frames)
        EXPECT_EQ(p.check, "judgment_frames") << p.check << ": " << p.message;
}

TEST(OpenAiJudge, AJudgeFrameLostFromTheStoreMakesItsRequestUnreplayableAndVerifySaysSo)
{
    test::TempDir dir;
    test::FakeChatServer server;
    auto judge = judgeFor(server);
    const fs::path bundle = dir / "p.kosmos";
    std::string frame;
    nlohmann::json doc;
    {
        Ledger ledger = Ledger::create(bundle);
        const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
        ledger.submitRun(test::testRunSpec(protocol, 0));
        auto lease = ledger.claim("w", 30000);
        const JudgmentRecord record = judgeOnce(judge, 1);
        ledger.recordJudgment(*lease, record);
        ledger.finishAttempt(*lease, AttemptOutcome::completed());
        doc = record.samples.at(0).request;
        frame = doc["frames_png_sha256"][3].get<std::string>();
    }
    fs::remove(bundle / "objects" / frame.substr(0, 2) / frame.substr(2));
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    try {
        rebuildJudgeWireBody(doc, ledger.artifacts());
        FAIL() << "rebuilt without its frame";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::NotFound);
        EXPECT_NE(std::string(e.what()).find(frame), std::string::npos) << e.what();
    }
    bool reported = false;
    for (const auto &p : verifyLedger(ledger).problems)
        reported =
            reported || (p.check == "judge_request" && p.message.find(frame) != std::string::npos);
    EXPECT_TRUE(reported);
}

TEST(JudgeRequestRecord, AMalformedStoredDocumentIsANamedErrorNeverAnotherException)
{
    test::TempDir dir;
    ArtifactStore::initialize(dir / "objects");
    ArtifactStore store(dir / "objects");
    const std::string frameSha =
        store.putBytes(std::string_view("frame"), "application/octet-stream").sha256;
    const std::string ref = std::string(kArtifactRefPrefix) + frameSha;
    const nlohmann::json good = {
        {"schema", kJudgeRequestSchema},
        {"wire",
         {{"body_template", ref}, {"body_sha256", Sha256::hex("data:image/png;base64,ZnJhbWU=")}}}};
    EXPECT_EQ(rebuildJudgeWireBody(good, store), "data:image/png;base64,ZnJhbWU=");
    auto with = [&](const std::string &pointer, const nlohmann::json &value) {
        nlohmann::json doc = good;
        doc[nlohmann::json::json_pointer(pointer)] = value;
        return doc;
    };
    const std::vector<nlohmann::json> bad = {
        nlohmann::json::array(),
        with("/schema", 1),                   // a number where the schema name goes
        with("/wire/body_sha256", 7),         // was: nlohmann type_error
        with("/wire/body_sha256", "abc"),     // not a hash
        with("/wire/body_template", nullptr), // no template
        with("/wire/body_template", std::string(2000000 / 87 * 87, 'x')), // hash mismatch
    };
    for (const auto &doc : bad) {
        try {
            rebuildJudgeWireBody(doc, store);
            ADD_FAILURE() << "accepted " << doc.dump().substr(0, 120);
        } catch (const Error &e) {
            EXPECT_FALSE(std::string(e.what()).empty());
        } catch (const std::exception &e) {
            ADD_FAILURE() << "not a named error: " << e.what();
        }
    }
    // body_bytes is a figure for people, never a size to reserve: a string or 2^62 there was a
    // type_error or a length_error.
    EXPECT_NO_THROW(rebuildJudgeWireBody(with("/wire/body_bytes", "many"), store));
    EXPECT_NO_THROW(rebuildJudgeWireBody(with("/wire/body_bytes", 1LL << 62), store));
    // A template that repeats one frame reference is refused at 128 MiB, not grown without end.
    const std::string big(1u << 20, 'b');
    const std::string bigRef =
        std::string(kArtifactRefPrefix) +
        store.putBytes(std::string_view(big), "application/octet-stream").sha256;
    std::string huge;
    for (int i = 0; i < 100; ++i) // 100 x 1.33 MiB of base64
        huge += bigRef;
    const nlohmann::json repeated = with("/wire/body_template", huge);
    try {
        rebuildJudgeWireBody(repeated, store);
        FAIL() << "rebuilt a repeated template";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
        EXPECT_NE(std::string(e.what()).find("128 MiB"), std::string::npos) << e.what();
    }
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

TEST(ChatReply, TheFieldsBothReadersUseAreTakenOnceAndBadBodiesAreNamed)
{
    const ChatReply reply = parseChatReply(
        R"({"model":"m-1","system_fingerprint":"fp","usage":{"completion_tokens":7},)"
        R"("choices":[{"message":{"content":"{\"success\":true}"},"finish_reason":"stop"},)"
        R"({"message":{"content":null}},42]})",
        "judge");
    EXPECT_EQ(reply.serverModel, "m-1");
    EXPECT_EQ(reply.systemFingerprint, "fp");
    EXPECT_EQ(reply.completionTokens, 7);
    ASSERT_EQ(reply.choices.size(), 3u);
    EXPECT_EQ(reply.choices[0].text, R"({"success":true})");
    EXPECT_EQ(reply.choices[0].finishReason, "stop");
    EXPECT_FALSE(reply.choices[1].text); // null content: no text, not a crash
    EXPECT_FALSE(reply.choices[2].text); // a choice that is not an object
    auto refused = [](const std::string &body) {
        try {
            parseChatReply(body, "http://judge:8000");
        } catch (const Error &e) {
            EXPECT_EQ(e.code(), ErrorCode::RemoteError);
            return std::string(e.what());
        }
        return std::string("(accepted)");
    };
    EXPECT_NE(refused("<html>busy</html>").find("http://judge:8000"), std::string::npos);
    EXPECT_NE(refused("[1,2]").find("not an object"), std::string::npos);
    EXPECT_NE(refused(R"({"choices":[]})").find("without choices"), std::string::npos);
    EXPECT_NE(refused(R"({"choices":{}})").find("without choices"), std::string::npos);
    EXPECT_NE(refused(std::string(40, '[') + std::string(40, ']')).find("not JSON"),
              std::string::npos); // deeper than 32
    EXPECT_NE(refused("{\"choices\":[\"" + std::string(9u << 20, 'x') + "\"]}").find("not JSON"),
              std::string::npos); // over 8 MiB
}
