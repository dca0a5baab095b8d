// remote.lerobot's messages as LeRobot's own ACT and Diffusion Policy really exchanged them
// through the bridge in a workstation run in gym-pusht (tests/fixtures/remote-lerobot, recorded
// with settings.record; versions and provenance in its exchange.json): no Python and no socket,
// so the sanitizer stages cover the wire code on real bytes. The requests this code builds from
// the same observation must be the recorded ones byte for byte (the bridge accepted those, and
// tools/lerobot/check_workstation_actions.py showed LeRobot in one process returns the same
// actions for them); what the workstation cannot feed is refused by name.
#include "LeRobotWire.h"
#include "TestSupport.h"
#include "util/Error.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cstring>
#include <filesystem>

using namespace kosmos;
using namespace kosmos::remote;
namespace fs = std::filesystem;

namespace {

const fs::path kDir = fs::path(KOSMOS_SOURCE_DIR) / "tests/fixtures/remote-lerobot";

std::string bytes(const std::string &policy, const std::string &name)
{
    return test::readFile(kDir / policy / (name + ".msgpack"));
}

// The observation a recorded act request carried, back as the workstation holds it.
Observation observationOf(const std::string &request)
{
    const MsgValue r = unpackOpenPi(request, "request");
    const MsgValue *o = r.find("observation");
    EXPECT_NE(o, nullptr);
    const NdArray &image = o->find("observation.image")->array;
    const NdArray &state = o->find("observation.state")->array;
    Observation out;
    out.image =
        cv::Mat(static_cast<int>(image.shape[0]), static_cast<int>(image.shape[1]), CV_8UC3);
    std::memcpy(out.image.data, image.data.data(), image.data.size());
    for (std::int64_t i = 0; i < state.count(); ++i)
        out.proprio.push_back(state.at(i));
    out.instruction = r.find("instruction")->s;
    return out;
}

// The recorded metadata with one field replaced, packed again.
std::string metadataWith(const std::string &key, MsgValue value)
{
    MsgValue m = unpackOpenPi(bytes("act", "metadata"), "metadata");
    for (auto &[k, v] : m.map)
        if (k == key)
            v = std::move(value);
    return packOpenPi(m);
}

MsgValue feature(const std::string &type, std::vector<double> shape)
{
    MsgValue s;
    s.kind = MsgValue::Kind::Array;
    for (double n : shape) {
        MsgValue v;
        v.kind = MsgValue::Kind::Int;
        v.i = static_cast<std::int64_t>(n);
        s.items.push_back(v);
    }
    return MsgValue::object({{"type", MsgValue::str(type)}, {"shape", s}});
}

} // namespace

TEST(LeRobotWire, TheRecordedActMetadataGivesItsFeaturesAndContract)
{
    const LeRobotDescription d = describeLeRobotPolicy(bytes("act", "metadata"));
    EXPECT_EQ(d.policyType, "act");
    ASSERT_EQ(d.inputs.size(), 2u);
    EXPECT_EQ(d.inputs[0].name, "observation.image");
    EXPECT_EQ(d.inputs[0].shape, (std::vector<std::int64_t>{3, 96, 96}));
    EXPECT_EQ(d.inputs[1].name, "observation.state");
    EXPECT_EQ(d.actionDim, 2);
    EXPECT_EQ(d.metadata["versions"]["lerobot"], "0.4.4");
    EXPECT_EQ(d.metadata["files_sha256"].size(), 6u);
    const ActionContract c = leRobotContract(d, 0.1, nullptr, 10.0);
    ASSERT_EQ(c.dimension(), 2);
    EXPECT_EQ(c.dimensions[0].name, "action_0");
    const double span = d.actionMax[0] - d.actionMin[0];
    EXPECT_DOUBLE_EQ(c.dimensions[0].min, d.actionMin[0] - 0.1 * span);
    EXPECT_DOUBLE_EQ(c.dimensions[0].max, d.actionMax[0] + 0.1 * span);
    EXPECT_EQ(c.chunkLength, 1) << "one select_action per call";
    EXPECT_TRUE(c.checkSelf().ok());
    LeRobotDescription still = d; // the training data never moved dimension 1
    still.actionMin[1] = still.actionMax[1] = 0.0;
    for (const double margin : {0.0, 0.1}) {
        const ActionContract c0 = leRobotContract(still, margin, nullptr, 10.0);
        EXPECT_TRUE(c0.checkSelf().ok()) << margin << ": " << c0.checkSelf().summary();
        EXPECT_LT(c0.dimensions[1].max - c0.dimensions[1].min, 1e-8);
    }
    const ActionContract given =
        leRobotContract(d, 0.1, {{"min", {0, 0}}, {"max", {512, 512}}}, 10.0);
    EXPECT_EQ(given.dimensions[1].max, 512.0) << "bounds given are taken as they are";
    EXPECT_NE(test::errorOf([&] {
                  leRobotContract(d, 0, {{"min", {0}}, {"max", {1}}}, 10);
              }).find("2 values each"),
              std::string::npos);
}

TEST(LeRobotWire, TheRequestsBuiltHereAreTheRecordedOnesByteForByte)
{
    for (const std::string policy : {"act", "diffusion"}) {
        const LeRobotDescription d = describeLeRobotPolicy(bytes(policy, "metadata"));
        const MsgValue reset = unpackOpenPi(bytes(policy, "request-0"), "reset");
        EXPECT_EQ(packLeRobotReset(static_cast<std::uint64_t>(reset.find("seed")->i),
                                   reset.find("instruction")->s),
                  bytes(policy, "request-0"))
            << policy;
        EXPECT_EQ(unpackOpenPi(bytes(policy, "reply-0"), "reply").find("ok")->b, true);
        const int acts = policy == "act" ? 2 : 1;
        for (int i = 1; i <= acts; ++i) {
            const std::string request = bytes(policy, "request-" + std::to_string(i));
            const Observation o = observationOf(request);
            EXPECT_EQ(packLeRobotAct(d, o), request) << policy << " act " << i;
            // The same frame at twice the size: area-resized back to exactly the recorded one.
            Observation larger = o;
            cv::resize(o.image, larger.image, cv::Size(192, 192), 0, 0, cv::INTER_NEAREST);
            EXPECT_EQ(packLeRobotAct(d, larger), request) << policy << " act " << i;
            const Action a = parseLeRobotActions(bytes(policy, "reply-" + std::to_string(i)), d);
            ASSERT_EQ(a.size(), 2u);
            const MsgValue reply =
                unpackOpenPi(bytes(policy, "reply-" + std::to_string(i)), "reply");
            EXPECT_EQ(a[0], reply.find("actions")->array.at(0));
            EXPECT_EQ(a[1], reply.find("actions")->array.at(1));
        }
    }
}

TEST(LeRobotWire, WhatTheWorkstationCannotFeedIsRefusedByName)
{
    const LeRobotDescription d = describeLeRobotPolicy(bytes("act", "metadata"));
    Observation o = observationOf(bytes("act", "request-1"));
    o.proprio.push_back(0.5);
    EXPECT_NE(test::errorOf([&] {
                  packLeRobotAct(d, o);
              }).find("observation.state takes 2 values; the world reports 3"),
              std::string::npos);
    o.proprio.pop_back();
    o.image = cv::Mat();
    EXPECT_NE(
        test::errorOf([&] { packLeRobotAct(d, o); }).find("no RGB frame for observation.image"),
        std::string::npos);

    // PushT's keypoints policy, a two-camera ALOHA policy, a depth camera: named.
    const auto inputs = [](std::vector<std::pair<std::string, MsgValue>> entries) {
        return metadataWith("input_features", MsgValue::object(std::move(entries)));
    };
    EXPECT_NE(test::errorOf([&] {
                  describeLeRobotPolicy(
                      inputs({{"observation.environment_state", feature("ENV", {16})},
                              {"observation.state", feature("STATE", {2})}}));
              }).find("observation.environment_state (ENV, [16]) cannot be fed"),
              std::string::npos);
    EXPECT_NE(test::errorOf([&] {
                  describeLeRobotPolicy(
                      inputs({{"observation.images.top", feature("VISUAL", {3, 480, 640})},
                              {"observation.images.wrist", feature("VISUAL", {3, 480, 640})}}));
              }).find("takes 2 cameras (observation.images.top, observation.images.wrist)"),
              std::string::npos);
    EXPECT_NE(
        test::errorOf([&] {
            describeLeRobotPolicy(inputs({{"observation.depth", feature("VISUAL", {1, 96, 96})}}));
        }).find("a camera of shape [1, 96, 96]"),
        std::string::npos);
    // A reply of the wrong width, or not a LeRobot bridge at all.
    const std::string wide = packOpenPi(MsgValue::object(
        {{"actions", MsgValue::ndarray(NdArray::float32({1, 3}, {1.0f, 2.0f, 3.0f}))}}));
    EXPECT_NE(
        test::errorOf([&] { parseLeRobotActions(wide, d); }).find("shape [1, 3], expected [1, 2]"),
        std::string::npos);
    EXPECT_NE(test::errorOf([&] {
                  describeLeRobotPolicy(
                      packOpenPi(MsgValue::object({{"kosmos_world", MsgValue::number(1)}})));
              }).find("not a LeRobot policy bridge's"),
              std::string::npos);
    EXPECT_EQ(
        test::errorOf([&] { describeLeRobotPolicy(metadataWith("action", MsgValue::object({}))); }),
        "(no error)")
        << "no statistics is no error here";
    const LeRobotDescription bare =
        describeLeRobotPolicy(metadataWith("action", MsgValue::object({})));
    EXPECT_NE(test::errorOf([&] {
                  leRobotContract(bare, 0.1, nullptr, 10);
              }).find("give settings.action_bounds"),
              std::string::npos);
}

// Found by fuzz_lerobot_wire: a string that is not UTF-8 (here the policy type) made the error
// message's JSON throw past the named errors. Every string from a server is valid UTF-8 once
// read (an invalid byte becomes U+FFFD), so the metadata can always be written.
TEST(LeRobotWire, AStringThatIsNotUtf8IsReadWithReplacementCharacters)
{
    const LeRobotDescription d =
        describeLeRobotPolicy(metadataWith("policy_type", MsgValue::str("act\x9e")));
    EXPECT_EQ(d.policyType, "act\xef\xbf\xbd");
    EXPECT_NO_THROW((void)d.metadata.dump());
    EXPECT_NE(test::errorOf([&] {
                  describeLeRobotPolicy(metadataWith("framework", MsgValue::str("\xff\xfe")));
              }).find("not a LeRobot policy bridge's"),
              std::string::npos);
}
