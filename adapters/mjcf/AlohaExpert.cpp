#include "mjcf/AlohaExpert.h"

#include "mjcf/MjcfScene.h"
#include "mjcf/MjcfTask.h"
#include "util/Clock.h"
#include "util/Error.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace kosmos::mjcf {
namespace {

constexpr const char *kWho = "mjcf.aloha_expert";

// gym_aloha/constants.py: the puppet gripper's finger positions, closed and open (m).
constexpr double kGripperClose = 0.01844;
constexpr double kGripperOpen = 0.05800;
// START_ARM_POSE (one arm: six joints, then the two fingers) and where ACT's end-effector env
// puts the mocap bodies at the start (sim_end_effector.py, initialize_robots).
constexpr std::array<double, 8> kStartArm = {0, -0.96, 1.16, 0, -0.3, 0, 0.02239, -0.02239};
constexpr std::array<double, 7> kMocapLeft = {-0.31718881, 0.5, 0.29525084, 1, 0, 0, 0};
constexpr std::array<double, 7> kMocapRight = {0.31718881, 0.49999888, 0.29525084, 1, 0, 0, 0};
constexpr const char *kJoints[] = {"waist",       "shoulder",     "elbow",       "forearm_roll",
                                   "wrist_angle", "wrist_rotate", "left_finger", "right_finger"};

double unnormalize(double g)
{
    return g * (kGripperOpen - kGripperClose) + kGripperClose;
}

double normalize(double x)
{
    return (x - kGripperClose) / (kGripperOpen - kGripperClose);
}

using Quat = std::array<double, 4>;

Quat multiply(const Quat &a, const Quat &b)
{
    return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
            a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
            a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
            a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}

// A rotation of `degrees` about a unit axis (pyquaternion's Quaternion(axis=..., degrees=...)).
Quat axisAngle(const std::array<double, 3> &axis, double degrees)
{
    const double half = degrees * M_PI / 360.0;
    return {std::cos(half), axis[0] * std::sin(half), axis[1] * std::sin(half),
            axis[2] * std::sin(half)};
}

std::array<double, 3> plus(const std::array<double, 3> &a, const std::array<double, 3> &b)
{
    return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}

// A free joint's pose in the world's state: [x y z qw qx qy qz], finite numbers.
std::array<double, 7> poseOf(const nlohmann::json &freeJoints, const std::string &joint)
{
    if (!freeJoints.is_object() || !freeJoints.contains(joint) || !freeJoints[joint].is_array() ||
        freeJoints[joint].size() != 7)
        throw Error(ErrorCode::InvalidInput, std::string(kWho) +
                                                 ": the world's state lacks the pose of '" + joint +
                                                 "' (free_joints: 7 numbers)");
    std::array<double, 7> out{};
    for (std::size_t k = 0; k < 7; ++k) {
        const auto &v = freeJoints[joint][k];
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            throw Error(ErrorCode::InvalidInput,
                        std::string(kWho) + ": the pose of '" + joint + "' is not numeric");
        out[k] = v.get<double>();
    }
    return out;
}

std::array<double, 3> objectXyz(const nlohmann::json &freeJoints, const std::string &joint)
{
    const auto pose = poseOf(freeJoints, joint);
    return {pose[0], pose[1], pose[2]};
}

Waypoint wp(int t, const std::array<double, 3> &xyz, const Quat &quat, double gripper)
{
    return {t, xyz, quat, gripper};
}

std::array<double, 3> head(const std::array<double, 7> &pose)
{
    return {pose[0], pose[1], pose[2]};
}

Quat tail(const std::array<double, 7> &pose)
{
    return {pose[3], pose[4], pose[5], pose[6]};
}

struct Level
{
    const char *name;
    double waypoint;
    int timing;
    double grasp;
    double step;
};

constexpr Level kLevels[] = {
    {"none", 0, 0, 0, 0},          {"act", 0, 0, 0, 0.01},      {"low", 0.005, 5, 0.005, 0},
    {"medium", 0.01, 10, 0.01, 0}, {"high", 0.02, 20, 0.02, 0},
};

} // namespace

nlohmann::json ExpertNoise::toJson() const
{
    return {{"level", level},
            {"waypoint_noise_m", waypointM},
            {"timing_noise_steps", timingSteps},
            {"grasp_offset_m", graspOffsetM},
            {"step_noise_m", stepNoiseM}};
}

ExpertSettings ExpertSettings::fromJson(const nlohmann::json &settings)
{
    ExpertSettings s;
    if (settings.is_null())
        return s;
    if (!settings.is_object())
        throw Error(ErrorCode::InvalidInput, std::string(kWho) + " settings must be an object");
    const auto bad = [](const std::string &key, const std::string &what) {
        return Error(ErrorCode::InvalidInput, std::string(kWho) + " settings." + key + " " + what);
    };
    if (settings.contains("noise")) {
        const auto &v = settings["noise"];
        if (!v.is_string())
            throw bad("noise", "must be one of none, act, low, medium, high");
        const auto it = std::find_if(std::begin(kLevels), std::end(kLevels), [&](const Level &l) {
            return v.get<std::string>() == l.name;
        });
        if (it == std::end(kLevels))
            throw bad("noise", "must be one of none, act, low, medium, high, not '" +
                                   v.get<std::string>() + "'");
        s.noise = {it->name, it->waypoint, it->timing, it->grasp, it->step};
    }
    for (const auto &[key, value] : settings.items()) {
        if (key == "noise")
            continue;
        if (key == "waypoint_noise_m" || key == "grasp_offset_m" || key == "step_noise_m") {
            if (!value.is_number() || !(value.get<double>() >= 0 && value.get<double>() <= 0.2))
                throw bad(key, "must be a number of metres from 0 to 0.2");
            (key == "waypoint_noise_m" ? s.noise.waypointM
             : key == "grasp_offset_m" ? s.noise.graspOffsetM
                                       : s.noise.stepNoiseM) = value.get<double>();
            s.noise.level = "custom";
        } else if (key == "timing_noise_steps") {
            if (!value.is_number_integer() || value.get<int>() < 0 || value.get<int>() > 100)
                throw bad(key, "must be an integer from 0 to 100");
            s.noise.timingSteps = value.get<int>();
            s.noise.level = "custom";
        } else if (key == "python") {
            if (!value.is_string())
                throw bad(key, "must be a path");
            s.lookup.python = value.get<std::string>();
        } else if (key == "package_dirs") {
            if (!value.is_array() || !std::all_of(value.begin(), value.end(),
                                                  [](const auto &d) { return d.is_string(); }))
                throw bad(key, "must be a list of folders");
            s.lookup.packageDirs = value.get<std::vector<std::string>>();
        } else {
            throw Error(ErrorCode::InvalidInput,
                        std::string(kWho) + " settings has no field '" + key +
                            "' (noise, waypoint_noise_m, timing_noise_steps, grasp_offset_m, "
                            "step_noise_m, python, package_dirs)");
        }
    }
    return s;
}

ExpertPlan actPlan(const std::string &task, const nlohmann::json &freeJoints,
                   const std::array<double, 7> &leftStart, const std::array<double, 7> &rightStart,
                   const std::array<double, 2> &graspOffset)
{
    const std::array<double, 3> offset = {graspOffset[0], graspOffset[1], 0};
    ExpertPlan p;
    if (task == "aloha_transfer_cube") {
        // PickAndTransferPolicy: the right arm picks the cube and carries it to the meeting
        // point; the left arm comes to meet it, closes, and the right opens and moves away.
        const auto box = plus(objectXyz(freeJoints, "red_box_joint"), offset);
        const Quat pick = multiply(tail(rightStart), axisAngle({0, 1, 0}, -60));
        const Quat meetLeft = axisAngle({1, 0, 0}, 90);
        const std::array<double, 3> meet = {0, 0.5, 0.25};
        p.left = {wp(0, head(leftStart), tail(leftStart), 0),
                  wp(100, plus(meet, {-0.1, 0, -0.02}), meetLeft, 1),
                  wp(260, plus(meet, {0.02, 0, -0.02}), meetLeft, 1),
                  wp(310, plus(meet, {0.02, 0, -0.02}), meetLeft, 0),
                  wp(360, plus(meet, {-0.1, 0, -0.02}), {1, 0, 0, 0}, 0),
                  wp(400, plus(meet, {-0.1, 0, -0.02}), {1, 0, 0, 0}, 0)};
        p.right = {wp(0, head(rightStart), tail(rightStart), 0),
                   wp(90, plus(box, {0, 0, 0.08}), pick, 1),
                   wp(130, plus(box, {0, 0, -0.015}), pick, 1),
                   wp(170, plus(box, {0, 0, -0.015}), pick, 0),
                   wp(200, plus(meet, {0.05, 0, 0}), pick, 0),
                   wp(220, meet, pick, 0),
                   wp(310, meet, pick, 1),
                   wp(360, plus(meet, {0.1, 0, 0}), pick, 1),
                   wp(400, plus(meet, {0.1, 0, 0}), pick, 1)};
    } else if (task == "aloha_insertion") {
        // InsertionPolicy: the left arm picks the socket, the right the peg; both meet in the
        // middle and the peg goes in.
        const auto peg = plus(objectXyz(freeJoints, "red_peg_joint"), offset);
        const auto socket = plus(objectXyz(freeJoints, "blue_socket_joint"), offset);
        const Quat pickRight = multiply(tail(rightStart), axisAngle({0, 1, 0}, -60));
        const Quat pickLeft = multiply(tail(rightStart), axisAngle({0, 1, 0}, 60));
        const std::array<double, 3> meet = {0, 0.5, 0.15};
        const double liftRight = 0.00715;
        p.left = {wp(0, head(leftStart), tail(leftStart), 0),
                  wp(120, plus(socket, {0, 0, 0.08}), pickLeft, 1),
                  wp(170, plus(socket, {0, 0, -0.03}), pickLeft, 1),
                  wp(220, plus(socket, {0, 0, -0.03}), pickLeft, 0),
                  wp(285, plus(meet, {-0.1, 0, 0}), pickLeft, 0),
                  wp(340, plus(meet, {-0.05, 0, 0}), pickLeft, 0),
                  wp(400, plus(meet, {-0.05, 0, 0}), pickLeft, 0)};
        p.right = {wp(0, head(rightStart), tail(rightStart), 0),
                   wp(120, plus(peg, {0, 0, 0.08}), pickRight, 1),
                   wp(170, plus(peg, {0, 0, -0.03}), pickRight, 1),
                   wp(220, plus(peg, {0, 0, -0.03}), pickRight, 0),
                   wp(285, plus(meet, {0.1, 0, liftRight}), pickRight, 0),
                   wp(340, plus(meet, {0.05, 0, liftRight}), pickRight, 0),
                   wp(400, plus(meet, {0.05, 0, liftRight}), pickRight, 0)};
    } else {
        throw Error(ErrorCode::InvalidInput,
                    std::string(kWho) +
                        " has scripts for aloha_transfer_cube and aloha_insertion, "
                        "not for the task '" +
                        task + "'");
    }
    return p;
}

Waypoint interpolate(const std::vector<Waypoint> &trajectory, int t)
{
    std::size_t next = 0;
    while (next < trajectory.size() && trajectory[next].t <= t)
        ++next;
    if (next == 0)
        return trajectory.front();
    if (next == trajectory.size())
        return trajectory.back();
    const Waypoint &a = trajectory[next - 1];
    const Waypoint &b = trajectory[next];
    const double f = (t - a.t) / (b.t - a.t + 1e-8);
    Waypoint out;
    out.t = t;
    for (std::size_t k = 0; k < 3; ++k)
        out.xyz[k] = a.xyz[k] + (b.xyz[k] - a.xyz[k]) * f;
    for (std::size_t k = 0; k < 4; ++k)
        out.quat[k] = a.quat[k] + (b.quat[k] - a.quat[k]) * f;
    out.gripper = a.gripper + (b.gripper - a.gripper) * f;
    return out;
}

AlohaExpert::AlohaExpert(ExpertSettings settings) : m_settings(std::move(settings))
{
    const auto files = builtinTaskFiles();
    m_contract = MjcfTask::fromText(files.front().second, "built-in task").contract;
}

AlohaExpert::~AlohaExpert() = default;

MjcfScene &AlohaExpert::endEffectorScene(const std::string &task)
{
    auto &slot = m_scenes[task];
    if (!slot) {
        // Loaded once per task and expert (meshes and all), reset for every plan.
        const std::string file = task == "aloha_transfer_cube"
                                     ? "assets/bimanual_viperx_end_effector_transfer_cube.xml"
                                     : "assets/bimanual_viperx_end_effector_insertion.xml";
        slot = std::make_unique<MjcfScene>(
            findScenePackage("gym_aloha", m_settings.lookup).dir / file, kWho);
    }
    return *slot;
}

void AlohaExpert::reset(std::uint64_t seed, const std::string &)
{
    m_seed = seed;
    m_trajectory.clear();
    m_lastCall = nullptr;
}

std::vector<std::vector<double>> AlohaExpert::plan(const std::string &task,
                                                   const nlohmann::json &freeJoints, int steps,
                                                   std::uint64_t seed)
{
    const ExpertNoise &noise = m_settings.noise;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(-1.0, 1.0);
    const std::array<double, 2> grasp = {noise.graspOffsetM * unit(rng),
                                         noise.graspOffsetM * unit(rng)};
    ExpertPlan p = actPlan(task, freeJoints, kMocapLeft, kMocapRight, grasp);
    for (auto *side : {&p.left, &p.right}) {
        auto &w = *side;
        for (std::size_t i = 1; i < w.size(); ++i) {
            for (auto &v : w[i].xyz)
                v += noise.waypointM * unit(rng);
            if (i + 1 < w.size() && noise.timingSteps > 0) {
                std::uniform_int_distribution<int> shift(-noise.timingSteps, noise.timingSteps);
                w[i].t += shift(rng);
            }
        }
        // Times stay strictly increasing, inside (0, the last waypoint's).
        for (std::size_t i = 1; i + 1 < w.size(); ++i)
            w[i].t =
                std::clamp(w[i].t, w[i - 1].t + 1, w.back().t - static_cast<int>(w.size() - 1 - i));
    }

    MjcfScene &scene = endEffectorScene(task); // actPlan refused any other task
    mjModel *m = scene.model();
    mjData *d = scene.data();
    scene.resetData();
    // Each arm's eight joints (six, then the two fingers), left then right, as qpos addresses.
    std::vector<int> joints;
    for (const char *side : {"left", "right"}) {
        for (const char *joint : kJoints)
            joints.push_back(m->jnt_qposadr[scene.id(ObjectKind::Joint,
                                                     std::string("vx300s_") + side + "/" + joint)]);
    }
    for (std::size_t i = 0; i < joints.size(); ++i)
        d->qpos[joints[i]] = kStartArm[i % kStartArm.size()];
    const std::ptrdiff_t mocapLeft = m->body_mocapid[scene.id(ObjectKind::Body, "mocap_left")];
    const std::ptrdiff_t mocapRight = m->body_mocapid[scene.id(ObjectKind::Body, "mocap_right")];
    std::copy(kMocapLeft.begin(), kMocapLeft.begin() + 3, d->mocap_pos + 3 * mocapLeft);
    std::copy(kMocapLeft.begin() + 3, kMocapLeft.end(), d->mocap_quat + 4 * mocapLeft);
    std::copy(kMocapRight.begin(), kMocapRight.begin() + 3, d->mocap_pos + 3 * mocapRight);
    std::copy(kMocapRight.begin() + 3, kMocapRight.end(), d->mocap_quat + 4 * mocapRight);
    if (m->nu != 4)
        throw Error(ErrorCode::InvalidInput, std::string(kWho) + ": the end-effector scene has " +
                                                 std::to_string(m->nu) +
                                                 " actuators, not the 4 fingers");
    const double close[4] = {kGripperClose, -kGripperClose, kGripperClose, -kGripperClose};
    std::copy(close, close + 4, d->ctrl);
    for (const auto &item : freeJoints.items()) {
        const auto pose = poseOf(freeJoints, item.key());
        std::copy(pose.begin(), pose.end(),
                  d->qpos + m->jnt_qposadr[scene.id(ObjectKind::Joint, item.key())]);
    }
    scene.forwardWithoutActuation();

    // What ACT records: each step's joint positions with the grippers replaced by the commanded
    // (normalized) openings; the first row is the start, grippers closed.
    const auto row = [&] {
        std::vector<double> r;
        r.reserve(14);
        for (std::size_t i = 0; i < 6; ++i)
            r.push_back(d->qpos[joints[i]]);
        r.push_back(normalize(d->ctrl[0]));
        for (std::size_t i = 8; i < 14; ++i)
            r.push_back(d->qpos[joints[i]]);
        r.push_back(normalize(d->ctrl[2]));
        return r;
    };
    std::vector<std::vector<double>> out = {row()};
    std::uniform_real_distribution<double> jitter(-noise.stepNoiseM, noise.stepNoiseM);
    for (int t = 0; t + 1 < steps; ++t) {
        Waypoint l = interpolate(p.left, t);
        Waypoint r = interpolate(p.right, t);
        if (noise.stepNoiseM > 0) {
            for (auto &v : l.xyz)
                v += jitter(rng);
            for (auto &v : r.xyz)
                v += jitter(rng);
        }
        std::copy(l.xyz.begin(), l.xyz.end(), d->mocap_pos + 3 * mocapLeft);
        std::copy(l.quat.begin(), l.quat.end(), d->mocap_quat + 4 * mocapLeft);
        std::copy(r.xyz.begin(), r.xyz.end(), d->mocap_pos + 3 * mocapRight);
        std::copy(r.quat.begin(), r.quat.end(), d->mocap_quat + 4 * mocapRight);
        const double gl = unnormalize(l.gripper);
        const double gr = unnormalize(r.gripper);
        d->ctrl[0] = gl;
        d->ctrl[1] = -gl;
        d->ctrl[2] = gr;
        d->ctrl[3] = -gr;
        scene.step(10, Stepping::DmControl);
        out.push_back(row());
    }
    return out;
}

ActionChunk AlohaExpert::act(const Observation &observation)
{
    if (m_trajectory.empty()) {
        const nlohmann::json &s = observation.state;
        if (!s.is_object() || !s.value("task", nlohmann::json()).is_string())
            throw Error(ErrorCode::InvalidInput,
                        std::string(kWho) +
                            " reads the simulator's state and runs only in "
                            "physics.mjcf on an ALOHA task (this world gives no state)");
        const auto t0 = std::chrono::steady_clock::now();
        const std::string task = s["task"].get<std::string>();
        // ACT's episodes are 400 steps; past the plan the last target is held.
        m_trajectory = plan(task, s.value("free_joints", nlohmann::json()), 401, m_seed);
        m_lastCall = {{"plan_ms", msSince(t0)},
                      {"task", task},
                      {"noise", m_settings.noise.toJson()},
                      {"planned_steps", m_trajectory.size()}};
    } else {
        m_lastCall = nullptr;
    }
    const std::size_t i = std::min<std::size_t>(
        static_cast<std::size_t>(std::max(0, observation.step)), m_trajectory.size() - 1);
    return {m_trajectory[i]};
}

} // namespace kosmos::mjcf
