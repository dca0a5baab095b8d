#pragma once

// physics.mjcf: any MJCF scene with a task file as a world model (docs/physics-world.md, "The
// generic MJCF world"). The task is chosen by the episode's instruction among the task files the
// settings give (ALOHA sim's transfer cube and insertion are built in); an action drives the
// scene's actuators (and mocap bodies) as the task maps it; frames come from one named camera;
// success and ACT-style staged rewards come from predicates over the simulator's state and are
// recorded as the label source "physics".

#include "components/Components.h"
#include "mjcf/MjcfScene.h"
#include "mjcf/MjcfTask.h"
#include "mjcf/ScenePackages.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kosmos::mjcf {

struct WorldSettings
{
    std::optional<std::string> camera; // default: the task's
    int width = 320;
    int height = 240;
    bool shadows = false;
    bool reflections = false;
    std::vector<std::string> taskFiles; // beside the built-in tasks
    SceneLookup lookup;

    // Throws Error(InvalidInput) naming the bad setting.
    static WorldSettings fromJson(const nlohmann::json &settings);
};

// The tasks a world offers: the built-in ones and those of settings.task_files, by instruction.
// Throws Error(InvalidInput) for an unreadable or invalid task file (named), two tasks with one
// instruction or id, or tasks whose action contracts differ (one world has one contract).
std::vector<MjcfTask> loadTasks(const WorldSettings &settings);

// A task bound to its loaded scene: every name of the task resolved to an id (a missing name is
// an error naming it, before any episode).
class BoundTask
{
public:
    BoundTask(MjcfTask task, const std::filesystem::path &scenePath, const std::string &who);
    ~BoundTask();

    const MjcfTask &task() const { return m_task; }
    MjcfScene &scene() { return *m_scene; }
    const std::filesystem::path &scenePath() const { return m_scenePath; }

    // The start: {"free_joints": {"<joint>": [x y z qw qx qy qz]}}, sampled as the task says
    // from the seed (numpy's RandomState(seed mod 2^32)), or read from a recorded start.
    nlohmann::json sampleStart(std::uint64_t seed) const;
    // Resets the simulator to the task's start with the given free-joint poses; throws
    // Error(InvalidInput) naming a joint the start lacks or does not know.
    void reset(const nlohmann::json &start);
    // Sets the actuators and mocap bodies from one action (the contract's dimension, finite).
    void apply(const Action &action);
    void step(); // one control period

    std::vector<double> proprio() const;
    // The reward now (the last stage whose predicate holds, as ACT's reward does; 0: none).
    int reward() const;
    int stageIndexOf(int reward) const;
    nlohmann::json freeJoints() const;
    nlohmann::json bodies() const;

private:
    struct Bound;
    bool holds(const Bound &p, const std::vector<std::pair<int, int>> &contacts) const;

    MjcfTask m_task;
    std::filesystem::path m_scenePath;
    std::unique_ptr<MjcfScene> m_scene;
    struct Ctrl
    {
        int actuator;
        int action;
        std::optional<std::array<double, 2>> range;
    };
    std::vector<Ctrl> m_ctrl;
    struct Mocap
    {
        int mocap;
        int pos;
        int quat;
    };
    std::vector<Mocap> m_mocap;
    std::vector<std::pair<int, std::optional<std::array<double, 2>>>> m_proprio; // qpos address
    std::vector<std::pair<int, double>> m_startQpos;       // qpos address, value
    std::vector<std::pair<std::string, int>> m_freeJoints; // name, qpos address
    std::vector<std::pair<std::string, int>> m_bodies;
    std::vector<std::unique_ptr<Bound>> m_stages;
    std::map<std::string, std::unique_ptr<Bound>> m_named;
};

class MjcfWorld : public WorldModel
{
public:
    explicit MjcfWorld(WorldSettings settings);
    ~MjcfWorld() override;

    ActionContract actionContract() const override { return m_tasks.front().contract; }
    FrameContract frameContract() const override;
    std::vector<cv::Mat> reset(const WorldStart &start) override;
    std::vector<cv::Mat> step(const ActionChunk &actions) override;
    std::vector<double> proprio() const override;
    nlohmann::json lastCallStats() const override { return m_lastCall; }
    std::optional<GroundTruth> groundTruth() const override;
    nlohmann::json state() const override;

    const std::vector<MjcfTask> &tasks() const { return m_tasks; }
    // The files each task's scene comes from, hashed (the component identity).
    nlohmann::json sceneProvenance(const MjcfTask &task) const;

private:
    BoundTask &bind(const MjcfTask &task);
    cv::Mat render();
    void noteReward();

    WorldSettings m_settings;
    std::vector<MjcfTask> m_tasks;
    std::map<std::string, std::unique_ptr<BoundTask>> m_bound; // by task id
    BoundTask *m_current = nullptr;
    nlohmann::json m_start;
    int m_step = 0;
    int m_reward = 0;
    int m_maxReward = 0;
    std::optional<int> m_firstSuccessStep;
    nlohmann::json m_lastCall;
};

// Where a task's scene file is: its package's folder (found as ScenePackages says) + file.
std::filesystem::path scenePathOf(const MjcfTask &task, const SceneLookup &lookup,
                                  std::string *packageVersion = nullptr);

} // namespace kosmos::mjcf
