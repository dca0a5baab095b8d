// The trained models shipped in models/ (tools/train/kosmos_train.py; docs/training.md): every
// package loads with the SHA-256 of every file its manifest names, the manifests are the ones the
// training record lists, and the C++ adapters reproduce the golden outputs the trainer computed
// in Python on a fixed input (models/golden.json): policies' physical actions, the world model's
// predicted frames, the judge module's logits.
#include "ModelPackage.h"
#include "TorchAdapters.h"
#include "util/Sha256.h"

#include "TestSupport.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <torch/script.h>

#include <fstream>

using namespace kosmos;
using namespace kosmos::torchadapters;
namespace fs = std::filesystem;

namespace {

const fs::path kModels = fs::path(KOSMOS_SOURCE_DIR) / "models";

nlohmann::json readJson(const fs::path &path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

cv::Mat goldenInput(const nlohmann::json &golden)
{
    cv::Mat bgr = cv::imread((kModels / golden["input"].get<std::string>()).string());
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

} // namespace

TEST(TrainedModels, EveryShippedPackageLoadsWithTheHashesTheTrainingRecordLists)
{
    const auto record = readJson(kModels / "training-record.json");
    EXPECT_EQ(record["schema"], "kosmos.training_record/1");
    EXPECT_FALSE(record["tiny"].get<bool>());
    int packages = 0;
    std::int64_t bytes = 0;
    for (const auto &[name, model] : record["models"].items()) {
        const ModelPackage p = loadModelPackage(kModels / name); // checks every file's SHA-256
        EXPECT_EQ(p.manifestSha256, model["manifest_sha256"]) << name;
        EXPECT_EQ(p.file("module").sha256, model["module_sha256"]) << name;
        bytes += p.file("module").bytes;
        ++packages;
    }
    EXPECT_EQ(packages, 7) << "five policies, the world model, the judge";
    EXPECT_LT(bytes, 40 << 20) << "the shipped models stay small";
}

TEST(TrainedModels, ThePoliciesReproduceTheTrainersGoldenActions)
{
    const auto golden = readJson(kModels / "golden.json");
    const cv::Mat input = goldenInput(golden);
    int policies = 0;
    for (const auto &[name, entry] : golden.items()) {
        if (!entry.is_object() || !entry.contains("actions") || name == "world")
            continue;
        auto policy = createTorchPolicy(ModelFamily::GenericPolicy,
                                        {{"package", (kModels / name).string()}, {"warmup", 0}});
        policy->reset(1, golden["instruction"]);
        Observation obs;
        obs.image = input;
        for (const auto &v : golden.value("proprio", nlohmann::json::array())) // hand x, y, z
            obs.proprio.push_back(v.get<double>());
        const ActionChunk chunk = policy->act(obs);
        ASSERT_EQ(chunk.size(), entry["actions"].size()) << name;
        for (std::size_t t = 0; t < chunk.size(); ++t)
            for (std::size_t d = 0; d < 7; ++d)
                EXPECT_NEAR(chunk[t][d], entry["actions"][t][d].get<double>(), 1e-5)
                    << name << " action " << t << " dimension " << d;
        ++policies;
    }
    EXPECT_EQ(policies, 5);
}

TEST(TrainedModels, TheWorldModelAndTheJudgeReproduceTheTrainersGoldenOutputs)
{
    const auto golden = readJson(kModels / "golden.json");
    const cv::Mat input = goldenInput(golden);
    auto world = createTorchWorldModel(ModelFamily::GenericWorldModel,
                                       {{"package", (kModels / "world").string()}, {"warmup", 0}});
    WorldStart start;
    start.startFrame = input;
    world->reset(start);
    ActionChunk actions;
    for (const auto &row : golden["world"]["actions"])
        actions.push_back(row.get<std::vector<double>>());
    const auto frames = world->step(actions);
    const auto &means = golden["world"]["mean_pixel_per_frame"];
    ASSERT_EQ(frames.size(), means.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const cv::Scalar m = cv::mean(frames[i]);
        EXPECT_NEAR((m[0] + m[1] + m[2]) / 3, means[i].get<double>(), 0.05) << "frame " << i;
    }
    // The judge's module on the input repeated (the adapter samples from these logits).
    torch::jit::Module judge = torch::jit::load((kModels / "judge" / "module.pt").string());
    const cv::Mat rgb = input;
    auto image = torch::from_blob(rgb.data, {1, 1, rgb.rows, rgb.cols, 3}, torch::kUInt8)
                     .permute({0, 1, 4, 2, 3})
                     .to(torch::kFloat)
                     .div(255.0);
    const auto frames4 = image.repeat({1, 4, 1, 1, 1});
    const torch::Tensor logits =
        judge
            .forward({frames4,
                      torch::tensor({golden["instruction_id"].get<std::int64_t>()}, torch::kLong)})
            .toTensor();
    ASSERT_EQ(logits.size(1), 6);
    for (int k = 0; k < 6; ++k)
        EXPECT_NEAR(logits[0][k].item<double>(), golden["judge"]["logits"][k].get<double>(), 1e-4);
}
