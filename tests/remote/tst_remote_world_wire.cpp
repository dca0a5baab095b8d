// remote.world's messages as the reference server really sent them, serving gym-pusht (recorded
// by tools/worlds/record_exchanges.py into tests/fixtures/remote-world/pusht, versions in its
// exchange.json): parsed with no Python and no socket, so the sanitizer stages cover the wire
// code on real bytes. The frames must equal, byte for byte, those of an independent run of the
// same environment, seed and actions (the PNGs beside them); a reply cut short or with a frame
// of the wrong size is refused by name.
#include "RemoteWorldWire.h"
#include "TestSupport.h"
#include "util/Error.h"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstring>
#include <filesystem>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = fs::path(KOSMOS_SOURCE_DIR) / "tests/fixtures/remote-world/pusht";

std::string bytes(const char *name)
{
    return test::readFile(kDir / name);
}

cv::Mat png(int i)
{
    cv::Mat bgr =
        cv::imread((kDir / ("frame-" + std::to_string(i) + ".png")).string(), cv::IMREAD_COLOR);
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

} // namespace

TEST(RemoteWorldWire, TheRecordedGymPushTExchangeParsesIntoItsContractsFramesAndState)
{
    const remote::WorldDescription d = remote::describeWorld(bytes("metadata.msgpack"));
    EXPECT_EQ(d.kind, "simulator");
    EXPECT_EQ(d.metadata["env_id"], "gym_pusht/PushT-v0");
    ASSERT_EQ(d.action.dimension(), 2);
    EXPECT_EQ(d.action.dimensions[0].min, 0.0);
    EXPECT_EQ(d.action.dimensions[0].max, 512.0);
    EXPECT_EQ(d.frame.width, 96);
    EXPECT_EQ(d.frame.height, 96);
    EXPECT_EQ(d.action.controlRateHz, 10.0);
    EXPECT_EQ(d.metadata["reported_by_server"], true);

    const auto reset = remote::parseWorldReply(bytes("reply-0.msgpack"), d, std::nullopt, "reset");
    ASSERT_EQ(reset.frames.size(), 1u);
    EXPECT_EQ(cv::norm(reset.frames[0], png(0), cv::NORM_INF), 0.0);
    EXPECT_EQ(reset.state["env_seed"][0], 2026120607.0);
    ASSERT_EQ(reset.proprio.size(), 2u) << "PushT's agent_pos";
    EXPECT_EQ(reset.success, false);
    EXPECT_TRUE(reset.state.contains("info.block_pose")) << reset.state.dump();
    for (int i = 1; i <= 2; ++i) {
        const std::string name = "reply-" + std::to_string(i) + ".msgpack";
        const auto step = remote::parseWorldReply(bytes(name.c_str()), d, 1, "step");
        ASSERT_EQ(step.frames.size(), 1u);
        EXPECT_EQ(cv::norm(step.frames[0], png(i), cv::NORM_INF), 0.0) << "step " << i;
        EXPECT_TRUE(step.serverCallMs.has_value());
    }
}

TEST(RemoteWorldWire, ARecordedReplyCutShortOrForAnotherSizeIsRefusedByName)
{
    const remote::WorldDescription d = remote::describeWorld(bytes("metadata.msgpack"));
    const std::string reply = bytes("reply-1.msgpack");
    for (std::size_t keep : {std::size_t{0}, std::size_t{10}, reply.size() / 2, reply.size() - 1}) {
        try {
            remote::parseWorldReply(reply.substr(0, keep), d, 1, "step");
            ADD_FAILURE() << "a reply cut to " << keep << " bytes was accepted";
        } catch (const Error &e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidInput) << e.what();
            EXPECT_NE(std::string(e.what()).find("step reply"), std::string::npos) << e.what();
        }
    }
    remote::WorldDescription smaller = d;
    smaller.frame.width = 64;
    try {
        remote::parseWorldReply(reply, smaller, 1, "step");
        ADD_FAILURE() << "a 96x96 frame was accepted for a 64-wide world";
    } catch (const Error &e) {
        EXPECT_NE(std::string(e.what()).find("96"), std::string::npos) << e.what();
    }
    try {
        remote::parseWorldReply(reply, d, 2, "step");
        ADD_FAILURE() << "one frame was accepted for two actions";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidInput) << e.what();
    }
}

// A reply whose frames are in the client's shared-memory segment ("frames_shared": {offset,
// shape}): read out of the segment, checked against the declared size and the segment's bounds,
// and refused by name when no segment was offered.
TEST(RemoteWorldWire, FramesInSharedMemoryAreReadWithinTheSegmentOnly)
{
    const remote::WorldDescription d = remote::describeWorld(bytes("metadata.msgpack"));
    const std::size_t frame = 96 * 96 * 3;
    std::vector<unsigned char> segment(3 * frame + 16);
    for (std::size_t i = 0; i < segment.size(); ++i)
        segment[i] = static_cast<unsigned char>(i * 7 % 251);
    const remote::SharedBytes shared{segment.data(), segment.size()};
    const auto reply = [](std::int64_t offset, std::vector<std::int64_t> shape) {
        using remote::MsgValue;
        MsgValue at, dims;
        at.kind = MsgValue::Kind::Int;
        at.i = offset;
        dims.kind = MsgValue::Kind::Array;
        for (std::int64_t s : shape) {
            MsgValue v;
            v.kind = MsgValue::Kind::Int;
            v.i = s;
            dims.items.push_back(v);
        }
        return remote::packOpenPi(MsgValue::object(
            {{"frames_shared", MsgValue::object({{"offset", at}, {"shape", dims}})},
             {"success", MsgValue()},
             {"server_timing", MsgValue::object({{"call_ms", MsgValue::number(1.5)},
                                                 {"world_ms", MsgValue::number(1.25)}})}}));
    };
    const auto two = remote::parseWorldReply(reply(16, {2, 96, 96, 3}), d, 2, "step", &shared);
    ASSERT_EQ(two.frames.size(), 2u);
    EXPECT_TRUE(two.framesShared);
    EXPECT_EQ(two.serverWorldMs, 1.25);
    for (std::size_t f = 0; f < 2; ++f)
        EXPECT_EQ(std::memcmp(two.frames[f].data, segment.data() + 16 + f * frame, frame), 0);

    const auto refused = [&](const std::string &message, std::optional<std::size_t> count,
                             const remote::SharedBytes *offered, const std::string &expected) {
        try {
            remote::parseWorldReply(message, d, count, "step", offered);
            ADD_FAILURE() << "accepted; expected: " << expected;
        } catch (const Error &e) {
            EXPECT_EQ(e.code(), ErrorCode::InvalidInput) << e.what();
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    };
    refused(reply(0, {1, 96, 96, 3}), 1, nullptr, "none was offered");
    refused(reply(17, {3, 96, 96, 3}), 3, &shared, "run past the segment's");
    refused(reply(0, {1, 96, 95, 3}), 1, &shared, "expected [N, 96, 96, 3]");
    refused(reply(-1, {1, 96, 96, 3}), 1, &shared, "offset: not a non-negative integer");
    refused(reply(0, {2, 96, 96, 3}), 1, &shared, "2 frames for 1 actions");
    refused(reply(std::int64_t{1} << 62, {1, 96, 96, 3}), 1, &shared, "run past");
}
