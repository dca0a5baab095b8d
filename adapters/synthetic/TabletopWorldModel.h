#pragma once

#include "components/Components.h"
#include "synthetic/TabletopScene.h"

namespace kosmos::synthetic {

// The procedural tabletop as a world model: 320x256 RGB frames at 5 Hz, one frame per Bridge
// end-effector action, N + 1 frames for N actions. It knows the true task state.
class TabletopWorldModel : public WorldModel
{
public:
    ActionContract actionContract() const override { return ActionContract::bridgeEndEffector(); }
    FrameContract frameContract() const override;
    std::vector<cv::Mat> reset(const WorldStart &start) override;
    std::vector<cv::Mat> step(const ActionChunk &actions) override;
    std::vector<double> proprio() const override { return m_scene.proprio(); }
    std::optional<GroundTruth> groundTruth() const override
    {
        return m_scene.groundTruth(m_instruction);
    }

private:
    TabletopScene m_scene;
    std::string m_instruction;
};

} // namespace kosmos::synthetic
