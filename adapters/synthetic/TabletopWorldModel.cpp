#include "synthetic/TabletopWorldModel.h"

namespace kosmos::synthetic {

FrameContract TabletopWorldModel::frameContract() const
{
    FrameContract f;
    f.width = kWidth;
    f.height = kHeight;
    f.channels = 3;
    f.dtype = "uint8";
    f.fps = 5.0;
    f.conditioningFrames = 1;
    f.framesPerAction = 1;
    f.resultIncludesConditioning = true;
    return f;
}

std::vector<cv::Mat> TabletopWorldModel::reset(const WorldStart &start)
{
    m_instruction = start.instruction;
    m_scene.reset(start.startState, start.seed);
    return {m_scene.render()};
}

std::vector<cv::Mat> TabletopWorldModel::step(const ActionChunk &actions)
{
    std::vector<cv::Mat> frames;
    for (const Action &a : actions) {
        m_scene.step(a);
        frames.push_back(m_scene.render());
    }
    return frames;
}

} // namespace kosmos::synthetic
