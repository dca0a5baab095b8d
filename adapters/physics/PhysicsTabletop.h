#pragma once

// The physics tabletop: a MuJoCo scene (a table, three coloured blocks on free joints, two target
// squares, a gripper with two position-controlled fingers on a mocap hand) driven by 7-D Bridge
// end-effector actions, rendered headless through EGL (Mesa's surfaceless platform). Its success
// comes from the simulator's state (successOf), never from anyone's judgment. docs/physics-world.md
// has the numbers.

#include "components/Components.h"
#include "physics/TabletopTask.h"

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kosmos::physics {

struct SceneSettings
{
    int width = 320; // rendered frame size (the synthetic tabletop's, for side-by-side views)
    int height = 256;
    double controlRateHz = 5.0; // one action per 0.2 s
    double timestep = 0.002;    // physics step (100 substeps per action at 5 Hz)

    // Throws Error(InvalidInput) naming the bad setting (width/height 64-640, divisible by 8).
    static SceneSettings fromJson(const nlohmann::json &settings);
};

struct Pose
{
    std::array<double, 3> pos{};
    std::array<double, 4> quat{1, 0, 0, 0}; // w x y z
};

// Where everything starts; sampled from a seed (sampleStart) or given in full.
struct StartState
{
    std::array<std::array<double, 2>, 3> blocks{};  // xy of red, blue, yellow (on the table)
    std::array<double, 3> blockYaw{};               // rad
    std::array<std::array<double, 2>, 2> regions{}; // centres of green, purple
    std::array<double, 3> hand{0.0, -0.12, 0.14};

    nlohmann::json toJson() const;
    static StartState fromJson(const nlohmann::json &json); // Error(InvalidInput) naming the field
};

// A start for `task`, deterministic in `seed`: blocks apart, the named block outside its square
// (for a push, 9-14 cm from the square's centre with room behind it), the other blocks outside
// both squares.
StartState sampleStart(const TabletopTask &task, std::uint64_t seed);

struct TaskSuccess
{
    bool success = false;
    int progress = 0; // 0-5, the judge's scale
    nlohmann::json details;
};

class TabletopSim
{
public:
    explicit TabletopSim(const SceneSettings &settings = {});
    ~TabletopSim();
    TabletopSim(const TabletopSim &) = delete;
    TabletopSim &operator=(const TabletopSim &) = delete;

    const SceneSettings &settings() const { return m_settings; }

    void reset(const StartState &start);
    // One control period: the hand moves by (dx, dy, dz) (clamped to the workspace, linearly
    // over the period), the fingers go to open (gripper 1) or closed (0). Rotations are ignored:
    // the gripper keeps its fixed, downward orientation. Throws Error(InvalidInput) for a
    // non-finite action, Error(RemoteError) if the simulation became unstable.
    void step(const Action &action);
    cv::Mat render(); // RGB, height x width, 8-bit, rows top-down

    Pose block(int index) const;
    std::array<double, 3> hand() const; // the commanded (mocap) hand position
    double fingerOpening() const;       // distance between the finger faces, m
    bool fingerTouches(int blockIndex) const;
    double blockSpeed(int index) const; // m/s
    const StartState &start() const { return m_start; }

    // The state a policy with privileged access and the pose trace see.
    nlohmann::json state() const;
    TaskSuccess successOf(const TabletopTask &task) const;
    std::int64_t physicsSteps() const { return m_physicsSteps; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    SceneSettings m_settings;
    StartState m_start;
    double m_gripper = 1.0;
    std::int64_t m_physicsSteps = 0;
};

// The fixed camera(s) the frames come from, as the frame contract declares them.
nlohmann::json declaredCameras();

// Empty when a headless GL context can be made here, else why not.
std::string headlessRenderingProblem();

} // namespace kosmos::physics
