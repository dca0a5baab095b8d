#include "validation/RolloutValidator.h"

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <limits>

using namespace kosmos;

namespace {

// A textured scene with a square that moves by `dx` pixels per frame when the action says so.
RolloutEvidence movingSquare(int steps, double pixelsPerMetre = 600.0)
{
    RolloutEvidence e;
    e.actionContract = ActionContract::bridgeEndEffector();
    e.frameContract.width = 160;
    e.frameContract.height = 128;
    double x = 10;
    auto render = [&](double px) {
        cv::Mat f(128, 160, CV_8UC3);
        for (int y = 0; y < 128; ++y)
            for (int xx = 0; xx < 160; ++xx)
                f.at<cv::Vec3b>(y, xx) = cv::Vec3b(static_cast<uchar>(80 + (xx * 3 + y * 5) % 40),
                                                   static_cast<uchar>(90 + (xx * 7) % 30), 100);
        cv::rectangle(f, cv::Rect(static_cast<int>(px), 50, 24, 24), cv::Scalar(250, 250, 250),
                      cv::FILLED);
        return f;
    };
    e.frames.push_back(render(x));
    e.timestamps.push_back(0);
    for (int i = 0; i < steps; ++i) {
        const double dx = (i % 3 == 0) ? 0.0 : 0.002 + 0.004 * (i % 4); // varied commanded motion
        e.actions.push_back({dx, 0, 0, 0, 0, 0, 1.0});
        x += dx * pixelsPerMetre;
        e.frames.push_back(render(x));
        e.timestamps.push_back((i + 1) * 0.2);
    }
    return e;
}

bool hasReason(const ValidationReport &r, Reason reason)
{
    return std::find(r.reasons.begin(), r.reasons.end(), reason) != r.reasons.end();
}

const CheckOutcome &check(const ValidationReport &r, const std::string &name)
{
    for (const auto &c : r.checks) {
        if (c.name == name)
            return c;
    }
    throw std::runtime_error("no check " + name);
}

} // namespace

TEST(Validation, AConsistentRolloutIsValidAndEveryMeasurementIsKept)
{
    const auto r = validateRollout(movingSquare(15));
    EXPECT_EQ(r.verdict, "valid") << r.toJson().dump(2);
    const auto &motion = check(r, "commanded_vs_observed_motion");
    EXPECT_EQ(motion.status, "pass");
    EXPECT_GT(motion.measured["pearson_r"].get<double>(), 0.8);
    EXPECT_TRUE(check(r, "black_or_constant").measured.contains("mean"));
    const auto record = r.toRecord();
    EXPECT_EQ(record.validator, "kosmos.stage_a");
    EXPECT_EQ(record.details["thresholds"]["frozen_run_min"], 3);
}

TEST(Validation, FrameCountMismatchIsInvalid)
{
    auto e = movingSquare(10);
    e.frames.pop_back();
    e.timestamps.pop_back();
    const auto r = validateRollout(e);
    EXPECT_EQ(r.verdict, "invalid");
    EXPECT_TRUE(hasReason(r, Reason::FrameCountMismatch));
}

TEST(Validation, BlackAndConstantFrames)
{
    auto e = movingSquare(10);
    e.frames[4] = cv::Mat(128, 160, CV_8UC3, cv::Scalar(0, 0, 0));
    e.frames[6] = cv::Mat(128, 160, CV_8UC3, cv::Scalar(120, 120, 120));
    const auto r = validateRollout(e);
    EXPECT_TRUE(hasReason(r, Reason::FrameBlack));
    EXPECT_TRUE(hasReason(r, Reason::FrameConstant));
    EXPECT_EQ(check(r, "black_or_constant").measured["black_frames"], nlohmann::json({4}));
}

TEST(Validation, FrozenSequenceWhileMotionIsCommanded)
{
    auto e = movingSquare(12);
    for (std::size_t i = 5; i < e.frames.size(); ++i)
        e.frames[i] = e.frames[4].clone(); // the world stopped responding
    const auto r = validateRollout(e);
    EXPECT_TRUE(hasReason(r, Reason::FrozenSequence)) << r.toJson().dump(2);
}

TEST(Validation, DiscontinuityBetweenFrames)
{
    auto e = movingSquare(10);
    cv::randu(e.frames[7], 0, 255); // a frame from nowhere
    const auto r = validateRollout(e);
    EXPECT_TRUE(hasReason(r, Reason::FrameDiscontinuity));
}

TEST(Validation, ResolutionChannelOrderAndDecodability)
{
    auto e = movingSquare(10);
    e.frames[2] = cv::Mat(64, 80, CV_8UC3, cv::Scalar(50, 60, 70));
    e.frames[3] = cv::Mat(128, 160, CV_8UC1, cv::Scalar(90));
    e.timestamps[8] = e.timestamps[7];
    e.undecodableFrames = 1;
    const auto r = validateRollout(e);
    EXPECT_TRUE(hasReason(r, Reason::FrameSizeMismatch));
    EXPECT_TRUE(hasReason(r, Reason::FrameChannelMismatch));
    EXPECT_TRUE(hasReason(r, Reason::FrameOrderInvalid));
    EXPECT_TRUE(hasReason(r, Reason::FrameUndecodable));
}

TEST(Validation, BadActions)
{
    auto e = movingSquare(10);
    e.actions[1][0] = std::numeric_limits<double>::infinity();
    e.actions[2][1] = 0.5;
    e.actions[3][6] = 1.5;
    const auto r = validateRollout(e);
    EXPECT_TRUE(hasReason(r, Reason::ActionNonFinite));
    EXPECT_TRUE(hasReason(r, Reason::ActionOutOfBounds));
    EXPECT_TRUE(hasReason(r, Reason::GripperOutOfConvention));
}

TEST(Validation, CommandedMotionThatTheFramesDoNotShow)
{
    auto e = movingSquare(15);
    // Command large motions exactly where the frames stand still, small ones where they move.
    for (auto &a : e.actions)
        a[0] = a[0] == 0.0 ? 0.014 : 0.006;
    const auto r = validateRollout(e);
    EXPECT_TRUE(hasReason(r, Reason::MotionMismatch)) << r.toJson()["checks"].dump(2);
}

TEST(Validation, TooLittleToCheckIsUnknownNotValid)
{
    RolloutEvidence e;
    e.actionContract = ActionContract::bridgeEndEffector();
    e.frameContract.width = 160;
    e.frameContract.height = 128;
    e.frames.push_back(cv::Mat(128, 160, CV_8UC3, cv::Scalar(10, 200, 30)));
    cv::randu(e.frames[0], 0, 255);
    const auto r = validateRollout(e);
    EXPECT_EQ(r.verdict, "unknown") << r.toJson().dump(2);
    EXPECT_TRUE(hasReason(r, Reason::NotEnoughFrames));
}

TEST(Validation, MeasurementsTakenBesideTheRolloutGiveTheSameReport)
{
    // As the engine does: each frame measured as it comes (the frame pipeline's thread), the
    // report made at the end from those measurements.
    for (const auto &evidence : {movingSquare(20), movingSquare(20, 0.0), movingSquare(2)}) {
        FrameMeasurements measured;
        for (const auto &f : evidence.frames)
            measured.add(f);
        EXPECT_TRUE(measured.describes(evidence, {}));
        const ValidationReport alone = validateRollout(evidence);
        const ValidationReport beside = validateRollout(evidence, {}, &measured);
        EXPECT_EQ(alone.toJson().dump(), beside.toJson().dump());
    }

    // Measurements of other frames (one missing) or under other thresholds are not used.
    RolloutEvidence e = movingSquare(12);
    FrameMeasurements partial;
    for (std::size_t i = 0; i + 1 < e.frames.size(); ++i)
        partial.add(e.frames[i]);
    EXPECT_FALSE(partial.describes(e, {}));
    EXPECT_EQ(validateRollout(e).toJson().dump(), validateRollout(e, {}, &partial).toJson().dump());
    ValidationThresholds other;
    other.flowWidth = 128;
    FrameMeasurements coarse(other);
    for (const auto &f : e.frames)
        coarse.add(f);
    EXPECT_FALSE(coarse.describes(e, {}));
    EXPECT_EQ(validateRollout(e).toJson().dump(), validateRollout(e, {}, &coarse).toJson().dump());

    // An undecodable (empty) frame is skipped by both.
    e.frames[3] = cv::Mat();
    e.undecodableFrames = 1;
    FrameMeasurements withGap;
    for (const auto &f : e.frames)
        withGap.add(f);
    EXPECT_TRUE(withGap.describes(e, {}));
    EXPECT_EQ(validateRollout(e).toJson().dump(), validateRollout(e, {}, &withGap).toJson().dump());
}

// Absolute joint targets (ALOHA's 14-D, radians): how far the picture moves is not the size of an
// action, so the motion check does not apply; the frozen check counts motion as commanded only
// where a target changed (an arm holding still may show identical frames).
TEST(Validation, JointTargetsAreNotTranslations)
{
    auto e = movingSquare(12);
    e.actionContract.dimensions[0] = {"left_arm_waist", "rad", -3.2, 3.2};
    e.actionContract.dimensions[1] = {"left_arm_shoulder", "rad", -3.2, 3.2};
    e.actionContract.dimensions[2] = {"left_arm_elbow", "rad", -3.2, 3.2};
    for (auto &a : e.actions)
        a = {0.5, -0.9, 1.1, 0, 0, 0, 1.0}; // held targets: no motion commanded
    for (std::size_t i = 5; i < e.frames.size(); ++i)
        e.frames[i] = e.frames[4].clone();
    auto r = validateRollout(e);
    EXPECT_EQ(check(r, "commanded_vs_observed_motion").status, "not_applicable");
    EXPECT_NE(check(r, "commanded_vs_observed_motion").detail.find("'left_arm_waist' in rad"),
              std::string::npos);
    EXPECT_FALSE(hasReason(r, Reason::FrozenSequence)) << r.toJson().dump(2);
    // A gripper commanded shut on what it holds: its unitless opening changes, nothing moves.
    for (std::size_t i = 0; i < e.actions.size(); ++i)
        e.actions[i][6] = 1.0 - 0.05 * static_cast<double>(i);
    r = validateRollout(e);
    EXPECT_FALSE(hasReason(r, Reason::FrozenSequence)) << r.toJson().dump(2);
    // Joint targets that keep changing while the frames stand still: frozen.
    for (std::size_t i = 0; i < e.actions.size(); ++i)
        e.actions[i][0] = 0.5 + 0.02 * static_cast<double>(i);
    r = validateRollout(e);
    EXPECT_TRUE(hasReason(r, Reason::FrozenSequence)) << r.toJson().dump(2);
    EXPECT_EQ(r.toRecord().validatorVersion, "3");
}
