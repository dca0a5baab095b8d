#pragma once

// A task of the generic MJCF world (physics.mjcf; docs/physics-world.md, "Task files"): which
// scene, how an action drives it, what the policy is given, where an episode starts and what
// success is, read from a JSON task file ("kosmos_mjcf_task": 1). Nothing here touches MuJoCo:
// names are resolved against a loaded scene by MjcfScene.

#include "contracts/ActionContract.h"

#include <nlohmann/json.hpp>

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kosmos::mjcf {

// A condition on the simulator's state. Contacts name geoms (a list: any of them); "ordered"
// matches MuJoCo's (geom1, geom2) order as the reference's check does (ACT's reward compares
// ordered name pairs).
struct Predicate
{
    enum class Kind
    {
        Contact, // a contact between any geom of `a` and any of `b`
        Held,    // `a` touches every finger geom of `b`
        Above,   // body's world z above `z`
        Inside,  // body's world position inside [min, max]
        All,
        Any,
        Not,
        Ref, // a named predicate of the task
    };
    Kind kind = Kind::All;
    std::vector<std::string> a;
    std::vector<std::string> b;
    bool ordered = false;
    std::string body;
    double z = 0;
    std::array<double, 3> min{};
    std::array<double, 3> max{};
    std::vector<Predicate> children;
    std::string ref;

    // Throws Error(InvalidInput) "<where>: ..." naming what is wrong.
    static Predicate fromJson(const nlohmann::json &json, const std::string &where);
};

// ctrl[actuator] = range[0] + action[action] * (range[1] - range[0]) (without a range: the value).
// The actuator is named, or found as the one that drives `joint`.
struct ActuatorMap
{
    std::string actuator;
    std::string joint;
    int action = 0;
    std::optional<std::array<double, 2>> range;
};

// A mocap body placed by the action: pos from action[pos..pos+2], quat (w x y z) from
// action[quat..quat+3] when quat >= 0.
struct MocapMap
{
    std::string body;
    int pos = 0;
    int quat = -1;
};

// One proprioception value: qpos of `joint`, normalized to (q - range[0]) / (range[1] - range[0])
// when a range is given.
struct ProprioMap
{
    std::string name;
    std::string joint;
    std::optional<std::array<double, 2>> range;
};

// A free joint placed uniformly in [low, high] (numpy's RandomState(seed).uniform, draws in the
// listed order, so a seed gives the reference's start) with a fixed orientation.
struct FreeJointSample
{
    std::string joint;
    std::array<double, 3> low{};
    std::array<double, 3> high{};
    std::array<double, 4> quat{1, 0, 0, 0};
};

struct Stage
{
    std::string name;
    int reward = 0;
    Predicate when;
};

enum class Stepping
{
    MjStep,    // mj_step substeps times
    DmControl, // dm_control's legacy step: mj_step2, mj_step (substeps - 1), mj_step1
};

struct MjcfTask
{
    std::string id;
    std::string instruction;
    std::string scenePackage; // a Python package whose folder holds the scene (gym_aloha)
    std::string sceneFile;    // relative to the package folder, or absolute without a package
    double controlRateHz = 50;
    int substeps = 10;
    Stepping stepping = Stepping::MjStep;
    int episodeSteps = 400;
    ActionContract contract;
    std::vector<ActuatorMap> actuators;
    std::vector<MocapMap> mocaps;
    std::vector<ProprioMap> proprio;
    std::map<std::string, double> startQpos; // hinge and slide joints
    bool ctrlFromQpos = false; // each joint actuator's ctrl starts at its joint's start qpos
    std::vector<FreeJointSample> samples;
    std::string camera;
    std::vector<std::string> trackedBodies;
    std::map<std::string, Predicate> predicates;
    std::vector<Stage> stages;
    int successReward = 0;
    std::string source; // where the definitions come from, for the record
    std::string sha256; // of the task file's text

    int maxReward() const;
    // Throws Error(InvalidInput) "<where>.<field>: ..." for anything missing or malformed, an
    // unknown field included (a typo must not silently change a task).
    static MjcfTask fromJson(const nlohmann::json &json, const std::string &where);
    static MjcfTask fromText(const std::string &text, const std::string &where);
};

// The task files compiled into the plugin (adapters/mjcf/tasks): (file name, text).
std::vector<std::pair<std::string, std::string>> builtinTaskFiles();

} // namespace kosmos::mjcf
