#include "physics/PhysicsWorldModel.h"

namespace kosmos::physics {
namespace {

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

FrameContract PhysicsWorldModel::frameContract() const
{
    FrameContract f;
    f.width = m_sim.settings().width;
    f.height = m_sim.settings().height;
    f.channels = 3;
    f.dtype = "uint8";
    f.fps = m_sim.settings().controlRateHz;
    f.conditioningFrames = 1;
    f.framesPerAction = 1;
    f.resultIncludesConditioning = true;
    f.cameras = declaredCameras();
    return f;
}

std::vector<cv::Mat> PhysicsWorldModel::reset(const WorldStart &start)
{
    m_task = parseTask(start.instruction);
    const bool recorded = start.startState.is_object() && start.startState.contains("blocks");
    m_sim.reset(recorded ? StartState::fromJson(start.startState)
                         : sampleStart(m_task, start.seed));
    const auto t = std::chrono::steady_clock::now();
    std::vector<cv::Mat> frames = {m_sim.render()};
    m_lastCall = {{"render_ms", msSince(t)},
                  {"device", "cpu (MuJoCo 2.2, EGL)"},
                  {"start_state", m_sim.start().toJson()},
                  {"start_from", recorded ? "start_state" : "seed"}};
    return frames;
}

std::vector<cv::Mat> PhysicsWorldModel::step(const ActionChunk &actions)
{
    std::vector<cv::Mat> frames;
    double physicsMs = 0;
    double renderMs = 0;
    const auto stepsBefore = m_sim.physicsSteps();
    for (const Action &a : actions) {
        auto t = std::chrono::steady_clock::now();
        m_sim.step(a);
        physicsMs += msSince(t);
        t = std::chrono::steady_clock::now();
        frames.push_back(m_sim.render());
        renderMs += msSince(t);
    }
    m_lastCall = {{"physics_ms", physicsMs},
                  {"render_ms", renderMs},
                  {"physics_steps", m_sim.physicsSteps() - stepsBefore},
                  {"device", "cpu (MuJoCo 2.2, EGL)"}};
    return frames;
}

std::vector<double> PhysicsWorldModel::proprio() const
{
    const auto h = m_sim.hand();
    return {h[0], h[1], h[2], 0.0, 0.0, 0.0, m_sim.fingerOpening() / 0.09};
}

std::optional<GroundTruth> PhysicsWorldModel::groundTruth() const
{
    const TaskSuccess s = m_sim.successOf(m_task);
    GroundTruth truth;
    truth.success = s.success;
    truth.progress = s.progress;
    truth.details = s.details;
    truth.details["start_state"] = m_sim.start().toJson();
    truth.details["task"] = m_task.kind == TaskKind::Push ? "push" : "pick_place";
    truth.source = "physics";
    return truth;
}

nlohmann::json PhysicsWorldModel::state() const
{
    return m_sim.state();
}

} // namespace kosmos::physics
