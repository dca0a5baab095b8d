// Where a protocol's components run (`kosmos-cli run --device`, the launcher's Device box): the
// device goes into the settings of every component whose plugin can use it, and nowhere else.
#include "protocol/DevicePlacement.h"
#include "util/Error.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace kosmos;

namespace {

nlohmann::json protocol()
{
    return {{"kosmos_protocol", 1},
            {"name", "p"},
            {"policies",
             {{{"plugin", "torch.generic_policy"}, {"settings", {{"package", "models/a"}}}},
              {{"plugin", "torch.cpu_only"}},
              {{"plugin", "synthetic.policy"}, {"settings", {{"variant", "A"}}}}}},
            {"world_model", {{"plugin", "torch.generic_world_model"}}},
            {"judge", {{"plugin", "synthetic.judge"}}}};
}

std::optional<bool> capability(const std::string &id)
{
    if (id == "torch.cpu_only")
        return false;
    if (id.rfind("torch.", 0) == 0)
        return true;
    return std::nullopt; // synthetic, physics, remote clients: no device setting
}

} // namespace

TEST(DevicePlacement, ACudaDeviceGoesToEveryComponentThatCanUseIt)
{
    const DevicePlacement placed = placeOnDevice(protocol(), "cuda:1", capability);
    const nlohmann::json &d = placed.document;
    EXPECT_EQ(d["policies"][0]["settings"]["device"], "cuda:1");
    EXPECT_EQ(d["policies"][0]["settings"]["package"], "models/a") << "other settings kept";
    EXPECT_FALSE(d["policies"][1].contains("settings")) << "a CPU-only libtorch stays";
    EXPECT_FALSE(d["policies"][2]["settings"].contains("device"));
    EXPECT_EQ(d["world_model"]["settings"]["device"], "cuda:1");
    EXPECT_FALSE(d["judge"].contains("settings"));
    EXPECT_EQ(placed.placed, (std::vector<std::string>{"policies[0] torch.generic_policy",
                                                       "world_model torch.generic_world_model"}));
    ASSERT_EQ(placed.left.size(), 3u);
    EXPECT_EQ(placed.left[0], "policies[1] torch.cpu_only (its libtorch is CPU-only)");
    // Everything else in the document is as it was.
    nlohmann::json rest = d;
    nlohmann::json original = protocol();
    for (auto *doc : {&rest, &original}) {
        (*doc)["policies"][0]["settings"].erase("device");
        (*doc)["world_model"].erase("settings");
    }
    EXPECT_EQ(rest, original);
}

TEST(DevicePlacement, CpuGoesToEveryComponentWithARuntime)
{
    const DevicePlacement placed = placeOnDevice(protocol(), "cpu", capability);
    EXPECT_EQ(placed.document["policies"][0]["settings"]["device"], "cpu");
    EXPECT_EQ(placed.document["policies"][1]["settings"]["device"], "cpu");
    EXPECT_FALSE(placed.document["policies"][2]["settings"].contains("device"));
    EXPECT_EQ(placed.placed.size(), 3u);
}

TEST(DevicePlacement, ADeviceNothingCanUseOrThatIsNoDeviceIsANamedError)
{
    nlohmann::json synthetic = protocol();
    synthetic["policies"] = {{{"plugin", "synthetic.policy"}}, {{"plugin", "torch.cpu_only"}}};
    synthetic["world_model"] = {{"plugin", "physics.tabletop"}};
    const std::string error = test::errorOf([&] { placeOnDevice(synthetic, "cuda", capability); });
    EXPECT_NE(error.find("--device cuda: no component of this protocol can use CUDA"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("policies[1] torch.cpu_only (its libtorch is CPU-only)"),
              std::string::npos)
        << error;
    EXPECT_NE(error.find("world_model physics.tabletop (no device setting)"), std::string::npos)
        << error;
    for (const std::string bad : {"gpu", "cuda:", "cuda:x", "CUDA", "cpu ", "cuda:123"})
        EXPECT_NE(test::errorOf([&] {
                      placeOnDevice(protocol(), bad, capability);
                  }).find("expected cpu, cuda or cuda:N"),
                  std::string::npos)
            << bad;
}

TEST(DevicePlacement, APluginsRuntimeSaysWhetherItCanUseCuda)
{
    EXPECT_EQ(cudaCapabilityOf(nlohmann::json()), std::nullopt) << "no runtime: no device setting";
    EXPECT_EQ(cudaCapabilityOf({{"libtorch", "2.15.0"}, {"cuda", true}}), std::optional(true));
    EXPECT_EQ(cudaCapabilityOf({{"libtorch", "1.13.0"}, {"cuda", false}}), std::optional(false));
    EXPECT_EQ(cudaCapabilityOf({{"libtorch", "1.13.0"}}), std::optional(false));
    EXPECT_EQ(cudaCapabilityOf({{"cuda", "yes"}}), std::optional(false)) << "only a boolean counts";
}
