// The libtorch adapters end to end on CPU: tiny TorchScript modules with each family's real
// signature (docs/export.md) are built here with torch::jit::Module::define and saved into
// model packages, then run through kosmos-cli (the whole engine) and directly for the error
// cases. No weights are downloaded; the same adapters load a real exported model unchanged.
#include "ModelPackage.h"
#include "TorchAdapters.h"
#include "contracts/FrameContract.h"
#include "ledger/Ledger.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/script.h>

#include <fstream>

using namespace kosmos;
using namespace kosmos::torchadapters;
using kosmos::test::errorOf;
using kosmos::test::runProcess;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kInstruction = "put the red block in the green square";

// TorchScript sources of the stand-ins, one per signature.
const char *const kVlaStep = R"(
def forward(self, pixel_values: Tensor, input_ids: Tensor) -> Tensor:
    n = input_ids.size(1)
    m = int(pixel_values.float().mean().item() * 100.0)
    idx = (n * 37 + m) % 128 + 127
    logits = torch.zeros([1, VOCAB], dtype=pixel_values.dtype)
    logits[0, VOCAB - 1 - idx] = 1.0
    return logits
)";
const char *const kOcto = R"(
def forward(self, image_primary: Tensor, image_wrist: Tensor, pad_mask: Tensor, task_tokens: Tensor) -> Tensor:
    m = image_primary.float().mean() - 0.5
    base = torch.tanh(torch.arange(7).float() * 0.1 + m) * (pad_mask.float().sum() / 2.0)
    out = base.view(1, 1, 7).repeat(1, 4, 1)
    out[:, :, 6] = 0.8
    return out.to(image_primary.dtype)
)";
const char *const kPiZero = R"(
def forward(self, image: Tensor, proprio: Tensor, tokens: Tensor) -> Tensor:
    m = image.float().mean()
    out = torch.linspace(-0.5, 0.5, 28).view(1, 4, 7) * m
    out[:, :, 6] = 0.4 + m
    return out.to(image.dtype)
)";
const char *const kSubgoal = R"(
def forward(self, image: Tensor, tokens: Tensor) -> Tensor:
    return (1.0 - image).clamp(0.0, 1.0)
)";
const char *const kSusie = R"(
def forward(self, obs: Tensor, goal: Tensor) -> Tensor:
    d = goal.float().mean() - obs[:, -1].float().mean()
    out = torch.zeros(1, 4, 7) + d * 0.1
    out[:, :, 6] = 0.5 + d
    return out.to(obs.dtype)
)";
const char *const kWorld = R"(
def forward(self, frame: Tensor, actions: Tensor, seed: Tensor, steps: Tensor, guidance: Tensor) -> Tensor:
    n = actions.size(1)
    drift = actions[0, :, 0].cumsum(0).view(1, n, 1, 1, 1) * 0.01
    out = frame.unsqueeze(1).repeat(1, n, 1, 1, 1) * 0.99 + drift
    return out.clamp(0.0, 1.0)
)";

void saveModule(const fs::path &path, std::string source, int vocab = 32000)
{
    for (auto at = source.find("VOCAB"); at != std::string::npos; at = source.find("VOCAB"))
        source.replace(at, 5, std::to_string(vocab));
    torch::jit::Module m("StandIn");
    m.define(source);
    m.save(path.string());
}

ActionContract policyContract(NormalizationScheme scheme, int chunk)
{
    ActionContract c = ActionContract::bridgeEndEffector();
    c.chunkLength = chunk;
    c.normalization = scheme;
    const auto keys = expectedStatisticsKeys(scheme);
    if (scheme == NormalizationScheme::Normal) {
        c.statistics.values["mean"] = std::vector<double>(7, 0.0);
        c.statistics.values["std"] = {0.01, 0.01, 0.01, 0.05, 0.05, 0.05, 1};
    } else {
        c.statistics.values[keys[0]] = {-0.02, -0.02, -0.02, -0.1, -0.1, -0.1, 0};
        c.statistics.values[keys[1]] = {0.02, 0.02, 0.02, 0.1, 0.1, 0.1, 1};
    }
    c.statistics.mask = {true, true, true, true, true, true, false};
    return c;
}

// Writes a package folder: modules (role -> TorchScript source), the manifest.
fs::path writePackage(const fs::path &dir, const std::string &family,
                      const std::map<std::string, std::string> &modules,
                      const nlohmann::json &action, const nlohmann::json &options,
                      const nlohmann::json &frame = nullptr, int vocab = 32000)
{
    fs::create_directories(dir);
    nlohmann::json files = nlohmann::json::object();
    for (const auto &[role, source] : modules) {
        saveModule(dir / (role + ".pt"), source, vocab);
        files[role] = {{"path", role + ".pt"}, {"sha256", Sha256::fileHex(dir / (role + ".pt"))}};
    }
    nlohmann::json m = {{"kosmos_model", 1},
                        {"family", family},
                        {"signature", 1},
                        {"files", files},
                        {"action", action},
                        {"options", options},
                        {"defaults", {{"device", "cpu"}, {"dtype", "fp32"}}}};
    if (!frame.is_null())
        m["frame"] = frame;
    std::ofstream(dir / kManifestName) << m.dump(2);
    return dir;
}

nlohmann::json worldFrame(int width, int height)
{
    FrameContract f;
    f.width = width;
    f.height = height;
    f.fps = 4;
    return f.toJson();
}

nlohmann::json worldAction(int chunk)
{
    ActionContract c = ActionContract::bridgeEndEffector();
    c.chunkLength = chunk;
    return c.toJson();
}

struct Packages
{
    fs::path openvla, minivla, octo, pizero, susie, susiell, cosmos, irasim, goal, start;
    std::string startSha;
};

Packages writeAll(const TempDir &dir)
{
    Packages p;
    const std::string vlaPrompt =
        "In: What action should the robot take to " + kInstruction + "?\nOut:";
    p.openvla = writePackage(
        dir / "openvla", "openvla", {{"module", kVlaStep}},
        policyContract(NormalizationScheme::BoundsQ99, 1).toJson(),
        {{"vocab_size", 32000}, {"prompt_tokens", {{vlaPrompt, {1, 512, 1024, 29871}}}}});
    const std::string miniPrompt = "<|im_start|>user\nWhat action should the robot take to " +
                                   kInstruction + "?<|im_end|>\n<|im_start|>assistant\n";
    p.minivla = writePackage(dir / "minivla", "minivla", {{"module", kVlaStep}},
                             policyContract(NormalizationScheme::BoundsQ99, 1).toJson(),
                             {{"vocab_size", 1000}, {"prompt_tokens", {{miniPrompt, {5, 6, 7}}}}},
                             nullptr, 1000);
    p.octo = writePackage(dir / "octo", "octo", {{"module", kOcto}},
                          policyContract(NormalizationScheme::Normal, 4).toJson(),
                          {{"task_tokens", {{kInstruction, std::vector<int>(16, 3)}}}});
    p.pizero = writePackage(dir / "pizero", "openpizero", {{"module", kPiZero}},
                            policyContract(NormalizationScheme::Bounds, 4).toJson(),
                            {{"prompt_tokens", {{kInstruction, {2, 9, 4}}}}});
    p.susie = writePackage(dir / "susie", "susie", {{"module", kSusie}, {"subgoal", kSubgoal}},
                           policyContract(NormalizationScheme::Normal, 4).toJson(),
                           {{"prompt_tokens", {{kInstruction, {8, 8}}}}});
    p.susiell = writePackage(dir / "susie_ll", "susie_ll", {{"module", kSusie}},
                             policyContract(NormalizationScheme::Normal, 4).toJson(),
                             nlohmann::json::object());
    p.cosmos = writePackage(dir / "cosmos", "cosmos", {{"module", kWorld}}, worldAction(12),
                            {{"action_scale", 20}, {"sampling_steps", 35}}, worldFrame(80, 64));
    p.irasim = writePackage(dir / "irasim", "irasim", {{"module", kWorld}}, worldAction(15),
                            {{"action_scale", 20}}, worldFrame(320, 256));
    p.goal = dir / "goal.png";
    cv::imwrite(p.goal.string(), cv::Mat(256, 256, CV_8UC3, cv::Scalar(40, 200, 40)));
    p.start = dir / "start.png";
    cv::Mat start(256, 320, CV_8UC3, cv::Scalar(90, 120, 150));
    cv::rectangle(start, {100, 80}, {140, 120}, cv::Scalar(0, 0, 220), cv::FILLED);
    cv::imwrite(p.start.string(), start);
    p.startSha = Sha256::fileHex(p.start);
    return p;
}

nlohmann::json protocol(const Packages &p, const std::string &world, const fs::path &worldPackage,
                        int horizon, const nlohmann::json &policies)
{
    return {{"kosmos_protocol", 1},
            {"name", "torch-" + world},
            {"seed", 11},
            {"horizon", horizon},
            {"episodes_per_task", 1},
            {"tasks",
             {{{"id", "red"},
               {"instruction", kInstruction},
               {"start_state", {{"frame", p.start.string()}, {"frame_sha256", p.startSha}}}}}},
            {"policies", policies},
            {"world_model",
             {{"plugin", "torch." + world},
              {"settings", {{"package", worldPackage.string()}, {"threads", 2}}}}}};
}

} // namespace

TEST(TorchAdapters, EveryPolicyFamilyRunsEndToEndThroughCosmosOnCpu)
{
    TempDir dir;
    const Packages p = writeAll(dir);
    auto policy = [](const std::string &family, const fs::path &package,
                     nlohmann::json extra = nlohmann::json::object()) {
        extra["package"] = package.string();
        extra["threads"] = 2;
        return nlohmann::json{{"plugin", "torch." + family}, {"settings", extra}};
    };
    const nlohmann::json policies = {
        policy("openvla", p.openvla),
        policy("minivla", p.minivla),
        policy("octo", p.octo),
        policy("openpizero", p.pizero),
        policy("susie", p.susie, {{"subgoal_every", 8}}),
        policy("susie_ll", p.susiell, {{"goal_image", p.goal.string()}})};
    std::ofstream(dir / "cosmos.json") << protocol(p, "cosmos", p.cosmos, 24, policies).dump(2);
    const auto bundle = (dir / "t.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const auto r = runProcess(
        {test::cliPath(), "run", (dir / "cosmos.json").string(), "--ledger", bundle, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    const auto info = ledger.info();
    EXPECT_EQ(info.runs, 6);
    for (const auto &[status, count] : info.runsByStatus) {
        if (status == "completed") {
            EXPECT_EQ(count, 6) << r.output;
        }
    }
    // 24 actions in two Cosmos calls of 12: 1 conditioning + 24 generated frames per run.
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
    const auto events = runProcess({test::cliPath(), "events", bundle, "1", "--json"});
    EXPECT_NE(events.output.find("\"frames\":25"), std::string::npos) << events.output;
    // Per-call timing and memory of both components in each step's event.
    EXPECT_NE(events.output.find("\"policy_calls\""), std::string::npos);
    EXPECT_NE(events.output.find("\"world_call\""), std::string::npos);
    EXPECT_NE(events.output.find("\"peak_rss_bytes\""), std::string::npos);
    // The attempt's timings name the device each adapter reported.
    EXPECT_NE(events.output.find("\"devices\":{\"policy\":\"cpu\",\"world_model\":\"cpu\"}"),
              std::string::npos)
        << events.output;
    // SuSIE's subgoals (every 8 steps of 24: steps 0, 8, 16) are artifacts of its run only.
    int runsWithSubgoals = 0;
    for (int run = 1; run <= 6; ++run) {
        const auto e =
            runProcess({test::cliPath(), "events", bundle, std::to_string(run), "--json"});
        int images = 0;
        for (auto at = e.output.find("\"policy_image\""); at != std::string::npos;
             at = e.output.find("\"policy_image\"", at + 1))
            ++images;
        if (images > 0) {
            ++runsWithSubgoals;
            EXPECT_EQ(images, 3) << e.output;
        }
    }
    EXPECT_EQ(runsWithSubgoals, 1);
    // The package's manifest hash is the component's weights hash; the resolved runtime is in
    // its identity (and so in the run key).
    const auto report = runProcess({test::cliPath(), "report", bundle, "--json"});
    const auto record = nlohmann::json::parse(report.output);
    int withWeights = 0;
    for (const auto &c : record["components"]) {
        if (c["weights_sha256"].is_string()) {
            ++withWeights;
            EXPECT_EQ(c["config"]["resolved"]["package"]["manifest_sha256"], c["weights_sha256"]);
            EXPECT_EQ(c["config"]["resolved"]["threads"], 2);
        }
    }
    EXPECT_EQ(withWeights, 7) << "6 policies and the world model";
}

TEST(TorchAdapters, IraSimGeneratesFifteenFramesPerCallAt256x320)
{
    TempDir dir;
    const Packages p = writeAll(dir);
    const nlohmann::json policies = {
        {{"plugin", "torch.openvla"}, {"settings", {{"package", p.openvla.string()}}}}};
    std::ofstream(dir / "irasim.json") << protocol(p, "irasim", p.irasim, 30, policies).dump(2);
    const auto bundle = (dir / "i.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const auto r =
        runProcess({test::cliPath(), "run", (dir / "irasim.json").string(), "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto events = runProcess({test::cliPath(), "events", bundle, "1", "--json"});
    EXPECT_NE(events.output.find("\"frames\":16"), std::string::npos) << events.output;
    EXPECT_NE(events.output.find("\"frames\":31"), std::string::npos) << events.output;

    // Directly: the world model's frames and its contract.
    auto world = createTorchWorldModel(ModelFamily::IraSim, {{"package", p.irasim.string()}});
    EXPECT_EQ(world->frameContract().width, 320);
    EXPECT_EQ(world->frameContract().certifiedChunkLengths, std::vector<int>{15});
    WorldStart start;
    start.startState = {{"frame", p.start.string()}, {"frame_sha256", p.startSha}};
    ASSERT_EQ(world->reset(start).size(), 1u);
    const auto frames = world->step(ActionChunk(15, Action{0.01, 0, 0, 0, 0, 0, 1}));
    ASSERT_EQ(frames.size(), 15u);
    EXPECT_EQ(frames[0].cols, 320);
    EXPECT_EQ(frames[0].rows, 256);
    // A start frame that is not the one the protocol froze.
    start.startState["frame_sha256"] = std::string(64, '0');
    EXPECT_NE(errorOf([&] { world->reset(start); }).find("SHA-256 mismatch"), std::string::npos);
    EXPECT_NE(errorOf([&] {
                  world->step(ActionChunk(12, Action(7, 0.0)));
              }).find("takes chunks of 15 actions, got 12"),
              std::string::npos);
}

TEST(TorchAdapters, OpenVlaDecodesSevenTokensAndUnnormalizes)
{
    TempDir dir;
    const Packages p = writeAll(dir);
    auto policy = createTorchPolicy(ModelFamily::OpenVla, {{"package", p.openvla.string()}});
    policy->reset(1, kInstruction);
    Observation obs;
    obs.image = cv::Mat(256, 256, CV_8UC3, cv::Scalar::all(0));
    const ActionChunk chunk = policy->act(obs);
    ASSERT_EQ(chunk.size(), 1u);
    ASSERT_EQ(chunk[0].size(), 7u);
    // Black image: m = 0; prompt of 4 ids (29871 already last), so token k is decoded with
    // n = 4 + k ids: idx = (37 n) % 128 + 127 -> value centre(idx) -> BOUNDS_Q99.
    for (int k = 0; k < 7; ++k) {
        const int idx = (37 * (4 + k)) % 128 + 127;
        const double normalized = -1.0 + (2.0 * idx + 1) / 255;
        const double expected =
            k < 3 ? 0.5 * (normalized + 1) * 0.04 - 0.02
                  : (k < 6 ? 0.5 * (normalized + 1) * 0.2 - 0.1 : normalized); // gripper as is
        EXPECT_NEAR(chunk[0][static_cast<std::size_t>(k)], expected, 1e-6) << k;
    }
    // An instruction the package has no tokens for: named.
    EXPECT_NE(errorOf([&] { policy->reset(1, "open the drawer"); })
                  .find("no tokens for the prompt \"In: What action should the robot take to "
                        "open the drawer?"),
              std::string::npos);
}

TEST(TorchAdapters, MiniVlaDecodesAVqChunkWhenThePackageHasTheDecoder)
{
    TempDir dir;
    const Packages p = writeAll(dir);
    // A stand-in VQ decoder: code c -> normalized value c / 255 on every dimension, 8 steps.
    const char *const decoder = R"(
def forward(self, codes: Tensor) -> Tensor:
    v = codes.float() / 255.0
    return v.view(1, 1, 7).repeat(1, 8, 1)
)";
    auto action = policyContract(NormalizationScheme::BoundsQ99, 8).toJson();
    const std::string miniPrompt = "<|im_start|>user\nWhat action should the robot take to " +
                                   kInstruction + "?<|im_end|>\n<|im_start|>assistant\n";
    const auto vq = writePackage(
        dir / "minivla-vq", "minivla", {{"module", kVlaStep}, {"vq_decoder", decoder}}, action,
        {{"vocab_size", 1000}, {"vq_chunk", 8}, {"prompt_tokens", {{miniPrompt, {5, 6, 7}}}}},
        nullptr, 1000);
    auto policy = createTorchPolicy(ModelFamily::MiniVla, {{"package", vq.string()}});
    EXPECT_EQ(policy->actionContract().chunkLength, 8);
    policy->reset(1, kInstruction);
    Observation obs;
    obs.image = cv::Mat(256, 256, CV_8UC3, cv::Scalar::all(0));
    const ActionChunk chunk = policy->act(obs);
    ASSERT_EQ(chunk.size(), 8u);
    // Token k (n = 3 + k ids, black image) -> idx = (37 n) % 128 + 127 = code; value code/255,
    // BOUNDS_Q99 on dx: 0.5 (v + 1) 0.04 - 0.02.
    const int code = (37 * 3) % 128 + 127;
    EXPECT_NEAR(chunk[7][0], 0.5 * (code / 255.0 + 1) * 0.04 - 0.02, 1e-6);
    // Without the decoder, a chunk of 8 is refused for MiniVLA.
    auto noDecoder = writePackage(dir / "minivla-bad", "minivla", {{"module", kVlaStep}}, action,
                                  {{"vocab_size", 1000}}, nullptr, 1000);
    EXPECT_NE(errorOf([&] { loadModelPackage(noDecoder); }).find("predicts chunks of 1"),
              std::string::npos);
}

TEST(TorchAdapters, AWrongPackageOrOutputFailsWithItsNamedError)
{
    TempDir dir;
    const Packages p = writeAll(dir);
    // A module whose logits have the wrong vocabulary size.
    const auto bad = writePackage(dir / "bad", "openvla", {{"module", kVlaStep}},
                                  policyContract(NormalizationScheme::BoundsQ99, 1).toJson(),
                                  {{"vocab_size", 32000}}, nullptr, 500);
    EXPECT_NE(errorOf([&] {
                  createTorchPolicy(ModelFamily::OpenVla, {{"package", bad.string()}});
              }).find("output shape mismatch: the step module returned [1,500]"),
              std::string::npos);
    // A hash mismatch and a missing package: the availability reason says so.
    std::ofstream(p.octo / "module.pt", std::ios::app) << "x";
    const Availability a = torchAvailability(ModelFamily::Octo, {{"package", p.octo.string()}});
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("SHA-256 mismatch"), std::string::npos) << a.reason;
    EXPECT_NE(torchAvailability(ModelFamily::Octo, nlohmann::json::object())
                  .reason.find("settings.package is not set"),
              std::string::npos);
    // No CUDA: said with the reason (CPU-only libtorch, no driver, no device), not attempted.
    const Availability cuda = torchAvailability(
        ModelFamily::OpenVla, {{"package", p.openvla.string()}, {"device", "cuda"}});
    if (!cuda.available) {
#if KOSMOS_TORCH_CUDA
        EXPECT_TRUE(cuda.reason.find("no NVIDIA driver") != std::string::npos ||
                    cuda.reason.find("reports no CUDA device") != std::string::npos)
            << cuda.reason;
#else
        EXPECT_NE(cuda.reason.find("is CPU-only (Debian's libtorch-dev); build the cuda preset"),
                  std::string::npos)
            << cuda.reason;
#endif
    }
    EXPECT_NE(torchAvailability(ModelFamily::OpenVla,
                                {{"package", p.openvla.string()}, {"dtype", "fp16"}})
                  .reason.find("fp16 needs a CUDA device"),
              std::string::npos);
    // bf16 on the CPU works.
    auto bf16 = createTorchPolicy(ModelFamily::OpenPiZero,
                                  {{"package", p.pizero.string()}, {"dtype", "bf16"}});
    bf16->reset(1, kInstruction);
    Observation obs;
    obs.image = cv::Mat(224, 224, CV_8UC3, cv::Scalar::all(128));
    const ActionChunk chunk = bf16->act(obs);
    ASSERT_EQ(chunk.size(), 4u);
    for (const auto &action : chunk)
        EXPECT_TRUE(action[6] == 0.0 || action[6] == 1.0) << "Bridge gripper mapping";
    // Through the plugin manager's path: kosmos-cli plugins lists every family.
    const auto plugins = runProcess({test::cliPath(), "plugins", "--json"});
    for (const char *id : {"torch.openvla", "torch.minivla", "torch.octo", "torch.openpizero",
                           "torch.susie", "torch.susie_ll", "torch.cosmos", "torch.irasim"})
        EXPECT_NE(plugins.output.find(id), std::string::npos) << id;
}

TEST(TorchAdapters, TheExportersStandInPackagesLoadAndRunInTheAdapters)
{
    // tools/export/kosmos_export.py with Debian's python3-torch writes a package per family
    // (TorchScript-scripted modules, random weights, the real signatures); the C++ adapters load
    // and run them unchanged through kosmos-cli.
    const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    const std::string exporter = std::string(KOSMOS_SOURCE_DIR) + "/tools/export/kosmos_export.py";
    TempDir dir;
    const std::string instruction = kInstruction;
    std::map<std::string, fs::path> packages;
    for (const char *family :
         {"openvla", "minivla", "octo", "openpizero", "susie", "susie_ll", "cosmos", "irasim"}) {
        packages[family] = dir / family;
        const auto r = runProcess({python, exporter, "stand-in", "--family", family, "--out",
                                   packages[family].string(), "--instruction", instruction});
        ASSERT_EQ(r.exitCode, 0) << family << ": " << r.output
                                 << " (needs python3-torch: packaging/debian-build-deps.txt)";
        EXPECT_NO_THROW(loadModelPackage(packages[family])) << family;
    }
    Packages p = writeAll(dir); // the start and goal images
    auto policy = [&](const std::string &family, nlohmann::json extra = nlohmann::json::object()) {
        extra["package"] = packages[family].string();
        return nlohmann::json{{"plugin", "torch." + family}, {"settings", extra}};
    };
    const nlohmann::json policies = {
        policy("openvla"), policy("minivla"),
        policy("octo"),    policy("openpizero"),
        policy("susie"),   policy("susie_ll", {{"goal_image", p.goal.string()}})};
    std::ofstream(dir / "cosmos.json")
        << protocol(p, "cosmos", packages["cosmos"], 12, policies).dump(2);
    std::ofstream(dir / "irasim.json")
        << protocol(p, "irasim", packages["irasim"], 15,
                    {policy("octo"), policy("openpizero", {{"execute", 3}})})
               .dump(2);
    const auto bundle = (dir / "x.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    for (const char *file : {"cosmos.json", "irasim.json"}) {
        const auto r =
            runProcess({test::cliPath(), "run", (dir / file).string(), "--ledger", bundle});
        EXPECT_EQ(r.exitCode, 0) << file << ": " << r.output;
    }
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    for (const auto &[status, count] : ledger.info().runsByStatus) {
        if (status == "completed") {
            EXPECT_EQ(count, 8);
        }
    }
}

namespace {

// An AOTInductor package (.pt2) with a runtime block in its manifest, over any file: what every
// build says about it before running it (the file's content does not matter for these checks).
fs::path writeAotiManifest(const TempDir &tmp, const std::string &name, const std::string &device,
                           const std::string &dtype)
{
    // The TorchScript open-pi-zero stand-in's manifest with its module swapped for a .pt2.
    const Packages base = writeAll(tmp);
    nlohmann::json manifest =
        nlohmann::json::parse(std::ifstream(base.pizero / "kosmos-model.json"));
    const fs::path dir = tmp / name;
    fs::create_directories(dir);
    std::ofstream(dir / "module.pt2") << "not compiled";
    manifest["files"] = {{"module",
                          {{"path", "module.pt2"},
                           {"sha256", Sha256::fileHex(dir / "module.pt2")},
                           {"runtime", "aoti"},
                           {"device", device},
                           {"dtype", dtype},
                           {"inputs",
                            {{{"shape", {1, 3, 224, 224}}, {"dtype", "float32"}},
                             {{"shape", {1, 7}}, {"dtype", "float32"}},
                             {{"shape", {1, -1}}, {"dtype", "int64"}}}}}}};
    manifest["defaults"] = {{"device", device}, {"dtype", dtype}};
    std::ofstream(dir / "kosmos-model.json") << manifest.dump(2);
    return dir;
}

} // namespace

TEST(TorchAdapters, AnAotiPackageIsReadAndRefusedWithTheReasonWhereItCannotRun)
{
    TempDir dir;
    const fs::path cpu = writeAotiManifest(dir, "cpu", "cpu", "fp32");
    const ModelPackage package = loadModelPackage(cpu);
    const PackageFile &module = package.file("module");
    EXPECT_EQ(module.runtime, "aoti");
    EXPECT_EQ(module.compiledDevice, "cpu");
    ASSERT_EQ(module.inputs.size(), 3u);
    EXPECT_EQ(module.inputs[2].shape, (std::vector<std::int64_t>{1, -1}));
    const Availability a = torchAvailability(ModelFamily::OpenPiZero, {{"package", cpu.string()}});
#if KOSMOS_TORCH_AOTI
    EXPECT_TRUE(a.available) << a.reason; // loading is where a bad .pt2 is caught
    EXPECT_NE(errorOf([&] {
                  createTorchPolicy(ModelFamily::OpenPiZero, {{"package", cpu.string()}});
              }).find("files.module (module.pt2) is not a loadable AOTInductor package"),
              std::string::npos);
    // Compiled for cpu fp32: bf16 is refused before loading, with what to do.
    const Availability bf16 =
        torchAvailability(ModelFamily::OpenPiZero, {{"package", cpu.string()}, {"dtype", "bf16"}});
    EXPECT_FALSE(bf16.available);
    EXPECT_NE(bf16.reason.find("compiled for cpu fp32; it cannot run on cpu bf16 (export it again"),
              std::string::npos)
        << bf16.reason;
#else
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("is an AOTInductor package; this plugin's libtorch 1."),
              std::string::npos)
        << a.reason;
    EXPECT_NE(a.reason.find("build the cuda preset"), std::string::npos) << a.reason;
#endif
    // A CUDA package where there is no CUDA: the device's reason comes first.
    const fs::path cuda = writeAotiManifest(dir, "cuda", "cuda", "fp16");
    const Availability c = torchAvailability(ModelFamily::OpenPiZero, {{"package", cuda.string()}});
    if (!c.available) {
        EXPECT_NE(c.reason.find("device cuda"), std::string::npos) << c.reason;
    }
    // Every mistake in a runtime block is named.
    auto mistake = [&](const std::function<void(nlohmann::json &)> &edit) {
        nlohmann::json m = nlohmann::json::parse(std::ifstream(cpu / "kosmos-model.json"));
        edit(m["files"]["module"]);
        const fs::path bad = dir / "bad";
        fs::create_directories(bad);
        fs::copy_file(cpu / "module.pt2", bad / "module.pt2", fs::copy_options::overwrite_existing);
        std::ofstream(bad / "kosmos-model.json") << m.dump();
        return errorOf([&] { loadModelPackage(bad); });
    };
    EXPECT_NE(mistake([](auto &f) {
                  f["runtime"] = "onnx";
              }).find("files.module.runtime: must be \"torchscript\" or \"aoti\""),
              std::string::npos);
    EXPECT_NE(mistake([](auto &f) { f["device"] = "tpu"; }).find("files.module.device"),
              std::string::npos);
    EXPECT_NE(mistake([](auto &f) { f.erase("inputs"); }).find("files.module"), std::string::npos);
    EXPECT_NE(mistake([](auto &f) {
                  f["inputs"][0]["shape"][1] = 0;
              }).find("files.module.inputs[0].shape"),
              std::string::npos);
    EXPECT_NE(mistake([](auto &f) {
                  f["inputs"][1]["dtype"] = "float64";
              }).find("files.module.inputs[1].dtype"),
              std::string::npos);
    EXPECT_NE(
        mistake([](auto &f) { f["runtime"] = "torchscript"; }).find("only an AOTInductor module"),
        std::string::npos);
}

#if KOSMOS_TORCH_AOTI && defined(KOSMOS_EXPORT_PYTHON)
TEST(TorchAdapters, AnAotiPackageRunsLikeItsTorchScriptTwin)
{
    // The exporter writes the same stand-in (same seed, same weights) as TorchScript and as an
    // AOTInductor package compiled for the CPU; the adapters run both and agree.
    const std::string exporter = std::string(KOSMOS_SOURCE_DIR) + "/tools/export/kosmos_export.py";
    TempDir dir;
    for (const char *runtime : {"torchscript", "aoti"})
        for (const char *family : {"openpizero", "cosmos"}) {
            const auto r = runProcess({KOSMOS_EXPORT_PYTHON, exporter, "stand-in", "--family",
                                       family, "--out", (dir / runtime / family).string(),
                                       "--instruction", kInstruction, "--runtime", runtime});
            ASSERT_EQ(r.exitCode, 0) << runtime << " " << family << ": " << r.output;
        }
    cv::Mat image(224, 224, CV_8UC3, cv::Scalar(90, 140, 60));
    cv::circle(image, {80, 120}, 30, cv::Scalar(200, 40, 40), -1);
    std::vector<ActionChunk> chunks;
    std::vector<std::vector<cv::Mat>> videos;
    for (const char *runtime : {"torchscript", "aoti"}) {
        auto policy = createTorchPolicy(ModelFamily::OpenPiZero,
                                        {{"package", (dir / runtime / "openpizero").string()}});
        policy->reset(1, kInstruction);
        Observation obs;
        obs.image = image;
        obs.proprio = std::vector<double>(7, 0.1);
        chunks.push_back(policy->act(obs));
        EXPECT_EQ(policy->lastCallStats().value("device", ""), "cpu");

        auto world = createTorchWorldModel(ModelFamily::Cosmos,
                                           {{"package", (dir / runtime / "cosmos").string()}});
        WorldStart start;
        cv::resize(image, start.startFrame, {80, 64});
        world->reset(start);
        videos.push_back(world->step(ActionChunk(12, Action{0.01, 0, 0, 0, 0, 0, 1})));
    }
    ASSERT_EQ(chunks[0].size(), chunks[1].size());
    for (std::size_t i = 0; i < chunks[0].size(); ++i)
        for (std::size_t d = 0; d < 7; ++d)
            EXPECT_NEAR(chunks[0][i][d], chunks[1][i][d], 1e-4) << i << " " << d;
    ASSERT_EQ(videos[0].size(), 12u);
    ASSERT_EQ(videos[1].size(), 12u);
    for (std::size_t i = 0; i < 12; ++i) {
        double maxDiff = 0;
        cv::minMaxLoc(cv::abs(videos[0][i] - videos[1][i]), nullptr, &maxDiff);
        EXPECT_LE(maxDiff, 1.0) << "frame " << i; // one grey level of rounding at most
    }
    // Through a plugin loaded by the host (libtorch in local scope) as through the library.
    const auto smoke = runProcess(
        {test::cliPath(), "plugins", "--test", "torch.openpizero", "--settings",
         nlohmann::json{{"package", (dir / "aoti" / "openpizero").string()}}.dump(), "--json"});
    EXPECT_EQ(smoke.exitCode, 0) << smoke.output;
    EXPECT_NE(smoke.output.find("\"ok\": true"), std::string::npos) << smoke.output;
    // A compiled module does not check its inputs: the adapter does, against the manifest.
    const fs::path edited = dir / "aoti" / "openpizero";
    nlohmann::json m = nlohmann::json::parse(std::ifstream(edited / "kosmos-model.json"));
    m["files"]["module"]["inputs"][0]["shape"] = {1, 3, 256, 256};
    std::ofstream(edited / "kosmos-model.json") << m.dump();
    auto policy = createTorchPolicy(ModelFamily::OpenPiZero, {{"package", edited.string()}});
    policy->reset(1, kInstruction);
    Observation obs;
    obs.image = image;
    EXPECT_NE(errorOf([&] { policy->act(obs); })
                  .find("input 0 is [1,3,224,224] float32; the module was compiled for "
                        "[1,3,256,256] float32"),
              std::string::npos);
}
#endif
