#pragma once

#include "components/Components.h"

#include <opencv2/core.hpp>

#include <optional>
#include <random>
#include <string>

namespace kosmos::synthetic {

// Where a colour is in a frame: the centroid (m) and how many pixels show it.
struct ColourBlob
{
    cv::Vec2d centreM;
    int pixels = 0;
    cv::Rect box;
};
std::optional<ColourBlob> findColour(const cv::Mat &rgb, const cv::Vec3b &colour,
                                     int tolerance = 40, int minPixels = 20);

// Scripted pick-and-place policies of graded skill. They see only the frame (colour
// segmentation) and the end-effector proprio, like a real policy sees its camera.
//   expert:   precise, small noise
//   noisy:    action noise and sloppy grasps
//   confused: sometimes goes for a block of the wrong colour
struct PolicySkill
{
    std::string name = "expert";
    double noiseM = 0.001;          // std dev of added motion noise per step (m)
    double graspToleranceM = 0.004; // how close above the block before descending
    double wrongBlockProbability = 0.0;
    double gain =
        0.6; // share of the remaining distance covered per step (slower: may run out of time)

    static PolicySkill byName(const std::string &name); // throws Error(InvalidInput)
};

class ScriptedPolicy : public Policy
{
public:
    explicit ScriptedPolicy(PolicySkill skill) : m_skill(std::move(skill)) {}
    ActionContract actionContract() const override { return ActionContract::bridgeEndEffector(); }
    void reset(std::uint64_t seed, const std::string &instruction) override;
    ActionChunk act(const Observation &observation) override;

private:
    enum class Phase
    {
        Approach,
        Descend,
        Close,
        Lift,
        Transport,
        Lower,
        Release,
        Retreat
    };
    PolicySkill m_skill;
    std::mt19937_64 m_rng;
    std::string m_blockColour;
    std::string m_targetColour;
    std::optional<cv::Vec2d> m_block;
    std::optional<cv::Vec2d> m_target;
    Phase m_phase = Phase::Approach;
    int m_phaseSteps = 0;
};

} // namespace kosmos::synthetic
