#pragma once

#include "components/Components.h"

namespace kosmos::synthetic {

// A synthetic VLM stand-in that looks only at the 16 frames and the instruction (colour
// segmentation) and answers in the judge schema. Imperfect by design: it cannot tell a block
// held above the square from one placed in it, it is unsure when the gripper hides the block,
// and each sample judges the square's edge with a seeded tolerance, so near-misses split the
// vote. Its answers are mostly bare JSON, sometimes fenced, now and then malformed.
class FrameJudge : public Judge
{
public:
    explicit FrameJudge(double formatNoise = 0.1) : m_formatNoise(formatNoise) {}
    JudgeAnswer sample(const JudgeRequest &request) override;

private:
    double m_formatNoise;
};

} // namespace kosmos::synthetic
