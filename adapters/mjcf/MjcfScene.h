#pragma once

// One loaded MJCF scene on MuJoCo 4 (the pinned wheel's library): model and data, names resolved
// to ids, stepping as the task says, contacts by geom, and headless rendering of a named camera
// through EGL. Used by the world (MjcfWorld) and by the scripted experts' end-effector scene
// (AlohaExpert). The header keeps MuJoCo's own out of its users.

#include "mjcf/MjcfTask.h"

#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

struct mjModel_;
struct mjData_;

namespace kosmos::mjcf {

enum class ObjectKind
{
    Body,
    Joint,
    Geom,
    Actuator,
    Camera,
};

struct RenderOptions
{
    std::string camera;
    int width = 320;
    int height = 240;
    bool shadows = false;
    bool reflections = false;
};

class MjcfScene
{
public:
    // Loads the scene (meshes resolved beside it). Throws Error(InvalidInput) with MuJoCo's
    // message and the file. `who` prefixes errors.
    MjcfScene(const std::filesystem::path &xml, std::string who);
    ~MjcfScene();
    MjcfScene(const MjcfScene &) = delete;
    MjcfScene &operator=(const MjcfScene &) = delete;

    mjModel_ *model() const;
    mjData_ *data() const;
    const std::string &who() const { return m_who; }

    // The id of a named object; throws Error(InvalidInput) "<who>: the scene has no <kind>
    // '<name>'".
    int id(ObjectKind kind, const std::string &name) const;
    // The actuator that drives `joint` (by its transmission); throws when there is none.
    int actuatorOfJoint(const std::string &joint) const;
    std::string name(ObjectKind kind, int id) const;

    // mj_resetData; then the caller sets the state and calls forward().
    void resetData();
    // mj_forward, with actuation disabled as dm_control's reset does (its warm start then matches).
    void forwardWithoutActuation();
    // One control period: `substeps` physics steps in the task's way. Throws
    // Error(RemoteError) when the simulation became unstable (MuJoCo's bad-qacc warning).
    void step(int substeps, Stepping stepping);
    std::int64_t physicsSteps() const { return m_physicsSteps; }

    // The contacts now, as (geom1, geom2) ids.
    std::vector<std::pair<int, int>> contacts() const;

    cv::Mat render(const RenderOptions &options); // RGB, rows top-down

    // MuJoCo's version string ("4.0.1").
    static std::string version();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::string m_who;
    std::int64_t m_physicsSteps = 0;
};

// numpy's legacy RandomState(seed): MT19937 seeded by init_genrand(seed), doubles of 53 bits
// (two draws each), uniform(low, high) = low + (high - low) * double. A seed gives the same starts
// as the reference's Python code (gym_aloha.utils.sample_box_pose(seed)).
class NumpyRandomState
{
public:
    explicit NumpyRandomState(std::uint32_t seed);
    double randomSample();
    double uniform(double low, double high) { return low + (high - low) * randomSample(); }

private:
    std::uint32_t next();
    std::uint32_t m_state[624];
    int m_index = 624;
};

} // namespace kosmos::mjcf
