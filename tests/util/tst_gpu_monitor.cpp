#include "util/GpuMonitor.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <unistd.h>

using namespace kosmos;

TEST(GpuMonitor, ReadsEveryDeviceThroughNvmlLoadedAtRunTime)
{
    const GpuMonitor monitor(KOSMOS_FAKE_NVML);
    const GpuSnapshot s = monitor.sample();
    ASSERT_TRUE(s.available) << s.reason;
    EXPECT_EQ(s.driverVersion, "999.99-fake");
    ASSERT_EQ(s.devices.size(), 2u);
    EXPECT_EQ(s.devices[0].name, "Fake GPU A");
    EXPECT_EQ(s.devices[0].totalBytes, 80ll << 30);
    EXPECT_EQ(s.devices[0].freeBytes, 20ll << 30);
    EXPECT_EQ(s.devices[0].utilizationPercent, 87);
    ASSERT_EQ(s.devices[0].processes.size(), 1u);
    EXPECT_EQ(s.devices[0].processes[0].pid, static_cast<int>(::getpid()));
    EXPECT_EQ(s.devices[0].processes[0].usedBytes, 3ll << 30);
    EXPECT_TRUE(s.devices[1].processes.empty());
    EXPECT_EQ(s.summary(), "GPU 0 Fake GPU A: 60.0 of 80.0 GiB used, 87% busy; "
                           "GPU 1 Fake GPU B: 2.0 of 80.0 GiB used, 0% busy");
    const nlohmann::json j = s.toJson();
    EXPECT_EQ(j["devices"][1]["free_bytes"], 78ll << 30);
    EXPECT_EQ(j["driver"], "999.99-fake");
}

TEST(GpuMonitor, NoDriverOrABrokenOneIsSaidPlainlyAndNothingFails)
{
    const GpuSnapshot none = GpuMonitor("/nonexistent/libnvidia-ml.so.1").sample();
    EXPECT_FALSE(none.available);
    EXPECT_EQ(none.reason, "no NVIDIA driver (/nonexistent/libnvidia-ml.so.1 cannot be loaded)");
    EXPECT_EQ(none.summary(), "GPU: " + none.reason);
    EXPECT_EQ(none.toJson()["devices"].size(), 0u);

    // A library without NVML's entry points (libm) is not taken for one.
    const GpuSnapshot notNvml = GpuMonitor("libm.so.6").sample();
    EXPECT_FALSE(notNvml.available);
    EXPECT_NE(notNvml.reason.find("is not a usable NVML library"), std::string::npos);

    ::setenv("FAKE_NVML_FAIL_INIT", "1", 1);
    const GpuSnapshot broken = GpuMonitor(KOSMOS_FAKE_NVML).sample();
    ::unsetenv("FAKE_NVML_FAIL_INIT");
    EXPECT_FALSE(broken.available);
    EXPECT_EQ(broken.reason, "the NVIDIA driver did not start NVML: Driver Not Loaded");
}

TEST(GpuMonitor, TheBudgetCheckRefusesWithTheNumbersWhenTheModelsDoNotFit)
{
    const GpuSnapshot s = GpuMonitor(KOSMOS_FAKE_NVML).sample();
    // CPU only: nothing to check, even without a driver.
    EXPECT_EQ(gpuBudgetProblem({{"cpu", 1ll << 40}}, GpuSnapshot{}), "");
    EXPECT_EQ(gpuBudgetProblem({{"cuda:0", 8ll << 30}, {"cuda", 4ll << 30}}, s), "");
    EXPECT_EQ(gpuBudgetProblem({{"cuda:0", 16ll << 30}, {"cuda", 8ll << 30}}, s),
              "cuda:0 (Fake GPU A): the components declare 24.0 GiB, 20.0 GiB of 80.0 GiB are "
              "free");
    EXPECT_EQ(gpuBudgetProblem({{"cuda:1", 70ll << 30}}, s), "");
    EXPECT_EQ(gpuBudgetProblem({{"cuda:3", 1}}, s),
              "cuda:3 does not exist (this machine has 2 GPU(s))");
    EXPECT_EQ(gpuBudgetProblem({{"cuda:0", 1}}, GpuMonitor("/nonexistent/x.so").sample()),
              "the batch runs on CUDA but no NVIDIA driver (/nonexistent/x.so cannot be loaded)");
}

TEST(GpuMonitor, TheCliListsTheDevicesOrSaysThereIsNoDriver)
{
    ::setenv("KOSMOS_NVML_LIBRARY", KOSMOS_FAKE_NVML, 1);
    const auto listed = test::runProcess({test::cliPath(), "gpus"});
    ::setenv("KOSMOS_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    const auto none = test::runProcess({test::cliPath(), "gpus", "--json"});
    ::unsetenv("KOSMOS_NVML_LIBRARY");
    EXPECT_EQ(listed.exitCode, 0) << listed.output;
    EXPECT_NE(listed.output.find("cuda:0  Fake GPU A"), std::string::npos) << listed.output;
    EXPECT_NE(listed.output.find("20.0 GiB free of     80.0 GiB  busy 87%"), std::string::npos)
        << listed.output;
    EXPECT_EQ(none.exitCode, 0);
    EXPECT_NE(none.output.find("\"reason\": \"no NVIDIA driver"), std::string::npos) << none.output;
}
