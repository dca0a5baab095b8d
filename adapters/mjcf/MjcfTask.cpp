#include "mjcf/MjcfTask.h"

#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/JsonFields.h"
#include "util/Sha256.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace kosmos::mjcf {
namespace {

void onlyFields(const nlohmann::json &object, const std::set<std::string> &known,
                const std::string &where)
{
    for (const auto &item : object.items()) {
        if (!known.count(item.key())) {
            std::string list;
            for (const auto &k : known)
                list += (list.empty() ? "" : ", ") + k;
            json::fail(where, "unknown field '" + item.key() + "' (known: " + list + ")");
        }
    }
}

std::vector<std::string> names(const nlohmann::json &value, const std::string &where)
{
    std::vector<std::string> out;
    if (value.is_string())
        out.push_back(value.get<std::string>());
    else if (value.is_array() && !value.empty()) {
        for (const auto &v : value) {
            if (!v.is_string() || v.get<std::string>().empty())
                json::fail(where, "must name geoms (a string or a list of strings)");
            out.push_back(v.get<std::string>());
        }
    } else
        json::fail(where, "must name geoms (a string or a list of strings)");
    return out;
}

template<std::size_t N>
std::array<double, N> numbers(const nlohmann::json &object, const std::string &key,
                              const std::string &where)
{
    const auto &a = json::requireArray(object, key, where);
    if (a.size() != N)
        json::fail(where + "." + key, "must hold " + std::to_string(N) + " numbers");
    std::array<double, N> out{};
    for (std::size_t i = 0; i < N; ++i) {
        if (!a[i].is_number() || !std::isfinite(a[i].get<double>()))
            json::fail(where + "." + key + "[" + std::to_string(i) + "]",
                       "must be a finite number");
        out[i] = a[i].get<double>();
    }
    return out;
}

std::optional<std::array<double, 2>> optRange(const nlohmann::json &object,
                                              const std::string &where)
{
    if (!object.contains("range"))
        return std::nullopt;
    const auto r = numbers<2>(object, "range", where);
    if (r[0] == r[1])
        json::fail(where + ".range", "must not be empty (the two ends are equal)");
    return r;
}

} // namespace

Predicate Predicate::fromJson(const nlohmann::json &j, const std::string &where)
{
    if (!j.is_object() || j.size() < 1)
        json::fail(where, "must be an object with one of contact, held, above, inside, all, any, "
                          "not, ref");
    Predicate p;
    if (j.contains("contact")) {
        onlyFields(j, {"contact", "ordered"}, where);
        const auto &pair = j["contact"];
        if (!pair.is_array() || pair.size() != 2)
            json::fail(where + ".contact", "must be a pair [geoms, geoms]");
        p.kind = Kind::Contact;
        p.a = names(pair[0], where + ".contact[0]");
        p.b = names(pair[1], where + ".contact[1]");
        if (j.contains("ordered")) {
            if (!j["ordered"].is_boolean())
                json::fail(where + ".ordered", "must be true or false");
            p.ordered = j["ordered"].get<bool>();
        }
    } else if (j.contains("held")) {
        onlyFields(j, {"held"}, where);
        const auto &h = json::requireObject(j, "held", where);
        onlyFields(h, {"geom", "fingers"}, where + ".held");
        p.kind = Kind::Held;
        p.a = names(json::require(h, "geom", where + ".held"), where + ".held.geom");
        p.b = names(json::require(h, "fingers", where + ".held"), where + ".held.fingers");
    } else if (j.contains("above")) {
        onlyFields(j, {"above"}, where);
        const auto &a = json::requireObject(j, "above", where);
        onlyFields(a, {"body", "z"}, where + ".above");
        p.kind = Kind::Above;
        p.body = json::requireString(a, "body", where + ".above");
        p.z = json::requireNumber(a, "z", where + ".above");
    } else if (j.contains("inside")) {
        onlyFields(j, {"inside"}, where);
        const auto &a = json::requireObject(j, "inside", where);
        onlyFields(a, {"body", "min", "max"}, where + ".inside");
        p.kind = Kind::Inside;
        p.body = json::requireString(a, "body", where + ".inside");
        p.min = numbers<3>(a, "min", where + ".inside");
        p.max = numbers<3>(a, "max", where + ".inside");
        for (int i = 0; i < 3; ++i) {
            if (p.min[static_cast<std::size_t>(i)] > p.max[static_cast<std::size_t>(i)])
                json::fail(where + ".inside", "min must not exceed max");
        }
    } else if (j.contains("all") || j.contains("any")) {
        const std::string key = j.contains("all") ? "all" : "any";
        onlyFields(j, {key}, where);
        p.kind = key == "all" ? Kind::All : Kind::Any;
        const auto &list = json::requireArray(j, key, where);
        if (list.empty())
            json::fail(where + "." + key, "must list at least one predicate");
        for (std::size_t i = 0; i < list.size(); ++i)
            p.children.push_back(
                fromJson(list[i], where + "." + key + "[" + std::to_string(i) + "]"));
    } else if (j.contains("not")) {
        onlyFields(j, {"not"}, where);
        p.kind = Kind::Not;
        p.children.push_back(fromJson(j["not"], where + ".not"));
    } else if (j.contains("ref")) {
        onlyFields(j, {"ref"}, where);
        p.kind = Kind::Ref;
        p.ref = json::requireString(j, "ref", where);
    } else {
        json::fail(where, "names no predicate (contact, held, above, inside, all, any, not, ref)");
    }
    return p;
}

int MjcfTask::maxReward() const
{
    int best = 0;
    for (const auto &s : stages)
        best = std::max(best, s.reward);
    return best;
}

MjcfTask MjcfTask::fromJson(const nlohmann::json &j, const std::string &where)
{
    if (!j.is_object())
        json::fail(where, "must be a JSON object");
    onlyFields(j,
               {"kosmos_mjcf_task", "id", "instruction", "source", "scene", "control_rate_hz",
                "substeps", "stepping", "episode_steps", "action", "proprio", "start", "camera",
                "tracked_bodies", "predicates", "stages", "success_reward"},
               where);
    if (json::requireInt(j, "kosmos_mjcf_task", where, 0, 1000) != 1)
        json::fail(where + ".kosmos_mjcf_task", "this build reads version 1");
    MjcfTask t;
    t.id = json::requireString(j, "id", where);
    t.instruction = json::requireString(j, "instruction", where);
    if (t.id.empty() || t.instruction.empty())
        json::fail(where, "id and instruction must not be empty");
    t.source = json::optString(j, "source", where).value_or("");
    const auto &scene = json::requireObject(j, "scene", where);
    onlyFields(scene, {"package", "file"}, where + ".scene");
    t.scenePackage = json::optString(scene, "package", where + ".scene").value_or("");
    t.sceneFile = json::requireString(scene, "file", where + ".scene");
    t.controlRateHz = json::requireNumber(j, "control_rate_hz", where);
    if (!(t.controlRateHz > 0 && t.controlRateHz <= 1000))
        json::fail(where + ".control_rate_hz", "must be in (0, 1000]");
    t.substeps = static_cast<int>(json::requireInt(j, "substeps", where, 1, 10000));
    const std::string stepping = json::optString(j, "stepping", where).value_or("mj_step");
    if (stepping == "mj_step")
        t.stepping = Stepping::MjStep;
    else if (stepping == "dm_control")
        t.stepping = Stepping::DmControl;
    else
        json::fail(where + ".stepping", "must be mj_step or dm_control, not '" + stepping + "'");
    t.episodeSteps = static_cast<int>(json::requireInt(j, "episode_steps", where, 1, 1000000));

    const std::string aw = where + ".action";
    const auto &action = json::requireObject(j, "action", where);
    onlyFields(action, {"dimensions", "actuators", "mocap"}, aw);
    if (!action.contains("dimensions"))
        json::fail(aw, "lacks dimensions");
    nlohmann::json contract = {
        {"dimensions", action.at("dimensions")},
        {"chunk_length", 1},
        {"gripper_index", nullptr},
        {"gripper_convention", "zero_closed_one_open"},
        {"normalization", {{"scheme", "none"}, {"statistics", nlohmann::json::object()}}},
        {"control_rate_hz", t.controlRateHz}};
    t.contract = ActionContract::fromJson(contract, aw);
    const int dims = t.contract.dimension();
    if (dims < 1)
        json::fail(aw + ".dimensions", "must list at least one dimension");
    std::vector<bool> used(static_cast<std::size_t>(dims), false);
    const auto &acts = json::requireArray(action, "actuators", aw);
    for (std::size_t i = 0; i < acts.size(); ++i) {
        const std::string at = aw + ".actuators[" + std::to_string(i) + "]";
        if (!acts[i].is_object())
            json::fail(at, "must be an object");
        onlyFields(acts[i], {"actuator", "joint", "action", "range"}, at);
        ActuatorMap m;
        m.actuator = json::optString(acts[i], "actuator", at).value_or("");
        m.joint = json::optString(acts[i], "joint", at).value_or("");
        if (m.actuator.empty() == m.joint.empty())
            json::fail(at, "must name either an actuator or the joint its actuator drives");
        m.action = static_cast<int>(json::requireInt(acts[i], "action", at, 0, dims - 1));
        m.range = optRange(acts[i], at);
        used[static_cast<std::size_t>(m.action)] = true;
        t.actuators.push_back(m);
    }
    if (action.contains("mocap")) {
        const auto &mocaps = json::requireArray(action, "mocap", aw);
        for (std::size_t i = 0; i < mocaps.size(); ++i) {
            const std::string at = aw + ".mocap[" + std::to_string(i) + "]";
            if (!mocaps[i].is_object())
                json::fail(at, "must be an object");
            onlyFields(mocaps[i], {"body", "pos", "quat"}, at);
            MocapMap m;
            m.body = json::requireString(mocaps[i], "body", at);
            m.pos = static_cast<int>(json::requireInt(mocaps[i], "pos", at, 0, dims - 3));
            m.quat =
                static_cast<int>(json::optInt(mocaps[i], "quat", at, 0, dims - 4).value_or(-1));
            for (std::size_t k = 0; k < 3; ++k)
                used[static_cast<std::size_t>(m.pos) + k] = true;
            for (std::size_t k = 0; m.quat >= 0 && k < 4; ++k)
                used[static_cast<std::size_t>(m.quat) + k] = true;
            t.mocaps.push_back(m);
        }
    }
    for (int i = 0; i < dims; ++i) {
        if (!used[static_cast<std::size_t>(i)])
            json::fail(aw, "dimension " + std::to_string(i) + " (" +
                               t.contract.dimensions[static_cast<std::size_t>(i)].name +
                               ") drives nothing (no actuator or mocap reads it)");
    }

    const auto &proprio = json::requireArray(j, "proprio", where);
    for (std::size_t i = 0; i < proprio.size(); ++i) {
        const std::string at = where + ".proprio[" + std::to_string(i) + "]";
        if (!proprio[i].is_object())
            json::fail(at, "must be an object");
        onlyFields(proprio[i], {"name", "joint", "range"}, at);
        ProprioMap p;
        p.joint = json::requireString(proprio[i], "joint", at);
        p.name = json::optString(proprio[i], "name", at).value_or(p.joint);
        p.range = optRange(proprio[i], at);
        t.proprio.push_back(p);
    }

    const std::string sw = where + ".start";
    const auto &start = json::requireObject(j, "start", where);
    onlyFields(start, {"qpos", "ctrl_from_qpos", "sample"}, sw);
    if (start.contains("qpos")) {
        const auto &q = json::requireObject(start, "qpos", sw);
        for (const auto &item : q.items()) {
            if (!item.value().is_number() || !std::isfinite(item.value().get<double>()))
                json::fail(sw + ".qpos." + item.key(), "must be a finite number");
            t.startQpos[item.key()] = item.value().get<double>();
        }
    }
    if (start.contains("ctrl_from_qpos")) {
        if (!start["ctrl_from_qpos"].is_boolean())
            json::fail(sw + ".ctrl_from_qpos", "must be true or false");
        t.ctrlFromQpos = start["ctrl_from_qpos"].get<bool>();
    }
    if (start.contains("sample")) {
        const auto &sample = json::requireObject(start, "sample", sw);
        onlyFields(sample, {"rng", "free_joints"}, sw + ".sample");
        if (json::requireString(sample, "rng", sw + ".sample") != "numpy_random_state")
            json::fail(sw + ".sample.rng", "must be numpy_random_state");
        const auto &free = json::requireArray(sample, "free_joints", sw + ".sample");
        for (std::size_t i = 0; i < free.size(); ++i) {
            const std::string at = sw + ".sample.free_joints[" + std::to_string(i) + "]";
            if (!free[i].is_object())
                json::fail(at, "must be an object");
            onlyFields(free[i], {"joint", "low", "high", "quat"}, at);
            FreeJointSample f;
            f.joint = json::requireString(free[i], "joint", at);
            f.low = numbers<3>(free[i], "low", at);
            f.high = numbers<3>(free[i], "high", at);
            for (std::size_t k = 0; k < 3; ++k) {
                if (f.low[k] > f.high[k])
                    json::fail(at, "low must not exceed high");
            }
            if (free[i].contains("quat"))
                f.quat = numbers<4>(free[i], "quat", at);
            t.samples.push_back(f);
        }
    }

    t.camera = json::requireString(j, "camera", where);
    if (j.contains("tracked_bodies")) {
        for (const auto &b : json::requireArray(j, "tracked_bodies", where)) {
            if (!b.is_string())
                json::fail(where + ".tracked_bodies", "must list body names");
            t.trackedBodies.push_back(b.get<std::string>());
        }
    }
    if (j.contains("predicates")) {
        for (const auto &item : json::requireObject(j, "predicates", where).items())
            t.predicates[item.key()] =
                Predicate::fromJson(item.value(), where + ".predicates." + item.key());
    }
    const auto &stages = json::requireArray(j, "stages", where);
    if (stages.empty())
        json::fail(where + ".stages", "must list at least one stage");
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const std::string at = where + ".stages[" + std::to_string(i) + "]";
        if (!stages[i].is_object())
            json::fail(at, "must be an object");
        onlyFields(stages[i], {"name", "reward", "when"}, at);
        Stage s;
        s.name = json::requireString(stages[i], "name", at);
        s.reward = static_cast<int>(json::requireInt(stages[i], "reward", at, 1, 1000));
        s.when = Predicate::fromJson(json::require(stages[i], "when", at), at + ".when");
        t.stages.push_back(std::move(s));
    }
    t.successReward = static_cast<int>(json::requireInt(j, "success_reward", where, 1, 1000));
    if (t.successReward > t.maxReward())
        json::fail(where + ".success_reward", "exceeds every stage's reward");

    // Every reference names a predicate of the task, and none refers to itself through others.
    std::function<void(const Predicate &, const std::string &, std::set<std::string> &)> check =
        [&](const Predicate &p, const std::string &at, std::set<std::string> &path) {
            if (p.kind == Predicate::Kind::Ref) {
                const auto it = t.predicates.find(p.ref);
                if (it == t.predicates.end())
                    json::fail(at, "refers to '" + p.ref + "', which predicates does not define");
                if (path.count(p.ref))
                    json::fail(at, "'" + p.ref + "' refers to itself");
                path.insert(p.ref);
                check(it->second, at, path);
                path.erase(p.ref);
            }
            for (const auto &c : p.children)
                check(c, at, path);
        };
    for (std::size_t i = 0; i < t.stages.size(); ++i) {
        std::set<std::string> path;
        check(t.stages[i].when, where + ".stages[" + std::to_string(i) + "].when", path);
    }
    for (const auto &[name, p] : t.predicates) {
        std::set<std::string> path = {name};
        check(p, where + ".predicates." + name, path);
    }
    return t;
}

MjcfTask MjcfTask::fromText(const std::string &text, const std::string &where)
{
    json::Limits limits;
    limits.maxBytes = 4u << 20;
    limits.rejectDuplicateKeys = true;
    MjcfTask t = fromJson(json::parseBounded(text, where, limits), where);
    t.sha256 = Sha256::hex(text);
    return t;
}

} // namespace kosmos::mjcf
