#pragma once

// A client of openpi's websocket policy server (openpi-client's WebsocketClientPolicy, byte for
// byte): ws://host:port, optional "Authorization: Api-Key <key>", one binary metadata frame from
// the server first, then strictly one binary request and one binary reply. The socket lives in
// a thread of its own with a running event loop, so the server's pings (every 20 s; it closes
// with 1011 when no pong comes) are answered during long episodes too.

#include <QString>
#include <QtGlobal>

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

class QObject;
class QThread;
class QWebSocket;

namespace kosmos::remote {

class OpenPiClient
{
public:
    OpenPiClient();
    ~OpenPiClient();
    OpenPiClient(const OpenPiClient &) = delete;
    // Who the server is in error messages ("openpi", "remote.world").
    void setName(std::string name) { m_name = std::move(name); }
    OpenPiClient &operator=(const OpenPiClient &) = delete;
    // The largest message taken from the server (0: Qt's own bound, about 2 GiB), from the next
    // connect() on. A peer whose replies are small (one action) gets a small bound.
    void setMaxMessageBytes(qint64 bytes) { m_maxMessageBytes = bytes; }

    // Connects and reads the metadata frame. Throws Error: "unreachable: ...", "protocol
    // mismatch: first frame was not metadata (...)", a timeout.
    void connect(const QString &url, const QString &apiKey, int timeoutMs);
    bool connected() const;
    // The server's metadata frame, raw msgpack.
    const std::string &metadata() const { return m_metadata; }
    // One request, one reply (raw msgpack). Throws Error with the server's traceback when it
    // answers with a text frame (it then closes with 1011), on a close, on the timeout, or when
    // `cancelled` turns true (checked every 50 ms); the connection is dropped in every such case.
    std::string request(const std::string &bytes, int timeoutMs,
                        const std::function<bool()> &cancelled = {});
    // Ends the connection properly: a CLOSE frame (1000, "kosmos: done"), a short wait for the
    // server's reply, then the socket goes. Also what the destructor does.
    void close();
    // The close code of the last connection as the peer saw it: the server's code when it sent a
    // CLOSE frame (1011 after a server error), 1006 (abnormal closure) when the connection
    // dropped without one (a server process that died), 0 while open.
    int closeCode() const;

private:
    struct Frame
    {
        bool binary = true;
        std::string bytes;
    };
    struct State;
    void runInSocketThread(std::function<void()> f);
    void drop();

    std::unique_ptr<QThread> m_thread;
    std::unique_ptr<QObject> m_context; // lives in m_thread: where work is posted
    std::shared_ptr<State> m_state;
    QWebSocket *m_socket = nullptr; // lives in m_thread
    std::string m_metadata;
    std::string m_name = "openpi";
    qint64 m_maxMessageBytes = 0;
};

} // namespace kosmos::remote
