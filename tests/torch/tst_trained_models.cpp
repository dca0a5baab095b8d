// The trained models shipped in models/ (tools/train/kosmos_train.py; docs/training.md): every
// package loads with the SHA-256 of every file its manifest names, the manifests are the ones the
// training record lists, and the C++ adapters reproduce the golden outputs the trainer computed
// in Python on a fixed input (models/golden.json): policies' physical actions, the world model's
// predicted frames, the judge module's logits.
#include "ModelPackage.h"
#include "TorchAdapters.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/script.h>

#include <fstream>
#include <map>

using namespace kosmos;
using namespace kosmos::torchadapters;
namespace fs = std::filesystem;

namespace {

const fs::path kModels = fs::path(KOSMOS_SOURCE_DIR) / "models";
// Each folder of packages with its own training record and golden outputs: the tabletop's, and
// ALOHA sim's ([benchmark-fidelity]; docs/training.md, "ALOHA sim").
const std::vector<fs::path> kModelFolders = {kModels, kModels / "aloha"};

nlohmann::json readJson(const fs::path &path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

cv::Mat goldenInput(const fs::path &folder, const nlohmann::json &golden)
{
    cv::Mat bgr = cv::imread((folder / golden["input"].get<std::string>()).string());
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

bool isPolicy(const std::string &name)
{
    return name.rfind("world", 0) != 0 && name.rfind("judge", 0) != 0;
}

} // namespace

TEST(TrainedModels, EveryShippedPackageLoadsWithTheHashesTheTrainingRecordLists)
{
    std::int64_t bytes = 0;
    for (const fs::path &folder : kModelFolders) {
        const auto record = readJson(folder / "training-record.json");
        EXPECT_EQ(record["schema"], "kosmos.training_record/1") << folder;
        EXPECT_FALSE(record["tiny"].get<bool>()) << folder;
        int packages = 0;
        for (const auto &[name, model] : record["models"].items()) {
            const ModelPackage p = loadModelPackage(folder / name); // checks every file's SHA-256
            EXPECT_EQ(p.manifestSha256, model["manifest_sha256"]) << folder << " " << name;
            EXPECT_EQ(p.file("module").sha256, model["module_sha256"]) << folder << " " << name;
            bytes += p.file("module").bytes;
            ++packages;
        }
        // The tabletop: the five first policies, the world model and the judge; the study's
        // policies ([benchmark-fidelity]) and its judge. ALOHA sim: the policies, its world model
        // and judge.
        EXPECT_EQ(packages, static_cast<int>(record["models"].size())) << folder;
        EXPECT_GE(packages, 7) << folder;
    }
    EXPECT_LT(bytes, 64 << 20) << "the shipped models stay small";
}

TEST(TrainedModels, ThePoliciesReproduceTheTrainersGoldenActions)
{
    for (const fs::path &folder : kModelFolders) {
        const auto golden = readJson(folder / "golden.json");
        const cv::Mat input = goldenInput(folder, golden);
        int policies = 0;
        for (const auto &[name, entry] : golden.items()) {
            if (!entry.is_object() || !entry.contains("actions") ||
                entry.contains("mean_pixel_per_frame")) // a world model's
                continue;
            auto policy = createTorchPolicy(ModelFamily::GenericPolicy,
                                            {{"package", (folder / name).string()}, {"warmup", 0}});
            policy->reset(1, golden["instruction"]);
            Observation obs;
            obs.image = input;
            for (const auto &v : golden.value("proprio", nlohmann::json::array()))
                obs.proprio.push_back(v.get<double>()); // the tabletop's hand, ALOHA's joints
            const ActionChunk chunk = policy->act(obs);
            ASSERT_EQ(chunk.size(), entry["actions"].size()) << name;
            for (std::size_t t = 0; t < chunk.size(); ++t) {
                ASSERT_EQ(chunk[t].size(), entry["actions"][t].size()) << name;
                for (std::size_t d = 0; d < chunk[t].size(); ++d)
                    EXPECT_NEAR(chunk[t][d], entry["actions"][t][d].get<double>(), 1e-5)
                        << folder << " " << name << " action " << t << " dimension " << d;
            }
            ++policies;
        }
        int inRecord = 0;
        const auto record = readJson(folder / "training-record.json");
        for (const auto &[name, model] : record["models"].items())
            inRecord += isPolicy(name);
        EXPECT_EQ(policies, inRecord)
            << folder << ": every policy in the record has golden actions";
    }
}

TEST(TrainedModels, TheWorldModelAndTheJudgeReproduceTheTrainersGoldenOutputs)
{
    for (const fs::path &folder : kModelFolders) {
        const auto golden = readJson(folder / "golden.json");
        const cv::Mat input = goldenInput(folder, golden);
        // Every world model of the folder (the golden entries with frames).
        int worlds = 0;
        for (const auto &[name, entry] : golden.items()) {
            if (!entry.is_object() || !entry.contains("mean_pixel_per_frame"))
                continue;
            ++worlds;
            auto world =
                createTorchWorldModel(ModelFamily::GenericWorldModel,
                                      {{"package", (folder / name).string()}, {"warmup", 0}});
            WorldStart start;
            start.startFrame = input;
            world->reset(start);
            ActionChunk actions;
            for (const auto &row : entry["actions"])
                actions.push_back(row.get<std::vector<double>>());
            const auto frames = world->step(actions);
            const auto &means = entry["mean_pixel_per_frame"];
            ASSERT_EQ(frames.size(), means.size()) << folder << " " << name;
            for (std::size_t i = 0; i < frames.size(); ++i) {
                const cv::Scalar m = cv::mean(frames[i]);
                EXPECT_NEAR((m[0] + m[1] + m[2]) / 3, means[i].get<double>(), 0.05)
                    << folder << " " << name << " frame " << i;
            }
        }
        EXPECT_GE(worlds, 1) << folder << ": golden outputs of its world model";
        // Each judge's module on the input repeated (the adapter samples from these logits).
        const cv::Mat rgb = input;
        auto image = torch::from_blob(rgb.data, {1, 1, rgb.rows, rgb.cols, 3}, torch::kUInt8)
                         .permute({0, 1, 4, 2, 3})
                         .to(torch::kFloat)
                         .div(255.0);
        const auto frames4 = image.repeat({1, 4, 1, 1, 1});
        int judges = 0;
        for (const auto &[name, entry] : golden.items()) {
            if (!entry.is_object() || !entry.contains("logits"))
                continue;
            torch::jit::Module judge = torch::jit::load((folder / name / "module.pt").string());
            const torch::Tensor logits =
                judge
                    .forward({frames4, torch::tensor({golden["instruction_id"].get<std::int64_t>()},
                                                     torch::kLong)})
                    .toTensor();
            ASSERT_EQ(logits.size(1), 6) << name;
            for (int k = 0; k < 6; ++k)
                EXPECT_NEAR(logits[0][k].item<double>(), entry["logits"][k].get<double>(), 1e-4)
                    << folder << " " << name;
            ++judges;
        }
        EXPECT_GE(judges, 1) << folder;
    }
}

TEST(TrainedModels, ModulesOptimizedForInferenceAnswerAsExportedWithinFloatRounding)
{
    // settings.optimize freezes each TorchScript module and rewrites it for inference (oneDNN's
    // prepacked convolutions): the shipped policy's actions within 1e-4, the world model's frames
    // within 2 grey levels over two autoregressive chunks, and the judge's sampled answers the
    // same (measured: 2e-6, 1 grey level, identical).
    const auto golden = readJson(kModels / "golden.json");
    const cv::Mat input = goldenInput(kModels, golden);
    const auto settings = [](const std::string &name, bool optimize) {
        nlohmann::json s = {{"package", (kModels / name).string()}, {"warmup", 0}};
        if (optimize)
            s["optimize"] = true;
        return s;
    };

    Observation obs;
    obs.image = input;
    for (const auto &v : golden["proprio"])
        obs.proprio.push_back(v.get<double>());
    std::vector<ActionChunk> chunks;
    for (const bool optimize : {false, true}) {
        auto policy =
            createTorchPolicy(ModelFamily::GenericPolicy, settings("bc-expert-full", optimize));
        policy->reset(1, golden["instruction"]);
        chunks.push_back(policy->act(obs));
    }
    ASSERT_EQ(chunks[0].size(), chunks[1].size());
    for (std::size_t t = 0; t < chunks[0].size(); ++t)
        for (std::size_t d = 0; d < chunks[0][t].size(); ++d)
            EXPECT_NEAR(chunks[1][t][d], chunks[0][t][d], 1e-4) << "action " << t << " " << d;

    ActionChunk actions;
    for (const auto &row : golden["world-3"]["actions"])
        actions.push_back(row.get<std::vector<double>>());
    std::vector<std::vector<cv::Mat>> frames(2);
    for (const bool optimize : {false, true}) {
        auto world =
            createTorchWorldModel(ModelFamily::GenericWorldModel, settings("world-3", optimize));
        WorldStart start;
        start.startFrame = input;
        world->reset(start);
        for (int chunk = 0; chunk < 2; ++chunk)
            for (cv::Mat &frame : world->step(actions))
                frames[optimize].push_back(frame);
    }
    ASSERT_EQ(frames[0].size(), frames[1].size());
    for (std::size_t i = 0; i < frames[0].size(); ++i)
        EXPECT_LE(cv::norm(frames[0][i], frames[1][i], cv::NORM_INF), 2.0) << "frame " << i;

    JudgeRequest request;
    request.instruction = golden["instruction"];
    for (int i = 0; i < 16; ++i)
        request.frames.push_back(frames[0][static_cast<std::size_t>(i) % frames[0].size()]);
    std::vector<std::string> answers[2];
    for (const bool optimize : {false, true}) {
        auto judge = createTorchJudge(ModelFamily::GenericJudge, settings("judge-4", optimize));
        for (int seed = 0; seed < 5; ++seed) {
            request.seed = seed;
            const JudgeAnswer answer = judge->sample(request);
            ASSERT_TRUE(answer.rawText) << answer.error;
            answers[optimize].push_back(*answer.rawText);
        }
    }
    EXPECT_EQ(answers[1], answers[0]);

    // Recorded in the component's identity only where set (other run keys stay as they were).
    const auto plain = torchIdentity(ModelFamily::GenericWorldModel, settings("world-3", false));
    const auto optimized = torchIdentity(ModelFamily::GenericWorldModel, settings("world-3", true));
    EXPECT_FALSE(plain["details"].contains("optimized_for_inference"));
    EXPECT_EQ(optimized["details"]["optimized_for_inference"], true);
}

TEST(TrainedModels, AnOptimizeSettingThatCannotApplyIsRefusedWithTheReason)
{
    const std::string world = (kModels / "world-3").string();
    const auto refusal = [](const nlohmann::json &settings) -> std::string {
        try {
            createTorchWorldModel(ModelFamily::GenericWorldModel, settings);
        } catch (const Error &e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
            return e.what();
        }
        return "(accepted)";
    };
    EXPECT_NE(refusal({{"package", world}, {"optimize", "yes"}})
                  .find("settings.optimize must be true or false, not \"yes\""),
              std::string::npos);
    const std::string bf16 = refusal({{"package", world}, {"optimize", true}, {"dtype", "bf16"}});
    EXPECT_NE(bf16.find("settings.optimize is for the CPU in fp32"), std::string::npos) << bf16;
    EXPECT_NE(bf16.find("cpu in bf16"), std::string::npos) << bf16;
    // The availability check says the same before any run.
    const Availability a =
        torchAvailability(ModelFamily::GenericWorldModel, {{"package", world}, {"optimize", 1}});
    EXPECT_FALSE(a.available);
    EXPECT_NE(a.reason.find("settings.optimize must be true or false"), std::string::npos)
        << a.reason;
}

namespace {

// A run's policy actions and frames (decoded), by run key.
struct RecordedRun
{
    std::string status;
    std::vector<std::vector<double>> actions;
    std::vector<cv::Mat> frames;
};

std::map<std::string, RecordedRun> recordedRuns(const fs::path &bundle)
{
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    std::map<std::string, RecordedRun> out;
    sqlite::Statement s(LedgerSql::of(ledger),
                        "SELECT r.run_key, r.status, aa.role, x.sha256 FROM runs r JOIN attempts "
                        "a USING (run_id) JOIN attempt_artifacts aa USING (attempt_id) JOIN "
                        "artifacts x USING (artifact_id) WHERE aa.role IN ('frame', 'actions') "
                        "ORDER BY r.run_id, aa.name");
    while (s.step()) {
        RecordedRun &r = out[s.text(0)];
        r.status = s.text(1);
        if (s.text(2) == "frame") {
            r.frames.push_back(ledger.artifacts().readRgb(s.text(3)));
        } else {
            const auto bytes = ledger.artifacts().read(s.text(3));
            const auto json = nlohmann::json::parse(bytes.begin(), bytes.end());
            r.actions = json["policy_actions"].get<std::vector<std::vector<double>>>();
        }
    }
    return out;
}

} // namespace

TEST(TrainedModels, EpisodesInLockstepMatchOneAtATimeWithinTheStatedTolerance)
{
    // The shipped policies and world model, imagined rollouts through kosmos-cli with --batch 1
    // and --batch 4: the same runs; batched libtorch kernels may differ in the last bits, so
    // actions agree within 1e-4 (their units: m, rad) and frames within 2 grey levels
    // (docs/pipeline.md, "Batched episodes"; measured: 2.1e-5 and 1).
    test::TempDir dir;
    const fs::path start = kModels / "golden-input.png";
    const nlohmann::json protocol = {
        {"kosmos_protocol", 1},
        {"name", "lockstep"},
        {"seed", 11},
        {"horizon", 20},
        {"episodes_per_task", 3},
        {"feedback_mode", "closed_loop"},
        {"tasks",
         {{{"id", "red_to_green"},
           {"instruction", "put the red block in the green square"},
           {"start_state",
            {{"frame", start.string()}, {"frame_sha256", Sha256::fileHex(start)}}}}}},
        {"policies",
         {{{"plugin", "torch.generic_policy"},
           {"settings", {{"package", (kModels / "bc-expert-full").string()}}}},
          {{"plugin", "torch.generic_policy"},
           {"settings", {{"package", (kModels / "bc-noisy").string()}}}}}},
        {"world_model",
         {{"plugin", "torch.generic_world_model"},
          {"settings", {{"package", (kModels / "world").string()}}}}}};
    std::ofstream(dir / "p.json") << protocol.dump(2);
    for (const std::string n : {"1", "4"}) {
        const std::string bundle = (dir / ("b" + n + ".kosmos")).string();
        ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
        const auto r = test::runProcess(
            {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle, "--batch", n});
        ASSERT_EQ(r.exitCode, 0) << r.output;
    }
    const auto one = recordedRuns(dir / "b1.kosmos");
    const auto four = recordedRuns(dir / "b4.kosmos");
    ASSERT_EQ(one.size(), 6U);
    ASSERT_EQ(four.size(), one.size());
    double actionDiff = 0, pixelDiff = 0;
    for (const auto &[key, a] : one) {
        ASSERT_TRUE(four.count(key)) << "run key " << key << " only with --batch 1";
        const RecordedRun &b = four.at(key);
        EXPECT_EQ(a.status, "completed");
        EXPECT_EQ(b.status, a.status);
        ASSERT_EQ(a.actions.size(), b.actions.size());
        for (std::size_t i = 0; i < a.actions.size(); ++i)
            for (std::size_t d = 0; d < a.actions[i].size(); ++d)
                actionDiff = std::max(actionDiff, std::abs(a.actions[i][d] - b.actions[i][d]));
        ASSERT_EQ(a.frames.size(), b.frames.size());
        for (std::size_t i = 0; i < a.frames.size(); ++i)
            pixelDiff = std::max(pixelDiff, cv::norm(a.frames[i], b.frames[i], cv::NORM_INF));
    }
    EXPECT_LE(actionDiff, 1e-4);
    EXPECT_LE(pixelDiff, 2.0);
    // And the calls were batched: the step events say how many episodes each call served.
    const auto events =
        test::runProcess({test::cliPath(), "events", (dir / "b4.kosmos").string(), "1", "--json"});
    EXPECT_NE(events.output.find("\"batch\":"), std::string::npos) << events.output;
}
