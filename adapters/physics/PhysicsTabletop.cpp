#include "physics/PhysicsTabletop.h"

#include "physics/HeadlessGl.h"
#include "util/Error.h"

#include <mujoco/mujoco.h>
#include <opencv2/core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>

namespace kosmos::physics {
namespace {

constexpr double kBlockHalf = 0.02;   // 4 cm cubes
constexpr double kRegionHalf = 0.05;  // 10 cm squares
constexpr double kFingerOpen = 0.045; // each finger's travel from the centre line
constexpr double kTableHalf = 0.35;
constexpr std::array<double, 3> kWorkspaceMin = {-0.28, -0.28, 0.004};
constexpr std::array<double, 3> kWorkspaceMax = {0.28, 0.28, 0.25};

constexpr const char *kBlockRgba[3] = {"0.85 0.12 0.12 1", "0.15 0.3 0.9 1", "0.95 0.8 0.1 1"};
constexpr const char *kRegionRgba[2] = {"0.2 0.7 0.3 1", "0.55 0.25 0.7 1"};

thread_local std::string t_lastWarning;

// MuJoCo's defaults print, ask for Enter and write MUJOCO_LOG.TXT into the working directory;
// here an error is an exception and a warning is kept for the step that made it.
void installHandlers()
{
    static std::once_flag once;
    std::call_once(once, [] {
        mju_user_error = [](const char *message) {
            throw Error(ErrorCode::InvalidInput, std::string("MuJoCo: ") + message);
        };
        mju_user_warning = [](const char *message) { t_lastWarning = message; };
    });
}

std::string fmt(double v)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

// A fixed camera in front of and above the table, looking at its centre: its position and the
// camera frame's x and y axes in world coordinates (MuJoCo's xyaxes).
struct FrontCamera
{
    std::array<double, 3> pos;
    std::array<double, 3> up;
};

FrontCamera frontCamera()
{
    const std::array<double, 3> pos = {0.0, -0.62, 0.52};
    const std::array<double, 3> target = {0.0, 0.03, 0.0};
    std::array<double, 3> f = {target[0] - pos[0], target[1] - pos[1], target[2] - pos[2]};
    const double n = std::sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (auto &v : f)
        v /= n;
    // Camera x = world x; camera y = (-f) x x for x = (1, 0, 0).
    return {pos, {0.0, -f[2], f[1]}};
}

std::string cameraXml()
{
    const auto [pos, up] = frontCamera();
    return "<camera name=\"front\" pos=\"" + fmt(pos[0]) + " " + fmt(pos[1]) + " " + fmt(pos[2]) +
           "\" xyaxes=\"1 0 0 " + fmt(up[0]) + " " + fmt(up[1]) + " " + fmt(up[2]) +
           "\" fovy=\"45\"/>";
}

std::string sceneXml(const SceneSettings &s)
{
    std::string xml = R"(<mujoco model="kosmos_tabletop">
  <compiler autolimits="true" angle="radian"/>
  <option timestep=")" +
                      fmt(s.timestep) +
                      R"(" cone="elliptic" impratio="5"/>
  <visual>
    <global offwidth=")" +
                      std::to_string(s.width) + "\" offheight=\"" + std::to_string(s.height) +
                      R"("/>
    <quality shadowsize="0" offsamples="0"/>
    <headlight ambient="0.45 0.45 0.45" diffuse="0.5 0.5 0.5" specular="0 0 0"/>
  </visual>
  <default>
    <geom solref="0.004 1" solimp="0.95 0.99 0.001"/>
  </default>
  <worldbody>
    <light pos="0.3 -0.3 1.2" dir="-0.25 0.25 -1" diffuse="0.35 0.35 0.35" specular="0 0 0" castshadow="false"/>
    <geom name="table" type="box" pos="0 0 -0.02" size=")" +
                      fmt(kTableHalf) + " " + fmt(kTableHalf) +
                      R"( 0.02" rgba="0.62 0.5 0.38 1" friction="0.7 0.005 0.0001"/>
)";
    for (std::size_t r = 0; r < kRegionNames.size(); ++r)
        xml += "    <geom name=\"region_" + std::string(kRegionNames[r]) +
               "\" type=\"box\" size=\"" + fmt(kRegionHalf) + " " + fmt(kRegionHalf) +
               " 0.0005\" pos=\"0 0 0.0006\" rgba=\"" + kRegionRgba[r] +
               "\" contype=\"0\" conaffinity=\"0\"/>\n";
    xml += "    " + cameraXml() + "\n";
    for (std::size_t b = 0; b < kBlockNames.size(); ++b)
        xml += "    <body name=\"block_" + std::string(kBlockNames[b]) + "\" pos=\"" +
               fmt(-0.2 + 0.2 * static_cast<double>(b)) + " 0.2 " + fmt(kBlockHalf) +
               "\">\n      <freejoint/>\n      <geom name=\"block_" + std::string(kBlockNames[b]) +
               "\" type=\"box\" size=\"" + fmt(kBlockHalf) + " " + fmt(kBlockHalf) + " " +
               fmt(kBlockHalf) + "\" mass=\"0.05\" rgba=\"" + kBlockRgba[b] +
               "\" friction=\"1 0.005 0.0001\" condim=\"4\"/>\n    </body>\n";
    // The commanded hand is a mocap body; the real hand follows it through a weld (a mocap body
    // itself has no velocity, so fingers on it would not carry a grasped block).
    xml += R"(    <body name="hand_target" mocap="true" pos="0 -0.12 0.14"/>
    <body name="hand" pos="0 -0.12 0.14">
      <freejoint name="hand"/>
      <geom name="palm" type="box" pos="0 0 0.062" size="0.016 0.058 0.008" mass="0.2" rgba="0.25 0.25 0.3 1"/>
      <body name="finger_l">
        <joint name="finger_l" type="slide" axis="0 1 0" range="0 0.045" damping="2"/>
        <geom name="finger_l" type="box" pos="0 0.006 0.027" size="0.011 0.006 0.027" mass="0.02" rgba="0.35 0.35 0.4 1" friction="2 0.01 0.0001" condim="4"/>
      </body>
      <body name="finger_r">
        <joint name="finger_r" type="slide" axis="0 -1 0" range="0 0.045" damping="2"/>
        <geom name="finger_r" type="box" pos="0 -0.006 0.027" size="0.011 0.006 0.027" mass="0.02" rgba="0.35 0.35 0.4 1" friction="2 0.01 0.0001" condim="4"/>
      </body>
    </body>
  </worldbody>
  <contact>
    <exclude body1="finger_l" body2="finger_r"/>
  </contact>
  <equality>
    <weld body1="hand_target" body2="hand" solref="0.02 1"/>
  </equality>
  <actuator>
    <position name="finger_l" joint="finger_l" kp="300" ctrlrange="0 0.045" forcerange="-10 10"/>
    <position name="finger_r" joint="finger_r" kp="300" ctrlrange="0 0.045" forcerange="-10 10"/>
  </actuator>
</mujoco>
)";
    return xml;
}

// splitmix64: a small, fully specified generator, so a seed gives the same start everywhere.
class Rng
{
public:
    explicit Rng(std::uint64_t seed) : m_state(seed ^ 0x9e3779b97f4a7c15ULL) {}
    double uniform(double lo, double hi)
    {
        m_state += 0x9e3779b97f4a7c15ULL;
        std::uint64_t z = m_state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        z ^= z >> 31;
        return lo + (hi - lo) * static_cast<double>(z >> 11) * 0x1.0p-53;
    }

private:
    std::uint64_t m_state;
};

double dist(const std::array<double, 2> &a, const std::array<double, 2> &b)
{
    return std::hypot(a[0] - b[0], a[1] - b[1]);
}

// Distance from p to the segment a-b.
double segmentDist(const std::array<double, 2> &p, const std::array<double, 2> &a,
                   const std::array<double, 2> &b)
{
    const double vx = b[0] - a[0], vy = b[1] - a[1];
    const double len2 = vx * vx + vy * vy;
    double t = len2 > 0 ? ((p[0] - a[0]) * vx + (p[1] - a[1]) * vy) / len2 : 0.0;
    t = std::clamp(t, 0.0, 1.0);
    return std::hypot(p[0] - (a[0] + t * vx), p[1] - (a[1] + t * vy));
}

int indexOf(std::string_view name, const auto &names)
{
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (names[i] == name)
            return static_cast<int>(i);
    }
    throw Error(ErrorCode::InvalidInput, "physics.tabletop: no object named " + std::string(name));
}

double round6(double v)
{
    return std::round(v * 1e6) / 1e6;
}

std::array<double, 2> xy(const nlohmann::json &j, const std::string &where)
{
    if (!j.is_array() || j.size() != 2 || !j[0].is_number() || !j[1].is_number())
        throw Error(ErrorCode::InvalidInput, where + " must be [x, y] in metres");
    const std::array<double, 2> v = {j[0].get<double>(), j[1].get<double>()};
    if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || std::abs(v[0]) > 0.3 ||
        std::abs(v[1]) > 0.3)
        throw Error(ErrorCode::InvalidInput, where + " must lie on the table (|x|, |y| <= 0.3 m)");
    return v;
}

} // namespace

SceneSettings SceneSettings::fromJson(const nlohmann::json &settings)
{
    SceneSettings s;
    if (settings.is_null())
        return s;
    if (!settings.is_object())
        throw Error(ErrorCode::InvalidInput, "physics.tabletop settings must be an object");
    for (const auto &[key, value] : settings.items()) {
        if (key == "width" || key == "height") {
            if (!value.is_number_integer() || value.get<int>() < 64 || value.get<int>() > 640 ||
                value.get<int>() % 8 != 0)
                throw Error(ErrorCode::InvalidInput,
                            "physics.tabletop settings." + key +
                                " must be an integer from 64 to 640, divisible by 8");
            (key == "width" ? s.width : s.height) = value.get<int>();
        } else {
            throw Error(ErrorCode::InvalidInput,
                        "physics.tabletop settings has no field '" + key + "' (width, height)");
        }
    }
    return s;
}

nlohmann::json StartState::toJson() const
{
    nlohmann::json j = {{"hand", {hand[0], hand[1], hand[2]}}};
    for (std::size_t b = 0; b < kBlockNames.size(); ++b)
        j["blocks"][std::string(kBlockNames[b])] = {{"xy", {blocks[b][0], blocks[b][1]}},
                                                    {"yaw", blockYaw[b]}};
    for (std::size_t r = 0; r < kRegionNames.size(); ++r)
        j["regions"][std::string(kRegionNames[r])] = {regions[r][0], regions[r][1]};
    return j;
}

StartState StartState::fromJson(const nlohmann::json &j)
{
    if (!j.is_object() || !j.contains("blocks") || !j.contains("regions"))
        throw Error(ErrorCode::InvalidInput,
                    "a physics start state needs \"blocks\" and \"regions\" (as the run recorded)");
    StartState s;
    for (std::size_t b = 0; b < kBlockNames.size(); ++b) {
        const std::string name(kBlockNames[b]);
        const auto &block = j["blocks"].value(name, nlohmann::json());
        if (!block.is_object())
            throw Error(ErrorCode::InvalidInput, "start_state.blocks." + name + " is missing");
        s.blocks[b] = xy(block.value("xy", nlohmann::json()), "start_state.blocks." + name + ".xy");
        const auto yaw = block.value("yaw", nlohmann::json(0.0));
        if (!yaw.is_number() || !std::isfinite(yaw.get<double>()))
            throw Error(ErrorCode::InvalidInput,
                        "start_state.blocks." + name + ".yaw must be a number");
        s.blockYaw[b] = yaw.get<double>();
    }
    for (std::size_t r = 0; r < kRegionNames.size(); ++r) {
        const std::string name(kRegionNames[r]);
        s.regions[r] =
            xy(j["regions"].value(name, nlohmann::json()), "start_state.regions." + name);
    }
    if (j.contains("hand")) {
        const auto &h = j["hand"];
        if (!h.is_array() || h.size() != 3)
            throw Error(ErrorCode::InvalidInput, "start_state.hand must be [x, y, z]");
        for (int i = 0; i < 3; ++i) {
            if (!h[i].is_number())
                throw Error(ErrorCode::InvalidInput, "start_state.hand must be [x, y, z]");
            s.hand[i] = std::clamp(h[i].get<double>(), kWorkspaceMin[i], kWorkspaceMax[i]);
        }
    }
    return s;
}

StartState sampleStart(const TabletopTask &task, std::uint64_t seed)
{
    Rng rng(seed);
    const int target = indexOf(task.block, kBlockNames);
    const int goal = indexOf(task.region, kRegionNames);
    for (int attempt = 0; attempt < 10000; ++attempt) {
        StartState s;
        for (auto &r : s.regions)
            r = {rng.uniform(-0.19, 0.19), rng.uniform(-0.15, 0.15)};
        if (dist(s.regions[0], s.regions[1]) < 0.17)
            continue;
        auto &t = s.blocks[static_cast<std::size_t>(target)];
        if (task.kind == TaskKind::Push) {
            const double angle = rng.uniform(-M_PI, M_PI);
            const double d = rng.uniform(0.09, 0.14);
            const auto &g = s.regions[static_cast<std::size_t>(goal)];
            t = {g[0] + d * std::cos(angle), g[1] + d * std::sin(angle)};
            // Room behind the block for the pusher.
            const std::array<double, 2> behind = {t[0] + 0.07 * std::cos(angle),
                                                  t[1] + 0.07 * std::sin(angle)};
            if (std::abs(behind[0]) > 0.26 || std::abs(behind[1]) > 0.26)
                continue;
        } else {
            t = {rng.uniform(-0.2, 0.2), rng.uniform(-0.16, 0.16)};
        }
        bool ok = std::abs(t[0]) < 0.26 && std::abs(t[1]) < 0.26;
        for (const auto &r : s.regions)
            ok = ok && dist(t, r) >= 0.09;
        for (std::size_t b = 0; b < s.blocks.size() && ok; ++b) {
            s.blockYaw[b] = rng.uniform(-0.2, 0.2);
            if (static_cast<int>(b) == target)
                continue;
            bool placed = false;
            for (int tries = 0; tries < 200 && !placed; ++tries) {
                s.blocks[b] = {rng.uniform(-0.22, 0.22), rng.uniform(-0.18, 0.18)};
                placed = dist(s.blocks[b], s.regions[0]) >= 0.09 &&
                         dist(s.blocks[b], s.regions[1]) >= 0.09;
                for (std::size_t o = 0; o < b && placed; ++o)
                    placed = dist(s.blocks[b], s.blocks[o]) >= 0.08;
                placed =
                    placed && dist(s.blocks[b], t) >= 0.08 &&
                    segmentDist(s.blocks[b], t, s.regions[static_cast<std::size_t>(goal)]) >= 0.07;
            }
            ok = placed;
        }
        if (ok)
            return s;
    }
    throw Error(ErrorCode::InvalidInput,
                "physics.tabletop: no start state found for seed " + std::to_string(seed));
}

struct TabletopSim::Impl
{
    mjModel *model = nullptr;
    mjData *data = nullptr;
    std::array<int, 3> blockBody{};
    std::array<int, 3> blockGeom{};
    std::array<int, 3> blockQpos{};
    std::array<int, 3> blockDof{};
    std::array<int, 2> regionGeom{};
    std::array<int, 2> fingerGeom{};
    std::array<int, 2> fingerQpos{};
    int mocap = 0;
    int handQpos = 0;
    int handDof = 0;
    std::array<double, 3> target{};

    // Rendering (lazy: a simulation that is never rendered needs no GL).
    std::unique_ptr<HeadlessGl> gl;
    mjrContext context{};
    mjvScene scene{};
    mjvCamera camera{};
    mjvOption option{};
    bool renderReady = false;
    std::vector<unsigned char> rgb;

    ~Impl()
    {
        if (renderReady) {
            try {
                gl->makeCurrent();
                mjr_freeContext(&context);
            } catch (const Error &) {
                // the context is gone with the display: nothing of it to free
            }
            mjv_freeScene(&scene);
        }
        gl.reset();
        if (data)
            mj_deleteData(data);
        if (model)
            mj_deleteModel(model);
    }
};

TabletopSim::TabletopSim(const SceneSettings &settings)
    : m_impl(std::make_unique<Impl>()), m_settings(settings)
{
    installHandlers();
    const std::string xml = sceneXml(settings);
    auto vfs = std::make_unique<mjVFS>(); // ~2 MB: never on the stack
    mj_defaultVFS(vfs.get());
    if (mj_makeEmptyFileVFS(vfs.get(), "tabletop.xml", static_cast<int>(xml.size())) != 0)
        throw Error(ErrorCode::InvalidInput, "MuJoCo: cannot make the in-memory scene file");
    std::copy(xml.begin(), xml.end(), static_cast<char *>(vfs->filedata[vfs->nfile - 1]));
    char error[1000] = "";
    m_impl->model = mj_loadXML("tabletop.xml", vfs.get(), error, sizeof error);
    mj_deleteVFS(vfs.get());
    if (!m_impl->model)
        throw Error(ErrorCode::InvalidInput,
                    std::string("MuJoCo: the scene does not load: ") + error);
    m_impl->data = mj_makeData(m_impl->model);
    const mjModel *m = m_impl->model;
    auto id = [&](mjtObj type, const std::string &name) {
        const int i = mj_name2id(m, type, name.c_str());
        if (i < 0)
            throw Error(ErrorCode::InvalidInput, "MuJoCo scene lacks " + name);
        return i;
    };
    for (std::size_t b = 0; b < kBlockNames.size(); ++b) {
        const std::string name = "block_" + std::string(kBlockNames[b]);
        m_impl->blockBody[b] = id(mjOBJ_BODY, name);
        m_impl->blockGeom[b] = id(mjOBJ_GEOM, name);
        const int joint = m->body_jntadr[m_impl->blockBody[b]];
        m_impl->blockQpos[b] = m->jnt_qposadr[joint];
        m_impl->blockDof[b] = m->jnt_dofadr[joint];
    }
    for (std::size_t r = 0; r < kRegionNames.size(); ++r)
        m_impl->regionGeom[r] = id(mjOBJ_GEOM, "region_" + std::string(kRegionNames[r]));
    m_impl->fingerGeom = {id(mjOBJ_GEOM, "finger_l"), id(mjOBJ_GEOM, "finger_r")};
    m_impl->fingerQpos = {m->jnt_qposadr[id(mjOBJ_JOINT, "finger_l")],
                          m->jnt_qposadr[id(mjOBJ_JOINT, "finger_r")]};
    m_impl->mocap = m->body_mocapid[id(mjOBJ_BODY, "hand_target")];
    const int handJoint = id(mjOBJ_JOINT, "hand");
    m_impl->handQpos = m->jnt_qposadr[handJoint];
    m_impl->handDof = m->jnt_dofadr[handJoint];
}

TabletopSim::~TabletopSim() = default;

void TabletopSim::reset(const StartState &start)
{
    m_start = start;
    mjModel *m = m_impl->model;
    mjData *d = m_impl->data;
    mj_resetData(m, d);
    for (std::size_t r = 0; r < kRegionNames.size(); ++r) {
        m->geom_pos[3 * m_impl->regionGeom[r] + 0] = start.regions[r][0];
        m->geom_pos[3 * m_impl->regionGeom[r] + 1] = start.regions[r][1];
    }
    for (std::size_t b = 0; b < kBlockNames.size(); ++b) {
        double *q = d->qpos + m_impl->blockQpos[b];
        q[0] = start.blocks[b][0];
        q[1] = start.blocks[b][1];
        q[2] = kBlockHalf;
        q[3] = std::cos(start.blockYaw[b] / 2);
        q[4] = 0;
        q[5] = 0;
        q[6] = std::sin(start.blockYaw[b] / 2);
    }
    for (int f = 0; f < 2; ++f) {
        d->qpos[m_impl->fingerQpos[static_cast<std::size_t>(f)]] = kFingerOpen;
        d->ctrl[f] = kFingerOpen;
    }
    m_impl->target = start.hand;
    for (int i = 0; i < 3; ++i) {
        d->mocap_pos[3 * m_impl->mocap + i] = start.hand[static_cast<std::size_t>(i)];
        d->qpos[m_impl->handQpos + i] = start.hand[static_cast<std::size_t>(i)];
    }
    d->qpos[m_impl->handQpos + 3] = 1; // upright; the weld keeps it so
    d->qpos[m_impl->handQpos + 4] = d->qpos[m_impl->handQpos + 5] = d->qpos[m_impl->handQpos + 6] =
        0;
    m_gripper = 1.0;
    m_physicsSteps = 0;
    mj_forward(m, d);
    for (int i = 0; i < 50; ++i) { // let the blocks settle on the table
        mj_step(m, d);
        ++m_physicsSteps;
    }
}

void TabletopSim::step(const Action &action)
{
    if (action.size() < 7)
        throw Error(ErrorCode::InvalidInput,
                    "physics.tabletop takes 7-D actions, got " + std::to_string(action.size()));
    for (double v : action) {
        if (!std::isfinite(v))
            throw Error(ErrorCode::InvalidInput, "physics.tabletop: a non-finite action value");
    }
    mjModel *m = m_impl->model;
    mjData *d = m_impl->data;
    const std::array<double, 3> from = m_impl->target;
    std::array<double, 3> to{};
    for (std::size_t i = 0; i < 3; ++i)
        to[i] = std::clamp(from[i] + action[i], kWorkspaceMin[i], kWorkspaceMax[i]);
    m_impl->target = to;
    m_gripper = std::clamp(action[6], 0.0, 1.0);
    const int substeps = std::max(
        1, static_cast<int>(std::lround(1.0 / (m_settings.controlRateHz * m->opt.timestep))));
    t_lastWarning.clear();
    const int badBefore = d->warning[mjWARN_BADQACC].number;
    for (int k = 1; k <= substeps; ++k) {
        const double a = static_cast<double>(k) / substeps;
        for (std::size_t i = 0; i < 3; ++i)
            d->mocap_pos[3 * m_impl->mocap + static_cast<int>(i)] = from[i] + (to[i] - from[i]) * a;
        d->ctrl[0] = d->ctrl[1] = m_gripper * kFingerOpen;
        mj_step(m, d);
        ++m_physicsSteps;
    }
    if (d->warning[mjWARN_BADQACC].number != badBefore)
        throw Error(ErrorCode::RemoteError,
                    "physics.tabletop: the simulation became unstable (" + t_lastWarning + ")");
}

cv::Mat TabletopSim::render()
{
    Impl &p = *m_impl;
    const int w = m_settings.width;
    const int h = m_settings.height;
    if (!p.gl)
        p.gl = std::make_unique<HeadlessGl>("physics.tabletop");
    p.gl->makeCurrent();
    if (!p.renderReady) {
        mjv_defaultCamera(&p.camera);
        p.camera.type = mjCAMERA_FIXED;
        p.camera.fixedcamid = mj_name2id(p.model, mjOBJ_CAMERA, "front");
        mjv_defaultOption(&p.option);
        mjv_defaultScene(&p.scene);
        mjv_makeScene(p.model, &p.scene, 200);
        mjr_defaultContext(&p.context);
        mjr_makeContext(p.model, &p.context, mjFONTSCALE_100);
        mjr_setBuffer(mjFB_OFFSCREEN, &p.context);
        if (p.context.currentBuffer != mjFB_OFFSCREEN)
            throw Error(ErrorCode::InvalidInput,
                        "physics.tabletop: the offscreen buffer is not available");
        p.renderReady = true;
    }
    const mjrRect viewport = {0, 0, w, h};
    mjv_updateScene(p.model, p.data, &p.option, nullptr, &p.camera, mjCAT_ALL, &p.scene);
    mjr_render(viewport, &p.scene, &p.context);
    p.rgb.resize(static_cast<std::size_t>(w) * static_cast<std::size_t>(h) * 3);
    mjr_readPixels(p.rgb.data(), nullptr, viewport, &p.context);
    cv::Mat upsideDown(h, w, CV_8UC3, p.rgb.data());
    cv::Mat frame;
    cv::flip(upsideDown, frame, 0); // OpenGL rows are bottom-up
    return frame;
}

Pose TabletopSim::block(int index) const
{
    const double *q = m_impl->data->qpos + m_impl->blockQpos[static_cast<std::size_t>(index)];
    Pose pose;
    pose.pos = {q[0], q[1], q[2]};
    pose.quat = {q[3], q[4], q[5], q[6]};
    return pose;
}

std::array<double, 3> TabletopSim::hand() const
{
    return m_impl->target;
}

double TabletopSim::fingerOpening() const
{
    return m_impl->data->qpos[m_impl->fingerQpos[0]] + m_impl->data->qpos[m_impl->fingerQpos[1]];
}

bool TabletopSim::fingerTouches(int blockIndex) const
{
    const mjData *d = m_impl->data;
    const int block = m_impl->blockGeom[static_cast<std::size_t>(blockIndex)];
    for (int i = 0; i < d->ncon; ++i) {
        const mjContact &c = d->contact[i];
        for (int finger : m_impl->fingerGeom) {
            if ((c.geom1 == finger && c.geom2 == block) || (c.geom2 == finger && c.geom1 == block))
                return true;
        }
    }
    return false;
}

double TabletopSim::blockSpeed(int index) const
{
    const double *v = m_impl->data->qvel + m_impl->blockDof[static_cast<std::size_t>(index)];
    return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

nlohmann::json TabletopSim::state() const
{
    const auto h = hand();
    nlohmann::json j = {{"hand", {round6(h[0]), round6(h[1]), round6(h[2])}},
                        {"finger_opening_m", round6(fingerOpening())},
                        {"gripper_command", m_gripper}};
    for (std::size_t b = 0; b < kBlockNames.size(); ++b) {
        const Pose p = block(static_cast<int>(b));
        j["blocks"][std::string(kBlockNames[b])] = {
            {"pos", {round6(p.pos[0]), round6(p.pos[1]), round6(p.pos[2])}},
            {"quat", {round6(p.quat[0]), round6(p.quat[1]), round6(p.quat[2]), round6(p.quat[3])}},
            {"speed", round6(blockSpeed(static_cast<int>(b)))},
            {"touched_by_finger", fingerTouches(static_cast<int>(b))}};
    }
    for (std::size_t r = 0; r < kRegionNames.size(); ++r)
        j["regions"][std::string(kRegionNames[r])] = {
            {"center", {m_start.regions[r][0], m_start.regions[r][1]}}, {"half_size", kRegionHalf}};
    return j;
}

TaskSuccess TabletopSim::successOf(const TabletopTask &task) const
{
    const int b = indexOf(task.block, kBlockNames);
    const int r = indexOf(task.region, kRegionNames);
    const Pose p = block(b);
    const auto &c = m_start.regions[static_cast<std::size_t>(r)];
    const bool inRegion =
        std::abs(p.pos[0] - c[0]) <= kRegionHalf && std::abs(p.pos[1] - c[1]) <= kRegionHalf;
    const bool onTable = p.pos[2] < kBlockHalf + 0.01;
    const double speed = blockSpeed(b);
    const bool resting = speed < 0.02;
    const bool released = !fingerTouches(b);
    TaskSuccess s;
    s.success = inRegion && onTable && resting && released;
    const auto &start = m_start.blocks[static_cast<std::size_t>(b)];
    const double startDist = dist(start, c);
    const double nowDist = std::hypot(p.pos[0] - c[0], p.pos[1] - c[1]);
    const auto h = hand();
    if (s.success)
        s.progress = 5;
    else if (inRegion)
        s.progress = 4;
    else if (p.pos[2] > kBlockHalf + 0.015 || nowDist < 0.5 * startDist)
        s.progress = 3;
    else if (!released || std::hypot(p.pos[0] - start[0], p.pos[1] - start[1]) > 0.01)
        s.progress = 2;
    else if (std::hypot(h[0] - p.pos[0], h[1] - p.pos[1]) < 0.05)
        s.progress = 1;
    s.details = {{"predicate",
                  "block centre inside the square, on the table, resting (< 0.02 m/s), "
                  "not touched by a finger"},
                 {"block", task.block},
                 {"region", task.region},
                 {"block_pos", {round6(p.pos[0]), round6(p.pos[1]), round6(p.pos[2])}},
                 {"region_center", {c[0], c[1]}},
                 {"in_region", inRegion},
                 {"on_table", onTable},
                 {"resting", resting},
                 {"released", released},
                 {"speed_m_s", round6(speed)}};
    return s;
}

nlohmann::json declaredCameras()
{
    const auto [pos, up] = frontCamera();
    return nlohmann::json::array({{{"name", "front"},
                                   {"pos", {pos[0], pos[1], pos[2]}},
                                   {"xyaxes", {1.0, 0.0, 0.0, up[0], up[1], up[2]}},
                                   {"fovy_deg", 45}}});
}

} // namespace kosmos::physics

namespace kosmos::physics {

std::string headlessRenderingProblem()
{
    return headlessGlProblem("physics.tabletop");
}

} // namespace kosmos::physics
