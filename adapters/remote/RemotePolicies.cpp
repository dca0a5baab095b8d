#include "RemotePolicies.h"

#include "HttpPost.h"
#include "JsonNumpy.h"
#include "OpenPiClient.h"
#include "util/Error.h"
#include "util/Secrets.h"

#include <QByteArray>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>

#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>

namespace kosmos::remote {

namespace {

double msSince(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

std::string imageBytes(const cv::Mat &rgb, int size, bool chw)
{
    cv::Mat image;
    cv::resize(rgb, image, cv::Size(size, size), 0, 0,
               rgb.cols > size ? cv::INTER_AREA : cv::INTER_LINEAR);
    std::string bytes(static_cast<std::size_t>(size * size * 3), '\0');
    for (int y = 0; y < size; ++y)
        for (int x = 0; x < size; ++x)
            for (int c = 0; c < 3; ++c) {
                const auto v = static_cast<char>(image.at<cv::Vec3b>(y, x)[c]);
                const std::size_t at = chw ? static_cast<std::size_t>((c * size + y) * size + x)
                                           : static_cast<std::size_t>((y * size + x) * 3 + c);
                bytes[at] = v;
            }
    return bytes;
}

MsgValue image(const cv::Mat &rgb, int size, bool chw)
{
    const std::vector<std::int64_t> shape =
        chw ? std::vector<std::int64_t>{3, size, size} : std::vector<std::int64_t>{size, size, 3};
    return MsgValue::ndarray(NdArray::uint8(shape, imageBytes(rgb, size, chw)));
}

MsgValue state(const std::vector<double> &proprio, int dim, int from = 0)
{
    std::vector<float> v(static_cast<std::size_t>(dim), 0.0f);
    for (int i = 0; i < dim && from + i < static_cast<int>(proprio.size()); ++i)
        v[static_cast<std::size_t>(i)] = static_cast<float>(
            proprio[static_cast<std::size_t>(from) + static_cast<std::size_t>(i)]);
    return MsgValue::ndarray(NdArray::float32({dim}, v));
}

std::string apiKey(const nlohmann::json &settings)
{
    // The key comes from the environment (named in the settings), never from the settings
    // themselves: settings go into the ledger.
    const std::string variable = settings.value("api_key_env", std::string());
    if (variable.empty())
        return {};
    const char *value = std::getenv(variable.c_str());
    if (!value)
        throw Error(ErrorCode::InvalidInput,
                    "settings.api_key_env names " + variable + ", which is not set");
    registerSecret(value); // redacted from anything stored, should the server echo it
    return value;
}

ActionContract contractFor(int dim, int chunk)
{
    ActionContract c = ActionContract::bridgeEndEffector();
    if (dim != 7) {
        c.dimensions.clear();
        for (int i = 0; i < dim; ++i)
            c.dimensions.push_back({"a" + std::to_string(i), "1", -10.0, 10.0});
        c.gripperIndex.reset();
    }
    c.chunkLength = chunk;
    return c;
}

struct OpenPiSettings
{
    QString url;
    int timeoutMs = 30000;
    int connectTimeoutMs = 10000;
    int actionDim = 7;
    int execute = 5;
};

OpenPiSettings openPiSettings(const nlohmann::json &s)
{
    OpenPiSettings o;
    o.url = QString::fromStdString(s.value("url", std::string("ws://127.0.0.1:8000")));
    o.timeoutMs = static_cast<int>(s.value("timeout_s", 30.0) * 1000);
    o.connectTimeoutMs = static_cast<int>(s.value("connect_timeout_s", 10.0) * 1000);
    o.actionDim = s.value("action_dim", 7);
    o.execute = s.value("execute_steps", 5);
    if (o.execute < 1 || o.actionDim < 1)
        throw Error(ErrorCode::InvalidInput, "settings.execute_steps and action_dim must be >= 1");
    return o;
}

class OpenPiPolicy final : public Policy
{
public:
    explicit OpenPiPolicy(const nlohmann::json &settings)
        : m_settings(openPiSettings(settings)), m_layout(layoutFromSettings(settings)),
          m_key(QString::fromStdString(apiKey(settings)))
    {
        m_client.connect(m_settings.url, m_key, m_settings.connectTimeoutMs);
    }

    ActionContract actionContract() const override
    {
        return contractFor(m_settings.actionDim, m_settings.execute);
    }

    void reset(std::uint64_t, const std::string &) override
    {
        if (!m_client.connected()) // after a server error (1011) or a timeout: a new connection
            m_client.connect(m_settings.url, m_key, m_settings.connectTimeoutMs);
    }

    ActionChunk act(const Observation &observation) override
    {
        if (!m_client.connected())
            m_client.connect(m_settings.url, m_key, m_settings.connectTimeoutMs);
        const std::string request = packOpenPi(buildObservation(m_layout, observation));
        const auto t = std::chrono::steady_clock::now();
        const std::string bytes =
            m_client.request(request, m_settings.timeoutMs, observation.cancelled);
        m_stats = {{"round_trip_ms", std::round(msSince(t) * 1000) / 1000},
                   {"request_bytes", request.size()},
                   {"reply_bytes", bytes.size()}};
        const MsgValue reply = unpackOpenPi(bytes, "reply");
        if (reply.kind != MsgValue::Kind::Map)
            throw Error(ErrorCode::InvalidInput, "openpi reply: expected a map with \"actions\"");
        if (const MsgValue *timing = reply.find("server_timing");
            timing && timing->kind == MsgValue::Kind::Map) {
            for (const char *key : {"infer_ms", "prev_total_ms"})
                if (const MsgValue *v = timing->find(key))
                    m_stats[std::string("server_") + key] =
                        v->kind == MsgValue::Kind::Float ? v->f : static_cast<double>(v->i);
        }
        if (const MsgValue *timing = reply.find("policy_timing");
            timing && timing->kind == MsgValue::Kind::Map)
            m_stats["policy_timing"] = msgToJson(*timing);
        const MsgValue *actions = reply.find("actions");
        if (!actions || actions->kind != MsgValue::Kind::NdArray)
            throw Error(ErrorCode::InvalidInput,
                        "openpi reply.actions: missing or not a numpy array");
        const NdArray &a = actions->array;
        const std::int64_t rows = a.shape.size() == 2 ? a.shape[0] : 1;
        const std::int64_t cols =
            a.shape.size() == 2 ? a.shape[1] : (a.shape.empty() ? 0 : a.shape[0]);
        if (a.shape.empty() || a.shape.size() > 2)
            throw Error(ErrorCode::InvalidInput,
                        "openpi reply.actions: expected shape (horizon, D)");
        // Exactly the declared width: extra values are never cut silently (a DROID server's 8
        // would run as 7), and fewer cannot be executed. The contract conversion between the
        // policy and the world model is where dimensions are chosen, in the record.
        if (cols != m_settings.actionDim)
            throw Error(ErrorCode::InvalidInput,
                        "openpi reply.actions: " + std::to_string(cols) +
                            " values per action, but settings.action_dim is " +
                            std::to_string(m_settings.actionDim) +
                            " (set action_dim to the server's action width, " +
                            std::to_string(cols) + "; nothing is cut or padded)");
        if (rows < m_settings.execute)
            throw Error(ErrorCode::InvalidInput, "openpi reply.actions: a chunk of " +
                                                     std::to_string(rows) +
                                                     " actions, settings.execute_steps is " +
                                                     std::to_string(m_settings.execute));
        m_stats["chunk"] = rows;
        ActionChunk chunk;
        for (std::int64_t r = 0; r < m_settings.execute; ++r) {
            Action action;
            for (std::int64_t c = 0; c < m_settings.actionDim; ++c)
                action.push_back(a.at(r * cols + c));
            chunk.push_back(action);
        }
        return chunk;
    }

    nlohmann::json lastCallStats() const override { return m_stats; }

private:
    OpenPiSettings m_settings;
    ObservationLayout m_layout;
    QString m_key;
    OpenPiClient m_client;
    nlohmann::json m_stats;
};

// ---- OpenVLA REST ------------------------------------------------------------------------------

struct RestSettings
{
    QUrl base;
    std::string unnormKey;
    int timeoutMs = 60000;
    int imageSize = 256;
    int chunk = 1;
    int execute = 1;
};

RestSettings restSettings(const nlohmann::json &s)
{
    RestSettings o;
    const std::string url = s.value("url", std::string("http://127.0.0.1:8000"));
    o.base = QUrl(QString::fromStdString(url));
    if (!o.base.isValid() ||
        (o.base.scheme() != QLatin1String("http") && o.base.scheme() != QLatin1String("https")))
        throw Error(ErrorCode::InvalidInput,
                    "settings.url must be http://host:port (OpenVLA's deploy.py listens on 8000, "
                    "OpenVLA-OFT's on 8777), not '" +
                        url + "'");
    o.unnormKey = s.value("unnorm_key", std::string());
    o.timeoutMs = static_cast<int>(s.value("timeout_s", 60.0) * 1000);
    o.imageSize = s.value("image_size", 256);
    o.chunk = s.value("chunk", 1);
    o.execute = s.value("execute_steps", o.chunk);
    if (o.execute < 1 || o.execute > o.chunk)
        throw Error(ErrorCode::InvalidInput, "settings.execute_steps must be 1..chunk");
    return o;
}

class OpenVlaRestPolicy final : public Policy
{
public:
    explicit OpenVlaRestPolicy(const nlohmann::json &settings) : m_settings(restSettings(settings))
    {
    }

    ActionContract actionContract() const override { return contractFor(7, m_settings.execute); }
    void reset(std::uint64_t, const std::string &) override {}

    ActionChunk act(const Observation &observation) override
    {
        cv::Mat image;
        cv::resize(observation.image, image, cv::Size(m_settings.imageSize, m_settings.imageSize),
                   0, 0, cv::INTER_AREA);
        nlohmann::json body = {{"image", jsonNumpyImage(image)},
                               {"instruction", observation.instruction}};
        if (!m_settings.unnormKey.empty())
            body["unnorm_key"] = m_settings.unnormKey;
        QUrl url = m_settings.base;
        url.setPath(url.path().endsWith(QLatin1Char('/')) ? url.path() + QStringLiteral("act")
                                                          : url.path() + QStringLiteral("/act"));
        const auto t = std::chrono::steady_clock::now();
        const std::string payload = body.dump();
        // Sent once, never again (remote/HttpPost.h): a server that dies with the request is a
        // remote_disconnected attempt, not a second inference or a refused second connection.
        HttpReply reply;
        try {
            reply = postOnce(url, QByteArray::fromStdString(payload), "application/json",
                             m_settings.timeoutMs, observation.cancelled, "OpenVLA server");
        } catch (const Error &) {
            m_stats = {{"round_trip_ms", std::round(msSince(t) * 1000) / 1000},
                       {"request_bytes", payload.size()}};
            throw;
        }
        const QByteArray &data = reply.body;
        const int status = reply.status;
        m_stats = {{"round_trip_ms", std::round(msSince(t) * 1000) / 1000},
                   {"request_bytes", payload.size()},
                   {"reply_bytes", data.size()}};
        if (status != 200)
            throw Error(ErrorCode::RemoteError, "OpenVLA server: HTTP " + std::to_string(status) +
                                                    " from " + url.toString().toStdString() + ": " +
                                                    data.left(300).toStdString());
        ActionChunk chunk = parseActReply(data.toStdString());
        // The reply must hold the declared chunk: a longer one is never cut silently (its extra
        // actions would vanish from the record), a shorter one cannot be executed.
        if (static_cast<int>(chunk.size()) != m_settings.chunk)
            throw Error(ErrorCode::InvalidInput,
                        "OpenVLA server: " + std::to_string(chunk.size()) +
                            " action(s) in the reply, but settings.chunk is " +
                            std::to_string(m_settings.chunk) +
                            " (set chunk to the model's chunk length)");
        if (static_cast<int>(chunk.size()) < m_settings.execute)
            throw Error(ErrorCode::InvalidInput,
                        "OpenVLA server: " + std::to_string(chunk.size()) +
                            " action(s) in the reply, settings.execute_steps is " +
                            std::to_string(m_settings.execute));
        chunk.resize(static_cast<std::size_t>(m_settings.execute));
        return chunk;
    }

    nlohmann::json lastCallStats() const override { return m_stats; }

private:
    RestSettings m_settings;
    nlohmann::json m_stats;
};

} // namespace

ObservationLayout layoutFromSettings(const nlohmann::json &settings)
{
    ObservationLayout layout;
    layout.name = settings.value("layout", std::string("libero"));
    layout.imageSize = settings.value("image_size", 224);
    if (layout.name == "custom") {
        layout.custom = settings.value("keys", nlohmann::json::object());
        if (!layout.custom.is_object() || !layout.custom.contains("image"))
            throw Error(ErrorCode::InvalidInput,
                        "settings.keys: a custom layout needs at least {\"image\": key}");
    } else if (layout.name != "libero" && layout.name != "droid" && layout.name != "aloha") {
        throw Error(ErrorCode::InvalidInput, "settings.layout must be libero, droid, aloha or "
                                             "custom, not '" +
                                                 layout.name + "'");
    }
    return layout;
}

MsgValue buildObservation(const ObservationLayout &layout, const Observation &o)
{
    const int n = layout.imageSize;
    const MsgValue prompt = MsgValue::str(o.instruction);
    if (layout.name == "libero")
        return MsgValue::object({{"observation/image", image(o.image, n, false)},
                                 {"observation/wrist_image", image(o.image, n, false)},
                                 {"observation/state", state(o.proprio, 8)},
                                 {"prompt", prompt}});
    if (layout.name == "droid")
        return MsgValue::object({{"observation/exterior_image_1_left", image(o.image, n, false)},
                                 {"observation/wrist_image_left", image(o.image, n, false)},
                                 {"observation/joint_position", state(o.proprio, 7)},
                                 {"observation/gripper_position", state(o.proprio, 1, 7)},
                                 {"prompt", prompt}});
    if (layout.name == "aloha")
        return MsgValue::object(
            {{"state", state(o.proprio, 14)},
             {"images", MsgValue::object({{"cam_high", image(o.image, n, true)}})},
             {"prompt", prompt}});
    const auto &k = layout.custom;
    const bool chw = k.value("chw", false);
    std::vector<std::pair<std::string, MsgValue>> entries;
    entries.emplace_back(k["image"].get<std::string>(), image(o.image, n, chw));
    if (k.contains("wrist_image"))
        entries.emplace_back(k["wrist_image"].get<std::string>(), image(o.image, n, chw));
    if (k.contains("state"))
        entries.emplace_back(k["state"].get<std::string>(),
                             state(o.proprio, k.value("state_dim", 8)));
    entries.emplace_back(k.value("prompt", std::string("prompt")), prompt);
    return MsgValue::object(std::move(entries));
}

Availability openPiAvailability(const nlohmann::json &settings)
{
    try {
        const OpenPiSettings s = openPiSettings(settings);
        layoutFromSettings(settings);
        const QUrl health = healthzUrl(s.url);
        const auto [status, error] = httpGet(health, s.connectTimeoutMs);
        if (status == 0)
            return Availability::no("unreachable: " + s.url.toStdString() + ": " + error);
        if (status != 200)
            return Availability::no("healthz failed: GET " + health.toString().toStdString() +
                                    " answered HTTP " + std::to_string(status));
        OpenPiClient client; // the first frame must be the metadata
        client.connect(s.url, QString::fromStdString(apiKey(settings)), s.connectTimeoutMs);
        return Availability::yes();
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
}

nlohmann::json openPiIdentity(const nlohmann::json &settings)
{
    const OpenPiSettings s = openPiSettings(settings);
    OpenPiClient client;
    client.connect(s.url, QString::fromStdString(apiKey(settings)), s.connectTimeoutMs);
    return {
        {"details", {{"server_metadata", msgToJson(unpackOpenPi(client.metadata(), "metadata"))}}}};
}

std::unique_ptr<Policy> createOpenPiPolicy(const nlohmann::json &settings)
{
    return std::make_unique<OpenPiPolicy>(settings);
}

nlohmann::json jsonNumpyImage(const cv::Mat &rgb)
{
    const std::string bytes(reinterpret_cast<const char *>(rgb.data),
                            static_cast<std::size_t>(rgb.total() * rgb.elemSize()));
    return {{"__numpy__", QByteArray::fromStdString(bytes).toBase64().toStdString()},
            {"dtype", "|u1"},
            {"shape", {rgb.rows, rgb.cols, rgb.channels()}}};
}

Availability openVlaRestAvailability(const nlohmann::json &settings)
{
    try {
        const RestSettings s = restSettings(settings);
        QTcpSocket socket;
        socket.connectToHost(s.base.host(), static_cast<quint16>(s.base.port(80)));
        if (!socket.waitForConnected(std::min(s.timeoutMs, 5000)))
            return Availability::no("unreachable: " + s.base.toString().toStdString() + ": " +
                                    socket.errorString().toStdString());
        return Availability::yes();
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
}

std::unique_ptr<Policy> createOpenVlaRestPolicy(const nlohmann::json &settings)
{
    return std::make_unique<OpenVlaRestPolicy>(settings);
}

} // namespace kosmos::remote
