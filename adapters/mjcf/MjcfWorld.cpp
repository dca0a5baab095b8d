#include "mjcf/MjcfWorld.h"

#include "util/BoundedJson.h"
#include "util/Clock.h"
#include "util/Error.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace kosmos::mjcf {
namespace fs = std::filesystem;
namespace {

constexpr const char *kWho = "physics.mjcf";

bool boolSetting(const nlohmann::json &value, const std::string &key)
{
    if (!value.is_boolean())
        throw Error(ErrorCode::InvalidInput,
                    std::string(kWho) + " settings." + key + " must be true or false");
    return value.get<bool>();
}

std::vector<std::string> stringList(const nlohmann::json &value, const std::string &key)
{
    std::vector<std::string> out;
    if (value.is_string())
        return {value.get<std::string>()};
    if (!value.is_array())
        throw Error(ErrorCode::InvalidInput,
                    std::string(kWho) + " settings." + key + " must be a list of paths");
    for (const auto &v : value) {
        if (!v.is_string() || v.get<std::string>().empty())
            throw Error(ErrorCode::InvalidInput,
                        std::string(kWho) + " settings." + key + " must be a list of paths");
        out.push_back(v.get<std::string>());
    }
    return out;
}

std::vector<double> numbersOf(const nlohmann::json &value, std::size_t n, const std::string &where)
{
    if (!value.is_array() || value.size() != n)
        throw Error(ErrorCode::InvalidInput,
                    where + " must hold " + std::to_string(n) + " numbers");
    std::vector<double> out;
    for (const auto &v : value) {
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            throw Error(ErrorCode::InvalidInput, where + " must hold finite numbers");
        out.push_back(v.get<double>());
    }
    return out;
}

} // namespace

WorldSettings WorldSettings::fromJson(const nlohmann::json &settings)
{
    WorldSettings s;
    if (settings.is_null())
        return s;
    if (!settings.is_object())
        throw Error(ErrorCode::InvalidInput, std::string(kWho) + " settings must be an object");
    for (const auto &[key, value] : settings.items()) {
        if (key == "width" || key == "height") {
            if (!value.is_number_integer() || value.get<int>() < 64 || value.get<int>() > 1280 ||
                value.get<int>() % 8 != 0)
                throw Error(ErrorCode::InvalidInput,
                            std::string(kWho) + " settings." + key +
                                " must be an integer from 64 to 1280, divisible by 8");
            (key == "width" ? s.width : s.height) = value.get<int>();
        } else if (key == "camera") {
            if (!value.is_string() || value.get<std::string>().empty())
                throw Error(ErrorCode::InvalidInput,
                            std::string(kWho) + " settings.camera must name a camera of the scene");
            s.camera = value.get<std::string>();
        } else if (key == "shadows") {
            s.shadows = boolSetting(value, key);
        } else if (key == "reflections") {
            s.reflections = boolSetting(value, key);
        } else if (key == "task_files") {
            s.taskFiles = stringList(value, key);
        } else if (key == "package_dirs") {
            s.lookup.packageDirs = stringList(value, key);
        } else if (key == "python") {
            if (!value.is_string())
                throw Error(ErrorCode::InvalidInput,
                            std::string(kWho) + " settings.python must be a path");
            s.lookup.python = value.get<std::string>();
        } else {
            throw Error(ErrorCode::InvalidInput,
                        std::string(kWho) + " settings has no field '" + key +
                            "' (camera, width, height, shadows, reflections, task_files, "
                            "package_dirs, python)");
        }
    }
    return s;
}

std::vector<MjcfTask> loadTasks(const WorldSettings &settings)
{
    std::vector<MjcfTask> tasks;
    for (const auto &[name, text] : builtinTaskFiles())
        tasks.push_back(MjcfTask::fromText(text, "built-in task " + name));
    for (const auto &file : settings.taskFiles) {
        const std::string text = json::readFileBounded(file, 4u << 20);
        tasks.push_back(MjcfTask::fromText(text, file));
    }
    std::set<std::string> ids;
    std::set<std::string> instructions;
    for (const auto &t : tasks) {
        if (!ids.insert(t.id).second)
            throw Error(ErrorCode::InvalidInput,
                        std::string(kWho) + ": two tasks have the id '" + t.id + "'");
        if (!instructions.insert(t.instruction).second)
            throw Error(ErrorCode::InvalidInput, std::string(kWho) +
                                                     ": two tasks have the instruction '" +
                                                     t.instruction + "'");
        if (t.contract.toJson() != tasks.front().contract.toJson())
            throw Error(ErrorCode::InvalidInput,
                        std::string(kWho) + ": the task '" + t.id +
                            "' has another action contract than '" + tasks.front().id +
                            "' (one world has one contract: use another world for it)");
    }
    return tasks;
}

fs::path scenePathOf(const MjcfTask &task, const SceneLookup &lookup, std::string *packageVersion)
{
    if (task.scenePackage.empty())
        return task.sceneFile;
    const ScenePackage package = findScenePackage(task.scenePackage, lookup);
    if (packageVersion)
        *packageVersion = package.version;
    return package.dir / task.sceneFile;
}

// --- BoundTask --------------------------------------------------------------------------------

struct BoundTask::Bound
{
    Predicate::Kind kind = Predicate::Kind::All;
    std::set<int> a;
    std::set<int> b;
    std::vector<int> fingers;
    bool ordered = false;
    int body = -1;
    double z = 0;
    std::array<double, 3> min{};
    std::array<double, 3> max{};
    std::vector<std::unique_ptr<Bound>> children;
    const Bound *ref = nullptr;
};

BoundTask::BoundTask(MjcfTask task, const fs::path &scenePath, const std::string &who)
    : m_task(std::move(task)), m_scenePath(scenePath),
      m_scene(std::make_unique<MjcfScene>(scenePath, who))
{
    MjcfScene &s = *m_scene;
    const mjModel *m = s.model();
    const double expectedSubsteps = 1.0 / (m_task.controlRateHz * m->opt.timestep);
    if (std::abs(expectedSubsteps - m_task.substeps) > 1e-6)
        throw Error(ErrorCode::InvalidInput,
                    who + ": task '" + m_task.id + "' asks for " + std::to_string(m_task.substeps) +
                        " substeps at " + std::to_string(m_task.controlRateHz) +
                        " Hz, but the scene's timestep " + std::to_string(m->opt.timestep) +
                        " s makes " + std::to_string(expectedSubsteps));
    for (const auto &a : m_task.actuators) {
        const int id = a.actuator.empty() ? s.actuatorOfJoint(a.joint)
                                          : s.id(ObjectKind::Actuator, a.actuator);
        m_ctrl.push_back({id, a.action, a.range});
    }
    for (const auto &mm : m_task.mocaps) {
        const int body = s.id(ObjectKind::Body, mm.body);
        if (m->body_mocapid[body] < 0)
            throw Error(ErrorCode::InvalidInput,
                        who + ": the body '" + mm.body + "' is not a mocap body");
        m_mocap.push_back({m->body_mocapid[body], mm.pos, mm.quat});
    }
    for (const auto &p : m_task.proprio) {
        const int j = s.id(ObjectKind::Joint, p.joint);
        if (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE)
            throw Error(ErrorCode::InvalidInput,
                        who + ": proprioception reads hinge and slide joints; '" + p.joint +
                            "' is not one");
        m_proprio.emplace_back(m->jnt_qposadr[j], p.range);
    }
    for (const auto &[joint, value] : m_task.startQpos) {
        const int j = s.id(ObjectKind::Joint, joint);
        if (m->jnt_type[j] != mjJNT_HINGE && m->jnt_type[j] != mjJNT_SLIDE)
            throw Error(ErrorCode::InvalidInput, who +
                                                     ": start.qpos sets hinge and slide joints; '" +
                                                     joint + "' is not one");
        m_startQpos.emplace_back(m->jnt_qposadr[j], value);
    }
    for (const auto &f : m_task.samples) {
        const int j = s.id(ObjectKind::Joint, f.joint);
        if (m->jnt_type[j] != mjJNT_FREE)
            throw Error(ErrorCode::InvalidInput,
                        who + ": start.sample places free joints; '" + f.joint + "' is not one");
        m_freeJoints.emplace_back(f.joint, m->jnt_qposadr[j]);
    }
    for (const auto &b : m_task.trackedBodies)
        m_bodies.emplace_back(b, s.id(ObjectKind::Body, b));
    s.id(ObjectKind::Camera, m_task.camera);

    std::function<std::unique_ptr<Bound>(const Predicate &)> bind =
        [&](const Predicate &p) -> std::unique_ptr<Bound> {
        auto out = std::make_unique<Bound>();
        out->kind = p.kind;
        out->ordered = p.ordered;
        switch (p.kind) {
        case Predicate::Kind::Contact:
            for (const auto &n : p.a)
                out->a.insert(s.id(ObjectKind::Geom, n));
            for (const auto &n : p.b)
                out->b.insert(s.id(ObjectKind::Geom, n));
            break;
        case Predicate::Kind::Held:
            for (const auto &n : p.a)
                out->a.insert(s.id(ObjectKind::Geom, n));
            for (const auto &n : p.b)
                out->fingers.push_back(s.id(ObjectKind::Geom, n));
            break;
        case Predicate::Kind::Above:
            out->body = s.id(ObjectKind::Body, p.body);
            out->z = p.z;
            break;
        case Predicate::Kind::Inside:
            out->body = s.id(ObjectKind::Body, p.body);
            out->min = p.min;
            out->max = p.max;
            break;
        case Predicate::Kind::All:
        case Predicate::Kind::Any:
        case Predicate::Kind::Not:
            for (const auto &c : p.children)
                out->children.push_back(bind(c));
            break;
        case Predicate::Kind::Ref:
            break; // resolved below, once every named predicate is bound
        }
        return out;
    };
    for (const auto &[name, p] : m_task.predicates)
        m_named[name] = bind(p);
    std::function<void(Bound &, const Predicate &)> link = [&](Bound &b, const Predicate &p) {
        if (p.kind == Predicate::Kind::Ref)
            b.ref = m_named.at(p.ref).get();
        for (std::size_t i = 0; i < p.children.size(); ++i)
            link(*b.children[i], p.children[i]);
    };
    for (const auto &[name, p] : m_task.predicates)
        link(*m_named[name], p);
    for (const auto &stage : m_task.stages) {
        m_stages.push_back(bind(stage.when));
        link(*m_stages.back(), stage.when);
    }
}

BoundTask::~BoundTask() = default;

nlohmann::json BoundTask::sampleStart(std::uint64_t seed) const
{
    NumpyRandomState rng(static_cast<std::uint32_t>(seed & 0xffffffffULL));
    nlohmann::json free = nlohmann::json::object();
    for (const auto &f : m_task.samples) {
        std::vector<double> pose;
        for (std::size_t k = 0; k < 3; ++k)
            pose.push_back(rng.uniform(f.low[k], f.high[k]));
        pose.insert(pose.end(), f.quat.begin(), f.quat.end());
        free[f.joint] = pose;
    }
    return {{"free_joints", free}, {"seed_uint32", seed & 0xffffffffULL}};
}

void BoundTask::reset(const nlohmann::json &start)
{
    MjcfScene &s = *m_scene;
    mjModel *m = s.model();
    mjData *d = s.data();
    const std::string where = s.who() + " start_state.free_joints";
    const nlohmann::json free =
        start.is_object() ? start.value("free_joints", nlohmann::json()) : nlohmann::json();
    if (!m_freeJoints.empty() && !free.is_object())
        throw Error(ErrorCode::InvalidInput, where + " must be an object of joint poses");
    for (const auto &item : free.items()) {
        if (std::none_of(m_freeJoints.begin(), m_freeJoints.end(),
                         [&](const auto &f) { return f.first == item.key(); }))
            throw Error(ErrorCode::InvalidInput,
                        where + "." + item.key() + ": the task places no free joint of that name");
    }
    std::vector<std::pair<int, std::vector<double>>> poses;
    for (const auto &[joint, adr] : m_freeJoints) {
        if (!free.contains(joint))
            throw Error(ErrorCode::InvalidInput, where + " lacks the joint '" + joint + "'");
        poses.emplace_back(adr, numbersOf(free[joint], 7, where + "." + joint));
    }
    s.resetData();
    for (const auto &[adr, value] : m_startQpos)
        d->qpos[adr] = value;
    if (m_task.ctrlFromQpos) {
        for (int a = 0; a < m->nu; ++a) {
            if (m->actuator_trntype[a] == mjTRN_JOINT)
                d->ctrl[a] =
                    d->qpos[m->jnt_qposadr[m->actuator_trnid[2 * static_cast<std::ptrdiff_t>(a)]]];
        }
    }
    for (const auto &[adr, pose] : poses)
        std::copy(pose.begin(), pose.end(), d->qpos + adr);
    s.forwardWithoutActuation();
}

void BoundTask::apply(const Action &action)
{
    mjData *d = m_scene->data();
    for (const auto &c : m_ctrl) {
        const double v = action[static_cast<std::size_t>(c.action)];
        d->ctrl[c.actuator] = c.range ? (*c.range)[0] + v * ((*c.range)[1] - (*c.range)[0]) : v;
    }
    for (const auto &mm : m_mocap) {
        const std::ptrdiff_t body = mm.mocap;
        for (std::size_t k = 0; k < 3; ++k)
            d->mocap_pos[3 * body + static_cast<std::ptrdiff_t>(k)] =
                action[static_cast<std::size_t>(mm.pos) + k];
        for (std::size_t k = 0; mm.quat >= 0 && k < 4; ++k)
            d->mocap_quat[4 * body + static_cast<std::ptrdiff_t>(k)] =
                action[static_cast<std::size_t>(mm.quat) + k];
    }
}

void BoundTask::step()
{
    m_scene->step(m_task.substeps, m_task.stepping);
}

std::vector<double> BoundTask::proprio() const
{
    const mjData *d = m_scene->data();
    std::vector<double> out;
    out.reserve(m_proprio.size());
    for (const auto &[adr, range] : m_proprio) {
        const double q = d->qpos[adr];
        out.push_back(range ? (q - (*range)[0]) / ((*range)[1] - (*range)[0]) : q);
    }
    return out;
}

bool BoundTask::holds(const Bound &p, const std::vector<std::pair<int, int>> &contacts) const
{
    const mjData *d = m_scene->data();
    switch (p.kind) {
    case Predicate::Kind::Contact:
        return std::any_of(contacts.begin(), contacts.end(), [&](const auto &c) {
            if (p.a.count(c.first) && p.b.count(c.second))
                return true;
            return !p.ordered && p.a.count(c.second) && p.b.count(c.first);
        });
    case Predicate::Kind::Held:
        return !p.fingers.empty() &&
               std::all_of(p.fingers.begin(), p.fingers.end(), [&](int finger) {
                   return std::any_of(contacts.begin(), contacts.end(), [&](const auto &c) {
                       return (c.first == finger && p.a.count(c.second)) ||
                              (c.second == finger && p.a.count(c.first));
                   });
               });
    case Predicate::Kind::Above:
        return d->xpos[3 * p.body + 2] > p.z;
    case Predicate::Kind::Inside:
        for (int k = 0; k < 3; ++k) {
            const double v = d->xpos[3 * p.body + k];
            if (v < p.min[static_cast<std::size_t>(k)] || v > p.max[static_cast<std::size_t>(k)])
                return false;
        }
        return true;
    case Predicate::Kind::All:
        return std::all_of(p.children.begin(), p.children.end(),
                           [&](const auto &c) { return holds(*c, contacts); });
    case Predicate::Kind::Any:
        return std::any_of(p.children.begin(), p.children.end(),
                           [&](const auto &c) { return holds(*c, contacts); });
    case Predicate::Kind::Not:
        return !holds(*p.children.front(), contacts);
    case Predicate::Kind::Ref:
        return holds(*p.ref, contacts);
    }
    return false;
}

int BoundTask::reward() const
{
    const auto contacts = m_scene->contacts();
    int r = 0;
    for (std::size_t i = 0; i < m_stages.size(); ++i) {
        if (holds(*m_stages[i], contacts))
            r = m_task.stages[i].reward;
    }
    return r;
}

int BoundTask::stageIndexOf(int reward) const
{
    for (std::size_t i = 0; i < m_task.stages.size(); ++i) {
        if (m_task.stages[i].reward == reward)
            return static_cast<int>(i);
    }
    return -1;
}

nlohmann::json BoundTask::freeJoints() const
{
    const mjData *d = m_scene->data();
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[joint, adr] : m_freeJoints)
        out[joint] = std::vector<double>(d->qpos + adr, d->qpos + adr + 7);
    return out;
}

nlohmann::json BoundTask::bodies() const
{
    const mjData *d = m_scene->data();
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[name, id] : m_bodies) {
        const std::ptrdiff_t b = id;
        out[name] = {{"pos", std::vector<double>(d->xpos + 3 * b, d->xpos + 3 * b + 3)},
                     {"quat", std::vector<double>(d->xquat + 4 * b, d->xquat + 4 * b + 4)}};
    }
    return out;
}

// --- MjcfWorld --------------------------------------------------------------------------------

MjcfWorld::MjcfWorld(WorldSettings settings)
    : m_settings(std::move(settings)), m_tasks(loadTasks(m_settings))
{
}

MjcfWorld::~MjcfWorld() = default;

FrameContract MjcfWorld::frameContract() const
{
    FrameContract f;
    f.width = m_settings.width;
    f.height = m_settings.height;
    f.channels = 3;
    f.dtype = "uint8";
    f.fps = m_tasks.front().controlRateHz;
    f.conditioningFrames = 1;
    f.framesPerAction = 1;
    f.resultIncludesConditioning = true;
    f.cameras =
        nlohmann::json::array({{{"name", m_settings.camera.value_or(m_tasks.front().camera)},
                                {"shadows", m_settings.shadows},
                                {"reflections", m_settings.reflections}}});
    return f;
}

BoundTask &MjcfWorld::bind(const MjcfTask &task)
{
    auto &slot = m_bound[task.id];
    if (!slot)
        slot = std::make_unique<BoundTask>(task, scenePathOf(task, m_settings.lookup), kWho);
    return *slot;
}

nlohmann::json MjcfWorld::sceneProvenance(const MjcfTask &task) const
{
    std::string version;
    const fs::path scene = scenePathOf(task, m_settings.lookup, &version);
    nlohmann::json digest = folderDigest(scene.parent_path());
    return {{"task", task.id},
            {"task_sha256", task.sha256},
            {"scene_package", task.scenePackage},
            {"scene_package_version", version},
            {"scene", scene.string()},
            {"scene_folder_sha256", digest["sha256"]},
            {"scene_files", digest["files"]}};
}

cv::Mat MjcfWorld::render()
{
    RenderOptions o;
    o.camera = m_settings.camera.value_or(m_current->task().camera);
    o.width = m_settings.width;
    o.height = m_settings.height;
    o.shadows = m_settings.shadows;
    o.reflections = m_settings.reflections;
    return m_current->scene().render(o);
}

void MjcfWorld::noteReward()
{
    m_reward = m_current->reward();
    m_maxReward = std::max(m_maxReward, m_reward);
    if (!m_firstSuccessStep && m_reward >= m_current->task().successReward)
        m_firstSuccessStep = m_step;
}

std::vector<cv::Mat> MjcfWorld::reset(const WorldStart &start)
{
    const auto it = std::find_if(m_tasks.begin(), m_tasks.end(), [&](const MjcfTask &t) {
        return t.instruction == start.instruction;
    });
    if (it == m_tasks.end()) {
        std::string known;
        for (const auto &t : m_tasks)
            known += (known.empty() ? "'" : ", '") + t.instruction + "'";
        throw Error(ErrorCode::InvalidInput, std::string(kWho) + " has no task '" +
                                                 start.instruction + "' (its tasks: " + known +
                                                 "; more with settings.task_files)");
    }
    const auto t0 = std::chrono::steady_clock::now();
    m_current = &bind(*it);
    const bool recorded = start.startState.is_object() && start.startState.contains("free_joints");
    m_start = recorded ? start.startState : m_current->sampleStart(start.seed);
    m_current->reset(m_start);
    m_step = 0;
    m_maxReward = 0;
    m_firstSuccessStep.reset();
    noteReward();
    const double setupMs = msSince(t0);
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<cv::Mat> frames = {render()};
    m_lastCall = {{"setup_ms", setupMs},
                  {"render_ms", msSince(t1)},
                  {"device", "cpu (MuJoCo " + MjcfScene::version() + ", EGL)"},
                  {"task", it->id},
                  {"start_state", m_start},
                  {"start_from", recorded ? "start_state" : "seed"}};
    return frames;
}

std::vector<cv::Mat> MjcfWorld::step(const ActionChunk &actions)
{
    if (!m_current)
        throw Error(ErrorCode::InvalidInput, std::string(kWho) + ": step before reset");
    std::vector<cv::Mat> frames;
    double physicsMs = 0;
    double renderMs = 0;
    const auto stepsBefore = m_current->scene().physicsSteps();
    const int dims = m_current->task().contract.dimension();
    for (const Action &a : actions) {
        if (static_cast<int>(a.size()) != dims)
            throw Error(ErrorCode::InvalidInput,
                        std::string(kWho) + ": an action of " + std::to_string(a.size()) +
                            " values, the task takes " + std::to_string(dims));
        for (std::size_t k = 0; k < a.size(); ++k) {
            if (!std::isfinite(a[k]))
                throw Error(ErrorCode::InvalidInput, std::string(kWho) + ": action value " +
                                                         std::to_string(k) + " is not finite");
        }
        auto t = std::chrono::steady_clock::now();
        m_current->apply(a);
        m_current->step();
        ++m_step;
        noteReward();
        physicsMs += msSince(t);
        t = std::chrono::steady_clock::now();
        frames.push_back(render());
        renderMs += msSince(t);
    }
    m_lastCall = {{"physics_ms", physicsMs},
                  {"render_ms", renderMs},
                  {"physics_steps", m_current->scene().physicsSteps() - stepsBefore},
                  {"reward", m_reward},
                  {"device", "cpu (MuJoCo " + MjcfScene::version() + ", EGL)"}};
    return frames;
}

std::vector<double> MjcfWorld::proprio() const
{
    return m_current ? m_current->proprio() : std::vector<double>{};
}

std::optional<GroundTruth> MjcfWorld::groundTruth() const
{
    if (!m_current)
        return std::nullopt;
    const MjcfTask &task = m_current->task();
    GroundTruth truth;
    truth.source = "physics";
    truth.success = m_maxReward >= task.successReward;
    truth.progress =
        truth.success ? 5 : std::min(4, 5 * m_maxReward / std::max(1, task.maxReward()));
    nlohmann::json reached = nlohmann::json::array();
    for (const auto &s : task.stages) {
        if (s.reward <= m_maxReward)
            reached.push_back(s.name);
    }
    const int best = m_current->stageIndexOf(m_maxReward);
    truth.details = {
        {"task", task.id},
        {"reward", m_reward},
        {"max_reward", m_maxReward},
        {"success_reward", task.successReward},
        {"best_stage", best >= 0 ? nlohmann::json(task.stages[static_cast<std::size_t>(best)].name)
                                 : nlohmann::json()},
        {"stages_reached", reached},
        {"first_success_step",
         m_firstSuccessStep ? nlohmann::json(*m_firstSuccessStep) : nlohmann::json()},
        {"steps", m_step},
        {"start_state", m_start},
        {"definition", task.source}};
    return truth;
}

nlohmann::json MjcfWorld::state() const
{
    if (!m_current)
        return nullptr;
    return {{"task", m_current->task().id},
            {"step", m_step},
            {"reward", m_reward},
            {"max_reward", m_maxReward},
            {"free_joints", m_current->freeJoints()},
            {"bodies", m_current->bodies()}};
}

} // namespace kosmos::mjcf
