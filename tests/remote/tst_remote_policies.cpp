// The remote policy adapters against test servers on 127.0.0.1 that follow the real servers'
// protocols: openpi's websocket server (metadata frame first, one binary request / one binary
// reply, text traceback + close 1011 on a policy error, pings, GET /healthz on the same port) and
// OpenVLA's REST /act (json_numpy in, json_numpy out, the JSON string "error" on a model failure).
#include "HttpPost.h"
#include "NumpyMsgpack.h"
#include "OpenPiClient.h"
#include "RemotePolicies.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "run/RunController.h"
#include "util/Error.h"

#include "TestSupport.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>
#include <QUrl>
#include <QWebSocket>
#include <QWebSocketServer>
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <mutex>
#include <thread>

using namespace kosmos;
using namespace kosmos::remote;
using kosmos::test::errorOf;
using kosmos::test::runProcess;
using kosmos::test::TempDir;

namespace {

std::string hex(const std::string &bytes, std::size_t n)
{
    static const char *digits = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < n && i < bytes.size(); ++i) {
        const auto b = static_cast<unsigned char>(bytes[i]);
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

// ---- the openpi test server ---------------------------------------------------------------------

enum class PiBehaviour
{
    Ok,
    NoMetadata,   // a text frame first
    ErrorOnce,    // the next request: traceback as text, close 1011; then Ok again
    Slow,         // replies after 1.5 s
    WrongDtype,   // actions as <c8
    Truncated,    // actions data shorter than its shape
    StrKeys,      // actions as a map with str keys
    HealthzFails, // GET /healthz answers 503
    Dies,         // the next request: the connection drops with no CLOSE frame (a killed server)
    EightValues,  // actions of 8 values (a DROID server) for a client set to 7
};

// Serves on a std::thread of its own running a QEventLoop, joined when the server goes. Not a
// QThread: QThread::wait() returns before the OS thread has run its thread-exit clean-up (Qt 6.4
// signals "finished" from inside the thread), so at the end of a test the server's thread could
// still be tearing down its Qt state while main() exits (CI's ASan run caught a double free in
// that thread after the last test had passed). join() waits for all of it.
class OpenPiServer
{
public:
    OpenPiServer()
    {
        std::promise<void> started;
        m_thread = std::thread([this, &started] {
            QEventLoop loop; // gives this thread its event dispatcher
            start();
            m_loop = &loop;
            started.set_value();
            loop.exec();
            // Clients still connected go first, each with its socket: the server does not own
            // them, and their sockets are children of m_tcp.
            for (const QPointer<QWebSocket> &client : std::as_const(m_clients))
                delete client.data();
            delete m_ws;
            delete m_tcp;
            QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        });
        started.get_future().wait();
    }
    ~OpenPiServer()
    {
        QMetaObject::invokeMethod(m_loop, &QEventLoop::quit, Qt::QueuedConnection);
        m_thread.join();
    }
    OpenPiServer(const OpenPiServer &) = delete;
    OpenPiServer &operator=(const OpenPiServer &) = delete;
    int port() const { return m_port; }
    std::string url() const { return "ws://127.0.0.1:" + std::to_string(m_port); }
    std::atomic<PiBehaviour> behaviour{PiBehaviour::Ok};
    std::atomic<int> requests{0};
    std::atomic<int> pongs{0};
    std::atomic<int> strKeyedRequests{0};
    std::atomic<bool> ping{false};
    std::string lastAuthorization;
    std::mutex closeMutex;
    std::string lastCloseReason; // of the last client that disconnected ("" without a CLOSE frame)
    std::atomic<int> disconnects{0};

private:
    void start()
    {
        m_tcp = new QTcpServer;
        m_ws = new QWebSocketServer(QStringLiteral("openpi-test"), QWebSocketServer::NonSecureMode);
        m_tcp->listen(QHostAddress::LocalHost, 0);
        m_port = m_tcp->serverPort();
        QObject::connect(m_tcp, &QTcpServer::newConnection, m_tcp, [this] {
            while (QTcpSocket *socket = m_tcp->nextPendingConnection())
                QObject::connect(socket, &QTcpSocket::readyRead, socket,
                                 [this, socket] { route(socket); });
        });
        QObject::connect(m_ws, &QWebSocketServer::newConnection, m_ws, [this] {
            while (QWebSocket *client = m_ws->nextPendingConnection())
                serve(client);
        });
    }

    // Like the real server (websockets' process_request): GET /healthz is plain HTTP on the
    // websocket port; anything else is the websocket handshake.
    void route(QTcpSocket *socket)
    {
        const QByteArray head = socket->peek(4096);
        if (!head.contains("\r\n\r\n") || socket->property("routed").toBool())
            return;
        socket->setProperty("routed", true);
        QObject::disconnect(socket, &QTcpSocket::readyRead, socket, nullptr);
        if (head.startsWith("GET /healthz")) {
            const bool fail = behaviour == PiBehaviour::HealthzFails;
            socket->write(
                fail ? "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                       "Connection: close\r\n\r\n"
                     : "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nOK\n");
            socket->disconnectFromHost();
            return;
        }
        const int at = head.indexOf("Authorization: ");
        if (at >= 0)
            lastAuthorization = head.mid(at + 15, head.indexOf("\r\n", at) - at - 15).toStdString();
        m_ws->handleConnection(socket);
    }

    void serve(QWebSocket *client)
    {
        m_clients.append(client);
        QObject::connect(client, &QWebSocket::disconnected, client, [this, client] {
            {
                std::lock_guard lock(closeMutex);
                lastCloseReason = client->closeReason().toStdString();
            }
            ++disconnects;
            client->deleteLater();
        });
        QObject::connect(client, &QWebSocket::pong, client, [this] { ++pongs; });
        if (ping) {
            auto *timer = new QTimer(client);
            QObject::connect(timer, &QTimer::timeout, client, [client] { client->ping(); });
            timer->start(100);
        }
        if (behaviour == PiBehaviour::NoMetadata) {
            client->sendTextMessage(QStringLiteral("hello"));
            return;
        }
        const MsgValue metadata = MsgValue::object(
            {{"server", MsgValue::str("kosmos-test")}, {"action_horizon", MsgValue::number(10)}});
        client->sendBinaryMessage(QByteArray::fromStdString(packOpenPi(metadata)));
        QObject::connect(client, &QWebSocket::binaryMessageReceived, client,
                         [this, client](const QByteArray &message) { answer(client, message); });
    }

    void answer(QWebSocket *client, const QByteArray &message)
    {
        ++requests;
        MsgValue obs;
        try {
            obs = unpackOpenPi(message.toStdString(), "request");
        } catch (const Error &e) {
            // The real server cannot use an array sent with str keys: its policy fails.
            ++strKeyedRequests;
            client->sendTextMessage(QStringLiteral("Traceback (most recent call last):\n  ...\n") +
                                    QString::fromUtf8(e.what()));
            client->close(QWebSocketProtocol::CloseCodeAbnormalDisconnection,
                          QStringLiteral("error"));
            return;
        }
        const PiBehaviour b = behaviour;
        if (b == PiBehaviour::Dies) {
            behaviour = PiBehaviour::Ok;
            client->abort(); // no CLOSE frame, as when the process is killed
            return;
        }
        if (b == PiBehaviour::ErrorOnce) {
            behaviour = PiBehaviour::Ok;
            client->sendTextMessage(QStringLiteral("Traceback (most recent call last):\n  File "
                                                   "\"serve_policy.py\"\nRuntimeError: CUDA "
                                                   "out of memory"));
            client->close(static_cast<QWebSocketProtocol::CloseCode>(1011),
                          QStringLiteral("Internal server error"));
            return;
        }
        const int width = b == PiBehaviour::EightValues ? 8 : 7;
        std::vector<float> actions;
        for (int r = 0; r < 10; ++r)
            for (int c = 0; c < width; ++c)
                actions.push_back(c == 6 ? 1.0f : 0.001f * static_cast<float>(r + 1));
        MsgValue array = MsgValue::ndarray(NdArray::float32({10, width}, actions));
        std::string bytes;
        if (b == PiBehaviour::WrongDtype) {
            array.array.dtype = "<c8";
            array.array.data.resize(10 * 7 * 8);
        } else if (b == PiBehaviour::Truncated) {
            array.array.data.resize(100);
        }
        MsgValue timing = MsgValue::object({{"infer_ms", MsgValue::number(12.5)}});
        if (requests > 1)
            timing.map.emplace_back("prev_total_ms", MsgValue::number(20.25));
        MsgValue reply = MsgValue::object(
            {{"actions", array},
             {"server_timing", timing},
             {"policy_timing", MsgValue::object({{"infer_ms", MsgValue::number(11.0)}})}});
        bytes = packOpenPi(reply);
        if (b == PiBehaviour::StrKeys) {
            // The same reply with the array's keys as str: msgpack str (0xa0 | n) for bin (0xc4 n).
            std::string s = bytes;
            for (const std::string key : {"__ndarray__", "data", "dtype", "shape"}) {
                const std::string binKey =
                    std::string("\xc4", 1) + static_cast<char>(key.size()) + key;
                const auto at = s.find(binKey);
                if (at != std::string::npos)
                    s.replace(at, binKey.size(),
                              std::string(1, static_cast<char>(0xa0 | key.size())) + key);
            }
            bytes = s;
        }
        if (b == PiBehaviour::Slow) {
            QTimer::singleShot(1500, client, [client, bytes] {
                client->sendBinaryMessage(QByteArray::fromStdString(bytes));
            });
            return;
        }
        client->sendBinaryMessage(QByteArray::fromStdString(bytes));
    }

    std::thread m_thread;
    QEventLoop *m_loop = nullptr;          // lives on m_thread while it serves
    QList<QPointer<QWebSocket>> m_clients; // every client served; deleted ones read as null
    QTcpServer *m_tcp = nullptr;
    QWebSocketServer *m_ws = nullptr;
    int m_port = 0;
};

// ---- the OpenVLA REST test server ---------------------------------------------------------------

class RestServer
{
public:
    enum class Mode
    {
        Ok,
        Error, // HTTP 200 with the JSON string "error"
        Slow,
        Oft,      // a list of chunk actions
        FlatList, // a plain JSON list of 7 numbers
        Dies,     // reads the request and closes the connection without an answer
    };
    RestServer()
    {
        m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
        int yes = 1;
        ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(m_listen, reinterpret_cast<sockaddr *>(&addr), sizeof addr);
        ::listen(m_listen, 16);
        socklen_t len = sizeof addr;
        ::getsockname(m_listen, reinterpret_cast<sockaddr *>(&addr), &len);
        m_port = ntohs(addr.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~RestServer()
    {
        m_stop = true;
        ::shutdown(m_listen, SHUT_RDWR);
        ::close(m_listen);
        m_thread.join();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    std::atomic<Mode> mode{Mode::Ok};
    std::atomic<int> requests{0};
    std::string lastBody;

private:
    void serve()
    {
        while (!m_stop) {
            const int fd = ::accept(m_listen, nullptr, nullptr);
            if (fd < 0)
                return;
            std::string request;
            char buffer[65536];
            std::size_t contentLength = 0, headerEnd = std::string::npos;
            while (true) {
                const ssize_t n = ::read(fd, buffer, sizeof buffer);
                if (n <= 0)
                    break;
                request.append(buffer, static_cast<std::size_t>(n));
                if (headerEnd == std::string::npos &&
                    (headerEnd = request.find("\r\n\r\n")) != std::string::npos) {
                    const auto at = request.find("Content-Length: ");
                    contentLength =
                        at == std::string::npos ? 0 : std::stoul(request.substr(at + 16));
                }
                if (headerEnd != std::string::npos &&
                    request.size() >= headerEnd + 4 + contentLength)
                    break;
            }
            if (request.rfind("POST /act ", 0) != 0) { // an availability probe: connect only
                ::close(fd);
                continue;
            }
            ++requests;
            lastBody = headerEnd == std::string::npos ? "" : request.substr(headerEnd + 4);
            if (mode == Mode::Dies) { // as a server killed while it computes: nothing answers
                ::close(fd);          // (and a request sent again is counted, then dropped too)
                continue;
            }
            std::string body;
            switch (mode.load()) {
            case Mode::Error:
                body = "\"error\"";
                break;
            case Mode::FlatList:
                body = "[0.01, 0, 0, 0, 0, 0, 1]";
                break;
            case Mode::Oft:
                body = "[[0.001,0,0,0,0,0,1],[0.002,0,0,0,0,0,1],[0.003,0,0,0,0,0,1],[0.004,0,0,0,"
                       "0,0,1]]";
                break;
            default: {
                // json_numpy of np.array([0.01, 0, 0, 0, 0, 0, 1.0]) (<f8, shape [7]).
                const double v[7] = {0.01, 0, 0, 0, 0, 0, 1.0};
                const QByteArray raw(reinterpret_cast<const char *>(v), sizeof v);
                body = "{\"__numpy__\": \"" + raw.toBase64().toStdString() +
                       "\", \"dtype\": \"<f8\", \"shape\": [7]}";
            }
            }
            if (mode == Mode::Slow)
                std::this_thread::sleep_for(std::chrono::milliseconds(1500));
            const std::string response = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                         "Content-Length: " +
                                         std::to_string(body.size()) +
                                         "\r\nConnection: close\r\n\r\n" + body;
            [[maybe_unused]] const auto written = ::write(fd, response.data(), response.size());
            ::close(fd);
        }
    }
    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
};

Observation grey()
{
    Observation o;
    o.image = cv::Mat(256, 256, CV_8UC3, cv::Scalar(128, 128, 128));
    o.instruction = "put the red block in the green square";
    o.proprio = {0.1, 0.2, 0.3};
    return o;
}

nlohmann::json protocolWith(const nlohmann::json &policy, int horizon, int episodes = 1)
{
    return {{"kosmos_protocol", 1},
            {"name", "remote"},
            {"seed", 3},
            {"horizon", horizon},
            {"episodes_per_task", episodes},
            {"tasks", {{{"id", "red"}, {"instruction", "put the red block in the green square"}}}},
            {"policies", {policy}},
            {"world_model", {{"plugin", "synthetic.tabletop"}}}};
}

} // namespace

TEST(NumpyMsgpack, GoldenBytesOfAUint8ImageAndAFloat32Array)
{
    // An image of 224x224x3 uint8 as openpi's msgpack_numpy packs it: fixmap of 4 (0x84),
    // bin8 key "__ndarray__" (c4 0b ...), true (c3), bin8 "data" (c4 04), bin32 of 150528 bytes
    // (c6 00 02 4c 00 + the bytes), bin8 "dtype" (c4 05), fixstr "|u1" (a3 7c 75 31), bin8 "shape"
    // (c4 05), fixarray of 3 (93) with uint8 224 (cc e0) twice and fixint 3 (03).
    std::string pixels(224 * 224 * 3, '\0');
    for (std::size_t i = 0; i < pixels.size(); ++i)
        pixels[i] = static_cast<char>(i % 251);
    const std::string image = packOpenPi(MsgValue::ndarray(NdArray::uint8({224, 224, 3}, pixels)));
    const std::string head = "84c40b5f5f6e6461727261795f5fc3c40464617461c600024c00";
    EXPECT_EQ(hex(image, head.size() / 2), head);
    EXPECT_EQ(image.substr(head.size() / 2, pixels.size()), pixels);
    const std::string tail = "c40564747970"
                             "65a37c7531c4057368617065"
                             "93cce0cce003";
    EXPECT_EQ(hex(image.substr(head.size() / 2 + pixels.size()), 100), tail);
    EXPECT_EQ(image.size(), head.size() / 2 + pixels.size() + tail.size() / 2);

    // A float32 (10, 7): bin16 of 280 bytes (c5 01 18), dtype "<f4" (a3 3c 66 34), shape
    // fixarray of 2 (92) 0a 07.
    std::vector<float> values(70);
    for (int i = 0; i < 70; ++i)
        values[static_cast<std::size_t>(i)] = 0.5f * static_cast<float>(i);
    const std::string array = packOpenPi(MsgValue::ndarray(NdArray::float32({10, 7}, values)));
    EXPECT_EQ(hex(array, 24), "84c40b5f5f6e6461727261795f5fc3c40464617461c50118");
    const std::string raw(reinterpret_cast<const char *>(values.data()), 280);
    EXPECT_EQ(array.substr(24, 280), raw);
    EXPECT_EQ(hex(array.substr(304), 100), "c40564747970"
                                           "65a33c6634c4057368617065"
                                           "920a07");

    // Round trip, and a map with str keys around it (as observations are).
    const MsgValue back = unpackOpenPi(packOpenPi(MsgValue::object(
        {{"observation/state", MsgValue::ndarray(NdArray::float32({10, 7}, values))},
         {"prompt", MsgValue::str("pick")}})));
    ASSERT_EQ(back.kind, MsgValue::Kind::Map);
    EXPECT_EQ(back.find("observation/state")->array.shape, (std::vector<std::int64_t>{10, 7}));
    EXPECT_FLOAT_EQ(static_cast<float>(back.find("observation/state")->array.at(69)), 34.5f);
    EXPECT_EQ(back.find("prompt")->s, "pick");
}

TEST(NumpyMsgpack, MalformedArraysAreRefusedByName)
{
    const std::string good = packOpenPi(MsgValue::object(
        {{"actions", MsgValue::ndarray(NdArray::float32({2, 7}, std::vector<float>(14, 0.1f)))}}));
    // str keys instead of bin
    std::string strKeys = good;
    const std::string binKey = std::string("\xc4\x0b", 2) + "__ndarray__";
    strKeys.replace(strKeys.find(binKey), binKey.size(), std::string("\xab", 1) + "__ndarray__");
    EXPECT_NE(
        errorOf([&] { unpackOpenPi(strKeys); }).find("reply.actions: an array map with str keys"),
        std::string::npos);
    // Found by fuzz_msgpack_numpy: a map32 header declaring 84 million entries in 57 bytes made
    // msgpack-cxx allocate 4 GiB before reading them; every count is now capped by the bytes.
    const std::string hugeMap = std::string("\x81\xa1"
                                            "a"
                                            "\xdf\x05\x03\x00\x00",
                                            8);
    EXPECT_NE(errorOf([&] { unpackOpenPi(hugeMap); }).find("not msgpack"), std::string::npos)
        << errorOf([&] { unpackOpenPi(hugeMap); });
    // an unsupported dtype string
    std::string badType = good;
    badType.replace(badType.find("<f4"), 3, ">f4");
    EXPECT_NE(errorOf([&] { unpackOpenPi(badType); }).find("unsupported dtype '>f4'"),
              std::string::npos);
    // truncated data: shape (3, 7) over 56 bytes
    const MsgValue truncated = MsgValue::ndarray({"<f4", {3, 7}, std::string(56, '\0')});
    EXPECT_NE(errorOf([&] { unpackOpenPi(packOpenPi(truncated)); }).find("truncated?"),
              std::string::npos);
    // not msgpack at all, and trailing bytes
    EXPECT_NE(errorOf([&] { unpackOpenPi(std::string("\xc1", 1)); }).find("reply"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { unpackOpenPi(good + "x"); }).find("1 bytes after the msgpack value"),
              std::string::npos);
}

TEST(OpenPi, TheTestServerStopsWithAClientStillConnected)
{
    // The harness itself: a worker's connection can still be open when a test ends (CI's ASan
    // run once caught a double free there). The server must take such a client down cleanly.
    QWebSocket client;
    {
        OpenPiServer server;
        QEventLoop loop;
        QObject::connect(&client, &QWebSocket::binaryMessageReceived, &loop, &QEventLoop::quit);
        QTimer::singleShot(10000, &loop, &QEventLoop::quit);
        client.open(QUrl(QString::fromStdString(server.url())));
        loop.exec(); // the server's metadata message: the connection is established
        ASSERT_EQ(client.state(), QAbstractSocket::ConnectedState);
    }
    QEventLoop settle;
    QTimer::singleShot(200, &settle, &QEventLoop::quit);
    settle.exec();
    EXPECT_NE(client.state(), QAbstractSocket::ConnectedState);
}

TEST(OpenPi, ObservationLayoutsHaveTheServersKeysAndShapes)
{
    const Observation o = grey();
    const MsgValue libero = buildObservation(layoutFromSettings({{"layout", "libero"}}), o);
    EXPECT_EQ(libero.find("observation/image")->array.shape,
              (std::vector<std::int64_t>{224, 224, 3}));
    EXPECT_EQ(libero.find("observation/image")->array.dtype, "|u1");
    EXPECT_EQ(libero.find("observation/state")->array.shape, std::vector<std::int64_t>{8});
    EXPECT_FLOAT_EQ(static_cast<float>(libero.find("observation/state")->array.at(2)), 0.3f);
    EXPECT_EQ(libero.find("prompt")->s, o.instruction);
    const MsgValue droid = buildObservation(layoutFromSettings({{"layout", "droid"}}), o);
    for (const char *key : {"observation/exterior_image_1_left", "observation/wrist_image_left",
                            "observation/joint_position", "observation/gripper_position", "prompt"})
        EXPECT_NE(droid.find(key), nullptr) << key;
    const MsgValue aloha = buildObservation(layoutFromSettings({{"layout", "aloha"}}), o);
    EXPECT_EQ(aloha.find("images")->find("cam_high")->array.shape,
              (std::vector<std::int64_t>{3, 224, 224}));
    EXPECT_EQ(aloha.find("state")->array.shape, std::vector<std::int64_t>{14});
    const MsgValue custom =
        buildObservation(layoutFromSettings({{"layout", "custom"},
                                             {"keys", {{"image", "cam"}, {"prompt", "task"}}}}),
                         o);
    EXPECT_NE(custom.find("cam"), nullptr);
    EXPECT_EQ(custom.find("task")->s, o.instruction);
    EXPECT_THROW(layoutFromSettings({{"layout", "robomimic"}}), Error);
}

TEST(OpenPi, ClientFollowsTheProtocolAndAnswersPings)
{
    OpenPiServer server;
    server.ping = true;
    ::setenv("KOSMOS_TEST_OPENPI_KEY", "secret-123", 1);
    auto policy = createOpenPiPolicy(
        {{"url", server.url()}, {"execute_steps", 5}, {"api_key_env", "KOSMOS_TEST_OPENPI_KEY"}});
    EXPECT_EQ(server.lastAuthorization, "Api-Key secret-123");
    // Idle between steps (a long world-model call): the socket thread answers the server's pings.
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    EXPECT_GE(server.pongs.load(), 3);
    policy->reset(1, "x");
    const ActionChunk chunk = policy->act(grey());
    ASSERT_EQ(chunk.size(), 5u);
    EXPECT_NEAR(chunk[4][0], 0.005, 1e-7);
    EXPECT_EQ(chunk[0][6], 1.0);
    auto stats = policy->lastCallStats();
    EXPECT_EQ(stats["server_infer_ms"], 12.5);
    EXPECT_FALSE(stats.contains("server_prev_total_ms")) << "only from the second reply on";
    EXPECT_GT(stats["round_trip_ms"].get<double>(), 0.0);
    policy->act(grey());
    EXPECT_EQ(policy->lastCallStats()["server_prev_total_ms"], 20.25);
    EXPECT_EQ(server.strKeyedRequests.load(), 0) << "our arrays use bin keys";
}

TEST(OpenPi, ServerErrorsTimeoutsAndBadRepliesAreNamed)
{
    OpenPiServer server;
    auto policy = createOpenPiPolicy({{"url", server.url()}, {"timeout_s", 0.5}});
    // A policy error: the traceback, and the connection closed with 1011; the next call reconnects.
    server.behaviour = PiBehaviour::ErrorOnce;
    const std::string error = errorOf([&] { policy->act(grey()); });
    EXPECT_NE(error.find("closed with 1011"), std::string::npos) << error;
    EXPECT_NE(error.find("CUDA out of memory"), std::string::npos) << error;
    policy->reset(2, "x");
    EXPECT_EQ(policy->act(grey()).size(), 5u);
    // A reply slower than the timeout.
    server.behaviour = PiBehaviour::Slow;
    EXPECT_NE(errorOf([&] { policy->act(grey()); }).find("no reply within 500 ms"),
              std::string::npos);
    // Cancelled mid-request: abandoned within the polling interval, not the timeout.
    auto slow = createOpenPiPolicy({{"url", server.url()}, {"timeout_s", 10}});
    Observation o = grey();
    const auto t = std::chrono::steady_clock::now();
    o.cancelled = [t] {
        return std::chrono::steady_clock::now() - t > std::chrono::milliseconds(200);
    };
    EXPECT_NE(errorOf([&] { slow->act(o); }).find("cancelled"), std::string::npos);
    EXPECT_LT(std::chrono::steady_clock::now() - t, std::chrono::milliseconds(1200));
    // Replies the client must not turn into actions.
    server.behaviour = PiBehaviour::WrongDtype;
    EXPECT_NE(errorOf([&] { policy->act(grey()); }).find("unsupported dtype '<c8'"),
              std::string::npos);
    server.behaviour = PiBehaviour::Truncated;
    EXPECT_NE(errorOf([&] { policy->act(grey()); }).find("truncated?"), std::string::npos);
    server.behaviour = PiBehaviour::StrKeys;
    EXPECT_NE(errorOf([&] { policy->act(grey()); }).find("str keys"), std::string::npos);
    // 8 values per action for a client set to 7 (a DROID server with default settings): refused
    // with both numbers, never cut to the first 7.
    server.behaviour = PiBehaviour::EightValues;
    EXPECT_NE(errorOf([&] {
                  policy->act(grey());
              }).find("8 values per action, but settings.action_dim is 7"),
              std::string::npos)
        << errorOf([&] { policy->act(grey()); });
    auto eight = createOpenPiPolicy({{"url", server.url()}, {"action_dim", 8}});
    EXPECT_EQ(eight->act(grey())[0].size(), 8u);
    // Availability: healthz, then the metadata frame.
    server.behaviour = PiBehaviour::Ok;
    EXPECT_TRUE(openPiAvailability({{"url", server.url()}}).available);
    server.behaviour = PiBehaviour::HealthzFails;
    EXPECT_NE(openPiAvailability({{"url", server.url()}}).reason.find("healthz failed"),
              std::string::npos);
    server.behaviour = PiBehaviour::NoMetadata;
    EXPECT_NE(openPiAvailability({{"url", server.url()}})
                  .reason.find("server error before its metadata:\nhello"),
              std::string::npos);
    EXPECT_NE(openPiAvailability({{"url", "ws://127.0.0.1:1"}}).reason.find("unreachable"),
              std::string::npos);
}

TEST(OpenPi, AServerThatDiesIsAnAbnormalClosureAndAFinishedClientSendsAClose)
{
    OpenPiServer server;
    {
        auto policy = createOpenPiPolicy({{"url", server.url()}, {"timeout_s", 2}});
        server.behaviour = PiBehaviour::Dies;
        const std::string error = errorOf([&] { policy->act(grey()); });
        EXPECT_NE(error.find("code 1006"), std::string::npos) << error;
        EXPECT_NE(error.find("abnormal closure"), std::string::npos) << error;
        EXPECT_EQ(error.find("code 1000"), std::string::npos) << error;
        // Recorded with its own reason codes: remote_disconnected, and remote_timeout for a
        // server that does not answer in time.
        auto codeOf = [&](PiBehaviour b) {
            server.behaviour = b;
            try {
                policy->act(grey());
            } catch (const Error &e) {
                return std::string(errorCodeName(e.code()));
            }
            return std::string("none");
        };
        EXPECT_EQ(codeOf(PiBehaviour::Dies), "remote_disconnected");
        server.behaviour = PiBehaviour::Ok;
        auto quick = createOpenPiPolicy({{"url", server.url()}, {"timeout_s", 0.3}});
        server.behaviour = PiBehaviour::Slow;
        try {
            quick->act(grey());
            ADD_FAILURE() << "a slow reply was not a timeout";
        } catch (const Error &e) {
            EXPECT_EQ(std::string(errorCodeName(e.code())), "remote_timeout") << e.what();
        }
        server.behaviour = PiBehaviour::Ok;
        try {
            policy->act(grey()); // reconnects: the server is back
        } catch (const Error &e) {
            ADD_FAILURE() << e.what();
        }
        server.disconnects = 0;
    } // the policy is done: its client ends the connection with a CLOSE frame
    for (int i = 0; i < 100 && server.disconnects == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard lock(server.closeMutex);
    EXPECT_EQ(server.lastCloseReason, "kosmos: done")
        << "a proper CLOSE frame, not a dropped socket";
}

TEST(OpenPi, AProtocolRunsEndToEndThroughKosmosCli)
{
    OpenPiServer server;
    TempDir dir;
    const auto bundle = (dir / "pi.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const nlohmann::json policy = {{"plugin", "remote.openpi"},
                                   {"settings", {{"url", server.url()}, {"execute_steps", 5}}}};
    std::ofstream(dir / "p.json") << protocolWith(policy, 20, 2).dump();
    auto r = runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(server.requests.load(), 8) << "2 episodes x 20 steps / 5 per request";
    const auto events = runProcess({test::cliPath(), "events", bundle, "1", "--json"});
    EXPECT_NE(events.output.find("\"server_infer_ms\":12.5"), std::string::npos) << events.output;
    EXPECT_NE(events.output.find("\"round_trip_ms\""), std::string::npos);
    // The server's metadata frame is in the component identity.
    const auto report = runProcess({test::cliPath(), "report", bundle, "--json"});
    EXPECT_NE(report.output.find("kosmos-test"), std::string::npos) << report.output;

    // A server error fails that attempt with its traceback; the next run reconnects.
    server.behaviour = PiBehaviour::ErrorOnce;
    std::ofstream(dir / "q.json") << protocolWith(policy, 10, 3).dump();
    r = runProcess({test::cliPath(), "run", (dir / "q.json").string(), "--ledger", bundle});
    EXPECT_EQ(r.exitCode, 5) << r.output;
    EXPECT_NE(r.output.find("CUDA out of memory"), std::string::npos) << r.output;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    int completed = 0, failed = 0;
    for (const auto &[status, count] : ledger.info().runsByStatus) {
        completed += status == "completed" ? static_cast<int>(count) : 0;
        failed += status == "failed" ? static_cast<int>(count) : 0;
    }
    EXPECT_EQ(failed, 1);
    EXPECT_EQ(completed, 4);
}

TEST(OpenVlaRest, ActRepliesErrorsAndOftChunks)
{
    RestServer server;
    auto policy = createOpenVlaRestPolicy(
        {{"url", server.url()}, {"unnorm_key", "bridge_orig"}, {"timeout_s", 0.5}});
    const ActionChunk chunk = policy->act(grey());
    ASSERT_EQ(chunk.size(), 1u);
    EXPECT_DOUBLE_EQ(chunk[0][0], 0.01);
    EXPECT_DOUBLE_EQ(chunk[0][6], 1.0);
    // The request: json_numpy image, the instruction, the unnorm key.
    const auto body = nlohmann::json::parse(server.lastBody);
    EXPECT_EQ(body["image"]["dtype"], "|u1");
    EXPECT_EQ(body["image"]["shape"], nlohmann::json({256, 256, 3}));
    EXPECT_EQ(QByteArray::fromBase64(
                  QByteArray::fromStdString(body["image"]["__numpy__"].get<std::string>()))
                  .size(),
              256 * 256 * 3);
    EXPECT_EQ(body["instruction"], "put the red block in the green square");
    EXPECT_EQ(body["unnorm_key"], "bridge_orig");
    // "error" is a failed step with the reason, never an action.
    server.mode = RestServer::Mode::Error;
    EXPECT_NE(errorOf([&] { policy->act(grey()); }).find("answered \"error\""), std::string::npos);
    server.mode = RestServer::Mode::Slow;
    EXPECT_NE(errorOf([&] { policy->act(grey()); }).find("no reply within 500 ms"),
              std::string::npos);
    // OpenVLA-OFT: a list of chunk actions.
    server.mode = RestServer::Mode::Oft;
    auto oft = createOpenVlaRestPolicy({{"url", server.url()}, {"chunk", 4}, {"execute_steps", 3}});
    const ActionChunk oftChunk = oft->act(grey());
    ASSERT_EQ(oftChunk.size(), 3u);
    EXPECT_DOUBLE_EQ(oftChunk[2][0], 0.003);
    // A chunk of 4 where the settings declare 1: refused by name, never cut to its first row.
    auto single = createOpenVlaRestPolicy({{"url", server.url()}});
    EXPECT_NE(errorOf([&] {
                  single->act(grey());
              }).find("4 action(s) in the reply, but settings.chunk is 1"),
              std::string::npos)
        << errorOf([&] { single->act(grey()); });
    // A [N, 0] shape (before: an endless loop of empty actions) and an overflowing shape.
    EXPECT_NE(errorOf([] {
                  parseActReply("{\"__numpy__\": \"\", \"dtype\": \"<f8\", \"shape\": [2, 0]}");
              }).find("each size an integer from 1"),
              std::string::npos);
    EXPECT_NE(errorOf([] {
                  parseActReply("{\"__numpy__\": \"AAAAAAAAAAA=\", \"dtype\": \"<f8\", "
                                "\"shape\": [65536, 65536]}");
              }).find("more than 2147483648 elements"),
              std::string::npos);
    EXPECT_NE(errorOf([] {
                  parseActReply("{\"__numpy__\": \"A!AAAAAAAAA=\", \"dtype\": \"<f8\", "
                                "\"shape\": [1]}");
              }).find("not valid base64"),
              std::string::npos);
    // Found by fuzz_json_numpy: a dtype that is not a string escaped as a JSON type_error.
    EXPECT_NE(errorOf([] {
                  parseActReply("{\"__numpy__\": \"AAAAAAAAAAA=\", \"dtype\": [2, 7]}");
              }).find("dtype ''"),
              std::string::npos);
    // Replies that are not actions.
    EXPECT_NE(errorOf([] {
                  parseActReply("{\"__numpy__\": \"AAAA\", \"dtype\": \"<f8\", \"shape\": [7]}");
              }).find("truncated?"),
              std::string::npos);
    EXPECT_NE(errorOf([] {
                  parseActReply(
                      "{\"__numpy__\": \"AAAAAAAAAAA=\", \"dtype\": \"|u1\", \"shape\": [8]}");
              }).find("dtype '|u1'"),
              std::string::npos);
    EXPECT_NE(openVlaRestAvailability({{"url", "http://127.0.0.1:1"}}).reason.find("unreachable"),
              std::string::npos);
    EXPECT_TRUE(openVlaRestAvailability({{"url", server.url()}}).available);
    // A plain list of 7 numbers: what came and what was expected.
    server.mode = RestServer::Mode::FlatList;
    EXPECT_NE(errorOf([&] { single->act(grey()); })
                  .find("a flat list of 7 numbers; expected a json_numpy array (one action, or "
                        "[N, D]) or a list of actions"),
              std::string::npos)
        << errorOf([&] { single->act(grey()); });
    EXPECT_NE(errorOf([&] {
                  createOpenVlaRestPolicy({{"url", "http://127.0.0.1:1"}})->act(grey());
              }).find("OpenVLA server unreachable"),
              std::string::npos);
}

TEST(HttpPost, ResponsesAreParsedWithTheirSizesCheckedNeverTrusted)
{
    HttpReply r;
    EXPECT_TRUE(parseHttpResponse("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false, r, "s"));
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "ok");
    EXPECT_FALSE(
        parseHttpResponse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok", false, r, "s"));
    EXPECT_TRUE(parseHttpResponse(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n",
        false, r, "s"));
    EXPECT_EQ(r.body, "abc");
    EXPECT_FALSE(parseHttpResponse("HTTP/1.1 200 OK\r\n\r\npartial", false, r, "s"));
    EXPECT_TRUE(parseHttpResponse("HTTP/1.1 200 OK\r\n\r\nall of it", true, r, "s"));
    EXPECT_EQ(r.body, "all of it");
    // A chunk that declares nearly 2^63 bytes: waits for more, never overflows.
    EXPECT_FALSE(parseHttpResponse(
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7ffffffffffffffe\r\nab\r\n", false, r,
        "s"));
    EXPECT_NE(errorOf([&] {
                  parseHttpResponse("HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n", false, r, "s");
              }).find("not a size"),
              std::string::npos);
    EXPECT_NE(errorOf([&] {
                  parseHttpResponse("SSH-2.0-OpenSSH\r\n\r\n", false, r, "s");
              }).find("not HTTP/1.x"),
              std::string::npos);
    EXPECT_NE(errorOf([&] {
                  parseHttpResponse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
                                    false, r, "s");
              }).find("malformed chunked"),
              std::string::npos);
}

// A server that dies with the request was recorded as remote_unreachable (Connection refused):
// the POST had been sent again on a second connection. It is sent once, and the death is a
// disconnection.
TEST(OpenVlaRest, AServerThatDiesWithTheRequestIsADisconnectionAndTheRequestIsNotSentAgain)
{
    RestServer server;
    auto policy = createOpenVlaRestPolicy({{"url", server.url()}, {"timeout_s", 5}});
    server.mode = RestServer::Mode::Dies;
    try {
        policy->act(grey());
        FAIL() << "no error";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::RemoteDisconnected) << e.what();
        EXPECT_NE(std::string(e.what()).find("the request was not sent again"), std::string::npos)
            << e.what();
    }
    EXPECT_EQ(server.requests.load(), 1);
}

TEST(OpenVlaRest, AProtocolRunsEndToEndThroughKosmosCli)
{
    RestServer server;
    TempDir dir;
    const auto bundle = (dir / "vla.kosmos").string();
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    std::ofstream(dir / "p.json") << protocolWith({{"plugin", "remote.openvla_rest"},
                                                   {"settings", {{"url", server.url()}}}},
                                                  16)
                                         .dump();
    const auto r =
        runProcess({test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(server.requests.load(), 16);
    server.mode = RestServer::Mode::Error;
    std::ofstream(dir / "q.json") << protocolWith({{"plugin", "remote.openvla_rest"},
                                                   {"settings", {{"url", server.url()}}}},
                                                  16, 2)
                                         .dump();
    const auto failed =
        runProcess({test::cliPath(), "run", (dir / "q.json").string(), "--ledger", bundle});
    EXPECT_EQ(failed.exitCode, 5);
    EXPECT_NE(failed.output.find("answered \"error\""), std::string::npos) << failed.output;
    auto failedCodes = [&] {
        Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
        sqlite::Statement s(LedgerSql::of(ledger), "SELECT DISTINCT error_code FROM attempts WHERE "
                                                   "state = 'failed' ORDER BY error_code");
        std::vector<std::string> codes;
        while (s.step())
            codes.push_back(s.text(0));
        return codes;
    };
    EXPECT_EQ(failedCodes(), std::vector<std::string>{"remote_error"})
        << "a server's failure is remote_error, not invalid_input";

    // A timed-out call: remote_timeout, and its real elapsed time in the policy's stage timing.
    server.mode = RestServer::Mode::Slow;
    std::ofstream(dir / "slow.json")
        << protocolWith({{"plugin", "remote.openvla_rest"},
                         {"settings", {{"url", server.url()}, {"timeout_s", 0.5}}}},
                        16, 1)
               .dump();
    const auto slow =
        runProcess({test::cliPath(), "run", (dir / "slow.json").string(), "--ledger", bundle});
    EXPECT_EQ(slow.exitCode, 5) << slow.output;
    EXPECT_EQ(failedCodes(), (std::vector<std::string>{"remote_error", "remote_timeout"}));
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    sqlite::Statement timing(LedgerSql::of(ledger),
                             "SELECT e.payload_json FROM events e JOIN attempts a USING "
                             "(attempt_id) WHERE a.error_code = 'remote_timeout' AND "
                             "e.type = 'timings'");
    ASSERT_TRUE(timing.step()) << "the failed attempt records its timings";
    const auto payload = nlohmann::json::parse(timing.text(0));
    EXPECT_GE(payload["stage_ms"]["policy"].get<double>(), 450.0) << payload.dump();
}

TEST(RemotePolicies, TheWorkstationRunsBothThroughItsRunController)
{
    // What Run > New batch does: a detached `kosmos-cli run --isolate`, followed via the ledger.
    OpenPiServer pi;
    RestServer rest;
    TempDir dir;
    const QString bundle = QString::fromStdString((dir / "gui.kosmos").string());
    ASSERT_EQ(runProcess({test::cliPath(), "init", bundle.toStdString()}).exitCode, 0);
    nlohmann::json protocol = protocolWith(
        {{"plugin", "remote.openpi"}, {"settings", {{"url", pi.url()}, {"execute_steps", 4}}}}, 16);
    protocol["policies"].push_back(
        {{"plugin", "remote.openvla_rest"}, {"settings", {{"url", rest.url()}}}});
    ui::RunController controller(QString::fromStdString(test::cliPath()));
    controller.setLedger(bundle);
    ASSERT_TRUE(controller.start(protocol, 1));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while ((controller.progress().total == 0 || controller.active()) &&
           std::chrono::steady_clock::now() < deadline) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_FALSE(controller.active());
    EXPECT_EQ(controller.progress().total, 2);
    EXPECT_EQ(controller.progress().completed, 2);
    EXPECT_EQ(pi.requests.load(), 4);
    EXPECT_EQ(rest.requests.load(), 16);
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
