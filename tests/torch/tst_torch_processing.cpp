// The libtorch adapters' pre/post-processing and model packages, golden values by hand. No
// libtorch needed: these run on every build.
#include "GenericSignature.h"
#include "ModelPackage.h"
#include "Processing.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>

using namespace kosmos;
using namespace kosmos::torchadapters;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

TEST(TorchProcessing, ActionTokensDecodeToBinCentres)
{
    // bins = linspace(-1, 1, 256): step 2/255; centre i = -1 + (2i + 1)/255.
    EXPECT_NEAR(binCentre(0), -1.0 + 1.0 / 255, 1e-12);
    EXPECT_NEAR(binCentre(127), 0.0, 1e-12); // -1 + 255/255
    EXPECT_NEAR(binCentre(254), -1.0 + 509.0 / 255, 1e-12);
    // Token t of 32000 -> idx 32000 - t - 1, clipped to [0, 254].
    const auto v = decodeActionTokens({31999, 31872, 31745, 31744, 40000}, 32000);
    EXPECT_NEAR(v[0], binCentre(0), 1e-12);   // idx 0
    EXPECT_NEAR(v[1], 0.0, 1e-12);            // idx 127
    EXPECT_NEAR(v[2], binCentre(254), 1e-12); // idx 254
    EXPECT_NEAR(v[3], binCentre(254), 1e-12); // idx 255 clipped to 254
    EXPECT_NEAR(v[4], binCentre(0), 1e-12);   // negative idx clipped to 0
    EXPECT_TRUE(isActionToken(31744, 32000));
    EXPECT_TRUE(isActionToken(31999, 32000));
    EXPECT_FALSE(isActionToken(31743, 32000));
    // MiniVLA: the 256 extra tokens at the end of a 151936-token vocabulary.
    EXPECT_NEAR(decodeActionTokens({151935}, 151936)[0], binCentre(0), 1e-12);
}

TEST(TorchProcessing, PromptsAreTheModelsOwn)
{
    EXPECT_EQ(openVlaPrompt("Put The Red Block in the green square"),
              "In: What action should the robot take to put the red block in the green "
              "square?\nOut:");
    EXPECT_EQ(miniVlaPrompt("Open the drawer"),
              "<|im_start|>user\nWhat action should the robot take to open the "
              "drawer?<|im_end|>\n<|im_start|>assistant\n");
    EXPECT_EQ(miniVlaPrompt("Go", "Q: {instruction}? A:"), "Q: go? A:");
}

TEST(TorchProcessing, UnnormalizationBothWaysAndGripperMappings)
{
    // BOUNDS_Q99: a -> 0.5 (a + 1)(q99 - q01) + q01 where the mask is true; gripper passes.
    ActionContract c = ActionContract::bridgeEndEffector();
    c.normalization = NormalizationScheme::BoundsQ99;
    c.statistics.values["q01"] = {-0.02, -0.02, -0.02, -0.1, -0.1, -0.1, 0};
    c.statistics.values["q99"] = {0.02, 0.02, 0.02, 0.1, 0.1, 0.1, 1};
    c.statistics.mask = {true, true, true, true, true, true, false};
    const Action a = c.unnormalize({0.5, -1, 1, 0, 0, 0, 0.7});
    EXPECT_NEAR(a[0], 0.01, 1e-12); // 0.5 * 1.5 * 0.04 - 0.02
    EXPECT_NEAR(a[1], -0.02, 1e-12);
    EXPECT_NEAR(a[2], 0.02, 1e-12);
    EXPECT_NEAR(a[3], 0.0, 1e-12);
    EXPECT_DOUBLE_EQ(a[6], 0.7);
    // And back: 2 (x - q01) / (q99 - q01 + 1e-8) - 1.
    EXPECT_NEAR(c.normalize(a)[0], 0.5, 1e-6);
    // NORMAL (Octo, SuSIE): a * std + mean.
    ActionContract n = ActionContract::bridgeEndEffector();
    n.normalization = NormalizationScheme::Normal;
    n.statistics.values["mean"] = {0.001, 0, 0, 0, 0, 0, 0.5};
    n.statistics.values["std"] = {0.01, 0.01, 0.01, 0.05, 0.05, 0.05, 1};
    n.statistics.mask = {true, true, true, true, true, true, false};
    EXPECT_NEAR(n.unnormalize({2, 0, 0, 0, 0, 0, 1})[0], 0.021, 1e-12);
    // open-pi-zero's Bridge gripper: 2 (a > 0.5) - 1, and back to 0 closed / 1 open.
    EXPECT_EQ(bridgeGripperPlusMinusOne(0.6), 1.0);
    EXPECT_EQ(bridgeGripperPlusMinusOne(0.5), -1.0);
    EXPECT_EQ(plusMinusOneToZeroOne(-1.0), 0.0);
    EXPECT_EQ(plusMinusOneToZeroOne(1.0), 1.0);
}

TEST(TorchProcessing, TemporalEnsemblingAveragesEachChunksPredictionForNow)
{
    // Horizon 3, k = 0: step 1 -> c1[0] = 1; step 2 -> mean(c1[1], c2[0]) = (2 + 10)/2 = 6;
    // step 3 -> mean(c1[2], c2[1], c3[0]) = (3 + 20 + 100)/3 = 41.
    TemporalEnsembler e(3, 0.0);
    EXPECT_DOUBLE_EQ(e.push({{1}, {2}, {3}})[0], 1.0);
    EXPECT_DOUBLE_EQ(e.push({{10}, {20}, {30}})[0], 6.0);
    EXPECT_DOUBLE_EQ(e.push({{100}, {200}, {300}})[0], 41.0);
    // k = ln 2: weights 1, 1/2, 1/4 (oldest first) / 1.75 -> (3 + 10 + 25) / 1.75.
    TemporalEnsembler w(3, std::log(2.0));
    w.push({{1}, {2}, {3}});
    w.push({{10}, {20}, {30}});
    EXPECT_NEAR(w.push({{100}, {200}, {300}})[0], 38.0 / 1.75, 1e-12);
    const auto weights = w.weights(3);
    EXPECT_NEAR(weights[0], 1 / 1.75, 1e-12);
    EXPECT_NEAR(weights[2], 0.25 / 1.75, 1e-12);
    // A fourth chunk drops the oldest: mean(c2[2], c3[1], c4[0]) = (30 + 200 + 1000)/3.
    EXPECT_DOUBLE_EQ(e.push({{1000}, {2000}, {3000}})[0], 410.0);
    EXPECT_THROW(e.push({{1}}), Error);
}

TEST(TorchProcessing, HistoryPadMaskSubgoalScheduleAndStickyGripper)
{
    ObservationHistory h(2);
    cv::Mat a(4, 4, CV_8UC3, cv::Scalar::all(1)), b(4, 4, CV_8UC3, cv::Scalar::all(2));
    h.push(a);
    EXPECT_EQ(h.padMask(), (std::vector<bool>{false, true})); // Octo at t = 0
    EXPECT_EQ(h.frames().size(), 2u);
    h.push(b);
    EXPECT_EQ(h.padMask(), (std::vector<bool>{true, true}));
    EXPECT_EQ(h.frames().back().at<cv::Vec3b>(0, 0)[0], 2);
    EXPECT_EQ(h.frames().front().at<cv::Vec3b>(0, 0)[0], 1);

    EXPECT_TRUE(needsSubgoal(0, 40));
    EXPECT_FALSE(needsSubgoal(39, 40));
    EXPECT_TRUE(needsSubgoal(40, 40));
    EXPECT_TRUE(needsSubgoal(80, 40));

    StickyGripper g(2);           // starts open
    EXPECT_EQ(g.apply(0.0), 1.0); // asked once
    EXPECT_EQ(g.apply(0.1), 0.0); // twice: closes
    EXPECT_EQ(g.apply(0.9), 0.0);
    EXPECT_EQ(g.apply(0.2), 0.0); // the request to open was not repeated
    EXPECT_EQ(g.apply(0.9), 0.0);
    EXPECT_EQ(g.apply(0.8), 1.0);
}

TEST(TorchProcessing, ImagesAndWorldActionScaling)
{
    cv::Mat flat(300, 400, CV_8UC3, cv::Scalar(200, 100, 50));
    const cv::Mat vla = openVlaImage(flat);
    EXPECT_EQ(vla.cols, 224);
    EXPECT_EQ(vla.rows, 224);
    const auto px = vla.at<cv::Vec3b>(112, 112);
    EXPECT_NEAR(px[0], 200, 3); // JPEG round trip + Lanczos: within a few grey levels
    EXPECT_NEAR(px[1], 100, 3);
    EXPECT_NEAR(px[2], 50, 3);
    EXPECT_EQ(squareImage(flat, 128).cols, 128);
    const auto chw = chwFloat(cv::Mat(1, 2, CV_8UC3, cv::Scalar(255, 0, 51)));
    ASSERT_EQ(chw.size(), 6u); // C-major: R R G G B B
    EXPECT_FLOAT_EQ(chw[0], 1.0f);
    EXPECT_FLOAT_EQ(chw[2], 0.0f);
    EXPECT_FLOAT_EQ(chw[4], 0.2f);
    // Cosmos / IRASim: xyz and rpy times 20, the gripper as is.
    const auto scaled = scaleForWorld({{0.01, -0.02, 0.005, 0.1, 0, -0.05, 1.0}});
    EXPECT_NEAR(scaled[0][0], 0.2, 1e-12);
    EXPECT_NEAR(scaled[0][1], -0.4, 1e-12);
    EXPECT_NEAR(scaled[0][3], 2.0, 1e-12);
    EXPECT_DOUBLE_EQ(scaled[0][6], 1.0);
}

namespace {

// A package folder with one "module" file and a manifest; `edit` changes the manifest first.
fs::path writePackage(const TempDir &dir, const std::string &family,
                      const std::function<void(nlohmann::json &)> &edit = {})
{
    const fs::path p = dir / family;
    fs::create_directories(p);
    std::ofstream(p / "module.pt") << "stand-in bytes";
    ActionContract c = ActionContract::bridgeEndEffector();
    c.normalization = NormalizationScheme::BoundsQ99;
    c.statistics.values["q01"] = std::vector<double>(7, -1.0);
    c.statistics.values["q99"] = std::vector<double>(7, 1.0);
    c.statistics.mask = {true, true, true, true, true, true, false};
    nlohmann::json m = {
        {"kosmos_model", 1},
        {"family", family},
        {"signature", 1},
        {"files",
         {{"module", {{"path", "module.pt"}, {"sha256", Sha256::fileHex(p / "module.pt")}}}}},
        {"action", c.toJson()},
        {"options", {{"vocab_size", 32000}}}};
    if (edit)
        edit(m);
    std::ofstream(p / "kosmos-model.json") << m.dump(2);
    return p;
}

std::string errorOf(const fs::path &p, ErrorCode expected)
{
    try {
        loadModelPackage(p);
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), expected) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "loaded " << p;
    return {};
}

} // namespace

TEST(TorchPackage, AGoodPackageLoadsWithItsHashes)
{
    TempDir dir;
    const auto p = loadModelPackage(writePackage(dir, "openvla"));
    EXPECT_EQ(p.spec.name, "openvla");
    EXPECT_EQ(p.file("module").sha256, Sha256::fileHex(dir / "openvla" / "module.pt"));
    EXPECT_EQ(p.identity()["manifest_sha256"].get<std::string>().size(), 64u);
    EXPECT_EQ(p.action.normalization, NormalizationScheme::BoundsQ99);
}

TEST(TorchPackage, EveryMismatchIsANamedError)
{
    TempDir dir;
    // A file changed after export: SHA-256 mismatch.
    auto p = writePackage(dir, "openvla");
    std::ofstream(p / "module.pt") << "tampered";
    EXPECT_NE(errorOf(p, ErrorCode::Corrupt).find("SHA-256 mismatch for module.pt"),
              std::string::npos);
    // p01/p99 where OpenVLA expects q01/q99.
    TempDir d2;
    p = writePackage(d2, "openvla", [](nlohmann::json &m) {
        auto &stats = m["action"]["normalization"]["statistics"];
        stats["p01"] = stats["q01"];
        stats["p99"] = stats["q99"];
        stats.erase("q01");
        stats.erase("q99");
    });
    const std::string keys = errorOf(p, ErrorCode::InvalidInput);
    EXPECT_NE(keys.find("expects key 'q01'"), std::string::npos) << keys;
    EXPECT_NE(keys.find("p01"), std::string::npos) << keys;
    // A 6-value statistics vector for a 7-D action.
    TempDir d3;
    p = writePackage(d3, "openvla", [](nlohmann::json &m) {
        m["action"]["normalization"]["statistics"]["q99"] = std::vector<double>(6, 1.0);
    });
    EXPECT_NE(errorOf(p, ErrorCode::InvalidInput).find("'q99' have 6 values for a 7-D action"),
              std::string::npos);
    // No mask: the gripper would be unnormalized.
    TempDir d4;
    p = writePackage(d4, "openvla",
                     [](nlohmann::json &m) { m["action"]["normalization"].erase("mask"); });
    EXPECT_NE(errorOf(p, ErrorCode::InvalidInput).find("gripper"), std::string::npos);
    // The wrong scheme for the family (Octo uses NORMAL), a newer signature, an unknown family,
    // a path outside the folder, a missing module.
    TempDir d5;
    EXPECT_NE(errorOf(writePackage(d5, "octo"), ErrorCode::InvalidInput)
                  .find("family octo unnormalizes with normal"),
              std::string::npos);
    TempDir d6;
    EXPECT_NE(errorOf(writePackage(d6, "openvla", [](nlohmann::json &m) { m["signature"] = 2; }),
                      ErrorCode::InvalidInput)
                  .find("module signature version 2"),
              std::string::npos);
    TempDir d7;
    EXPECT_NE(errorOf(writePackage(d7, "openvla", [](nlohmann::json &m) { m["family"] = "rt2"; }),
                      ErrorCode::InvalidInput)
                  .find("unknown family 'rt2'"),
              std::string::npos);
    TempDir d8;
    EXPECT_NE(errorOf(writePackage(d8, "openvla",
                                   [](nlohmann::json &m) {
                                       m["files"]["module"]["path"] = "../elsewhere.pt";
                                   }),
                      ErrorCode::InvalidInput)
                  .find("inside the package folder"),
              std::string::npos);
    TempDir d9;
    EXPECT_NE(errorOf(writePackage(d9, "openvla",
                                   [](nlohmann::json &m) {
                                       m["files"]["tokenizer"] = m["files"]["module"];
                                       m["files"].erase("module");
                                   }),
                      ErrorCode::InvalidInput)
                  .find("needs a 'module' module"),
              std::string::npos);
    // Loaded for the wrong adapter.
    TempDir d10;
    try {
        loadModelPackage(writePackage(d10, "openvla"), ModelFamily::MiniVla);
        ADD_FAILURE();
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("this adapter loads minivla"), std::string::npos);
    }
    // No manifest at all.
    TempDir d11;
    EXPECT_NE(errorOf(d11.path(), ErrorCode::NotFound).find("kosmos-model.json"),
              std::string::npos);
}

namespace {

nlohmann::json policyIo()
{
    return {{"vocabulary", {"put the red block in the green square", "push the blue block"}},
            {"inputs",
             {{{"name", "image"}, {"source", "image"}, {"shape", {1, 3, 64, 80}}},
              {{"name", "task"}, {"source", "instruction_id"}},
              {{"name", "state"}, {"source", "proprio"}, {"shape", {1, 7}}}}},
            {"output", {1, 4, 7}}};
}

std::string ioError(const nlohmann::json &io, const std::string &kind = "policy")
{
    try {
        parseGenericIo(io, kind, "kosmos-model.json.io", 7, 4, 64, 80);
    } catch (const Error &e) {
        return e.what();
    }
    return {};
}

} // namespace

TEST(TorchGenericSignature, ADeclaredSignatureParsesWithItsVocabularyAndPixelScale)
{
    nlohmann::json io = policyIo();
    io["pixels"] = {{"mean", {0.5, 0.5, 0.5}}, {"std", {0.25, 0.25, 0.25}}};
    const GenericIo parsed = parseGenericIo(io, "policy", "io", 7, 4, 0, 0);
    ASSERT_EQ(parsed.inputs.size(), 3u);
    EXPECT_EQ(parsed.inputs[0].imageHeight(), 64);
    EXPECT_EQ(parsed.inputs[0].imageWidth(), 80);
    EXPECT_EQ(parsed.instructionId("push the blue block"), 1);
    EXPECT_NE(kosmos::test::errorOf([&] {
                  parsed.instructionId("stack the cups");
              }).find("not trained on the instruction \"stack the cups\""),
              std::string::npos);
    // (v / 255 - 0.5) / 0.25, and back.
    const cv::Mat grey(2, 2, CV_8UC3, cv::Scalar(255, 0, 51));
    const auto chw = parsed.pixels.chw(grey, 2, 2);
    EXPECT_FLOAT_EQ(chw[0], 2.0f);  // R = 255
    EXPECT_FLOAT_EQ(chw[4], -2.0f); // G = 0
    EXPECT_FLOAT_EQ(chw[8], -1.2f); // B = 51
    const cv::Mat back = parsed.pixels.image(chw.data(), 2, 2);
    EXPECT_EQ(back.at<cv::Vec3b>(1, 1), cv::Vec3b(255, 0, 51));
    // A judge: frames and the 6 progress logits.
    const nlohmann::json judge = {
        {"inputs", {{{"name", "frames"}, {"source", "frames"}, {"shape", {1, 4, 3, 32, 40}}}}},
        {"output", {1, 6}}};
    EXPECT_EQ(parseGenericIo(judge, "judge", "io", 0, 0, 0, 0).inputs[0].count(), 4);
}

TEST(TorchGenericSignature, AWorldModelKeepsTheCommandedEndEffectorStateItDeclares)
{
    nlohmann::json world = {{"inputs",
                             {{{"name", "frame"}, {"source", "image"}, {"shape", {1, 3, 64, 80}}},
                              {{"name", "actions"}, {"source", "actions"}, {"shape", {1, 4, 7}}}}},
                            {"output", {1, 4, 3, 64, 80}},
                            {"proprio",
                             {{"start", {0.0, -0.12, 0.14, 0, 0, 0, 1}},
                              {"integrate",
                               {{{"state", 0}, {"action", 0}, {"min", -0.28}, {"max", 0.28}},
                                {{"state", 2}, {"action", 2}, {"min", 0.004}, {"max", 0.25}}}},
                              {"copy", {{{"state", 6}, {"action", 6}}}}}}};
    const GenericIo parsed = parseGenericIo(world, "world_model", "io", 7, 4, 64, 80);
    ASSERT_TRUE(parsed.proprio.has_value());
    std::vector<double> state = parsed.proprio->start;
    parsed.proprio->apply(state, {0.05, 0.05, 0.05, 0, 0, 0, 0});
    EXPECT_DOUBLE_EQ(state[0], 0.05);
    EXPECT_DOUBLE_EQ(state[1], -0.12); // not declared: unchanged
    EXPECT_DOUBLE_EQ(state[2], 0.19);
    EXPECT_DOUBLE_EQ(state[6], 0.0); // copied from the gripper command
    for (int i = 0; i < 3; ++i)
        parsed.proprio->apply(state, {0.05, 0.0, 0.05, 0, 0, 0, 1});
    EXPECT_DOUBLE_EQ(state[0], 0.2);
    EXPECT_DOUBLE_EQ(state[2], 0.25); // clamped to the declared bound
    EXPECT_DOUBLE_EQ(state[6], 1.0);
    // Mistakes are named.
    auto error = [&](const std::function<void(nlohmann::json &)> &edit, const std::string &kind) {
        nlohmann::json io = world;
        edit(io);
        return ioError(io, kind);
    };
    EXPECT_NE(error([](auto &io) { io["proprio"]["integrate"][0]["state"] = 7; }, "world_model")
                  .find("io.proprio.integrate.state: an index into the state (0 to 6)"),
              std::string::npos);
    EXPECT_NE(error([](auto &io) { io["proprio"]["copy"][0]["action"] = -1; }, "world_model")
                  .find("io.proprio.copy.action: an index into the action (0 to 6)"),
              std::string::npos);
    EXPECT_NE(error([](auto &io) { io["proprio"]["integrate"][1]["max"] = 0.0; }, "world_model")
                  .find("io.proprio.integrate: min must be below max"),
              std::string::npos);
    EXPECT_NE(
        error([](auto &io) { io["proprio"]["start"] = nlohmann::json::array(); }, "world_model")
            .find("io.proprio.start: the state at reset"),
        std::string::npos);
    // A world model may take that state after each action of the chunk as an input.
    nlohmann::json withHand = world;
    withHand["inputs"].push_back({{"name", "hand"}, {"source", "proprio"}, {"shape", {1, 4, 7}}});
    EXPECT_EQ(parseGenericIo(withHand, "world_model", "io", 7, 4, 64, 80).inputs[2].source,
              IoSource::Proprio);
    EXPECT_NE(error(
                  [](auto &io) {
                      io["inputs"].push_back(
                          {{"name", "hand"}, {"source", "proprio"}, {"shape", {1, 7}}});
                  },
                  "world_model")
                  .find("io.inputs[2].shape: the state after each action of the chunk: [1, 4, "
                        "7], not [1, 7]"),
              std::string::npos);
    EXPECT_NE(error(
                  [](auto &io) {
                      io.erase("proprio");
                      io["inputs"].push_back(
                          {{"name", "hand"}, {"source", "proprio"}, {"shape", {1, 4, 7}}});
                  },
                  "world_model")
                  .find("io.inputs[2].source: a world model's proprio input is the state it "
                        "keeps: declare io.proprio"),
              std::string::npos);
    nlohmann::json policy = policyIo();
    policy["proprio"] = world["proprio"];
    EXPECT_NE(ioError(policy).find("io.proprio: only a world model reports a proprio state"),
              std::string::npos);
}

TEST(TorchGenericSignature, EveryMistakeInASignatureIsANamedError)
{
    auto with = [](const std::function<void(nlohmann::json &)> &edit) {
        nlohmann::json io = policyIo();
        edit(io);
        return io;
    };
    EXPECT_NE(ioError(nullptr).find("kosmos-model.json.io"), std::string::npos);
    EXPECT_NE(ioError(with([](auto &io) {
                  io["output"] = {1, 8, 7};
              }))
                  .find("io.output: [1, 8, 7] does not match the contracts: a policy returns [1, "
                        "4, 7]"),
              std::string::npos);
    EXPECT_NE(ioError(with([](auto &io) {
                  io["inputs"][0]["source"] = "actions";
              })).find("io.inputs[0].source: 'actions' is not an input a policy module can take"),
              std::string::npos);
    EXPECT_NE(ioError(with([](auto &io) {
                  io.erase("vocabulary");
              })).find("io.vocabulary: an instruction_id input needs the list"),
              std::string::npos);
    EXPECT_NE(ioError(with([](auto &io) {
                  io["inputs"][0]["shape"] = {2, 3, 64, 80};
              })).find("io.inputs[0].shape: the first size is the batch and must be 1"),
              std::string::npos);
    EXPECT_NE(ioError(with([](auto &io) {
                  io["inputs"][0]["shape"] = {1, 4, 64, 80};
              })).find("images have 3 channels"),
              std::string::npos);
    EXPECT_NE(ioError(with([](auto &io) {
                  io["inputs"][1]["name"] = "image";
              })).find("io.inputs[1].name: 'image' is declared twice"),
              std::string::npos);
    EXPECT_NE(
        ioError(with([](auto &io) { io["inputs"].erase(0); })).find("a policy must see the image"),
        std::string::npos);
    EXPECT_NE(ioError(with([](auto &io) {
                  io["pixels"] = {{"std", {1, 0, 1}}};
              })).find("io.pixels.std: every std must be positive"),
              std::string::npos);
    // A world model conditions on frames of its contract's size and takes the declared chunk.
    const nlohmann::json world = {
        {"inputs",
         {{{"name", "frame"}, {"source", "image"}, {"shape", {1, 3, 32, 40}}},
          {{"name", "actions"}, {"source", "actions"}, {"shape", {1, 4, 7}}}}},
        {"output", {1, 4, 3, 64, 80}}};
    EXPECT_NE(ioError(world, "world_model").find("frames of its own size"), std::string::npos);
    nlohmann::json badActions = world;
    badActions["inputs"][0]["shape"] = {1, 3, 64, 80};
    badActions["inputs"][1]["shape"] = {1, 5, 7};
    EXPECT_NE(ioError(badActions, "world_model").find("chunks of 4 actions of 7 values"),
              std::string::npos);
    const nlohmann::json judge = {
        {"inputs", {{{"name", "frames"}, {"source", "frames"}, {"shape", {1, 17, 3, 32, 40}}}}},
        {"output", {1, 6}}};
    EXPECT_NE(ioError(judge, "judge").find("at most its 16 frames"), std::string::npos);
}
