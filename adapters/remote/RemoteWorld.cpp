#include "RemoteWorld.h"

#include "NumpyMsgpack.h"
#include "OpenPiClient.h"
#include "util/Error.h"
#include "util/Secrets.h"

#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace kosmos::remote {

namespace {

[[noreturn]] void bad(const std::string &what)
{
    throw Error(ErrorCode::InvalidInput, "remote.world: " + what);
}

struct Settings
{
    QString url;
    int timeoutMs = 60000;
    int connectTimeoutMs = 10000;
    QString apiKey;
};

Settings settingsOf(const nlohmann::json &s)
{
    Settings o;
    if (!s.is_object())
        bad("settings must be an object");
    for (const auto &[key, _] : s.items())
        if (key != "url" && key != "timeout_s" && key != "connect_timeout_s" &&
            key != "api_key_env")
            bad("settings." + key +
                " is not a setting (url, timeout_s, connect_timeout_s, "
                "api_key_env)");
    o.url = QString::fromStdString(s.value("url", std::string("ws://127.0.0.1:8765")));
    const double timeout = s.value("timeout_s", 60.0);
    const double connect = s.value("connect_timeout_s", 10.0);
    if (!(timeout > 0) || !(connect > 0))
        bad("settings.timeout_s and connect_timeout_s must be positive");
    o.timeoutMs = static_cast<int>(timeout * 1000);
    o.connectTimeoutMs = static_cast<int>(connect * 1000);
    const std::string variable = s.value("api_key_env", std::string());
    if (!variable.empty()) {
        const char *value = std::getenv(variable.c_str());
        if (!value)
            bad("settings.api_key_env names " + variable + ", which is not set");
        registerSecret(value);
        o.apiKey = QString::fromUtf8(value);
    }
    return o;
}

nlohmann::json toJson(const MsgValue &v)
{
    switch (v.kind) {
    case MsgValue::Kind::Nil:
        return nullptr;
    case MsgValue::Kind::Bool:
        return v.b;
    case MsgValue::Kind::Int:
        return v.i;
    case MsgValue::Kind::Float:
        return std::isfinite(v.f) ? nlohmann::json(v.f) : nlohmann::json(nullptr);
    case MsgValue::Kind::Str:
        return v.s;
    case MsgValue::Kind::Bin:
        return {{"bin_bytes", v.s.size()}};
    case MsgValue::Kind::Array: {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &item : v.items)
            out.push_back(toJson(item));
        return out;
    }
    case MsgValue::Kind::Map: {
        nlohmann::json out = nlohmann::json::object();
        for (const auto &[key, value] : v.map)
            out[key] = toJson(value);
        return out;
    }
    case MsgValue::Kind::NdArray: {
        if (v.array.count() <= 4096 && v.array.shape.size() <= 1) {
            nlohmann::json out = nlohmann::json::array();
            for (std::int64_t i = 0; i < v.array.count(); ++i)
                out.push_back(v.array.at(i));
            return out;
        }
        return {{"ndarray", {{"dtype", v.array.dtype}, {"shape", v.array.shape}}}};
    }
    }
    return nullptr;
}

MsgValue fromJson(const nlohmann::json &j)
{
    MsgValue v;
    if (j.is_boolean()) {
        v.kind = MsgValue::Kind::Bool;
        v.b = j.get<bool>();
    } else if (j.is_number_integer()) {
        v.kind = MsgValue::Kind::Int;
        v.i = j.get<std::int64_t>();
    } else if (j.is_number()) {
        v.kind = MsgValue::Kind::Float;
        v.f = j.get<double>();
    } else if (j.is_string()) {
        v = MsgValue::str(j.get<std::string>());
    } else if (j.is_array()) {
        v.kind = MsgValue::Kind::Array;
        for (const auto &item : j)
            v.items.push_back(fromJson(item));
    } else if (j.is_object()) {
        std::vector<std::pair<std::string, MsgValue>> entries;
        for (const auto &[key, value] : j.items())
            entries.emplace_back(key, fromJson(value));
        v = MsgValue::object(std::move(entries));
    }
    return v;
}

double number(const MsgValue *v, const std::string &where)
{
    if (v && v->kind == MsgValue::Kind::Int)
        return static_cast<double>(v->i);
    if (v && v->kind == MsgValue::Kind::Float && std::isfinite(v->f))
        return v->f;
    bad("server metadata: " + where + " is not a finite number");
}

std::vector<double> numbers(const MsgValue *v, const std::string &where)
{
    std::vector<double> out;
    if (v && v->kind == MsgValue::Kind::Array) {
        for (std::size_t i = 0; i < v->items.size(); ++i)
            out.push_back(number(&v->items[i], where + "[" + std::to_string(i) + "]"));
        return out;
    }
    if (v && v->kind == MsgValue::Kind::NdArray) {
        for (std::int64_t i = 0; i < v->array.count(); ++i)
            out.push_back(v->array.at(i));
        return out;
    }
    bad("server metadata: " + where + " is not a list of numbers");
}

std::vector<std::string> texts(const MsgValue *v, const std::string &where)
{
    if (!v || v->kind != MsgValue::Kind::Array)
        bad("server metadata: " + where + " is not a list of texts");
    std::vector<std::string> out;
    for (const MsgValue &item : v->items) {
        if (item.kind != MsgValue::Kind::Str)
            bad("server metadata: " + where + " is not a list of texts");
        out.push_back(item.s);
    }
    return out;
}

// What the metadata says, checked.
struct Described
{
    std::string kind; // simulator | learned_model
    std::string name;
    ActionContract action;
    FrameContract frame;
    nlohmann::json metadata;
};

Described describe(const std::string &bytes)
{
    const MsgValue m = unpackOpenPi(bytes, "metadata");
    if (m.kind != MsgValue::Kind::Map || !m.find("kosmos_world"))
        bad("the server's first message is not a Kosmos world's metadata (no kosmos_world): is "
            "this a world server (python -m kosmos_world)?");
    Described d;
    d.metadata = toJson(m);
    const MsgValue *kind = m.find("kind");
    d.kind = kind && kind->kind == MsgValue::Kind::Str ? kind->s : "";
    if (d.kind != "simulator" && d.kind != "learned_model")
        bad("server metadata: kind must be simulator or learned_model");
    const MsgValue *name = m.find("name");
    d.name = name && name->kind == MsgValue::Kind::Str ? name->s : "";
    const MsgValue *action = m.find("action");
    if (!action || action->kind != MsgValue::Kind::Map)
        bad("server metadata: no action {names, min, max}");
    const auto names = texts(action->find("names"), "action.names");
    const auto lo = numbers(action->find("min"), "action.min");
    const auto hi = numbers(action->find("max"), "action.max");
    std::vector<std::string> units(names.size(), "1");
    if (const MsgValue *u = action->find("units"))
        units = texts(u, "action.units");
    if (names.empty() || lo.size() != names.size() || hi.size() != names.size() ||
        units.size() != names.size())
        bad("server metadata: action.names, min, max and units disagree in length");
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!(lo[i] <= hi[i]))
            bad("server metadata: action " + names[i] + " has min above max");
        d.action.dimensions.push_back({names[i], units[i], lo[i], hi[i]});
    }
    d.action.gripperIndex.reset();
    d.action.controlRateHz = number(m.find("control_rate_hz"), "control_rate_hz");
    if (!(d.action.controlRateHz > 0) || d.action.controlRateHz > 10000)
        bad("server metadata: control_rate_hz out of (0, 10000]");
    const MsgValue *frame = m.find("frame");
    if (!frame || frame->kind != MsgValue::Kind::Map)
        bad("server metadata: no frame {width, height}");
    d.frame.width = static_cast<int>(number(frame->find("width"), "frame.width"));
    d.frame.height = static_cast<int>(number(frame->find("height"), "frame.height"));
    if (d.frame.width < 8 || d.frame.height < 8 || d.frame.width > 8192 || d.frame.height > 8192)
        bad("server metadata: frame size " + std::to_string(d.frame.width) + "x" +
            std::to_string(d.frame.height) + " out of 8..8192");
    d.frame.channels = 3;
    d.frame.dtype = "uint8";
    d.frame.fps = d.action.controlRateHz;
    d.frame.conditioningFrames = 1;
    d.frame.framesPerAction = 1;
    d.frame.resultIncludesConditioning = true;
    if (const MsgValue *chunks = m.find("chunk_lengths"))
        for (double c : numbers(chunks, "chunk_lengths")) {
            if (c < 1 || c > 1000 || c != std::floor(c))
                bad("server metadata: chunk_lengths holds " + std::to_string(c));
            d.frame.certifiedChunkLengths.push_back(static_cast<int>(c));
        }
    d.action.chunkLength =
        d.frame.certifiedChunkLengths.empty() ? 1 : d.frame.certifiedChunkLengths.front();
    return d;
}

// The seed as a msgpack integer (never a double: seeds above 2^53 would round).
MsgValue seedValue(std::uint64_t seed)
{
    MsgValue v;
    v.kind = MsgValue::Kind::Int;
    v.i = static_cast<std::int64_t>(seed & 0x7fffffffffffffffULL);
    return v;
}

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

class RemoteWorld final : public WorldModel
{
public:
    explicit RemoteWorld(const nlohmann::json &settings) : m_settings(settingsOf(settings))
    {
        m_client.connect(m_settings.url, m_settings.apiKey, m_settings.connectTimeoutMs);
        m_described = describe(m_client.metadata());
    }

    ActionContract actionContract() const override { return m_described.action; }
    FrameContract frameContract() const override { return m_described.frame; }

    std::vector<cv::Mat> reset(const WorldStart &start) override
    {
        if (!m_client.connected()) { // after a server error or a timeout: a new connection
            m_client.connect(m_settings.url, m_settings.apiKey, m_settings.connectTimeoutMs);
            m_described = describe(m_client.metadata());
        }
        std::vector<std::pair<std::string, MsgValue>> request = {
            {"type", MsgValue::str("reset")},
            {"seed", seedValue(start.seed)},
            {"instruction", MsgValue::str(start.instruction)},
            {"start_state", fromJson(start.startState)}};
        // A learned model starts from the frame it is given; a simulator from its seed.
        if (m_described.kind == "learned_model" && !start.startFrame.empty()) {
            cv::Mat rgb = start.startFrame;
            if (rgb.cols != m_described.frame.width || rgb.rows != m_described.frame.height)
                cv::resize(rgb, rgb, cv::Size(m_described.frame.width, m_described.frame.height), 0,
                           0, cv::INTER_AREA);
            const cv::Mat c = rgb.isContinuous() ? rgb : rgb.clone();
            request.emplace_back(
                "frame", MsgValue::ndarray(NdArray::uint8(
                             {c.rows, c.cols, 3},
                             std::string(reinterpret_cast<const char *>(c.data), c.total() * 3))));
        }
        m_success.reset();
        return call(MsgValue::object(std::move(request)), std::nullopt, "reset");
    }

    std::vector<cv::Mat> step(const ActionChunk &actions) override
    {
        if (!m_client.connected())
            bad("the connection to " + m_settings.url.toStdString() +
                " was lost during the episode; the episode cannot go on");
        const std::size_t width = m_described.action.dimensions.size();
        NdArray a;
        a.dtype = "<f8";
        a.shape = {static_cast<std::int64_t>(actions.size()), static_cast<std::int64_t>(width)};
        a.data.resize(actions.size() * width * sizeof(double));
        for (std::size_t r = 0; r < actions.size(); ++r) {
            if (actions[r].size() != width)
                bad("an action of " + std::to_string(actions[r].size()) +
                    " values for a world of " + std::to_string(width));
            std::memcpy(a.data.data() + r * width * sizeof(double), actions[r].data(),
                        width * sizeof(double));
        }
        return call(MsgValue::object({{"type", MsgValue::str("step")},
                                      {"actions", MsgValue::ndarray(std::move(a))}}),
                    actions.size(), "step");
    }

    nlohmann::json lastCallStats() const override { return m_stats; }
    nlohmann::json state() const override { return m_state; }
    std::vector<double> proprio() const override { return m_proprio; }

    std::optional<GroundTruth> groundTruth() const override
    {
        if (m_described.kind != "simulator" || !m_success)
            return std::nullopt;
        GroundTruth truth;
        truth.success = *m_success;
        truth.progress = *m_success ? 5 : 0;
        truth.source = "physics";
        truth.details = {{"world", "remote.world"},
                         {"env_id", m_described.metadata.value("env_id", m_described.name)},
                         {"versions", m_described.metadata.value("versions", nlohmann::json())},
                         {"success_rule", m_described.metadata.value("success", nlohmann::json())},
                         {"reward", m_reward},
                         {"done", m_done},
                         {"reported_by_server", true}};
        return truth;
    }

private:
    std::vector<cv::Mat> call(const MsgValue &request, std::optional<std::size_t> count,
                              const char *what)
    {
        const std::string bytes = packOpenPi(request);
        const auto t = std::chrono::steady_clock::now();
        const std::string reply = m_client.request(bytes, m_settings.timeoutMs);
        m_stats = {{"round_trip_ms", std::round(msSince(t) * 1000) / 1000},
                   {"request_bytes", bytes.size()},
                   {"reply_bytes", reply.size()}};
        const MsgValue r = unpackOpenPi(reply, std::string(what) + " reply");
        if (r.kind != MsgValue::Kind::Map)
            bad(std::string(what) + " reply: expected a map with \"frames\"");
        if (const MsgValue *timing = r.find("server_timing");
            timing && timing->kind == MsgValue::Kind::Map)
            if (const MsgValue *ms = timing->find("call_ms"))
                m_stats["server_call_ms"] =
                    ms->kind == MsgValue::Kind::Float ? ms->f : static_cast<double>(ms->i);
        const MsgValue *frames = r.find("frames");
        if (!frames || frames->kind != MsgValue::Kind::NdArray)
            bad(std::string(what) + " reply.frames: missing or not a numpy array");
        const NdArray &f = frames->array;
        const int h = m_described.frame.height, w = m_described.frame.width;
        if (f.dtype != "|u1" || f.shape.size() != 4 || f.shape[1] != h || f.shape[2] != w ||
            f.shape[3] != 3 || f.shape[0] < 1) {
            std::string shape;
            for (std::int64_t s : f.shape)
                shape += (shape.empty() ? "" : ", ") + std::to_string(s);
            bad(std::string(what) + " reply.frames: " + f.dtype + " [" + shape +
                "], expected |u1 [N, " + std::to_string(h) + ", " + std::to_string(w) + ", 3]");
        }
        if (count && static_cast<std::size_t>(f.shape[0]) != *count)
            bad(std::string(what) + " reply.frames: " + std::to_string(f.shape[0]) +
                " frames for " + std::to_string(*count) + " actions");
        std::vector<cv::Mat> out;
        const std::size_t size = static_cast<std::size_t>(h) * static_cast<std::size_t>(w) * 3;
        for (std::int64_t i = 0; i < f.shape[0]; ++i) {
            cv::Mat frame(h, w, CV_8UC3);
            std::memcpy(frame.data, f.data.data() + static_cast<std::size_t>(i) * size, size);
            out.push_back(std::move(frame));
        }
        const MsgValue *success = r.find("success");
        if (success && success->kind == MsgValue::Kind::Bool)
            m_success = success->b;
        else if (success && success->kind != MsgValue::Kind::Nil)
            bad(std::string(what) + " reply.success: not true, false or None");
        const MsgValue *reward = r.find("reward");
        m_reward = reward ? toJson(*reward) : nlohmann::json();
        const MsgValue *done = r.find("done");
        m_done = done ? toJson(*done) : nlohmann::json();
        const MsgValue *state = r.find("state");
        m_state = state ? toJson(*state) : nlohmann::json();
        m_proprio.clear();
        if (const MsgValue *p = r.find("proprio"); p && p->kind != MsgValue::Kind::Nil) {
            if (p->kind != MsgValue::Kind::NdArray || p->array.shape.size() != 1 ||
                p->array.count() > 256)
                bad(std::string(what) + " reply.proprio: not a 1-D numpy array of at most 256");
            for (std::int64_t i = 0; i < p->array.count(); ++i) {
                const double v = p->array.at(i);
                if (!std::isfinite(v))
                    bad(std::string(what) + " reply.proprio[" + std::to_string(i) +
                        "] is not finite");
                m_proprio.push_back(v);
            }
        }
        return out;
    }

    Settings m_settings;
    OpenPiClient m_client;
    Described m_described;
    nlohmann::json m_stats;
    nlohmann::json m_state;
    nlohmann::json m_reward;
    nlohmann::json m_done;
    std::vector<double> m_proprio;
    std::optional<bool> m_success;
};

std::pair<int, std::string> httpGet(const QUrl &url, int timeoutMs)
{
    QNetworkAccessManager manager;
    QNetworkRequest request(url);
    request.setTransferTimeout(timeoutMs);
    QNetworkReply *reply = manager.get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const std::string error = reply->error() == QNetworkReply::NoError
                                  ? std::string()
                                  : reply->errorString().toStdString();
    reply->deleteLater();
    return {status, error};
}

} // namespace

Availability remoteWorldAvailability(const nlohmann::json &settings)
{
    try {
        const Settings s = settingsOf(settings);
        QUrl health(s.url);
        health.setScheme(health.scheme() == QLatin1String("wss") ? QStringLiteral("https")
                                                                 : QStringLiteral("http"));
        health.setPath(QStringLiteral("/healthz"));
        const auto [status, error] = httpGet(health, s.connectTimeoutMs);
        if (status == 0)
            return Availability::no("unreachable: " + s.url.toStdString() + ": " + error +
                                    " (start one: python -m kosmos_world gym ENV_ID, "
                                    "docs/remote-worlds.md)");
        if (status != 200)
            return Availability::no("healthz failed: GET " + health.toString().toStdString() +
                                    " answered HTTP " + std::to_string(status));
        OpenPiClient client;
        client.connect(s.url, s.apiKey, s.connectTimeoutMs);
        describe(client.metadata()); // the first frame must be a world's metadata
        return Availability::yes();
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
}

std::unique_ptr<WorldModel> createRemoteWorld(const nlohmann::json &settings)
{
    return std::make_unique<RemoteWorld>(settings);
}

nlohmann::json remoteWorldIdentity(const nlohmann::json &settings)
{
    const Settings s = settingsOf(settings);
    OpenPiClient client;
    client.connect(s.url, s.apiKey, s.connectTimeoutMs);
    const Described d = describe(client.metadata());
    return {{"details",
             {{"server_metadata", d.metadata},
              {"provenance_note", "reported by the server, not verified: a world behind a "
                                  "socket has no weights file the ledger can hash"}}}};
}

} // namespace kosmos::remote
