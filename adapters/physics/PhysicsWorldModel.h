#pragma once

#include "components/Components.h"
#include "physics/PhysicsTabletop.h"

#include <chrono>

namespace kosmos::physics {

// The physics tabletop as a world model: RGB frames from the fixed front camera (320x256 by
// default) at 5 Hz, one frame per 7-D Bridge end-effector action, N + 1 frames for N actions.
// The start comes from start_state when it names the blocks and squares (a recorded start, for
// open-loop replay) or is sampled from the run's seed; ground truth comes from the simulator's
// state and is recorded as the label source "physics".
class PhysicsWorldModel : public WorldModel
{
public:
    explicit PhysicsWorldModel(const SceneSettings &settings) : m_sim(settings) {}
    ActionContract actionContract() const override { return ActionContract::bridgeEndEffector(); }
    FrameContract frameContract() const override;
    std::vector<cv::Mat> reset(const WorldStart &start) override;
    std::vector<cv::Mat> step(const ActionChunk &actions) override;
    std::vector<double> proprio() const override;
    nlohmann::json lastCallStats() const override { return m_lastCall; }
    std::optional<GroundTruth> groundTruth() const override;
    nlohmann::json state() const override;

private:
    TabletopSim m_sim;
    TabletopTask m_task;
    nlohmann::json m_lastCall;
};

} // namespace kosmos::physics
