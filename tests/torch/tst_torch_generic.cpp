// The generic libtorch families (torch.generic_policy, torch.generic_world_model,
// torch.generic_judge): stand-in TorchScript modules whose outputs are simple functions of their
// inputs, so every value the adapters produce is checked against a number worked out by hand;
// then all three together through kosmos-cli (the whole engine, the judge quorum, verify).
#include "ModelPackage.h"
#include "TorchAdapters.h"
#include "dataset/ParquetReader.h"
#include "evaluation/Calibration.h"
#include "evaluation/OpenLoopTwin.h"
#include "judge/JudgeSchema.h"
#include "ledger/Ledger.h"
#include "queries/LatestRuns.h"
#include "queries/RolloutQuery.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/script.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <thread>

using namespace kosmos;
using namespace kosmos::torchadapters;
using kosmos::test::errorOf;
using kosmos::test::runProcess;
using kosmos::test::runProcessWithStderr;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kRed = "put the red block in the green square";
const std::string kBlue = "push the blue block to the purple square";

const char *const kPolicy = R"(
def forward(self, image: Tensor, task: Tensor, state: Tensor) -> Tensor:
    out = torch.zeros(1, 4, 7)
    out[0, :, 0] = image.mean()
    out[0, :, 1] = task.float()[0] * 0.5
    out[0, :, 2] = state[0, 0]
    out[0, :, 6] = torch.arange(4).float() * 0.25
    return out
)";
// What a policy that sees only the image and the instruction looks like (a learned world
// reports no proprio).
const char *const kImagePolicy = R"(
def forward(self, image: Tensor, task: Tensor) -> Tensor:
    out = torch.zeros(1, 4, 7)
    out[0, :, 0] = torch.tensor([0.5, 1.0, 0.5, 1.0]) + image.mean() * 0.0
    out[0, :, 6] = 1.0
    return out
)";
const char *const kWorld = R"(
def forward(self, frame: Tensor, actions: Tensor) -> Tensor:
    n = actions.size(1)
    shift = actions[0, :, 0].cumsum(0).view(1, n, 1, 1, 1)
    return (frame.unsqueeze(1).repeat(1, n, 1, 1, 1) + shift).clamp(0.0, 1.0)
)";
// For the engine run: the frame moves right by 100 * dx pixels a step (validation compares the
// commanded translation with the optical flow).
const char *const kMovingWorld = R"(
def forward(self, frame: Tensor, actions: Tensor) -> Tensor:
    outs: List[Tensor] = []
    shift = 0
    for i in range(actions.size(1)):
        shift = shift + int(torch.round(actions[0, i, 0] * 100.0).item())
        outs.append(torch.roll(frame, shifts=shift, dims=3))
    return torch.stack(outs, 1)
)";
const char *const kJudge = R"(
def forward(self, frames: Tensor, task: Tensor) -> Tensor:
    m = frames[:, -1].mean()
    logits = torch.zeros(1, 6)
    logits[0, 5] = (m - 0.5) * 40.0
    return logits
)";

// `counters`: integer attributes (0 at first) that the source may count in.
fs::path writeGeneric(const fs::path &dir, const std::string &family, const std::string &source,
                      const nlohmann::json &extra, const std::vector<std::string> &counters = {})
{
    fs::create_directories(dir);
    torch::jit::Module m("StandIn");
    for (const auto &name : counters)
        m.register_attribute(name, c10::IntType::get(), 0);
    m.define(source);
    m.save((dir / "module.pt").string());
    nlohmann::json manifest = {
        {"kosmos_model", 1},
        {"family", family},
        {"signature", 1},
        {"files",
         {{"module", {{"path", "module.pt"}, {"sha256", Sha256::fileHex(dir / "module.pt")}}}}}};
    manifest.update(extra);
    std::ofstream(dir / kManifestName) << manifest.dump(2);
    return dir;
}

// Bounds normalization on the first six dimensions: physical = (x + 1) / 2 * (high - low) + low.
ActionContract boundedContract(int chunk)
{
    ActionContract c = ActionContract::bridgeEndEffector();
    c.chunkLength = chunk;
    c.normalization = NormalizationScheme::Bounds;
    const auto keys = expectedStatisticsKeys(NormalizationScheme::Bounds);
    c.statistics.values[keys[0]] = {-0.02, -0.02, -0.02, -0.1, -0.1, -0.1, 0};
    c.statistics.values[keys[1]] = {0.02, 0.02, 0.02, 0.1, 0.1, 0.1, 1};
    c.statistics.mask = {true, true, true, true, true, true, false};
    return c;
}

// A world-model package at 40x32 with chunks of 4 Bridge actions: `proprio` (when not null) is
// its io.proprio, and `handInput` adds the commanded state per step as a third input.
fs::path writeWorld(const fs::path &dir, const char *source,
                    const nlohmann::json &proprio = nullptr, bool handInput = false,
                    const std::vector<std::string> &counters = {})
{
    ActionContract action = ActionContract::bridgeEndEffector();
    action.chunkLength = 4;
    FrameContract frame;
    frame.width = 40;
    frame.height = 32;
    frame.fps = 5;
    nlohmann::json io = {{"inputs",
                          {{{"name", "frame"}, {"source", "image"}, {"shape", {1, 3, 32, 40}}},
                           {{"name", "actions"}, {"source", "actions"}, {"shape", {1, 4, 7}}}}},
                         {"output", {1, 4, 3, 32, 40}}};
    if (!proprio.is_null())
        io["proprio"] = proprio;
    if (handInput)
        io["inputs"].push_back({{"name", "hand"}, {"source", "proprio"}, {"shape", {1, 4, 7}}});
    return writeGeneric(dir, "generic_world_model", source,
                        {{"action", action.toJson()}, {"frame", frame.toJson()}, {"io", io}},
                        counters);
}

struct Generic
{
    fs::path policy, imagePolicy, world, movingWorld, judge, start;
    std::string startSha;
};

Generic writeGenericPackages(const fs::path &dir)
{
    Generic g;
    g.policy =
        writeGeneric(dir / "policy", "generic_policy", kPolicy,
                     {{"action", boundedContract(4).toJson()},
                      {"io",
                       {{"vocabulary", {kBlue, kRed}},
                        {"inputs",
                         {{{"name", "image"}, {"source", "image"}, {"shape", {1, 3, 32, 40}}},
                          {{"name", "task"}, {"source", "instruction_id"}},
                          {{"name", "state"}, {"source", "proprio"}, {"shape", {1, 7}}}}},
                        {"output", {1, 4, 7}}}}});
    g.imagePolicy =
        writeGeneric(dir / "image-policy", "generic_policy", kImagePolicy,
                     {{"action", boundedContract(4).toJson()},
                      {"io",
                       {{"vocabulary", {kRed}},
                        {"inputs",
                         {{{"name", "image"}, {"source", "image"}, {"shape", {1, 3, 32, 40}}},
                          {{"name", "task"}, {"source", "instruction_id"}}}},
                        {"output", {1, 4, 7}}}}});
    // It reports the commanded hand as its proprio: x integrated within +-0.1, the gripper copied.
    g.world =
        writeWorld(dir / "world", kWorld,
                   {{"start", {0.0, -0.12, 0.14, 0, 0, 0, 1}},
                    {"integrate", {{{"state", 0}, {"action", 0}, {"min", -0.1}, {"max", 0.1}}}},
                    {"copy", {{{"state", 6}, {"action", 6}}}}});
    g.movingWorld = writeWorld(dir / "moving-world", kMovingWorld);
    g.judge =
        writeGeneric(dir / "judge", "generic_judge", kJudge,
                     {{"io",
                       {{"vocabulary", {kRed, kBlue}},
                        {"inputs",
                         {{{"name", "frames"}, {"source", "frames"}, {"shape", {1, 2, 3, 16, 20}}},
                          {{"name", "task"}, {"source", "instruction_id"}}}},
                        {"output", {1, 6}}}}});
    g.start = dir / "start.png";
    cv::Mat start(32, 40, CV_8UC3, cv::Scalar::all(100));
    cv::rectangle(start, {20, 10}, {30, 20}, cv::Scalar(0, 0, 200), cv::FILLED); // validation
    cv::imwrite(g.start.string(), start); // rejects a constant frame
    g.startSha = Sha256::fileHex(g.start);
    return g;
}

double unbound(double x)
{
    return (x + 1) / 2 * 0.04 - 0.02;
}

} // namespace

TEST(TorchGeneric, APolicyRunsTheDeclaredSignatureAndUnnormalizesItsChunk)
{
    TempDir dir;
    const Generic g = writeGenericPackages(dir.path());
    auto policy = createTorchPolicy(ModelFamily::GenericPolicy,
                                    {{"package", g.policy.string()}, {"execute", 2}});
    EXPECT_EQ(policy->actionContract().chunkLength, 2);
    EXPECT_EQ(policy->actionContract().normalization, NormalizationScheme::None);
    policy->reset(1, kRed); // index 1 in the vocabulary
    Observation obs;
    obs.image = cv::Mat(64, 80, CV_8UC3, cv::Scalar::all(51)); // 0.2 after resizing
    obs.proprio = {0.3, 0, 0, 0, 0, 0, 1};
    const ActionChunk chunk = policy->act(obs);
    ASSERT_EQ(chunk.size(), 2u);
    EXPECT_NEAR(chunk[0][0], unbound(0.2), 1e-6);
    EXPECT_NEAR(chunk[0][1], unbound(0.5), 1e-6);
    EXPECT_NEAR(chunk[0][2], unbound(0.3), 1e-6);
    EXPECT_NEAR(chunk[0][6], 0.0, 1e-6); // the gripper is not normalized
    EXPECT_NEAR(chunk[1][6], 0.25, 1e-6);
    policy->reset(2, kBlue); // index 0
    EXPECT_NEAR(policy->act(obs)[0][1], unbound(0.0), 1e-6);
    // What it was not trained on, and what the world does not give it: named errors.
    EXPECT_NE(errorOf([&] {
                  policy->reset(3, "stack the cups");
              }).find("not trained on the instruction \"stack the cups\""),
              std::string::npos);
    obs.proprio = {0.3};
    EXPECT_NE(errorOf([&] {
                  policy->act(obs);
              }).find("input 'state' takes 7 proprio values; the world reports 1"),
              std::string::npos);
    EXPECT_NE(errorOf([&] {
                  createTorchPolicy(ModelFamily::GenericPolicy,
                                    {{"package", g.policy.string()}, {"execute", 5}});
              }).find("settings.execute must be 1..4"),
              std::string::npos);
}

// A module that clamps to the bounds in normalized float32 units lands 1.2e-9 m above dx's
// bound after unnormalizing (the shipped bc-noisy did, failing 25 runs): snapped onto the bound;
// a real overshoot still fails the contract.
TEST(TorchGeneric, RoundOffAtABoundIsSnappedAndARealOvershootIsNot)
{
    TempDir dir;
    ActionContract c = ActionContract::bridgeEndEffector();
    c.chunkLength = 1;
    c.normalization = NormalizationScheme::Normal;
    c.statistics.values["mean"] = {0.000423732737544924, 0, 0, 0, 0, 0, 0};
    c.statistics.values["std"] = {0.014040112495422363, 1, 1, 1, 1, 1, 1};
    c.statistics.mask = {true, true, true, true, true, true, false};
    auto package = [&](const std::string &name, const std::string &dx) {
        return writeGeneric(
            dir / name, "generic_policy",
            "\ndef forward(self, image: Tensor) -> Tensor:\n    out = torch.zeros(1, 1, 7)\n"
            "    out[0, 0, 0] = " +
                dx + "\n    return out\n",
            {{"action", c.toJson()},
             {"io",
              {{"inputs", {{{"name", "image"}, {"source", "image"}, {"shape", {1, 3, 8, 8}}}}},
               {"output", {1, 1, 7}}}}});
    };
    Observation obs;
    obs.image = cv::Mat(8, 8, CV_8UC3, cv::Scalar::all(0));
    auto atBound = createTorchPolicy(ModelFamily::GenericPolicy,
                                     {{"package", package("at", "3.5310449600219727").string()}});
    const auto snapped = atBound->act(obs);
    EXPECT_EQ(snapped[0][0], 0.05);
    EXPECT_TRUE(atBound->actionContract().checkChunk(snapped).ok());
    auto beyond = createTorchPolicy(ModelFamily::GenericPolicy,
                                    {{"package", package("beyond", "3.54").string()}});
    const auto over = beyond->act(obs);
    EXPECT_GT(over[0][0], 0.05);
    EXPECT_FALSE(beyond->actionContract().checkChunk(over).ok());
}

TEST(TorchGeneric, AWorldModelPredictsFramesAutoregressivelyAtItsContractSize)
{
    TempDir dir;
    const Generic g = writeGenericPackages(dir.path());
    auto world = createTorchWorldModel(ModelFamily::GenericWorldModel,
                                       {{"package", g.world.string()}, {"warmup", 0}});
    EXPECT_EQ(world->frameContract().width, 40);
    EXPECT_EQ(world->frameContract().certifiedChunkLengths, std::vector<int>{4});
    WorldStart start;
    start.startState = {{"frame", g.start.string()}, {"frame_sha256", g.startSha}};
    start.instruction = kRed;
    EXPECT_TRUE(world->proprio().empty()); // nothing to report before a reset
    const auto first = world->reset(start);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].at<cv::Vec3b>(0, 0)[0], 100);
    EXPECT_EQ(world->proprio(), (std::vector<double>{0.0, -0.12, 0.14, 0, 0, 0, 1}));
    // Grey 100 plus the running sum of dx (0.02 a step = 5.1 grey levels): 105, 110, 115, 120.
    const auto frames = world->step(ActionChunk(4, Action{0.02, 0, 0, 0, 0, 0, 1}));
    ASSERT_EQ(frames.size(), 4u);
    EXPECT_EQ(frames[0].rows, 32);
    EXPECT_EQ(frames[0].at<cv::Vec3b>(5, 5)[1], 105);
    EXPECT_EQ(frames[3].at<cv::Vec3b>(5, 5)[1], 120);
    // The commanded hand: x moved 4 x 0.02, the rest as declared (y, z not integrated).
    EXPECT_NEAR(world->proprio()[0], 0.08, 1e-12);
    EXPECT_EQ(world->proprio()[1], -0.12);
    // The next chunk starts from the last predicted frame: 120 + 5.1 * 1..4.
    const auto next = world->step(ActionChunk(4, Action{0.02, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(next[0].at<cv::Vec3b>(5, 5)[2], 125);
    EXPECT_EQ(world->proprio()[0], 0.1); // clamped to the declared bound
    EXPECT_EQ(world->proprio()[6], 0.0); // the last gripper command
    world->reset(start);
    EXPECT_EQ(world->proprio()[0], 0.0); // a reset starts again
    EXPECT_NE(errorOf([&] {
                  world->step(ActionChunk(3, Action(7, 0.0)));
              }).find("takes chunks of 4 actions, got 3"),
              std::string::npos);
}

// A world model that takes the commanded hand after each action of the chunk (io.proprio):
// its frames are grey 100 plus 255 x the hand's x, so each frame shows the state it was given.
TEST(TorchGeneric, AWorldModelTakesTheCommandedStateAfterEachActionOfTheChunk)
{
    TempDir dir;
    const Generic g = writeGenericPackages(dir.path());
    const auto package =
        writeWorld(dir.path() / "hand-world", R"(
def forward(self, frame: Tensor, actions: Tensor, hand: Tensor) -> Tensor:
    n = actions.size(1)
    x = hand[0, :, 0].view(1, n, 1, 1, 1)
    return (frame.unsqueeze(1).repeat(1, n, 1, 1, 1) * 0.0 + 100.0 / 255.0 + x).clamp(0.0, 1.0)
)",
                   {{"start", {0.0, -0.12, 0.14, 0, 0, 0, 1}},
                    {"integrate", {{{"state", 0}, {"action", 0}, {"min", -0.1}, {"max", 0.1}}}}},
                   true);
    auto world = createTorchWorldModel(ModelFamily::GenericWorldModel,
                                       {{"package", package.string()}, {"warmup", 1}});
    WorldStart start;
    start.startState = {{"frame", g.start.string()}, {"frame_sha256", g.startSha}};
    start.instruction = kRed;
    world->reset(start);
    // x after each action: 0.02, 0.04, 0.06, 0.08 -> grey 105, 110, 115, 120.
    auto frames = world->step(ActionChunk(4, Action{0.02, 0, 0, 0, 0, 0, 1}));
    ASSERT_EQ(frames.size(), 4u);
    for (int i = 0; i < 4; ++i)
        EXPECT_EQ(frames[static_cast<std::size_t>(i)].at<cv::Vec3b>(3, 3)[0], 105 + 5 * i) << i;
    // The next chunk continues from 0.08: 0.06, 0.04, 0.02, 0.0.
    frames = world->step(ActionChunk(4, Action{-0.02, 0, 0, 0, 0, 0, 1}));
    EXPECT_EQ(frames[0].at<cv::Vec3b>(3, 3)[0], 115);
    EXPECT_EQ(frames[3].at<cv::Vec3b>(3, 3)[0], 100);
    EXPECT_NEAR(world->proprio()[0], 0.0, 1e-12);
}

// Warm-up passes are the (cached) module's: a second component of the same package, as the
// engine creates one per run, does not make them again. The module counts its calls in the
// frames it returns.
TEST(TorchGeneric, WarmUpPassesAreMadeOncePerModuleNotPerComponent)
{
    TempDir dir;
    const Generic g = writeGenericPackages(dir.path());
    const auto package = writeWorld(dir.path() / "counting-world", R"(
def forward(self, frame: Tensor, actions: Tensor) -> Tensor:
    self.calls += 1
    n = actions.size(1)
    return frame.unsqueeze(1).repeat(1, n, 1, 1, 1) * 0.0 + float(self.calls) / 255.0
)",
                                    nullptr, false, {"calls"});
    const nlohmann::json settings = {{"package", package.string()}, {"warmup", 2}};
    auto first = createTorchWorldModel(ModelFamily::GenericWorldModel, settings);
    auto second = createTorchWorldModel(ModelFamily::GenericWorldModel, settings);
    WorldStart start;
    start.startState = {{"frame", g.start.string()}, {"frame_sha256", g.startSha}};
    start.instruction = kRed;
    second->reset(start);
    auto frames = second->step(ActionChunk(4, Action(7, 0.0)));
    ASSERT_EQ(frames.size(), 4u);
    EXPECT_EQ(frames[0].at<cv::Vec3b>(3, 3)[0], 3) << "two warm-up passes in all, then this step";
    first->reset(start);
    frames = first->step(ActionChunk(4, Action(7, 0.0)));
    EXPECT_EQ(frames[0].at<cv::Vec3b>(3, 3)[0], 4);
}

TEST(TorchGeneric, AJudgeSamplesItsProgressAtTheQuorumsTemperatureAndAnswersInTheSchema)
{
    TempDir dir;
    const Generic g = writeGenericPackages(dir.path());
    auto judge = createTorchJudge(ModelFamily::GenericJudge, {{"package", g.judge.string()}});
    JudgeRequest request;
    request.instruction = kRed;
    request.temperature = 0.7;
    for (int i = 0; i < 16; ++i)
        request.frames.push_back(cv::Mat(32, 40, CV_8UC3, cv::Scalar::all(i < 15 ? 20 : 230)));
    int met = 0;
    for (int seed = 0; seed < 5; ++seed) {
        request.seed = seed;
        const JudgeAnswer answer = judge->sample(request);
        ASSERT_TRUE(answer.rawText) << answer.error;
        const ParsedAnswer parsed = parseJudgeAnswer(answer.rawText);
        ASSERT_TRUE(parsed.error.empty()) << parsed.error << *answer.rawText;
        met += parsed.value["completion_evidence"] == "met";
        EXPECT_EQ(parsed.value["evidence_frame_indices"], nlohmann::json({14, 15}));
        // The same seed gives the same answer.
        EXPECT_EQ(*judge->sample(request).rawText, *answer.rawText);
    }
    EXPECT_EQ(met, 5); // logit 5 = (0.9 - 0.5) * 40 = 16: p(met) > 0.9999

    // A judgment's samples in one call (sampleBatch): one forward pass for their shared frames,
    // each sample drawing with its own seed, the answers those of one sample at a time.
    EXPECT_GT(judge->maxBatch(), 1);
    std::vector<JudgeRequest> samples;
    for (int seed = 0; seed < 5; ++seed) {
        request.seed = seed;
        request.tryIndex = seed % 2;
        samples.push_back(request);
    }
    const std::vector<JudgeAnswer> together = judge->sampleBatch(samples);
    ASSERT_EQ(together.size(), samples.size());
    for (std::size_t i = 0; i < samples.size(); ++i)
        EXPECT_EQ(together[i].rawText, judge->sample(samples[i]).rawText) << "sample " << i;
    // Two different judgments stacked: this stand-in module was written for one input (its
    // logits are 1 x 6), so the stack is refused by its shape and the runner asks alone.
    samples.back().frames.back() = cv::Mat(32, 40, CV_8UC3, cv::Scalar::all(20));
    try {
        judge->sampleBatch(samples);
        ADD_FAILURE() << "a batch-one module answered a stack of two inputs";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("shape"), std::string::npos) << e.what();
    }
    // A dark last frame: progress 0..4, never met.
    request.frames.back() = cv::Mat(32, 40, CV_8UC3, cv::Scalar::all(20));
    std::set<int> progress;
    for (int seed = 0; seed < 40; ++seed) {
        request.seed = seed;
        const ParsedAnswer parsed = parseJudgeAnswer(judge->sample(request).rawText);
        EXPECT_EQ(parsed.value["completion_evidence"], "not_met");
        progress.insert(parsed.value["progress"].get<int>());
    }
    EXPECT_EQ(progress.size(), 5u) << "uniform over 0..4, 40 draws";
    request.instruction = "stack the cups";
    const JudgeAnswer refused = judge->sample(request);
    EXPECT_FALSE(refused.rawText);
    EXPECT_NE(refused.error.find("not trained on the instruction"), std::string::npos);
}

TEST(TorchGeneric, AllThreeRunTogetherThroughTheEngineAndVerify)
{
    TempDir dir;
    const Generic g = writeGenericPackages(dir.path());
    const nlohmann::json protocol = {
        {"kosmos_protocol", 1},
        {"name", "generic"},
        {"seed", 3},
        {"horizon", 16},
        {"episodes_per_task", 2},
        {"tasks",
         {{{"id", "red"},
           {"instruction", kRed},
           {"start_state", {{"frame", g.start.string()}, {"frame_sha256", g.startSha}}}}}},
        {"policies",
         {{{"plugin", "torch.generic_policy"},
           {"settings", {{"package", g.imagePolicy.string()}}}}}},
        {"world_model",
         {{"plugin", "torch.generic_world_model"},
          {"settings", {{"package", g.movingWorld.string()}}}}},
        {"judge",
         {{"plugin", "torch.generic_judge"},
          {"settings", {{"package", g.judge.string()}}},
          {"quorum",
           {{"samples", 5},
            {"quorum", 3},
            {"temperature", 0.7},
            {"top_p", 1.0},
            {"max_new_tokens", 512}}}}}};
    std::ofstream(dir / "generic.json") << protocol.dump(2);
    const auto bundle = (dir / "g.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const auto r =
        runProcess({test::cliPath(), "run", (dir / "generic.json").string(), "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_EQ(ledger.info().runs, 2);
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
    const auto judgments = runProcess({test::cliPath(), "judgments", bundle, "1", "--json"});
    EXPECT_NE(judgments.output.find("learned success classifier"), std::string::npos)
        << judgments.output << r.output;
    const auto events = runProcess({test::cliPath(), "events", bundle, "1", "--json"});
    EXPECT_NE(events.output.find("\"frames\":17"), std::string::npos) << events.output;

    // --batch 2 with modules exported for batch 1 only: the runs are the same (their refusal of
    // a batch is below, where it cannot depend on the lanes meeting).
    const auto batched = (dir / "g2.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", batched}).exitCode, 0);
    const auto r2 = runProcess({test::cliPath(), "run", (dir / "generic.json").string(), "--ledger",
                                batched, "--batch", "2"});
    ASSERT_EQ(r2.exitCode, 0) << r2.output;
    EXPECT_NE(r2.output.find("throughput"), std::string::npos) << r2.output;
    Ledger one = Ledger::open(bundle, {OpenMode::ReadOnly});
    Ledger two = Ledger::open(batched, {OpenMode::ReadOnly});
    for (std::int64_t run = 1; run <= 2; ++run) {
        EXPECT_EQ(one.run(run)->runKey, two.run(run)->runKey);
        EXPECT_EQ(two.run(run)->status, "completed");
    }
}

TEST(TorchGeneric, AModuleExportedForBatchOneRefusesABatchAndEachEpisodeGoesOnAlone)
{
    // These stand-ins build their output as [1, ...]: a batched call fails on its shape, leaves
    // both episodes as they were (the engine then calls each alone) and neither declares a batch
    // any more; alone, each answers as an instance that never saw the batch.
    TempDir dir;
    const Generic g = writeGenericPackages(dir.path());
    const nlohmann::json settings = {{"package", g.imagePolicy.string()}};
    auto a = createTorchPolicy(ModelFamily::GenericPolicy, settings);
    auto b = createTorchPolicy(ModelFamily::GenericPolicy, settings);
    auto fresh = createTorchPolicy(ModelFamily::GenericPolicy, settings);
    for (Policy *p : {a.get(), b.get(), fresh.get()})
        p->reset(1, kRed);
    EXPECT_GT(a->maxBatch(), 1);
    Observation obs;
    obs.image = cv::Mat(64, 64, CV_8UC3, cv::Scalar(10, 200, 30));
    obs.instruction = kRed;
    std::vector<Policy *> episodes{a.get(), b.get()};
    std::vector<Observation> observations{obs, obs};
    std::vector<std::exception_ptr> failures(2);
    try {
        a->actBatch(episodes, observations, failures);
        FAIL() << "a batch of 2 through a batch-1 export was accepted";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("output shape mismatch"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(a->maxBatch(), 1);
    EXPECT_EQ(b->maxBatch(), 1);
    EXPECT_EQ(a->act(obs), fresh->act(obs));
    EXPECT_EQ(b->act(obs), a->act(obs));
}

#ifdef KOSMOS_TEST_PHYSICS
namespace {

// The actions of a protocol's latest runs that `keep` accepts, by start ("<task>#<episode>"; an
// imagined task's id already is one).
using ActionsByStart = std::map<std::string, std::vector<std::vector<double>>>;
ActionsByStart actionsByStart(Ledger &ledger, const std::string &protocol,
                              const std::function<bool(const LatestRun &)> &keep)
{
    ActionsByStart out;
    for (const LatestRun &run :
         latestRuns(ledger, {findRolloutProtocol(ledger, protocol).second, true, std::nullopt}))
        if (keep(run))
            out[run.task.find('#') == std::string::npos
                    ? run.task + "#" + std::to_string(run.episodeIndex)
                    : run.task] = loadRollout(ledger, run.runId).actions;
    return out;
}

// Runs of the policy labelled so; runs of replay.actions replaying it.
std::function<bool(const LatestRun &)> labelled(const std::string &label)
{
    return [label](const LatestRun &run) { return run.policyLabel == label; };
}
std::function<bool(const LatestRun &)> replaying(const std::string &label)
{
    return [label](const LatestRun &run) {
        const auto [adapter, settings] = adapterAndSettings(run.policyLabel);
        return adapter == "replay.actions" && settings.value("replays", "") == label;
    };
}

} // namespace

// The fidelity workflow end to end: policies in the physics world (labels from the simulator,
// judged by the learned judge), `fidelity prepare` (one imagined task per physics start, the
// physics frame 0 as its start frame), the same policies in a world model from those frames,
// then `fidelity`: pairs, rates, agreement and the open-loop frame comparison.
TEST(TorchGeneric, TheFidelityWorkflowPairsPhysicsAndImaginedRunsFromTheSameStarts)
{
    TempDir dir;
    const Generic g = writeGenericPackages(dir.path());
    // The image policy knows one instruction: the physics world's red-to-green task.
    const nlohmann::json judge = {{"plugin", "torch.generic_judge"},
                                  {"settings", {{"package", g.judge.string()}}},
                                  {"quorum",
                                   {{"samples", 3},
                                    {"quorum", 2},
                                    {"temperature", 0.7},
                                    {"top_p", 1.0},
                                    {"max_new_tokens", 512}}}};
    const nlohmann::json physics = {
        {"kosmos_protocol", 1},
        {"name", "phys"},
        {"seed", 5},
        {"horizon", 16},
        {"episodes_per_task", 2},
        {"tasks", {{{"id", "red"}, {"instruction", kRed}}}},
        {"policies",
         {{{"plugin", "torch.generic_policy"}, {"settings", {{"package", g.imagePolicy.string()}}}},
          {{"plugin", "torch.generic_policy"},
           {"settings", {{"package", g.imagePolicy.string()}, {"execute", 2}}}},
          // Reads the simulator's state: in the world model, its physics actions open loop.
          {{"plugin", "physics.scripted_policy"}, {"settings", {{"skill", "expert"}}}}}},
        {"world_model",
         {{"plugin", "physics.tabletop"}, {"settings", {{"width", 160}, {"height", 128}}}}},
        {"judge", judge}};
    std::ofstream(dir / "physics.json") << physics.dump(2);
    std::ofstream(dir / "judge.json") << judge.dump(2);
    std::ofstream(dir / "world.json")
        << nlohmann::json({{"plugin", "torch.generic_world_model"},
                           {"settings", {{"package", g.movingWorld.string()}}}})
               .dump(2);
    const auto bundle = (dir / "f.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    auto r =
        runProcess({test::cliPath(), "run", (dir / "physics.json").string(), "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = runProcess({test::cliPath(), "fidelity", "prepare", bundle, "--protocol", "phys",
                    "--world-model", (dir / "world.json").string(), "--judge",
                    (dir / "judge.json").string(), "--to", (dir / "imagined").string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("2 starts of phys"), std::string::npos) << r.output;
    const auto imagined = nlohmann::json::parse(std::ifstream(dir / "imagined" / "imagined.json"));
    ASSERT_EQ(imagined["tasks"].size(), 2u);
    EXPECT_EQ(imagined["tasks"][0]["id"], "red#0");
    ASSERT_EQ(imagined["policies"].size(), 3u);
    EXPECT_EQ(imagined["policies"][0], physics["policies"][0]);
    EXPECT_EQ(imagined["policies"][1], physics["policies"][1]);
    const std::string expert = "physics.scripted_policy {\"skill\":\"expert\"}";
    EXPECT_EQ(imagined["policies"][2]["plugin"], "replay.actions");
    EXPECT_EQ(imagined["policies"][2]["settings"]["replays"], expert);
    EXPECT_NE(r.output.find("reads the simulator's state"), std::string::npos) << r.output;
    // The start frame written is the physics run's frame 0, byte for byte.
    const std::string startPng = imagined["tasks"][0]["start_state"]["frame"];
    EXPECT_EQ(Sha256::fileHex(startPng), imagined["tasks"][0]["start_state"]["frame_sha256"]);
    r = runProcess({test::cliPath(), "run", (dir / "imagined" / "imagined.json").string(),
                    "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = runProcess({test::cliPath(), "fidelity", bundle, "--physics", "phys", "--imagined",
                    "phys-imagined", "--replays", "2", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto report = nlohmann::json::parse(r.output);
    EXPECT_EQ(report["pairs"], 6);
    EXPECT_EQ(report["unpaired_physics"], 0);
    EXPECT_EQ(report["unpaired_imagined"], 0);
    ASSERT_EQ(report["policies"].size(), 3u);
    EXPECT_EQ(report["policies"][0]["physics"]["n"], 2);
    int replayed = 0;
    for (const auto &p : report["policies"])
        if (p["open_loop_replay"] == true) {
            ++replayed;
            EXPECT_EQ(p["policy"], expert);
        }
    EXPECT_EQ(replayed, 1);
    // The twin's runs gave, step by step, the actions the expert took in physics from the same
    // start.
    {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const auto physicsActions = actionsByStart(ledger, "phys", labelled(expert));
        const auto twin = actionsByStart(ledger, "phys-imagined", replaying(expert));
        ASSERT_EQ(twin.size(), 2u);
        for (const auto &[start, actions] : twin) {
            EXPECT_EQ(actions.size(), 16u);
            EXPECT_EQ(actions, physicsActions.at(start)) << start;
        }
    }
    EXPECT_EQ(report["frame_fidelity"]["episodes"], 2);
    EXPECT_EQ(report["frame_fidelity"]["psnr_db"].size(), 16u);

    // --open-loop: every policy replays its physics actions (the world model's and judge's
    // errors without the policies' reactions to imagined frames), beside the closed-loop twin.
    r = runProcess({test::cliPath(), "fidelity", "prepare", bundle, "--protocol", "phys",
                    "--world-model", (dir / "world.json").string(), "--judge",
                    (dir / "judge.json").string(), "--to", (dir / "open-loop").string(),
                    "--open-loop"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("in the world model (--open-loop): torch.generic_policy"),
              std::string::npos)
        << r.output;
    const auto openLoop = nlohmann::json::parse(std::ifstream(dir / "open-loop" / "imagined.json"));
    EXPECT_EQ(openLoop["name"], "phys-open-loop");
    ASSERT_EQ(openLoop["tasks"].size(), imagined["tasks"].size());
    for (std::size_t i = 0; i < imagined["tasks"].size(); ++i) {
        EXPECT_EQ(openLoop["tasks"][i]["id"], imagined["tasks"][i]["id"]);
        EXPECT_EQ(openLoop["tasks"][i]["start_state"]["frame_sha256"],
                  imagined["tasks"][i]["start_state"]["frame_sha256"]);
    }
    ASSERT_EQ(openLoop["policies"].size(), 3u);
    std::set<std::string> replays;
    for (const auto &policy : openLoop["policies"]) {
        EXPECT_EQ(policy["plugin"], "replay.actions") << policy;
        replays.insert(policy["settings"]["replays"].get<std::string>());
    }
    EXPECT_EQ(replays.size(), 3u) << "one twin per physics policy";
    r = runProcess({test::cliPath(), "run", (dir / "open-loop" / "imagined.json").string(),
                    "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = runProcess({test::cliPath(), "fidelity", bundle, "--physics", "phys", "--imagined",
                    "phys-open-loop", "--replays", "0", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto openReport = nlohmann::json::parse(r.output);
    EXPECT_EQ(openReport["pairs"], 6);
    ASSERT_EQ(openReport["policies"].size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(openReport["policies"][i]["open_loop_replay"], true);
        EXPECT_EQ(openReport["policies"][i]["policy"], report["policies"][i]["policy"])
            << "each twin is paired with the physics policy it replays";
        EXPECT_EQ(openReport["policies"][i]["physics"], report["policies"][i]["physics"]);
    }
    {
        // A policy's twin gave the actions it took in physics, step by step.
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        const std::string policy = openReport["policies"][0]["policy"];
        const auto physicsActions = actionsByStart(ledger, "phys", labelled(policy));
        ASSERT_EQ(physicsActions.size(), 2u);
        EXPECT_EQ(actionsByStart(ledger, "phys-open-loop", replaying(policy)), physicsActions);
    }
    // --in-physics: the actions each policy took in the world model, closed loop, replayed in
    // physics from the same starts; the report splits the disagreement by them.
    r = runProcess({test::cliPath(), "fidelity", "prepare", bundle, "--protocol", "phys",
                    "--in-physics", "phys-imagined", "--to", (dir / "in-physics").string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find(expert + ": its actions in phys-imagined (2 starts)"),
              std::string::npos)
        << r.output;
    const auto inPhysics =
        nlohmann::json::parse(std::ifstream(dir / "in-physics" / "in-physics.json"));
    EXPECT_EQ(inPhysics["name"], "phys-imagined-in-physics");
    for (const char *same : {"seed", "tasks", "episodes_per_task", "world_model", "judge"})
        EXPECT_EQ(inPhysics[same], physics[same]) << same;
    ASSERT_EQ(inPhysics["policies"].size(), 3u);
    for (const auto &policy : inPhysics["policies"]) {
        EXPECT_EQ(policy["plugin"], "replay.actions") << policy;
        EXPECT_EQ(policy["settings"]["actions_from"], "imagined") << policy;
    }
    EXPECT_EQ(inPhysics["policies"][2]["settings"]["replays"], expert)
        << "an open-loop twin's runs replay the policy it stands for";
    r = runProcess({test::cliPath(), "run", (dir / "in-physics" / "in-physics.json").string(),
                    "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    {
        // A learned policy's replay in physics gave, step by step, its actions in the world model.
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        std::string learned;
        for (const auto &p : report["policies"])
            if (p["policy"] != expert)
                learned = p["policy"];
        const auto imaginedActions = actionsByStart(ledger, "phys-imagined", labelled(learned));
        ASSERT_EQ(imaginedActions.size(), 2u);
        EXPECT_EQ(actionsByStart(ledger, "phys-imagined-in-physics", replaying(learned)),
                  imaginedActions);
    }
    r = runProcess({test::cliPath(), "fidelity", bundle, "--physics", "phys", "--imagined",
                    "phys-imagined", "--in-physics", "phys-imagined-in-physics", "--replays", "0",
                    "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto split = nlohmann::json::parse(r.output)["closed_loop_split"];
    ASSERT_TRUE(split.is_object()) << r.output;
    EXPECT_EQ(split["protocols"]["name"], "phys-imagined-in-physics");
    const int both = report["episodes"]["agreement"]["n"];
    EXPECT_EQ(split["decisive_in_all_three"].get<int>() + split["without_replay"].get<int>(), both);
    EXPECT_EQ(split["agree"].get<int>() + split["cancelled"].get<int>() +
                  split["reaction"].get<int>() + split["world_model_and_judge"].get<int>(),
              split["decisive_in_all_three"].get<int>());
    EXPECT_EQ(split["world_model_and_judge_lenient"].get<int>() +
                  split["world_model_and_judge_harsh"].get<int>(),
              split["world_model_and_judge"].get<int>());
    // The physics protocol's judge read every replay: each error on the very actions is the
    // judge's or the world model's frames'.
    EXPECT_EQ(split["world_model_and_judge_judged_in_physics"], split["world_model_and_judge"]);
    EXPECT_LE(split["judge_repeats_in_physics"].get<int>(),
              split["world_model_and_judge"].get<int>());
    // Every pair decisive in both worlds has a replay here: each disagreement is a reaction or an
    // error of the world model and judge.
    EXPECT_EQ(split["without_replay"], 0);
    int disagree = 0;
    for (const auto &p : report["policies"])
        disagree += p["lenient"].get<int>() + p["harsh"].get<int>();
    EXPECT_EQ(split["reaction"].get<int>() + split["world_model_and_judge"].get<int>(), disagree)
        << split;
    ASSERT_EQ(split["policies"].size(), 3u);
    int expertRows = 0;
    for (const auto &p : split["policies"]) {
        EXPECT_EQ(p["in_physics"]["n"], 2) << p;
        if (p["policy"] != expert)
            continue;
        // Its imagined actions are its physics actions (open loop): no reaction, and in physics
        // they do what they did there.
        ++expertRows;
        EXPECT_EQ(p["reaction"], 0) << p;
        for (const auto &q : report["policies"])
            if (q["policy"] == expert) {
                EXPECT_EQ(p["in_physics"]["successes"], q["physics"]["successes"]);
            }
    }
    EXPECT_EQ(expertRows, 1);
    r = runProcess({test::cliPath(), "fidelity", bundle, "--physics", "phys", "--imagined",
                    "phys-imagined", "--in-physics", "phys-imagined-in-physics", "--replays", "0"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("Where the disagreement comes from"), std::string::npos) << r.output;
    // Wrong protocols for --in-physics: named, nothing written. (stderr with stdout)
    auto withErrors = [](const std::vector<std::string> &args) {
        std::string command;
        for (const auto &a : args)
            command += "'" + a + "' ";
        return runProcess({"/bin/sh", "-c", command + "2>&1"});
    };
    for (const auto &[wrong, why] : std::vector<std::pair<std::string, std::string>>{
             {"phys", "--in-physics names the physics protocol phys"},
             {"phys-imagined", "--in-physics names the imagined protocol"},
             {"phys-open-loop", "need the physics protocol's starts"}}) {
        r = withErrors({test::cliPath(), "fidelity", bundle, "--physics", "phys", "--imagined",
                        "phys-imagined", "--in-physics", wrong, "--replays", "0"});
        EXPECT_NE(r.exitCode, 0) << wrong;
        EXPECT_NE(r.output.find(why), std::string::npos) << wrong << ": " << r.output;
    }
    r = withErrors({test::cliPath(), "fidelity", "prepare", bundle, "--protocol", "phys",
                    "--in-physics", "phys", "--to", (dir / "in-physics-2").string()});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.output.find("names the physics protocol phys itself"), std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(dir / "in-physics-2" / "in-physics.json"));
    r = withErrors({test::cliPath(), "fidelity", "prepare", bundle, "--protocol", "phys",
                    "--in-physics", "phys-imagined", "--to", (dir / "in-physics").string()});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.output.find("exists and is not empty"), std::string::npos) << r.output;
    // A protocol that is not there: a named error, nothing written.
    r = runProcess(
        {test::cliPath(), "fidelity", bundle, "--physics", "nope", "--imagined", "phys-imagined"});
    EXPECT_EQ(r.exitCode, 4); // "no protocol 'nope' with rollouts in this ledger"
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);
}

// DAgger (tools/train/dagger.py) end to end, tiny: the expert's demonstrations of both tasks, a
// policy from three optimizer steps, one iteration that runs it in physics through kosmos-cli,
// labels the states it recorded with the expert's chunks and trains the next checkpoint from its
// weights; the checkpoint runs through the adapters and its record says where it came from.
TEST(TorchGeneric, DaggerLabelsTheLearnersStatesAndTrainsTheNextCheckpointFromItsWeights)
{
    TempDir dir;
    const nlohmann::json physics = {
        {"kosmos_protocol", 1},
        {"name", "tiny-demos"},
        {"seed", 11},
        {"horizon", 16},
        {"episodes_per_task", 1},
        {"tasks",
         {{{"id", "red"}, {"instruction", kRed}},
          {{"id", "blue"}, {"instruction", "push the blue block into the purple square"}}}},
        {"policies",
         {{{"plugin", "physics.scripted_policy"}, {"settings", {{"skill", "expert"}}}}}},
        {"world_model",
         {{"plugin", "physics.tabletop"}, {"settings", {{"width", 160}, {"height", 128}}}}}};
    std::ofstream(dir / "demos.json") << physics.dump(2);
    const auto bundle = (dir / "t.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ASSERT_EQ(
        runProcess({test::cliPath(), "run", (dir / "demos.json").string(), "--ledger", bundle})
            .exitCode,
        0);
    const auto demos = (dir / "ds").string();
    ASSERT_EQ(runProcess({test::cliPath(), "dataset", "export", bundle, "--to", demos}).exitCode,
              0);
    const std::string tools = std::string(KOSMOS_SOURCE_DIR) + "/tools/train/";
    const auto models = (dir / "models").string();
    auto r = runProcess({"/usr/bin/python3", tools + "kosmos_train.py", "--dataset", demos, "--out",
                         models, "--tiny", "--policy-name", "bc-expert-full", "--threads", "2"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::vector<std::string> dagger = {"/usr/bin/python3",
                                             tools + "dagger.py",
                                             "--base",
                                             demos,
                                             "--init",
                                             models + "/bc-expert-full",
                                             "--out",
                                             models,
                                             "--work",
                                             (dir / "work").string(),
                                             "--iterations",
                                             "1",
                                             "--episodes-per-task",
                                             "1",
                                             "--horizon",
                                             "16",
                                             "--tiny",
                                             "--kosmos-cli",
                                             test::cliPath()};
    r = runProcess(dagger);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("iteration 1: bc-expert-full succeeded in"), std::string::npos)
        << r.output;
    const auto record =
        nlohmann::json::parse(std::ifstream(dir / "models" / "training-record.json"));
    const auto &checkpoint = record["models"]["dagger-1"];
    EXPECT_EQ(checkpoint["dagger"]["collection_episodes"], 2);
    EXPECT_EQ(checkpoint["dagger"]["learner"], "bc-expert-full");
    EXPECT_EQ(checkpoint["by_skill"]["relabelled"], 2);
    EXPECT_EQ(checkpoint["by_skill"]["expert"], 2);
    // A state at each chunk start (steps 0, 5, 10, 15) of both rollouts.
    EXPECT_EQ(checkpoint["relabelled_samples"], 8);
    EXPECT_EQ(checkpoint["init_module_sha256"],
              record["models"]["bc-expert-full"]["module_sha256"]);
    const auto test =
        runProcess({test::cliPath(), "plugins", "--test", "torch.generic_policy", "--settings",
                    nlohmann::json({{"package", models + "/dagger-1"}}).dump()});
    EXPECT_EQ(test.exitCode, 0) << test.output;
    // Bad input is named before anything runs.
    auto bad = dagger;
    bad[3] = (dir / "nowhere").string();
    r = test::runProcessWithStderr(bad);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.output.find("no dataset.json"), std::string::npos) << r.output;
    bad = dagger;
    bad[5] = demos;
    r = test::runProcessWithStderr(bad);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.output.find("not a model package"), std::string::npos) << r.output;
}

// CI keeps the trainer alive: a tiny physics dataset, three optimizer steps of every model, and
// every package it writes runs through the adapters (tools/train/kosmos_train.py --tiny).
TEST(TorchGeneric, TheTrainerSmokeRunWritesPackagesTheAdaptersRun)
{
    TempDir dir;
    const nlohmann::json physics = {
        {"kosmos_protocol", 1},
        {"name", "tiny-train"},
        {"seed", 9},
        {"horizon", 16},
        {"episodes_per_task", 2},
        {"tasks", {{{"id", "red"}, {"instruction", kRed}}}},
        {"policies",
         {{{"plugin", "physics.scripted_policy"}, {"settings", {{"skill", "expert"}}}},
          {{"plugin", "physics.scripted_policy"}, {"settings", {{"skill", "noisy"}}}},
          {{"plugin", "physics.scripted_policy"}, {"settings", {{"skill", "confuser"}}}}}},
        {"world_model",
         {{"plugin", "physics.tabletop"}, {"settings", {{"width", 160}, {"height", 128}}}}}};
    std::ofstream(dir / "train.json") << physics.dump(2);
    const auto bundle = (dir / "t.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    ASSERT_EQ(
        runProcess({test::cliPath(), "run", (dir / "train.json").string(), "--ledger", bundle})
            .exitCode,
        0);
    ASSERT_EQ(
        runProcess({test::cliPath(), "dataset", "export", bundle, "--to", (dir / "ds").string()})
            .exitCode,
        0);
    const std::string trainer = std::string(KOSMOS_SOURCE_DIR) + "/tools/train/kosmos_train.py";
    auto r = runProcess({"/usr/bin/python3", trainer, "--dataset", (dir / "ds").string(), "--out",
                         (dir / "models").string(), "--tiny", "--threads", "2"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("6 episodes, 1 instructions"), std::string::npos) << r.output;
    const auto record =
        nlohmann::json::parse(std::ifstream(dir / "models" / "training-record.json"));
    EXPECT_TRUE(record["tiny"].get<bool>());
    EXPECT_EQ(record["models"].size(), 9u); // seven policies, the world model, the judge
    EXPECT_EQ(record["dataset"]["episodes"], 6);
    const std::string datasetSha = record["dataset"]["sha256"];
    EXPECT_EQ(record["datasets"].size(), 1u); // every model here was trained on it
    EXPECT_EQ(record["datasets"][datasetSha]["by_skill"]["expert"], 2);
    for (const auto &[name, model] : record["models"].items()) {
        EXPECT_EQ(model["dataset_sha256"], datasetSha) << name;
        const fs::path package = dir / "models" / name;
        EXPECT_EQ(Sha256::fileHex(package / "kosmos-model.json"), model["manifest_sha256"]);
        const std::string plugin = name == "world"   ? "torch.generic_world_model"
                                   : name == "judge" ? "torch.generic_judge"
                                                     : "torch.generic_policy";
        const auto test = runProcess({test::cliPath(), "plugins", "--test", plugin, "--settings",
                                      nlohmann::json({{"package", package.string()}}).dump()});
        EXPECT_EQ(test.exitCode, 0) << name << test.output;
    }
    EXPECT_TRUE(fs::exists(dir / "models" / "golden.json"));

    // The judge calibrated (tools/train/calibrate_judge.py): a bias on its progress-5 logit chosen
    // on episodes that have both outcomes (the expert's, long enough to succeed, and the
    // confuser's), written as a package whose logits are the judge's plus that bias.
    nlohmann::json longer = physics;
    longer["name"] = "tiny-judge";
    longer["horizon"] = 50;
    longer["policies"] = {physics["policies"][0], physics["policies"][2]};
    std::ofstream(dir / "judge.json") << longer.dump(2);
    ASSERT_EQ(
        runProcess({test::cliPath(), "run", (dir / "judge.json").string(), "--ledger", bundle})
            .exitCode,
        0);
    ASSERT_EQ(runProcess({test::cliPath(), "dataset", "export", bundle, "--to",
                          (dir / "judge-ds").string()})
                  .exitCode,
              0);
    // The judge with the success objective (judge-4's): trained, recorded, and it loads.
    {
        const auto models = dir / "success-models";
        const auto trained =
            runProcess({"/usr/bin/python3", trainer, "--dataset", (dir / "judge-ds").string(),
                        "--only", "judge", "--tiny", "--judge-objective", "success", "--judge-name",
                        "judge-s", "--out", models.string(), "--threads", "2"});
        ASSERT_EQ(trained.exitCode, 0) << trained.output;
        const auto rec = nlohmann::json::parse(std::ifstream(models / "training-record.json"));
        EXPECT_EQ(rec["models"]["judge-s"]["hyper_parameters"]["objective"], "success");
        EXPECT_EQ(
            runProcess({test::cliPath(), "plugins", "--test", "torch.generic_judge", "--settings",
                        nlohmann::json({{"package", (models / "judge-s").string()}}).dump()})
                .exitCode,
            0);
        const auto refused = runProcessWithStderr(
            {"/usr/bin/python3", trainer, "--dataset", (dir / "judge-ds").string(), "--only",
             "judge", "--tiny", "--judge-objective", "verdicts", "--out", models.string()});
        EXPECT_EQ(refused.exitCode, 2);
        EXPECT_NE(refused.output.find("--judge-objective: invalid choice: 'verdicts'"),
                  std::string::npos)
            << refused.output;
    }
    std::ofstream(dir / "judge-config.json")
        << nlohmann::json({{"plugin", "torch.generic_judge"},
                           {"quorum", {{"samples", 5}, {"quorum", 3}, {"temperature", 0.7}}}})
               .dump();
    const std::string calibrate =
        std::string(KOSMOS_SOURCE_DIR) + "/tools/train/calibrate_judge.py";
    const std::vector<std::string> calibration = {"/usr/bin/python3",
                                                  calibrate,
                                                  "--judge",
                                                  (dir / "models" / "judge").string(),
                                                  "--dataset",
                                                  (dir / "judge-ds").string(),
                                                  "--config",
                                                  (dir / "judge-config.json").string(),
                                                  "--out",
                                                  (dir / "judge-c").string(),
                                                  "--validation",
                                                  "all",
                                                  "--min-validation",
                                                  "4"};
    r = runProcessWithStderr(calibration); // seed 9: the expert succeeds in both episodes
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("expected sensitivity"), std::string::npos) << r.output;
    r = runProcess({"/usr/bin/python3", "-c",
                    "import json, sys, torch\n"
                    "a = torch.jit.load(sys.argv[1]); b = torch.jit.load(sys.argv[2])\n"
                    "x = torch.rand(2, 4, 3, 64, 80); t = torch.tensor([0, 0])\n"
                    "d = b(x, t) - a(x, t)\n"
                    "print('bias', round(float(d[0, 5]), 4), round(float(d[:, :5].abs().max()), 6),"
                    " round(float((d[1] - d[0]).abs().max()), 5))",
                    (dir / "models" / "judge" / "module.pt").string(),
                    (dir / "judge-c" / "module.pt").string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find(" 0.0 0.0"), std::string::npos) << "only class 5 moves: " << r.output;
    EXPECT_EQ(runProcess({test::cliPath(), "plugins", "--test", "torch.generic_judge", "--settings",
                          nlohmann::json({{"package", (dir / "judge-c").string()}}).dump()})
                  .exitCode,
              0);
    // Bad input: an existing package folder, a policy package, too few validation episodes.
    r = runProcessWithStderr(calibration);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("exists and is not empty"), std::string::npos) << r.output;
    auto other = calibration;
    other[3] = (dir / "models" / "bc-expert-full").string();
    other[9] = (dir / "judge-d").string();
    r = runProcessWithStderr(other);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("not generic_judge"), std::string::npos) << r.output;
    other = calibration;
    other[9] = (dir / "judge-d").string();
    other.resize(10); // the validation fifth of 10 episodes, at least 40 needed
    r = runProcessWithStderr(other);
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("validation episodes; at least 40"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir / "judge-d" / "module.pt"));

    // The held-out check: the training data shares every start with itself.
    r = runProcess({"/usr/bin/python3", trainer, "--out", (dir / "models").string(),
                    "--check-held-out", (dir / "ds").string()});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.output.find("6 episodes, 6 from a start state used in training"), std::string::npos)
        << r.output;

    // Elsewhere (a GPU machine without OpenCV): the dataset packed into one file, the world
    // model trained from it; here its weights are scripted into a package.
    const auto packed = (dir / "ds.npz").string();
    r = runProcess({"/usr/bin/python3", trainer, "--dataset", (dir / "ds").string(), "--pack",
                    packed, "--out", (dir / "unused").string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = runProcess({"/usr/bin/python3", trainer, "--dataset", packed, "--only", "world", "--tiny",
                    "--out", (dir / "elsewhere").string(), "--threads", "2"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("6 episodes, 1 instructions, dataset " + datasetSha.substr(0, 16)),
              std::string::npos)
        << "the packed dataset keeps its hash: " << r.output;
    const fs::path weights = dir / "elsewhere" / "world" / "weights.npz";
    ASSERT_TRUE(fs::exists(weights));
    r = runProcess({"/usr/bin/python3", trainer, "--dataset", (dir / "ds").string(), "--only",
                    "world", "--world-weights", weights.string(), "--out",
                    (dir / "here").string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto here = nlohmann::json::parse(std::ifstream(dir / "here" / "training-record.json"));
    EXPECT_EQ(here["models"]["world"]["steps"], 3);
    EXPECT_EQ(here["models"]["world"]["weights_sha256"], Sha256::fileHex(weights));
    EXPECT_EQ(here["models"]["world"]["trained_on"]["device"], "cpu");
    EXPECT_EQ(
        runProcess({test::cliPath(), "plugins", "--test", "torch.generic_world_model", "--settings",
                    nlohmann::json({{"package", (dir / "here" / "world").string()}}).dump()})
            .exitCode,
        0);
    // Trained on from that package (--world-init): its weights are the start, recorded by hash.
    const fs::path initModule = dir / "here" / "world" / "module.pt";
    r = runProcess({"/usr/bin/python3", trainer, "--dataset", (dir / "ds").string(), "--only",
                    "world", "--world-init", (dir / "here" / "world").string(), "--tiny", "--out",
                    (dir / "tuned").string(), "--threads", "2"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto tuned = nlohmann::json::parse(std::ifstream(dir / "tuned" / "training-record.json"));
    EXPECT_EQ(tuned["models"]["world"]["init_module_sha256"], Sha256::fileHex(initModule));
    EXPECT_EQ(tuned["models"]["world"]["steps"], 3);
    EXPECT_EQ(
        runProcess({test::cliPath(), "plugins", "--test", "torch.generic_world_model", "--settings",
                    nlohmann::json({{"package", (dir / "tuned" / "world").string()}}).dump()})
            .exitCode,
        0);
    // Not a world model of this design; both a start and trained weights.
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", (dir / "ds").string(),
                              "--only", "world", "--world-init",
                              (dir / "models" / "bc-expert-full").string(), "--tiny", "--out",
                              (dir / "tuned-2").string()});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("bc-expert-full: not a world model of this trainer's design"),
              std::string::npos)
        << r.output;
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", (dir / "ds").string(),
                              "--only", "world", "--world-init", (dir / "here" / "world").string(),
                              "--world-weights", weights.string(), "--out",
                              (dir / "tuned-2").string()});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("one or the other"), std::string::npos) << r.output;
    // On a LeRobot dataset the world model is recorded.py's, trained from its first step: a
    // start asked for is refused, not silently dropped.
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset",
                              std::string(KOSMOS_SOURCE_DIR) + "/tests/fixtures/lerobot/pusht-h264",
                              "--only", "world", "--world-init", (dir / "here" / "world").string(),
                              "--tiny", "--out", (dir / "tuned-3").string()});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("on a LeRobot dataset the world model is recorded.py's design"),
              std::string::npos)
        << r.output;
    // Bad input is named: not weights, not a packed dataset (on stderr).
    std::ofstream(dir / "bad.npz") << "not a numpy archive";
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", (dir / "ds").string(),
                              "--only", "world", "--world-weights", (dir / "bad.npz").string(),
                              "--out", (dir / "here").string()});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("bad.npz: not the world model's weights"), std::string::npos)
        << r.output;
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", (dir / "bad.npz").string(),
                              "--out", (dir / "here").string(), "--tiny"});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("bad.npz: not a packed dataset"), std::string::npos) << r.output;
}
#endif

// The trainer reads a LeRobot dataset through kosmos-cli (import, then export): on LeRobot's own
// PushT fixture it trains the judge (recordings with a success field), the recorded policy (the
// frame, observation.state and the task -> the dataset's own 2-D actions) and the recorded world
// model (no assumption about the camera); every package loads, the world model replays the
// recording through `fidelity replay`, and what cannot be trained is refused with the reason.
// Without the Parquet module the conversion says why.
TEST(TorchGeneric, TheTrainerTrainsOnALeRobotDataset)
{
    TempDir dir;
    const std::string trainer = std::string(KOSMOS_SOURCE_DIR) + "/tools/train/kosmos_train.py";
    const std::string dataset =
        std::string(KOSMOS_SOURCE_DIR) + "/tests/fixtures/lerobot/pusht-h264";
    auto r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", dataset, "--tiny",
                                   "--threads", "2", "--kosmos-cli", test::cliPath(), "--out",
                                   (dir / "m").string()});
    if (!parquetAvailable()) {
        EXPECT_EQ(r.exitCode, 2);
        EXPECT_NE(r.output.find("libkosmos-parquet.so"), std::string::npos) << r.output;
        return;
    }
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("3 episodes, 1 instructions"), std::string::npos) << r.output;
    const auto record = nlohmann::json::parse(std::ifstream(dir / "m" / "training-record.json"));
    EXPECT_EQ(record["dataset"]["source"]["codebase_version"], "v3.0");
    ASSERT_EQ(record["models"].size(), 3u) << record.dump();
    EXPECT_EQ(record["models"]["judge"]["label_counts"][0], 3) << "three recorded failures";
    EXPECT_EQ(record["models"]["bc-recorded"]["state_key"], "observation.state");
    const auto manifest = [&](const char *name) {
        return nlohmann::json::parse(std::ifstream(dir / "m" / name / "kosmos-model.json"));
    };
    // The judge knows PushT's task (its smoke test would ask about the tabletop's instruction,
    // which a PushT judge rightly does not know: --check loads it).
    EXPECT_NE(manifest("judge").dump().find("Push the T-shaped block onto the T-shaped target."),
              std::string::npos);
    // The policy's contract is the recording's: LeRobot's names, 10 Hz, bounds around the range
    // recorded; its inputs the frame, the 2-D state and the task.
    const auto policy = manifest("bc-recorded");
    EXPECT_EQ(policy["action"]["dimensions"][0]["name"], "motor_0");
    EXPECT_EQ(policy["action"]["dimensions"][1]["name"], "motor_1");
    EXPECT_EQ(policy["action"]["control_rate_hz"], 10.0);
    EXPECT_EQ(policy["io"]["inputs"][1]["shape"], nlohmann::json({1, 2}));
    EXPECT_EQ(policy["io"]["output"], nlohmann::json({1, 5, 2}));
    EXPECT_EQ(manifest("world")["io"]["inputs"].size(), 2u) << "frames and actions only";
    for (const auto &[plugin, name] : {std::pair{"torch.generic_judge", "judge"},
                                       std::pair{"torch.generic_policy", "bc-recorded"},
                                       std::pair{"torch.generic_world_model", "world"}})
        EXPECT_EQ(runProcess({test::cliPath(), "plugins", "--check", plugin, "--settings",
                              nlohmann::json({{"package", (dir / "m" / name).string()}}).dump()})
                      .exitCode,
                  0)
            << name;
    // The recorded world replays the recording it learnt from (2-D actions, chunks of 5, 10 fps).
    std::ofstream(dir / "world.json")
        << nlohmann::json({{"plugin", "torch.generic_world_model"},
                           {"settings", {{"package", (dir / "m" / "world").string()}}}})
               .dump();
    r = runProcessWithStderr({test::cliPath(), "fidelity", "replay", dataset, "--world-model",
                              (dir / "world.json").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("\"episodes\""), std::string::npos) << r.output;
    // --state-key none: the frame and the task only (for worlds that report no state).
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", dataset, "--only",
                              "policies", "--tiny", "--state-key", "none", "--kosmos-cli",
                              test::cliPath(), "--out", (dir / "i").string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto image =
        nlohmann::json::parse(std::ifstream(dir / "i" / "bc-recorded" / "kosmos-model.json"));
    ASSERT_EQ(image["io"]["inputs"].size(), 2u);
    EXPECT_EQ(image["io"]["inputs"][1]["source"], "instruction_id");
    EXPECT_EQ(
        runProcess({test::cliPath(), "plugins", "--check", "torch.generic_policy", "--settings",
                    nlohmann::json({{"package", (dir / "i" / "bc-recorded").string()}}).dump()})
            .exitCode,
        0);
    // A state the recording does not have is refused by name.
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", dataset, "--only",
                              "policies", "--tiny", "--state-key", "observation.velocity",
                              "--kosmos-cli", test::cliPath(), "--out", (dir / "p").string()});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("the policy reads the recorded state (observation.velocity)"),
              std::string::npos)
        << r.output;
    // proprio=copy reports the last commanded action as the state: PushT's episodes start from
    // different agent positions, which one declared start cannot be.
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", dataset, "--only", "world",
                              "--tiny", "--world", "proprio=copy", "--kosmos-cli", test::cliPath(),
                              "--out", (dir / "w").string()});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("--world proprio=copy: the episodes start from different states"),
              std::string::npos)
        << r.output;
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", dataset, "--only",
                              "policies", "--tiny", "--policy", "checkpoints=1,x", "--kosmos-cli",
                              test::cliPath(), "--out", (dir / "w").string()});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("--policy checkpoints=1,x: expected step counts"), std::string::npos)
        << r.output;
}

// ALOHA sim's recordings ([benchmark-fidelity]; docs/training.md, "ALOHA sim"): a named policy
// with one run's checkpoints and a smaller data budget, and a world model that reports the last
// commanded joint targets as the 14-D state the policy reads (io.proprio copy), on LeRobot's ALOHA
// fixture (two episodes from START_ARM_POSE).
TEST(TorchGeneric, TheTrainerWritesAlohaPoliciesWithCheckpointsAndAWorldThatReportsTheJoints)
{
    TempDir dir;
    const std::string trainer = std::string(KOSMOS_SOURCE_DIR) + "/tools/train/kosmos_train.py";
    const std::string dataset =
        std::string(KOSMOS_SOURCE_DIR) + "/tests/fixtures/lerobot/aloha-h264";
    if (!parquetAvailable())
        GTEST_SKIP() << "reading a LeRobot dataset needs the Parquet module";
    auto r = runProcessWithStderr({"/usr/bin/python3",
                                   trainer,
                                   "--dataset",
                                   dataset,
                                   "--tiny",
                                   "--threads",
                                   "2",
                                   "--only",
                                   "policies",
                                   "--only",
                                   "world",
                                   "--policy-name",
                                   "aloha-bc",
                                   "--policy",
                                   "chunk=4",
                                   "--policy",
                                   "checkpoints=1,2",
                                   "--policy",
                                   "epochs=3",
                                   "--world",
                                   "chunk=4",
                                   "--world",
                                   "proprio=copy",
                                   "--kosmos-cli",
                                   test::cliPath(),
                                   "--out",
                                   (dir / "m").string()});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto record = nlohmann::json::parse(std::ifstream(dir / "m" / "training-record.json"));
    for (const char *name : {"aloha-bc", "aloha-bc-1", "aloha-bc-2", "world"})
        ASSERT_TRUE(record["models"].contains(name)) << name << " in " << record.dump();
    EXPECT_EQ(record["models"]["aloha-bc-2"]["checkpoint_of"], "aloha-bc");
    EXPECT_EQ(record["models"]["aloha-bc"]["checkpoints"]["aloha-bc-1"]["steps"], 1);
    const auto world =
        nlohmann::json::parse(std::ifstream(dir / "m" / "world" / "kosmos-model.json"));
    ASSERT_TRUE(world["io"].contains("proprio")) << world["io"].dump();
    EXPECT_EQ(world["io"]["proprio"]["start"].size(), 14u);
    EXPECT_EQ(world["io"]["proprio"]["copy"].size(), 14u);
    EXPECT_EQ(record["models"]["world"]["proprio"]["state_minus_command_mean"].size(), 14u);
    for (const auto &[plugin, name] : {std::pair{"torch.generic_policy", "aloha-bc-1"},
                                       std::pair{"torch.generic_world_model", "world"}})
        EXPECT_EQ(runProcess({test::cliPath(), "plugins", "--check", plugin, "--settings",
                              nlohmann::json({{"package", (dir / "m" / name).string()}}).dump()})
                      .exitCode,
                  0)
            << name;
    // A smaller data budget than the recording holds is refused with what it holds.
    r = runProcessWithStderr({"/usr/bin/python3", trainer, "--dataset", dataset, "--tiny", "--only",
                              "policies", "--policy", "episodes=5", "--kosmos-cli", test::cliPath(),
                              "--out", (dir / "q").string()});
    EXPECT_EQ(r.exitCode, 2);
    EXPECT_NE(r.output.find("--policy episodes=5: the recording has 2 training episodes"),
              std::string::npos)
        << r.output;
}

#ifdef KOSMOS_TEST_PHYSICS
// `kosmos-cli run --device`: the device goes into the settings of every component whose plugin
// can use it, before the protocol is frozen, and worker processes (--isolate) run the same
// protocol. A CUDA device where nothing can use CUDA is refused with what each component is.
TEST(TorchGeneric, RunDevicePlacesEveryComponentThatCanUseItAndNamesTheOthers)
{
    TempDir dir;
    const nlohmann::json protocol = {
        {"kosmos_protocol", 1},
        {"name", "on-a-device"},
        {"seed", 3},
        {"horizon", 5},
        {"episodes_per_task", 1},
        {"tasks", {{{"id", "red"}, {"instruction", kRed}}}},
        {"policies",
         {{{"plugin", "torch.generic_policy"},
           {"settings",
            {{"package", std::string(KOSMOS_SOURCE_DIR) + "/models/bc-expert-full"}}}}}},
        {"world_model",
         {{"plugin", "physics.tabletop"}, {"settings", {{"width", 160}, {"height", 128}}}}}};
    std::ofstream(dir / "p.json") << protocol.dump(2);
    const auto bundle = (dir / "d.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const std::string file = (dir / "p.json").string();
    // --dry-run: nothing written, whatever the build.
    auto r = runProcessWithStderr(
        {test::cliPath(), "run", file, "--ledger", bundle, "--device", "cuda", "--dry-run"});
#if KOSMOS_TORCH_CUDA
    // A CUDA build places the policy there (the physics world has no device setting); without
    // a GPU the preview then names that problem, which is not what this checks.
    EXPECT_NE(r.output.find("device cuda: policies[0] torch.generic_policy; not world_model "
                            "physics.tabletop (no device setting);"),
              std::string::npos)
        << r.output;
#else
    EXPECT_EQ(r.exitCode, 4) << r.output;
    EXPECT_NE(r.output.find("--device cuda: no component of this protocol can use CUDA "
                            "(policies[0] torch.generic_policy (its libtorch is CPU-only); "
                            "world_model physics.tabletop (no device setting))"),
              std::string::npos)
        << r.output;
#endif
    r = runProcessWithStderr(
        {test::cliPath(), "run", file, "--ledger", bundle, "--device", "gpu0"});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.output.find("--device 'gpu0': expected cpu, cuda or cuda:N"), std::string::npos)
        << r.output;

    r = runProcessWithStderr({test::cliPath(), "run", file, "--ledger", bundle, "--device", "cpu",
                              "--isolate", "--workers", "2"});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("device cpu: policies[0] torch.generic_policy;"), std::string::npos)
        << r.output;
    // The frozen protocol is the one with the device; its run ran in a worker process.
    const auto firstPolicy = [&](const std::string &ledger, const std::string &folder) {
        EXPECT_EQ(runProcess({test::cliPath(), "dataset", "export", ledger, "--to",
                              (dir / folder).string()})
                      .exitCode,
                  0);
        return nlohmann::json::parse(
            std::ifstream(dir / folder / "episode_00000" / "episode.json"))["policy"];
    };
    const nlohmann::json policy = firstPolicy(bundle, "ds");
    EXPECT_NE(policy.get<std::string>().find("\"device\":\"cpu\""), std::string::npos) << policy;
    EXPECT_EQ(runProcess({test::cliPath(), "verify", bundle}).exitCode, 0);

    // submit: the device is placed in the protocol the shards run (two local processes here).
    const auto sharded = (dir / "s.kosmos").string();
    r = runProcessWithStderr({test::cliPath(), "submit", file, "--ledger", sharded, "--shards", "2",
                              "--local", "--device", "cpu"});
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("device cpu: policies[0] torch.generic_policy;"), std::string::npos)
        << r.output;
    EXPECT_EQ(firstPolicy(sharded, "sds"), policy)
        << "the same component, on the same device, as the run above";
    r = runProcessWithStderr({test::cliPath(), "submit", file, "--ledger",
                              (dir / "t.kosmos").string(), "--shards", "2", "--local", "--device",
                              "cuda:x"});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.output.find("--device 'cuda:x': expected cpu, cuda or cuda:N"), std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(dir / "t.kosmos")) << "nothing written for a refused device";
}
#endif

#ifdef KOSMOS_TEST_PHYSICS
// A package served from Python (python/kosmos_world/package.py: Debian's python3-torch behind the
// reference server) through remote.world is the native adapter's equal: the shipped world model
// replays the same recorded episodes (a LeRobot export of two physics runs) and the fidelity
// report (PSNR and SSIM per step, means and intervals) is the same, value for value.
TEST(TorchGeneric, ThePackageServedFromPythonReportsTheNativeAdaptersFidelity)
{
    if (!parquetAvailable())
        return; // LeRobot export and replay need the Parquet module (tst_lerobot says why)
    TempDir dir;
    nlohmann::json protocol = nlohmann::json::parse(
        std::ifstream(std::string(KOSMOS_SOURCE_DIR) + "/examples/physics-demo.json"));
    protocol["episodes_per_task"] = 1;
    protocol["policies"] = nlohmann::json::array({protocol["policies"][0]});
    std::ofstream(dir / "p.json") << protocol.dump();
    const auto bundle = (dir / "d.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    auto r = runProcessWithStderr(
        {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    r = runProcessWithStderr({test::cliPath(), "dataset", "export", bundle, "--to",
                              (dir / "lx").string(), "--format", "lerobot"});
    ASSERT_EQ(r.exitCode, 0) << r.output;

    const std::string package = std::string(KOSMOS_SOURCE_DIR) + "/models/world";
    const fs::path log = dir / "server.log";
    const pid_t server = test::startProcess(
        {"/usr/bin/env", "PYTHONPATH=" + std::string(KOSMOS_SOURCE_DIR) + "/python",
         "/usr/bin/python3", "-m", "kosmos_world", "--port", "0", "model",
         "kosmos_world.package:PackageWorld", "--args",
         nlohmann::json({{"package", package}, {"threads", 1}}).dump()},
        log, true);
    std::string url;
    for (int i = 0; i < 300 && url.empty(); ++i) {
        const std::string text = test::readFile(log);
        const auto at = text.find("ws://");
        if (at != std::string::npos && text.find('\n', at) != std::string::npos)
            url = text.substr(at, text.find('\n', at) - at);
        else
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const auto stop = [&] {
        kill(server, SIGTERM);
        test::waitProcess(server);
    };
    if (url.empty()) {
        stop();
        FAIL() << "the package server did not start: " << test::readFile(log);
    }
    const auto fidelity = [&](const nlohmann::json &world) {
        std::ofstream(dir / "w.json") << world.dump();
        const auto out =
            runProcessWithStderr({test::cliPath(), "fidelity", "replay", (dir / "lx").string(),
                                  "--world-model", (dir / "w.json").string(), "--json"});
        EXPECT_EQ(out.exitCode, 0) << out.output;
        const auto at = out.output.find('{');
        return at == std::string::npos
                   ? nlohmann::json()
                   : nlohmann::json::parse(out.output.substr(at), nullptr, false);
    };
    const nlohmann::json remote =
        fidelity({{"plugin", "remote.world"}, {"settings", {{"url", url}, {"timeout_s", 60}}}});
    const nlohmann::json native =
        fidelity({{"plugin", "torch.generic_world_model"}, {"settings", {{"package", package}}}});
    stop();
    ASSERT_TRUE(native.contains("frame_fidelity")) << native.dump();
    EXPECT_EQ(native["episodes"], nlohmann::json({0, 1}));
    EXPECT_EQ(remote["episodes"], native["episodes"]);
    EXPECT_EQ(remote["frame_fidelity"], native["frame_fidelity"]);
    EXPECT_EQ(remote["world_model"]["plugin"], "remote.world");
}
#endif
