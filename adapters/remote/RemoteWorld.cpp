#include "RemoteWorld.h"

#include "HttpPost.h"
#include "NumpyMsgpack.h"
#include "OpenPiClient.h"
#include "RemoteWorldWire.h"
#include "SharedFrames.h"
#include "artifacts/StartFrame.h"
#include "util/Error.h"
#include "util/Secrets.h"

#include <QEventLoop>
#include <QHostAddress>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

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
    bool sharedMemory = true;
};

Settings settingsOf(const nlohmann::json &s)
{
    Settings o;
    if (!s.is_object())
        bad("settings must be an object");
    for (const auto &[key, _] : s.items())
        if (key != "url" && key != "timeout_s" && key != "connect_timeout_s" &&
            key != "api_key_env" && key != "shared_memory")
            bad("settings." + key +
                " is not a setting (url, timeout_s, connect_timeout_s, "
                "api_key_env, shared_memory)");
    o.url = QString::fromStdString(s.value("url", std::string("ws://127.0.0.1:8765")));
    const double timeout = s.value("timeout_s", 60.0);
    const double connect = s.value("connect_timeout_s", 10.0);
    if (!(timeout > 0) || !(connect > 0))
        bad("settings.timeout_s and connect_timeout_s must be positive");
    if (s.contains("shared_memory")) {
        if (!s["shared_memory"].is_boolean())
            bad("settings.shared_memory must be true or false");
        o.sharedMemory = s["shared_memory"].get<bool>();
    }
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

// The server is on this machine's loopback (a tunnel to another machine may be too: the token
// check finds that out).
bool onLoopback(const QString &url)
{
    const QString host = QUrl(url).host();
    return host == QLatin1String("localhost") || QHostAddress(host).isLoopback();
}

// Largest segment offered (a reply larger than this goes inline).
constexpr std::size_t kMaxSharedBytes = std::size_t{256} << 20;

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

class RemoteWorld final : public WorldModel
{
public:
    explicit RemoteWorld(const nlohmann::json &settings) : m_settings(settingsOf(settings))
    {
        m_client.setName("remote.world");
        connect();
    }

    ActionContract actionContract() const override { return m_described.action; }
    FrameContract frameContract() const override { return m_described.frame; }

    std::vector<cv::Mat> reset(const WorldStart &start) override
    {
        m_cancelled = start.cancelled; // the episode's: every call polls it (every 50 ms)
        if (!m_client.connected())     // after a server error or a timeout: a new connection
            connect();
        std::vector<std::pair<std::string, MsgValue>> request = {
            {"type", MsgValue::str("reset")},
            {"seed", seedValue(start.seed)},
            {"instruction", MsgValue::str(start.instruction)},
            {"start_state", worldMsg(start.startState)}};
        // A learned model starts from the frame it is given (by the engine, or named by the
        // task's start_state, as `fidelity prepare` writes it); a simulator from its seed.
        if (m_described.kind == "learned_model" &&
            (!start.startFrame.empty() || start.startState.contains("frame"))) {
            cv::Mat rgb = start.startFrame.empty()
                              ? startFrameFromState(start.startState, "remote.world")
                              : start.startFrame;
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
        if (m_shared && actions.size() * frameBytes() > m_shared->size())
            offerSharedMemory(actions.size());
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
    std::size_t frameBytes() const
    {
        return static_cast<std::size_t>(m_described.frame.width) *
               static_cast<std::size_t>(m_described.frame.height) * 3;
    }

    // Connects (a new connection drops the old segment: a server still busy with a call the
    // client gave up on may write into it) and offers frames through shared memory.
    void connect()
    {
        m_shared.reset();
        m_client.connect(m_settings.url, m_settings.apiKey, m_settings.connectTimeoutMs);
        m_described = describeWorld(m_client.metadata());
        m_sharedWhy.clear();
        m_sharedWhyNoted = false;
        m_sharedRefusedBytes = SIZE_MAX;
        if (!m_settings.sharedMemory)
            m_sharedWhy = "settings.shared_memory is false";
        else if (!m_described.metadata.value("frames_shared_memory", false))
            m_sharedWhy = "the server does not offer it";
        else if (!onLoopback(m_settings.url))
            m_sharedWhy = "the server is not on this machine's loopback";
        else
            offerSharedMemory(std::max<std::size_t>(
                4, m_described.frame.certifiedChunkLengths.empty()
                       ? 1
                       : static_cast<std::size_t>(m_described.frame.certifiedChunkLengths.back())));
    }

    // A segment for `frames` frames (at most kMaxSharedBytes), offered with a "share" request;
    // the server maps it and checks its token, or declines and says why (frames then come
    // inline, as from a server elsewhere).
    void offerSharedMemory(std::size_t frames)
    {
        const std::size_t bytes =
            std::min(kMaxSharedBytes, std::max<std::size_t>(1, frames) * frameBytes());
        if ((m_shared && m_shared->size() >= bytes) || bytes >= m_sharedRefusedBytes)
            return; // large enough, or a segment this large failed before on this connection
        std::unique_ptr<SharedFrames> segment;
        try {
            segment = std::make_unique<SharedFrames>(bytes);
        } catch (const Error &e) {
            m_sharedWhy = e.what();
            m_sharedRefusedBytes = bytes;
            return;
        }
        MsgValue token;
        token.kind = MsgValue::Kind::Bin;
        token.s = segment->token();
        MsgValue size;
        size.kind = MsgValue::Kind::Int;
        size.i = static_cast<std::int64_t>(segment->size());
        const std::string reply =
            m_client.request(packOpenPi(MsgValue::object({{"type", MsgValue::str("share")},
                                                          {"name", MsgValue::str(segment->name())},
                                                          {"size", size},
                                                          {"token", token}})),
                             m_settings.timeoutMs, m_cancelled);
        const MsgValue r = unpackOpenPi(reply, "share reply");
        const MsgValue *shared = r.kind == MsgValue::Kind::Map ? r.find("shared") : nullptr;
        if (!shared || shared->kind != MsgValue::Kind::Bool)
            bad("share reply: expected a map with \"shared\": true or false");
        if (shared->b) {
            m_shared = std::move(segment); // the old one, if any, goes: the server let it go
            m_sharedWhy.clear();
        } else {
            const MsgValue *why = r.find("why");
            m_sharedWhy = "the server declined: " +
                          (why && why->kind == MsgValue::Kind::Str ? why->s : std::string("?"));
            m_sharedRefusedBytes = bytes;
            // A server that declines a larger segment keeps the one it has.
        }
    }

    std::vector<cv::Mat> call(const MsgValue &request, std::optional<std::size_t> count,
                              const char *what)
    {
        const std::string bytes = packOpenPi(request);
        const auto t = std::chrono::steady_clock::now();
        const std::string reply = m_client.request(bytes, m_settings.timeoutMs, m_cancelled);
        m_stats = {{"round_trip_ms", std::round(msSince(t) * 1000) / 1000},
                   {"request_bytes", bytes.size()},
                   {"reply_bytes", reply.size()}};
        const SharedBytes shared = m_shared ? m_shared->bytes() : SharedBytes{};
        WorldReply r =
            parseWorldReply(reply, m_described, count, what, m_shared ? &shared : nullptr);
        m_stats["frames_via"] = r.framesShared ? "shared_memory" : "inline";
        // Why the frames come inline: with the reset and the first step of a connection (the
        // first step's stats are in the run's events), not repeated at every step.
        if (!r.framesShared && !m_sharedWhy.empty() && !m_sharedWhyNoted) {
            m_stats["shared_memory_not_used"] = m_sharedWhy;
            m_sharedWhyNoted = std::strcmp(what, "step") == 0;
        }
        if (r.serverCallMs)
            m_stats["server_call_ms"] = *r.serverCallMs;
        if (r.serverWorldMs)
            m_stats["server_world_ms"] = *r.serverWorldMs;
        if (r.success)
            m_success = r.success;
        m_reward = std::move(r.reward);
        m_done = std::move(r.done);
        m_state = std::move(r.state);
        m_proprio = std::move(r.proprio);
        return std::move(r.frames);
    }

    Settings m_settings;
    OpenPiClient m_client;
    WorldDescription m_described;
    nlohmann::json m_stats;
    nlohmann::json m_state;
    nlohmann::json m_reward;
    nlohmann::json m_done;
    std::vector<double> m_proprio;
    std::optional<bool> m_success;
    std::unique_ptr<SharedFrames> m_shared;
    std::function<bool()> m_cancelled;
    std::string m_sharedWhy; // why frames come inline, when they do
    bool m_sharedWhyNoted = false;
    std::size_t m_sharedRefusedBytes = SIZE_MAX; // no segment this large is tried again
};

} // namespace

Availability remoteWorldAvailability(const nlohmann::json &settings)
{
    try {
        const Settings s = settingsOf(settings);
        const QUrl health = healthzUrl(s.url);
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
        describeWorld(client.metadata()); // the first frame must be a world's metadata
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
    const WorldDescription d = describeWorld(client.metadata());
    return {{"details",
             {{"server_metadata", d.metadata},
              {"provenance_note", "reported by the server, not verified: a world behind a "
                                  "socket has no weights file the ledger can hash"}}}};
}

} // namespace kosmos::remote
