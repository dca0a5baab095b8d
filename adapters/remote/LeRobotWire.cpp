#include "LeRobotWire.h"

#include "RemoteWorldWire.h"
#include "util/Error.h"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

namespace kosmos::remote {

namespace {

[[noreturn]] void bad(const std::string &what)
{
    throw Error(ErrorCode::InvalidInput, "remote.lerobot: " + what);
}

std::string shapeText(const std::vector<std::int64_t> &shape)
{
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::vector<double> numbers(const nlohmann::json &v, const std::string &where)
{
    if (!v.is_array())
        bad(where + ": expected a list of numbers");
    std::vector<double> out;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_number() || !std::isfinite(v[i].get<double>()))
            bad(where + "[" + std::to_string(i) + "]: not a finite number");
        out.push_back(v[i].get<double>());
    }
    return out;
}

LeRobotFeature feature(const std::string &name, const nlohmann::json &spec)
{
    const std::string where = "metadata.input_features." + name;
    if (!spec.is_object() || !spec.contains("type") || !spec["type"].is_string() ||
        !spec.contains("shape") || !spec["shape"].is_array())
        bad(where + ": expected {\"type\": str, \"shape\": [ints]}");
    LeRobotFeature f{name, spec["type"].get<std::string>(), {}};
    for (const auto &n : spec["shape"]) {
        if (!n.is_number_integer() || n.get<std::int64_t>() < 1 || n.get<std::int64_t>() > 65536)
            bad(where + ".shape: " + spec["shape"].dump() + " is not a list of sizes 1..65536");
        f.shape.push_back(n.get<std::int64_t>());
    }
    return f;
}

MsgValue imageFor(const LeRobotFeature &f, const cv::Mat &rgb)
{
    const int h = static_cast<int>(f.shape[1]);
    const int w = static_cast<int>(f.shape[2]);
    if (rgb.empty() || rgb.type() != CV_8UC3)
        bad("the observation has no RGB frame for " + f.name);
    cv::Mat image = rgb;
    if (rgb.cols != w || rgb.rows != h)
        cv::resize(rgb, image, cv::Size(w, h), 0, 0,
                   rgb.cols > w ? cv::INTER_AREA : cv::INTER_LINEAR);
    if (!image.isContinuous())
        image = image.clone();
    return MsgValue::ndarray(NdArray::uint8(
        {h, w, 3}, std::string(reinterpret_cast<const char *>(image.data), image.total() * 3)));
}

} // namespace

LeRobotDescription describeLeRobotPolicy(const std::string &metadataBytes)
{
    const MsgValue m = unpackOpenPi(metadataBytes, "metadata");
    if (m.kind != MsgValue::Kind::Map)
        bad("the bridge's first frame is not a map (is this a LeRobot policy bridge?)");
    LeRobotDescription d;
    d.metadata = msgToJson(m, true);
    const nlohmann::json &j = d.metadata;
    if (j.value("kosmos_policy", 0) != 1 || j.value("framework", std::string()) != "lerobot")
        bad("metadata: not a LeRobot policy bridge's (kosmos_policy 1, framework lerobot "
            "expected; got " +
            j.dump().substr(0, 200) + ")");
    d.policyType = j.value("policy_type", std::string());
    if (d.policyType.empty())
        bad("metadata.policy_type: missing");
    const nlohmann::json inputs = j.value("input_features", nlohmann::json());
    if (!inputs.is_object() || inputs.empty())
        bad("metadata.input_features: missing or empty");
    for (const auto &[name, spec] : inputs.items())
        d.inputs.push_back(feature(name, spec));
    int cameras = 0;
    std::string cameraNames;
    int states = 0;
    for (const LeRobotFeature &f : d.inputs) {
        if (f.type == "VISUAL") {
            if (f.shape.size() != 3 || f.shape[0] != 3)
                bad("input " + f.name + ": a camera of shape " + shapeText(f.shape) +
                    "; the workstation feeds RGB frames ([3, H, W])");
            ++cameras;
            cameraNames += (cameraNames.empty() ? "" : ", ") + f.name;
        } else if (f.type == "STATE") {
            if (f.shape.size() != 1)
                bad("input " + f.name + ": a state of shape " + shapeText(f.shape) +
                    "; the workstation feeds one vector");
            ++states;
        } else {
            bad("input " + f.name + " (" + f.type + ", " + shapeText(f.shape) +
                ") cannot be fed: the workstation gives a policy its camera frame, its "
                "proprioception and the instruction, never a simulator's privileged state (such "
                "as PushT's keypoints in observation.environment_state)");
        }
    }
    if (cameras > 1)
        bad("the policy takes " + std::to_string(cameras) + " cameras (" + cameraNames +
            "); a world here renders one frame a step, so it cannot be fed");
    if (states > 1)
        bad("the policy takes more than one state vector; the workstation has one "
            "(the world's proprioception)");
    const nlohmann::json outputs = j.value("output_features", nlohmann::json());
    if (!outputs.is_object() || !outputs.contains("action"))
        bad("metadata.output_features: no \"action\"");
    const LeRobotFeature action = feature("action", outputs["action"]);
    if (action.shape.size() != 1 || action.shape[0] > 256)
        bad("output action: shape " + shapeText(action.shape) + "; one vector of at most 256");
    d.actionDim = static_cast<int>(action.shape[0]);
    const nlohmann::json a = j.value("action", nlohmann::json::object());
    if (a.contains("names") && a["names"].is_array() &&
        static_cast<int>(a["names"].size()) == d.actionDim) {
        for (const auto &n : a["names"])
            d.actionNames.push_back(n.is_string() ? n.get<std::string>() : n.dump());
    } else {
        for (int i = 0; i < d.actionDim; ++i)
            d.actionNames.push_back("action_" + std::to_string(i));
    }
    if (a.contains("min") || a.contains("max")) {
        d.actionMin = numbers(a.value("min", nlohmann::json()), "metadata.action.min");
        d.actionMax = numbers(a.value("max", nlohmann::json()), "metadata.action.max");
        if (static_cast<int>(d.actionMin.size()) != d.actionDim ||
            static_cast<int>(d.actionMax.size()) != d.actionDim)
            bad("metadata.action.min/max: " + std::to_string(d.actionMin.size()) + " and " +
                std::to_string(d.actionMax.size()) + " values for " + std::to_string(d.actionDim) +
                " action dimensions");
    }
    return d;
}

ActionContract leRobotContract(const LeRobotDescription &d, double margin,
                               const nlohmann::json &bounds, double rateHz)
{
    std::vector<double> lo = d.actionMin, hi = d.actionMax;
    if (!bounds.is_null()) {
        if (!bounds.is_object())
            bad("settings.action_bounds: expected {\"min\": [...], \"max\": [...]}");
        lo = numbers(bounds.value("min", nlohmann::json()), "settings.action_bounds.min");
        hi = numbers(bounds.value("max", nlohmann::json()), "settings.action_bounds.max");
        if (static_cast<int>(lo.size()) != d.actionDim ||
            static_cast<int>(hi.size()) != d.actionDim)
            bad("settings.action_bounds: " + std::to_string(d.actionDim) +
                " values each expected (the policy's action width)");
        margin = 0;
    } else if (lo.empty()) {
        bad("the checkpoint has no action statistics (the post-processor's unnormalizer), so "
            "its action range is unknown: give settings.action_bounds {\"min\": [...], "
            "\"max\": [...]}");
    }
    ActionContract c;
    for (int i = 0; i < d.actionDim; ++i) {
        const auto k = static_cast<std::size_t>(i);
        if (!(lo[k] <= hi[k]))
            bad("action dimension " + std::to_string(i) + ": min " + std::to_string(lo[k]) +
                " above max " + std::to_string(hi[k]));
        // A dimension the training data never moved (min = max: the physics expert never
        // rotates) keeps a sliver of width, so the contract's bounds are never empty.
        double pad = margin * (hi[k] - lo[k]);
        if (!(hi[k] - lo[k] + 2 * pad > 0))
            pad = 1e-9 * std::max(1.0, std::abs(lo[k]));
        c.dimensions.push_back({d.actionNames[k], "1", lo[k] - pad, hi[k] + pad});
    }
    c.chunkLength = 1;
    c.controlRateHz = rateHz;
    return c;
}

std::string packLeRobotReset(std::uint64_t seed, const std::string &instruction)
{
    return packOpenPi(MsgValue::object({{"type", MsgValue::str("reset")},
                                        {"seed", seedValue(seed)},
                                        {"instruction", MsgValue::str(instruction)}}));
}

std::string packLeRobotAct(const LeRobotDescription &d, const Observation &o)
{
    std::vector<std::pair<std::string, MsgValue>> features;
    for (const LeRobotFeature &f : d.inputs) {
        if (f.type == "VISUAL") {
            features.emplace_back(f.name, imageFor(f, o.image));
        } else {
            if (static_cast<std::int64_t>(o.proprio.size()) != f.shape[0])
                bad("input " + f.name + " takes " + std::to_string(f.shape[0]) +
                    " values; the world reports " + std::to_string(o.proprio.size()) +
                    " proprioceptive values (a policy trained on another robot's state)");
            std::vector<float> v(o.proprio.begin(), o.proprio.end());
            features.emplace_back(f.name, MsgValue::ndarray(NdArray::float32(f.shape, v)));
        }
    }
    return packOpenPi(MsgValue::object({{"type", MsgValue::str("act")},
                                        {"observation", MsgValue::object(std::move(features))},
                                        {"instruction", MsgValue::str(o.instruction)}}));
}

LeRobotReply parseLeRobotReply(const std::string &reply, const LeRobotDescription &d)
{
    const MsgValue r = unpackOpenPi(reply, "act reply");
    const MsgValue *actions = r.kind == MsgValue::Kind::Map ? r.find("actions") : nullptr;
    if (!actions || actions->kind != MsgValue::Kind::NdArray)
        bad("act reply.actions: missing or not a numpy array");
    const NdArray &a = actions->array;
    const bool oneRow = a.shape.size() == 1 || (a.shape.size() == 2 && a.shape[0] == 1);
    if (!oneRow || a.count() != d.actionDim)
        bad("act reply.actions: shape " + shapeText(a.shape) + ", expected [1, " +
            std::to_string(d.actionDim) + "] (one action of the policy's width)");
    LeRobotReply out;
    for (std::int64_t i = 0; i < a.count(); ++i) {
        const double v = a.at(i);
        if (!std::isfinite(v))
            bad("act reply.actions[" + std::to_string(i) + "] is not finite");
        out.action.push_back(v);
    }
    if (const MsgValue *timing = r.find("server_timing");
        timing && timing->kind == MsgValue::Kind::Map)
        if (const MsgValue *v = timing->find("infer_ms");
            v && (v->kind == MsgValue::Kind::Float || v->kind == MsgValue::Kind::Int))
            out.inferMs = v->kind == MsgValue::Kind::Float ? v->f : static_cast<double>(v->i);
    return out;
}

Action parseLeRobotActions(const std::string &reply, const LeRobotDescription &d)
{
    return parseLeRobotReply(reply, d).action;
}

} // namespace kosmos::remote
