#include "contracts/ActionContract.h"
#include "contracts/FrameContract.h"
#include "util/Error.h"

#include <gtest/gtest.h>
#include <opencv2/core.hpp>

#include <cmath>
#include <limits>

using namespace kosmos;

namespace {

ActionContract openVlaLike()
{
    ActionContract c = ActionContract::bridgeEndEffector();
    c.normalization = NormalizationScheme::BoundsQ99;
    c.statistics.values["q01"] = {-0.03, -0.04, -0.02, -0.1, -0.1, -0.2, 0.0};
    c.statistics.values["q99"] = {0.03, 0.04, 0.02, 0.1, 0.1, 0.2, 1.0};
    c.statistics.mask = {true, true, true, true, true, true, false};
    return c;
}

} // namespace

TEST(ActionContract, BridgeContractIsSound)
{
    const auto c = ActionContract::bridgeEndEffector();
    EXPECT_EQ(c.dimension(), 7);
    EXPECT_TRUE(c.checkSelf().ok()) << c.checkSelf().summary();
    EXPECT_TRUE(c.checkChunk({{0.01, 0, -0.01, 0, 0, 0.1, 1.0}}).ok());
}

TEST(ActionContract, EachActionReasonFiresOnPurpose)
{
    const auto c = ActionContract::bridgeEndEffector();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(c.checkChunk({{0, 0, 0, 0, 0, 0}}).has(Reason::ActionDimensionMismatch));
    EXPECT_TRUE(c.checkChunk({{nan, 0, 0, 0, 0, 0, 1}}).has(Reason::ActionNonFinite));
    EXPECT_TRUE(c.checkChunk({{0.2, 0, 0, 0, 0, 0, 1}}).has(Reason::ActionOutOfBounds));
    EXPECT_TRUE(c.checkChunk({{0, 0, 0, 0, 0, 0, -1}}).has(Reason::GripperOutOfConvention));
    EXPECT_TRUE(c.checkChunk({{0, 0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0, 1}})
                    .has(Reason::ChunkLengthMismatch));
    const auto check = c.checkChunk({{0.2, 0, 0, 0, 0, 0, 1}});
    EXPECT_NE(check.summary().find("action 0 dx"), std::string::npos) << check.summary();
}

TEST(ActionContract, NormalizationStatisticsAreCheckedBeforeUse)
{
    auto c = openVlaLike();
    EXPECT_TRUE(c.checkSelf().ok()) << c.checkSelf().summary();

    auto wrongKeys = c; // Octo/open-pi-zero key names given to an OpenVLA-style scheme
    wrongKeys.statistics.values.clear();
    wrongKeys.statistics.values["p01"] = c.statistics.values["q01"];
    wrongKeys.statistics.values["p99"] = c.statistics.values["q99"];
    const auto keys = wrongKeys.checkSelf();
    EXPECT_TRUE(keys.has(Reason::NormalizationKeysMismatch));
    EXPECT_NE(keys.summary().find("expects key 'q01'"), std::string::npos) << keys.summary();
    EXPECT_NE(keys.summary().find("p01"), std::string::npos) << keys.summary();

    auto wrongDim = c;
    wrongDim.statistics.values["q99"].pop_back();
    EXPECT_TRUE(wrongDim.checkSelf().has(Reason::NormalizationDimensionMismatch));

    auto noMask = c;
    noMask.statistics.mask.clear();
    EXPECT_TRUE(noMask.checkSelf().has(Reason::GripperMaskMissing));
}

TEST(ActionContract, UnnormalizeFollowsOpenVlaBoundsQ99)
{
    const auto c = openVlaLike();
    // a = -1 -> q01, a = 1 -> q99, a = 0 -> midpoint; the gripper (masked out) passes through.
    const auto lo = c.unnormalize({-1, -1, -1, -1, -1, -1, 0.7});
    const auto hi = c.unnormalize({1, 1, 1, 1, 1, 1, 0.7});
    const auto mid = c.unnormalize({0, 0, 0, 0, 0, 0, 0.7});
    EXPECT_DOUBLE_EQ(lo[0], -0.03);
    EXPECT_DOUBLE_EQ(hi[1], 0.04);
    EXPECT_NEAR(mid[5], 0.0, 1e-12);
    EXPECT_DOUBLE_EQ(lo[6], 0.7);
    const auto back = c.normalize(c.unnormalize({0.5, -0.25, 0, 0, 0, 0.9, 1}));
    EXPECT_NEAR(back[0], 0.5, 1e-6);
    EXPECT_NEAR(back[5], 0.9, 1e-6);
    EXPECT_DOUBLE_EQ(back[6], 1.0);
}

TEST(ActionContract, NormalAndQuantileSchemes)
{
    auto c = ActionContract::bridgeEndEffector();
    c.normalization = NormalizationScheme::Normal;
    c.statistics.values["mean"] = {0.01, 0, 0, 0, 0, 0, 0.5};
    c.statistics.values["std"] = {0.02, 1, 1, 1, 1, 1, 1};
    c.statistics.mask = {true, true, true, true, true, true, false};
    EXPECT_TRUE(c.checkSelf().ok());
    EXPECT_DOUBLE_EQ(c.unnormalize({1, 0, 0, 0, 0, 0, 1})[0], 0.03);

    auto q = ActionContract::bridgeEndEffector();
    q.gripperIndex.reset(); // openpi normalizes every dimension with stats
    q.normalization = NormalizationScheme::Quantile;
    q.statistics.values["q01"] = std::vector<double>(7, -1.0);
    q.statistics.values["q99"] = std::vector<double>(7, 1.0);
    EXPECT_TRUE(q.checkSelf().ok()) << q.checkSelf().summary();
    EXPECT_NEAR(q.unnormalize({1, 0, 0, 0, 0, 0, 0})[0], 1.0 + 1e-6, 1e-12);
}

TEST(ActionContract, JsonRoundTripAndFieldNamingErrors)
{
    const auto c = openVlaLike();
    const auto back = ActionContract::fromJson(c.toJson(), "policy.action_contract");
    EXPECT_EQ(back.toJson(), c.toJson());

    auto broken = c.toJson();
    broken["dimensions"][2].erase("unit");
    try {
        ActionContract::fromJson(broken, "policy.action_contract");
        FAIL() << "missing unit accepted";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("policy.action_contract.dimensions[2].unit"),
                  std::string::npos)
            << e.what();
    }
    broken = c.toJson();
    broken["gripper_convention"] = "sideways";
    EXPECT_THROW(ActionContract::fromJson(broken, "x"), Error);
}

TEST(FrameContract, ResultNeedsNPlusOneFramesOfTheRightShape)
{
    FrameContract f; // 320x256 RGB uint8, 1 conditioning frame, 1 frame per action
    EXPECT_EQ(f.expectedFrameCount(16), 17);
    std::vector<cv::Mat> frames(17, cv::Mat(256, 320, CV_8UC3, cv::Scalar(10, 20, 30)));
    EXPECT_TRUE(f.checkResult(frames, 16).ok());

    EXPECT_TRUE(
        f.checkResult(std::vector<cv::Mat>(16, frames[0]), 16).has(Reason::FrameCountMismatch));
    auto wrongSize = frames;
    wrongSize[3] = cv::Mat(128, 160, CV_8UC3);
    EXPECT_TRUE(f.checkResult(wrongSize, 16).has(Reason::FrameSizeMismatch));
    auto wrongChannels = frames;
    wrongChannels[4] = cv::Mat(256, 320, CV_8UC1);
    EXPECT_TRUE(f.checkResult(wrongChannels, 16).has(Reason::FrameChannelMismatch));
    auto wrongType = frames;
    wrongType[5] = cv::Mat(256, 320, CV_32FC3, cv::Scalar(0.1, 0.1, 0.1));
    EXPECT_TRUE(f.checkResult(wrongType, 16).has(Reason::FrameDtypeMismatch));
    auto empty = frames;
    empty[6] = cv::Mat();
    EXPECT_TRUE(f.checkResult(empty, 16).has(Reason::FrameUndecodable));

    std::vector<double> times(17);
    for (int i = 0; i < 17; ++i)
        times[static_cast<std::size_t>(i)] = i * 0.2;
    EXPECT_TRUE(f.checkResult(frames, 16, times).ok());
    times[9] = times[8];
    EXPECT_TRUE(f.checkResult(frames, 16, times).has(Reason::FrameOrderInvalid));

    FrameContract floats = f;
    floats.dtype = "float32";
    cv::Mat nanFrame(256, 320, CV_32FC3, cv::Scalar(0.5, 0.5, 0.5));
    nanFrame.at<cv::Vec3f>(10, 10)[0] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_TRUE(floats.checkFrame(nanFrame, 0).has(Reason::FrameNonFinite));
}

TEST(FrameContract, CertifiedChunkLengthsAndPadding)
{
    FrameContract f;
    f.certifiedChunkLengths = {12, 16};
    EXPECT_TRUE(f.checkChunkLength(16).ok());
    EXPECT_TRUE(f.checkChunkLength(15).has(Reason::ChunkLengthUncertified));

    ActionChunk chunk = {{0.01, 0.02, 0, 0, 0, 0, 0.0}, {0.01, 0.02, 0, 0, 0, 0.1, 1.0}};
    ActionChunk copy = chunk;
    EXPECT_TRUE(f.pad(copy, 4, 6).has(Reason::PaddingRuleMissing));
    f.padding = PaddingRule::ZeroDeltaHoldGripper;
    ASSERT_TRUE(f.pad(chunk, 4, 6).ok());
    ASSERT_EQ(chunk.size(), 4u);
    EXPECT_EQ(chunk[3], (Action{0, 0, 0, 0, 0, 0, 1.0})) << "zero motion, gripper held";
    f.padding = PaddingRule::RepeatLastAction;
    ActionChunk repeat = {{0.01, 0, 0, 0, 0, 0, 1.0}};
    ASSERT_TRUE(f.pad(repeat, 3, 6).ok());
    EXPECT_EQ(repeat[2], repeat[0]);
}

TEST(ActionConversion, ScalesAndMapsTheGripperExplicitly)
{
    const auto policy = ActionContract::bridgeEndEffector();
    auto world = ActionContract::bridgeEndEffector();
    world.gripper = GripperConvention::MinusOneClosedPlusOneOpen;
    world.dimensions[6].min = -1;
    auto conversion = ActionConversion::identity(policy, world);
    for (int i = 0; i < 6; ++i)
        conversion.scale[static_cast<std::size_t>(i)] = 20.0; // IRASim / Cosmos scaling
    conversion.binarizeGripper = true;
    EXPECT_TRUE(conversion.checkAgainst(policy, world).ok());
    const auto out = conversion.apply({0.01, -0.02, 0, 0, 0, 0.05, 0.8});
    EXPECT_DOUBLE_EQ(out[0], 0.2);
    EXPECT_DOUBLE_EQ(out[1], -0.4);
    EXPECT_DOUBLE_EQ(out[5], 1.0);
    EXPECT_DOUBLE_EQ(out[6], 1.0) << "0.8 open -> binarized open -> +1";
    EXPECT_DOUBLE_EQ(conversion.apply({0, 0, 0, 0, 0, 0, 0.3})[6], -1.0);
    EXPECT_EQ(conversion.toJson()["normalization"], "outside_backend");

    auto sixD = world;
    sixD.dimensions.pop_back();
    sixD.gripperIndex.reset();
    EXPECT_TRUE(conversion.checkAgainst(policy, sixD).has(Reason::ConversionDimensionMismatch));
}
