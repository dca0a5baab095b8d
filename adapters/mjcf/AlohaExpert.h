#pragma once

// ALOHA sim's scripted experts as ACT makes its demonstrations (docs/physics-world.md, "Scripted
// experts"): waypoint trajectories for the two mocap end effectors, planned from the objects'
// start poses, run in gym-aloha's end-effector scene (bimanual_viperx_end_effector_*.xml; the
// mocap bodies welded to the grippers), and the joint positions that produces, with the commanded
// gripper openings, replayed as 14-D joint targets in the world. The waypoints, timings and grasp
// heights are those of ACT's scripted_policy.py (PickAndTransferPolicy, InsertionPolicy); the code
// is this project's. Noise levels perturb the plan from the run's seed: waypoint positions, their
// timing, the grasp point (an offset on the object's position), and ACT's own per-step jitter.
//
// The expert reads the simulator's state (privileged, as a scripted baseline does; never a learned
// policy's input), so it runs only in physics.mjcf on an ALOHA task.

#include "components/Components.h"
#include "mjcf/ScenePackages.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kosmos::mjcf {

class MjcfScene;

struct ExpertNoise
{
    std::string level = "none";
    double waypointM = 0;    // each waypoint's xyz moved by U(-w, w) per axis
    int timingSteps = 0;     // each intermediate waypoint's time moved by U{-k..k} steps
    double graspOffsetM = 0; // the object position the plan uses moved by U(-g, g) in x and y
    double stepNoiseM = 0;   // ACT's inject_noise: every step's xyz moved by U(-s, s) per axis

    nlohmann::json toJson() const;
};

struct ExpertSettings
{
    ExpertNoise noise;
    SceneLookup lookup;
    // Throws Error(InvalidInput) naming the bad setting. Levels: none (ACT's plan as it is), act
    // (ACT's inject_noise: 1 cm per step), low, medium, high (docs/physics-world.md lists them);
    // waypoint_noise_m, timing_noise_steps, grasp_offset_m, step_noise_m override a level's value.
    static ExpertSettings fromJson(const nlohmann::json &settings);
};

struct Waypoint
{
    int t = 0;
    std::array<double, 3> xyz{};
    std::array<double, 4> quat{1, 0, 0, 0};
    double gripper = 0;
};

struct ExpertPlan
{
    std::vector<Waypoint> left;
    std::vector<Waypoint> right;
};

// ACT's plan for `task` ("aloha_transfer_cube", "aloha_insertion") from the objects' start poses
// (the world's free joints: [x y z qw qx qy qz]) and the mocap bodies' start poses; throws
// Error(InvalidInput) for another task.
ExpertPlan actPlan(const std::string &task, const nlohmann::json &freeJoints,
                   const std::array<double, 7> &leftStart, const std::array<double, 7> &rightStart,
                   const std::array<double, 2> &graspOffset = {0, 0});

// The pose and gripper at step t between the waypoints (linear in xyz, quaternion and gripper, as
// ACT interpolates); after the last waypoint, the last.
Waypoint interpolate(const std::vector<Waypoint> &trajectory, int t);

class AlohaExpert : public Policy
{
public:
    explicit AlohaExpert(ExpertSettings settings);
    ~AlohaExpert() override;
    ActionContract actionContract() const override { return m_contract; }
    void reset(std::uint64_t seed, const std::string &instruction) override;
    ActionChunk act(const Observation &observation) override;
    nlohmann::json lastCallStats() const override { return m_lastCall; }

    // The joint trajectory for `steps` steps of `task` from the objects' start (what act()
    // replays), made in the end-effector scene: steps rows of 14 values.
    std::vector<std::vector<double>> plan(const std::string &task, const nlohmann::json &freeJoints,
                                          int steps, std::uint64_t seed);

private:
    MjcfScene &endEffectorScene(const std::string &task);

    ExpertSettings m_settings;
    std::map<std::string, std::unique_ptr<MjcfScene>> m_scenes; // by task
    ActionContract m_contract;
    std::uint64_t m_seed = 0;
    std::vector<std::vector<double>> m_trajectory;
    nlohmann::json m_lastCall;
};

} // namespace kosmos::mjcf
