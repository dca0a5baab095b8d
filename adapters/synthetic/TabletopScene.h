#pragma once

#include "components/Components.h"

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include <array>
#include <map>
#include <optional>
#include <random>
#include <string>

namespace kosmos::synthetic {

// A procedural tabletop seen from above: a gripper, coloured blocks, coloured target squares.
// Metres map to pixels at kPixelsPerMetre; the table is 0.40 m x 0.32 m = 320 x 256 pixels.
inline constexpr double kPixelsPerMetre = 800.0;
inline constexpr int kWidth = 320;
inline constexpr int kHeight = 256;
inline constexpr double kBlockSize = 0.04;  // m
inline constexpr double kTargetSize = 0.08; // m
inline constexpr double kMaxZ = 0.15;

struct NamedColour
{
    const char *name;
    cv::Vec3b rgb;
};
// Block colours and target colours are disjoint, so colour segmentation can tell them apart.
const std::vector<NamedColour> &blockColours();
const std::vector<NamedColour> &targetColours();
std::optional<cv::Vec3b> colourOf(const std::string &name);

// "put the red block in the green square" -> {"red", "green"}.
struct TaskWords
{
    std::string block;
    std::string target;
};
std::optional<TaskWords> parseInstruction(const std::string &instruction);

struct SceneState
{
    cv::Vec3d ee{0.2, 0.16, 0.10}; // x, y, z (m)
    double yaw = 0;
    bool gripperOpen = true;
    std::map<std::string, cv::Vec2d> blocks;  // colour -> centre (m)
    std::map<std::string, cv::Vec2d> targets; // colour -> centre (m)
    std::optional<std::string> held;
    std::map<std::string, cv::Vec2d> blockStarts;
};

class TabletopScene
{
public:
    // startState: {"ee": [x,y,z], "blocks": {"red": [x,y], ...}, "targets": {"green": [x,y]},
    // "randomize_m": jitter}; missing parts get defaults. Throws Error(InvalidInput) naming the
    // field.
    void reset(const nlohmann::json &startState, std::uint64_t seed);
    // One Bridge end-effector action: dx dy dz droll dpitch dyaw gripper(0 closed, 1 open).
    void step(const Action &action);
    cv::Mat render() const;
    const SceneState &state() const { return m_state; }
    GroundTruth groundTruth(const std::string &instruction) const;
    std::vector<double> proprio() const;

private:
    SceneState m_state;
    cv::Mat m_table; // the textured table, rendered once per episode
};

} // namespace kosmos::synthetic
