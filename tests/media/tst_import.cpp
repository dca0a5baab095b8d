#include "artifacts/PixelDigest.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "media/ActionFiles.h"
#include "media/VideoDecoder.h"
#include "pipeline/Importer.h"
#include "queries/RolloutQuery.h"
#include "synthetic/TabletopScene.h"
#include "util/Error.h"
#include "util/Sha256.h"
#include "verify/LedgerVerifier.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <fstream>

using namespace kosmos;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A rollout of the synthetic tabletop: frames and the actions that made them.
std::pair<std::vector<cv::Mat>, ActionChunk> rollout(int steps)
{
    synthetic::TabletopScene scene;
    scene.reset({{"randomize_m", 0.0}}, 1);
    std::vector<cv::Mat> frames{scene.render()};
    ActionChunk actions;
    for (int i = 0; i < steps; ++i) {
        const Action a{0.01, 0.005 * (i % 3), 0, 0, 0, 0, 1.0};
        scene.step(a);
        frames.push_back(scene.render());
        actions.push_back(a);
    }
    return {frames, actions};
}

void writeManifest(const fs::path &dir)
{
    std::ofstream(dir / "import.json") << nlohmann::json{
        {"task", "red_to_green"},
        {"instruction", "put the red block in the green square"},
        {"fps", 5},
        {"source", "unit test"}}.dump(2);
}

void writeFrames(const fs::path &dir, const std::vector<cv::Mat> &frames)
{
    fs::create_directories(dir / "frames");
    for (std::size_t i = 0; i < frames.size(); ++i) {
        cv::Mat bgr;
        cv::cvtColor(frames[i], bgr, cv::COLOR_RGB2BGR);
        char name[32];
        std::snprintf(name, sizeof name, "%04zu.png", i);
        cv::imwrite((dir / "frames" / name).string(), bgr);
    }
}

void writeCsv(const fs::path &path, const ActionChunk &actions)
{
    std::ofstream out(path);
    out << "dx,dy,dz,droll,dpitch,dyaw,gripper\n";
    for (const auto &a : actions) {
        for (std::size_t i = 0; i < a.size(); ++i)
            out << (i ? "," : "") << a[i];
        out << "\n";
    }
}

void writeNpy(const fs::path &path, const ActionChunk &actions)
{
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                         std::to_string(actions.size()) + ", " + std::to_string(actions[0].size()) +
                         "), }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const std::uint16_t len = static_cast<std::uint16_t>(header.size());
    out.put(static_cast<char>(len & 0xff));
    out.put(static_cast<char>(len >> 8));
    out << header;
    for (const auto &a : actions)
        out.write(reinterpret_cast<const char *>(a.data()),
                  static_cast<std::streamsize>(a.size() * sizeof(double)));
}

std::size_t count(Ledger &ledger, const std::string &sql)
{
    sqlite::Statement s(LedgerSql::of(ledger), sql);
    s.step();
    return static_cast<std::size_t>(s.int64(0));
}

} // namespace

TEST(ActionFiles, CsvJsonAndNpyReadTheSameNumbers)
{
    TempDir dir;
    const auto [frames, actions] = rollout(5);
    writeCsv(dir / "a.csv", actions);
    writeNpy(dir / "a.npy", actions);
    std::ofstream(dir / "a.json") << nlohmann::json{{"actions", actions}, {"names", {"dx"}}}.dump();
    const auto csv = readActions(dir / "a.csv");
    EXPECT_EQ(csv.columnNames.size(), 7u);
    EXPECT_EQ(csv.columnNames[6], "gripper");
    EXPECT_EQ(csv.rows, actions);
    EXPECT_EQ(readActions(dir / "a.npy").rows, actions);
    EXPECT_EQ(readActions(dir / "a.json").rows, actions);

    // kosmos-cli export's CSV (step, time_s, quoted names) reads back as the same actions.
    std::ofstream(dir / "exported.csv")
        << "step,time_s,\"dx [m]\",\"gripper [1]\"\n0,0,0.10000000000000001,1\n1,0.2,-0.25,0\n";
    const auto exported = readActions(dir / "exported.csv");
    EXPECT_EQ(exported.columnNames, (std::vector<std::string>{"dx [m]", "gripper [1]"}));
    EXPECT_EQ(exported.rows, (ActionChunk{{0.1, 1}, {-0.25, 0}}));

    std::ofstream(dir / "ragged.csv") << "1,2,3\n4,5\n";
    try {
        readActions(dir / "ragged.csv");
        FAIL();
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("row 1 has 2 values"), std::string::npos) << e.what();
    }
    std::ofstream(dir / "text.csv") << "1,2\n3,x\n";
    EXPECT_THROW(readActions(dir / "text.csv"), Error);
    std::ofstream(dir / "a.txt") << "1";
    EXPECT_THROW(readActions(dir / "a.txt"), Error);
}

TEST(Video, FfmpegRoundTripKeepsEveryFrameExactly)
{
    TempDir dir;
    const auto [frames, actions] = rollout(12);
    encodeVideo(dir / "v.mkv", frames, 5); // FFV1: lossless
    const DecodedVideo lossless = decodeVideo(dir / "v.mkv");
    ASSERT_EQ(lossless.frames.size(), frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const auto a = pixelDigestOfRaw(std::span(frames[i].data, frames[i].total() * 3),
                                        frames[i].cols, frames[i].rows, 3);
        const auto b =
            pixelDigestOfRaw(std::span(lossless.frames[i].data, lossless.frames[i].total() * 3),
                             lossless.frames[i].cols, lossless.frames[i].rows, 3);
        EXPECT_EQ(a.sha256, b.sha256) << "frame " << i;
    }
    for (std::size_t i = 1; i < lossless.timestamps.size(); ++i)
        EXPECT_GT(lossless.timestamps[i], lossless.timestamps[i - 1]);

    encodeVideo(dir / "v.mp4", frames, 5); // MPEG-4: lossy, but no frame may be lost (pitfall 6)
    EXPECT_EQ(decodeVideo(dir / "v.mp4").frames.size(), frames.size());

    std::ofstream(dir / "junk.mp4") << "not a video";
    EXPECT_THROW(decodeVideo(dir / "junk.mp4"), Error);
}

TEST(Import, FramesAndCsvBecomeARunWithProvenance)
{
    TempDir dir;
    const fs::path src = dir / "episode-1";
    fs::create_directories(src);
    const auto [frames, actions] = rollout(16);
    writeManifest(src);
    writeFrames(src, frames);
    writeCsv(src / "actions.csv", actions);
    Ledger ledger = Ledger::create(dir / "i.kosmos");
    const auto r = importDirectory(ledger, src);
    EXPECT_EQ(r.state, "completed") << r.error;
    EXPECT_EQ(r.frames, 17);
    EXPECT_EQ(r.actions, 16);
    EXPECT_EQ(ledger.run(r.runId)->status, "completed");
    EXPECT_EQ(count(ledger, "SELECT COUNT(*) FROM attempt_artifacts WHERE role = 'frame'"), 17u);
    EXPECT_EQ(count(ledger, "SELECT COUNT(*) FROM provenance WHERE relation = 'imported_with'"),
              18u);
    EXPECT_EQ(count(ledger, "SELECT COUNT(*) FROM provenance WHERE relation = 'parsed_from'"), 1u);
    EXPECT_EQ(count(ledger, "SELECT COUNT(*) FROM validation_results"), 1u);
    // Importing the same directory again changes nothing.
    const auto again = importDirectory(ledger, src);
    EXPECT_EQ(again.state, "already_finished");
    EXPECT_EQ(again.runId, r.runId);
    EXPECT_TRUE(verifyLedger(ledger).clean());
}

TEST(Import, AVideoIsDecodedWithFfmpegAndItsFramesLinkedToIt)
{
    TempDir dir;
    const fs::path src = dir / "video-episode";
    fs::create_directories(src);
    const auto [frames, actions] = rollout(16);
    writeManifest(src);
    encodeVideo(src / "video.mkv", frames, 5);
    writeNpy(src / "actions.npy", actions);
    nlohmann::json samples = {{"frame_indices", nlohmann::json::array()},
                              {"samples", nlohmann::json::array()}};
    for (int i = 0; i < 16; ++i)
        samples["frame_indices"].push_back(i);
    for (int i = 0; i < 5; ++i)
        samples["samples"].push_back(
            {{"sample_index", i},
             {"seed", 100 + i},
             {"raw_text", nlohmann::json{{"integrity", "intact"},
                                         {"collision", "none_visible"},
                                         {"progress", 2},
                                         {"completion_evidence", "not_met"},
                                         {"evidence_frame_indices", {15}},
                                         {"observable_reasons", "the block never moved"}}
                              .dump()}});
    std::ofstream(src / "judge_samples.json") << samples.dump();
    Ledger ledger = Ledger::create(dir / "v.kosmos");
    const auto r = importDirectory(ledger, src);
    ASSERT_EQ(r.state, "completed") << r.error;
    EXPECT_EQ(r.frames, 17);
    EXPECT_EQ(count(ledger, "SELECT COUNT(*) FROM provenance WHERE relation = 'decoded_from'"),
              17u);
    sqlite::Statement j(LedgerSql::of(ledger), "SELECT outcome, progress FROM judgments");
    ASSERT_TRUE(j.step());
    EXPECT_EQ(j.text(0), "failure");
    EXPECT_EQ(j.int64(1), 2);
    EXPECT_TRUE(verifyLedger(ledger).clean());
}

TEST(Import, TenFramesAndTwelveActionsFailWithTheReasonAndKeepTheArtifacts)
{
    TempDir dir;
    const fs::path src = dir / "bad-episode";
    fs::create_directories(src);
    auto [frames, actions] = rollout(12);
    frames.resize(10);
    writeManifest(src);
    writeFrames(src, frames);
    writeCsv(src / "actions.csv", actions);
    Ledger ledger = Ledger::create(dir / "b.kosmos");
    const auto r = importDirectory(ledger, src);
    EXPECT_EQ(r.state, "failed");
    EXPECT_EQ(r.errorCode, "frame_count_mismatch");
    EXPECT_NE(r.error.find("10 frames and 12 actions"), std::string::npos) << r.error;
    const auto attempt = ledger.attempts(r.runId).at(0);
    EXPECT_EQ(attempt.state, "failed");
    EXPECT_NE(attempt.errorMessage->find("run " + std::to_string(r.runId)), std::string::npos);
    EXPECT_EQ(count(ledger, "SELECT COUNT(*) FROM attempt_artifacts WHERE role = 'frame'"), 10u)
        << "kept";
    EXPECT_TRUE(verifyLedger(ledger).clean());
}

TEST(Import, ADirectoryThatCannotBecomeARunWritesNothing)
{
    TempDir dir;
    Ledger ledger = Ledger::create(dir / "n.kosmos");
    fs::create_directories(dir / "empty");
    try {
        importDirectory(ledger, dir / "empty");
        FAIL();
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("missing import.json"), std::string::npos) << e.what();
    }
    writeManifest(dir / "empty");
    EXPECT_THROW(importDirectory(ledger, dir / "empty"), Error) << "no frames";
    std::ofstream(dir / "empty" / "import.json") << R"({"task": "t", "fps": 5})";
    try {
        importDirectory(ledger, dir / "empty");
        FAIL();
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("import.json.instruction"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(ledger.info().runs, 0);
    EXPECT_EQ(ledger.info().protocols, 0);
}

TEST(Import, AReferenceRecordingIsKeptAsGivenBesideTheFrames)
{
    TempDir dir;
    const fs::path src = dir / "with-reference";
    fs::create_directories(src);
    const auto [frames, actions] = rollout(8);
    writeManifest(src);
    writeFrames(src, frames);
    writeNpy(src / "actions.npy", actions);
    encodeVideo(src / "reference.mp4", frames, 5);
    Ledger ledger = Ledger::create(dir / "r.kosmos");
    const auto r = importDirectory(ledger, src);
    ASSERT_EQ(r.state, "completed") << r.error;
    const RolloutView view = loadRollout(ledger, r.runId);
    ASSERT_TRUE(view.referenceVideoSha256);
    EXPECT_EQ(*view.referenceVideoSha256, Sha256::fileHex(src / "reference.mp4"));
    EXPECT_FALSE(view.sourceVideoSha256);
    EXPECT_EQ(count(ledger, "SELECT COUNT(*) FROM provenance p JOIN artifacts a ON "
                            "a.artifact_id = p.child_artifact_id WHERE a.media_type = 'video/mp4' "
                            "AND p.relation = 'imported_with'"),
              1u);
    EXPECT_TRUE(verifyLedger(ledger).clean());
}

TEST(Import, AnUndecodableReferenceFailsTheAttemptWithItsReason)
{
    TempDir dir;
    const fs::path src = dir / "bad-reference";
    fs::create_directories(src);
    const auto [frames, actions] = rollout(4);
    writeManifest(src);
    writeFrames(src, frames);
    writeNpy(src / "actions.npy", actions);
    std::ofstream(src / "reference.mp4") << "not a video";
    Ledger ledger = Ledger::create(dir / "b.kosmos");
    const auto r = importDirectory(ledger, src);
    EXPECT_EQ(r.state, "failed");
    EXPECT_NE(r.error.find("reference.mp4"), std::string::npos) << r.error;
    EXPECT_TRUE(verifyLedger(ledger).clean());
}

namespace {

// A .npy file whose header says `shape` and that holds `dataBytes` bytes of data.
void writeRawNpy(const fs::path &path, const std::string &shape, std::size_t dataBytes,
                 std::uint16_t headerLength = 0)
{
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    out.write("\x93NUMPY\x01\x00", 8);
    const std::uint16_t len =
        headerLength ? headerLength : static_cast<std::uint16_t>(header.size());
    out.put(static_cast<char>(len & 0xff));
    out.put(static_cast<char>(len >> 8));
    out << header << std::string(dataBytes, '\0');
}

} // namespace

TEST(ActionFiles, NpyHeadersThatLieAboutTheirSizeAreRefusedNamingTheProblem)
{
    TempDir dir;
    // n x d overflows 64 bits: before, the product wrapped and the reader ran off its buffer.
    writeRawNpy(dir / "overflow.npy", "(4611686018427387904, 7)", 56);
    EXPECT_NE(test::errorOf([&] { readActions(dir / "overflow.npy"); }).find("overflows 64 bits"),
              std::string::npos);
    // A huge but representable shape: refused against the file's real length, nothing allocated.
    writeRawNpy(dir / "huge.npy", "(100000000000, 7)", 56);
    EXPECT_NE(test::errorOf([&] { readActions(dir / "huge.npy"); }).find("but the file holds 56"),
              std::string::npos)
        << test::errorOf([&] { readActions(dir / "huge.npy"); });
    writeRawNpy(dir / "short.npy", "(2, 7)", 100);
    EXPECT_NE(test::errorOf([&] { readActions(dir / "short.npy"); }).find("112 bytes"),
              std::string::npos);
    writeRawNpy(dir / "wide.npy", "(1, 100000)", 800000);
    EXPECT_NE(test::errorOf([&] { readActions(dir / "wide.npy"); }).find("1 to 64 values"),
              std::string::npos);
    writeRawNpy(dir / "header.npy", "(1, 7)", 56, 60000); // header length past the end
    EXPECT_NE(test::errorOf([&] { readActions(dir / "header.npy"); }).find("does not fit"),
              std::string::npos);
    // Found by fuzz_actions: an exported-CSV header over rows of one value erased past the end.
    std::ofstream(dir / "short-rows.csv") << "step,time_s,\"dx [m]\"\n0\n1\n";
    EXPECT_NE(test::errorOf([&] {
                  readActions(dir / "short-rows.csv");
              }).find("the header names 3 columns, the rows hold 1 values"),
              std::string::npos)
        << test::errorOf([&] { readActions(dir / "short-rows.csv"); });
    writeRawNpy(dir / "good.npy", "(2, 7)", 112);
    EXPECT_EQ(readActions(dir / "good.npy").rows.size(), 2u);
    // JSON actions nested without end: refused, not walked.
    std::ofstream(dir / "deep.json") << std::string(100000, '[') << std::string(100000, ']');
    EXPECT_NE(test::errorOf([&] { readActions(dir / "deep.json"); }).find("nested deeper"),
              std::string::npos);
}

TEST(Import, JudgeEvidenceOutsideTheRolloutIsRefusedOnImportAndFoundByVerify)
{
    TempDir dir;
    const auto [frames, actions] = rollout(16); // 17 frames
    auto episode = [&](const std::string &name, const nlohmann::json &frameIndices,
                       const nlohmann::json &evidence) {
        const fs::path src = dir / name;
        fs::create_directories(src);
        writeManifest(src);
        writeFrames(src, frames);
        writeCsv(src / "actions.csv", actions);
        nlohmann::json samples = {{"frame_indices", frameIndices},
                                  {"samples", nlohmann::json::array()}};
        for (int i = 0; i < 5; ++i)
            samples["samples"].push_back(
                {{"sample_index", i},
                 {"raw_text", nlohmann::json{{"integrity", "intact"},
                                             {"collision", "none_visible"},
                                             {"progress", 2},
                                             {"completion_evidence", "not_met"},
                                             {"evidence_frame_indices", evidence},
                                             {"observable_reasons", "the block never moved"}}
                                  .dump()}});
        std::ofstream(src / "judge_samples.json") << samples.dump();
        return src;
    };
    nlohmann::json inside = nlohmann::json::array();
    nlohmann::json outside = nlohmann::json::array();
    for (int i = 0; i < 16; ++i) {
        inside.push_back(i);
        outside.push_back(i == 15 ? 400 : i); // frame 400 of a 17-frame rollout
    }
    Ledger ledger = Ledger::create(dir / "e.kosmos");
    auto r = importDirectory(ledger, episode("outside", outside, {15}));
    EXPECT_EQ(r.state, "failed");
    EXPECT_EQ(r.errorCode, "judge_evidence_out_of_range");
    EXPECT_NE(r.error.find("400, outside the rollout's 17 frames"), std::string::npos) << r.error;
    nlohmann::json shortList = inside;
    shortList.erase(15);
    r = importDirectory(ledger, episode("short", shortList, {14}));
    EXPECT_EQ(r.errorCode, "judge_evidence_out_of_range") << r.error;
    EXPECT_EQ(count(ledger, "SELECT COUNT(*) FROM judgments"), 0u) << "nothing was judged";
    r = importDirectory(ledger, episode("good", inside, {15}));
    ASSERT_EQ(r.state, "completed") << r.error;
    EXPECT_TRUE(verifyLedger(ledger).clean());

    // Written past the importer (an old build, a hand edit): verify names it.
    sqlite::Statement triggers(LedgerSql::of(ledger),
                               "SELECT name FROM sqlite_master WHERE type = 'trigger' AND "
                               "tbl_name = 'judgments'");
    std::vector<std::string> names;
    while (triggers.step())
        names.push_back(triggers.text(0));
    for (const auto &name : names)
        LedgerSql::of(ledger).exec("DROP TRIGGER " + name);
    LedgerSql::of(ledger).exec("UPDATE judgments SET frame_indices_json = '" + outside.dump() +
                               "'");
    const auto report = verifyLedger(ledger);
    bool found = false;
    for (const auto &p : report.problems)
        found = found || (p.check == "judgment_frames" &&
                          p.message.find("outside the rollout") != std::string::npos);
    EXPECT_TRUE(found) << "verify did not find the evidence outside the rollout";
}
