#include "synthetic/ScriptedPolicy.h"

#include "synthetic/TabletopScene.h"
#include "util/Error.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace kosmos::synthetic {

std::optional<ColourBlob> findColour(const cv::Mat &rgb, const cv::Vec3b &colour, int tolerance,
                                     int minPixels)
{
    if (rgb.empty() || rgb.type() != CV_8UC3)
        return std::nullopt;
    cv::Mat mask;
    const cv::Scalar lo(std::max(0, colour[0] - tolerance), std::max(0, colour[1] - tolerance),
                        std::max(0, colour[2] - tolerance));
    const cv::Scalar hi(std::min(255, colour[0] + tolerance), std::min(255, colour[1] + tolerance),
                        std::min(255, colour[2] + tolerance));
    cv::inRange(rgb, lo, hi, mask);
    const cv::Moments m = cv::moments(mask, true);
    if (m.m00 < minPixels)
        return std::nullopt;
    ColourBlob blob;
    blob.pixels = static_cast<int>(m.m00);
    blob.centreM = {m.m10 / m.m00 / kPixelsPerMetre, m.m01 / m.m00 / kPixelsPerMetre};
    blob.box = cv::boundingRect(mask);
    return blob;
}

PolicySkill PolicySkill::byName(const std::string &name)
{
    if (name == "expert")
        return {"expert", 0.001, 0.004, 0.0, 0.6};
    if (name == "noisy")
        return {"noisy", 0.007, 0.016, 0.0, 0.4};
    if (name == "confused")
        return {"confused", 0.002, 0.006, 0.65, 0.55};
    throw Error(ErrorCode::InvalidInput,
                "settings.skill: unknown skill '" + name + "' (allowed: expert, noisy, confused)");
}

void ScriptedPolicy::reset(std::uint64_t seed, const std::string &instruction)
{
    m_rng.seed(seed);
    const auto words = parseInstruction(instruction);
    if (!words)
        throw Error(ErrorCode::InvalidInput,
                    "the scripted policy cannot read the instruction '" + instruction +
                        "' (expected 'put the <colour> block in the <colour> square')");
    m_blockColour = words->block;
    m_targetColour = words->target;
    std::uniform_real_distribution<double> u(0, 1);
    if (u(m_rng) < m_skill.wrongBlockProbability) {
        std::vector<std::string> others;
        for (const auto &c : blockColours()) {
            if (c.name != m_blockColour)
                others.push_back(c.name);
        }
        m_blockColour =
            others[std::uniform_int_distribution<std::size_t>(0, others.size() - 1)(m_rng)];
    }
    m_block.reset();
    m_target.reset();
    m_phase = Phase::Approach;
    m_phaseSteps = 0;
}

ActionChunk ScriptedPolicy::act(const Observation &obs)
{
    if (obs.proprio.size() < 5)
        throw Error(ErrorCode::InvalidInput,
                    "the scripted policy needs end-effector proprio (x, y, z, yaw, gripper)");
    const cv::Vec3d ee(obs.proprio[0], obs.proprio[1], obs.proprio[2]);
    // Perception: colour segmentation of the current frame; remember the last sighting.
    if (m_phase == Phase::Approach || m_phase == Phase::Descend) {
        if (auto blob = findColour(obs.image, *colourOf(m_blockColour), 40, 60))
            m_block = blob->centreM;
    }
    if (!m_target) {
        if (auto blob = findColour(obs.image, *colourOf(m_targetColour), 30, 200))
            m_target = blob->centreM;
    }
    cv::Vec3d goal = ee;
    double gripper = 1.0;
    auto xyDistance = [&](const cv::Vec2d &p) { return std::hypot(p[0] - ee[0], p[1] - ee[1]); };
    auto next = [&](Phase phase) {
        m_phase = phase;
        m_phaseSteps = 0;
    };
    ++m_phaseSteps;
    switch (m_phase) {
    case Phase::Approach:
        if (!m_block)
            break; // nothing seen: hold still
        goal = {(*m_block)[0], (*m_block)[1], 0.08};
        if (xyDistance(*m_block) < m_skill.graspToleranceM)
            next(Phase::Descend);
        break;
    case Phase::Descend:
        goal = {(*m_block)[0], (*m_block)[1], 0.01};
        if (ee[2] < 0.02)
            next(Phase::Close);
        break;
    case Phase::Close:
        goal = ee;
        gripper = 0.0;
        next(Phase::Lift);
        break;
    case Phase::Lift:
        gripper = 0.0;
        goal = {ee[0], ee[1], 0.08};
        if (ee[2] > 0.06)
            next(Phase::Transport);
        break;
    case Phase::Transport:
        gripper = 0.0;
        if (!m_target)
            break;
        goal = {(*m_target)[0], (*m_target)[1], 0.08};
        if (xyDistance(*m_target) < 0.006)
            next(Phase::Lower);
        break;
    case Phase::Lower:
        gripper = 0.0;
        goal = {ee[0], ee[1], 0.02};
        if (ee[2] < 0.03)
            next(Phase::Release);
        break;
    case Phase::Release:
        gripper = 1.0;
        next(Phase::Retreat);
        break;
    case Phase::Retreat:
        goal = {ee[0], ee[1], 0.10};
        break;
    }
    std::normal_distribution<double> noise(0.0, m_skill.noiseM);
    Action a(7, 0.0);
    for (int i = 0; i < 3; ++i) {
        const double delta = m_skill.gain * (goal[i] - ee[i]) + (i < 2 ? noise(m_rng) : 0.0);
        a[static_cast<std::size_t>(i)] = std::clamp(delta, -0.04, 0.04);
    }
    a[6] = gripper;
    return {a};
}

} // namespace kosmos::synthetic
