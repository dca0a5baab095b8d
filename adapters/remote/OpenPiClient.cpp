#include "OpenPiClient.h"

#include "util/Error.h"

#include <QMetaObject>
#include <QNetworkRequest>
#include <QThread>
#include <QUrl>
#include <QWebSocket>

#include <chrono>

namespace kosmos::remote {

struct OpenPiClient::State
{
    std::mutex mutex;
    std::condition_variable changed;
    bool open = false;
    bool closed = false;
    bool closeFrame = false; // the server sent a CLOSE frame (RFC 6455 5.5.1)
    bool weClose = false;    // we started the closing handshake
    int closeCode = 0;
    std::string closeReason;
    std::string socketError;
    std::deque<Frame> frames;
};

OpenPiClient::OpenPiClient()
    : m_thread(std::make_unique<QThread>()), m_state(std::make_shared<State>())
{
    m_thread->setObjectName(QStringLiteral("openpi-socket"));
    m_context = std::make_unique<QObject>();
    m_context->moveToThread(m_thread.get());
    m_thread->start();
}

OpenPiClient::~OpenPiClient()
{
    close();
    m_thread->quit();
    m_thread->wait();
    m_context.reset(); // its thread has finished
}

void OpenPiClient::runInSocketThread(std::function<void()> f)
{
    // Runs f in the socket's thread and waits for it.
    QMetaObject::invokeMethod(m_context.get(), std::move(f), Qt::BlockingQueuedConnection);
}

bool OpenPiClient::connected() const
{
    std::lock_guard lock(m_state->mutex);
    return m_socket && m_state->open && !m_state->closed;
}

int OpenPiClient::closeCode() const
{
    std::lock_guard lock(m_state->mutex);
    return m_state->closeCode;
}

void OpenPiClient::drop()
{
    if (!m_socket)
        return;
    QWebSocket *socket = m_socket;
    m_socket = nullptr;
    runInSocketThread([socket] {
        socket->abort();
        delete socket;
    });
}

void OpenPiClient::close()
{
    if (!m_socket)
        return;
    auto state = m_state;
    QWebSocket *socket = m_socket;
    bool open = false;
    {
        std::lock_guard lock(state->mutex);
        open = state->open && !state->closed;
        state->weClose = true;
    }
    if (open) {
        runInSocketThread([socket] {
            socket->close(QWebSocketProtocol::CloseCodeNormal, QStringLiteral("kosmos: done"));
        });
        std::unique_lock lock(state->mutex);
        state->changed.wait_for(lock, std::chrono::seconds(1), [&] { return state->closed; });
    }
    drop();
}

void OpenPiClient::connect(const QString &url, const QString &apiKey, int timeoutMs)
{
    drop();
    m_state = std::make_shared<State>(); // a fresh state for a fresh socket
    const QUrl target(url);
    if (!target.isValid() ||
        (target.scheme() != QLatin1String("ws") && target.scheme() != QLatin1String("wss")))
        throw Error(ErrorCode::InvalidInput,
                    "settings.url must be ws://host:port (openpi's default port is 8000), not '" +
                        url.toStdString() + "'");
    auto state = m_state;
    const qint64 limit = m_maxMessageBytes;
    runInSocketThread([this, state, target, apiKey, limit] {
        auto *socket = new QWebSocket;
        m_socket = socket;
        if (limit > 0) { // a larger message closes the connection (1009): a named failure
            socket->setMaxAllowedIncomingMessageSize(static_cast<quint64>(limit));
            socket->setMaxAllowedIncomingFrameSize(static_cast<quint64>(limit));
        }
        QObject::connect(socket, &QWebSocket::connected, socket, [state] {
            std::lock_guard lock(state->mutex);
            state->open = true;
            state->changed.notify_all();
        });
        QObject::connect(socket, &QWebSocket::binaryMessageReceived, socket,
                         [state](const QByteArray &message) {
                             std::lock_guard lock(state->mutex);
                             state->frames.push_back({true, message.toStdString()});
                             state->changed.notify_all();
                         });
        QObject::connect(socket, &QWebSocket::textMessageReceived, socket,
                         [state](const QString &message) {
                             std::lock_guard lock(state->mutex);
                             state->frames.push_back({false, message.toStdString()});
                             state->changed.notify_all();
                         });
        // Qt reports 1000 for a connection that dropped without any CLOSE frame; a CLOSE frame
        // from the server starts Qt's closing handshake (aboutToClose) before the disconnect.
        QObject::connect(socket, &QWebSocket::aboutToClose, socket, [state] {
            std::lock_guard lock(state->mutex);
            if (!state->weClose)
                state->closeFrame = true;
        });
        QObject::connect(socket, &QWebSocket::disconnected, socket, [state, socket] {
            std::lock_guard lock(state->mutex);
            state->closed = true;
            if (state->closeFrame || state->weClose) {
                state->closeCode = socket->closeCode();
                state->closeReason = socket->closeReason().toStdString();
            } else {
                state->closeCode = QWebSocketProtocol::CloseCodeAbnormalDisconnection; // 1006
                state->closeReason = "abnormal closure: the connection dropped without a close "
                                     "frame (did the server process die?)";
            }
            state->changed.notify_all();
        });
        // Qt 6.4 names the signal error(); 6.5 renamed it errorOccurred.
        QObject::connect(socket, QOverload<QAbstractSocket::SocketError>::of(&QWebSocket::error),
                         socket, [state, socket](QAbstractSocket::SocketError) {
                             std::lock_guard lock(state->mutex);
                             state->socketError = socket->errorString().toStdString();
                             state->changed.notify_all();
                         });
        QNetworkRequest request(target);
        if (!apiKey.isEmpty())
            request.setRawHeader("Authorization", "Api-Key " + apiKey.toUtf8());
        socket->open(request);
    });
    // The server speaks first: one binary metadata frame.
    std::unique_lock lock(m_state->mutex);
    const bool arrived = m_state->changed.wait_for(lock, std::chrono::milliseconds(timeoutMs), [&] {
        return !m_state->frames.empty() || m_state->closed ||
               (!m_state->socketError.empty() && !m_state->open);
    });
    if (!m_state->open) {
        const std::string why = m_state->socketError.empty()
                                    ? "no connection within " + std::to_string(timeoutMs) + " ms"
                                    : m_state->socketError;
        lock.unlock();
        drop();
        throw Error(ErrorCode::RemoteUnreachable, "unreachable: " + url.toStdString() + ": " + why);
    }
    if (arrived && !m_state->frames.empty() && !m_state->frames.front().binary) {
        // The server could not start its side (a world or policy that cannot be made): its
        // traceback, whose last lines say what was wrong (the tail, where it is long).
        const std::string &text = m_state->frames.front().bytes;
        const std::string tail =
            text.size() > 4000 ? "..." + text.substr(text.size() - 4000) : text;
        lock.unlock();
        drop();
        throw Error(ErrorCode::RemoteError, m_name + " server error before its metadata:\n" + tail);
    }
    if (!arrived || m_state->frames.empty()) {
        const std::string detail = m_state->closed
                                       ? "the server closed the connection"
                                       : "nothing within " + std::to_string(timeoutMs) + " ms";
        lock.unlock();
        drop();
        throw Error(ErrorCode::RemoteError,
                    "protocol mismatch: first frame was not metadata (" + detail + ")");
    }
    m_metadata = m_state->frames.front().bytes;
    m_state->frames.pop_front();
}

std::string OpenPiClient::request(const std::string &bytes, int timeoutMs,
                                  const std::function<bool()> &cancelled)
{
    if (!connected())
        throw Error(ErrorCode::RemoteDisconnected, m_name + ": not connected");
    {
        std::lock_guard lock(m_state->mutex);
        m_state->frames.clear();
    }
    QWebSocket *socket = m_socket;
    const QByteArray payload = QByteArray::fromStdString(bytes);
    runInSocketThread([socket, payload] { socket->sendBinaryMessage(payload); });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
    std::unique_lock lock(m_state->mutex);
    for (;;) {
        if (!m_state->frames.empty())
            break;
        if (m_state->closed) {
            const std::string why =
                "the server closed the connection (code " + std::to_string(m_state->closeCode) +
                (m_state->closeReason.empty() ? "" : ": " + m_state->closeReason) +
                ") before replying";
            lock.unlock();
            drop();
            throw Error(ErrorCode::RemoteDisconnected, m_name + ": " + why);
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            lock.unlock();
            drop();
            throw Error(ErrorCode::RemoteTimeout,
                        m_name + ": no reply within " + std::to_string(timeoutMs) +
                            " ms (settings.timeout_s); connection dropped");
        }
        if (cancelled) {
            lock.unlock();
            const bool stop = cancelled();
            lock.lock();
            if (stop) {
                lock.unlock();
                drop();
                throw Error(ErrorCode::InvalidInput,
                            m_name + ": cancelled while waiting for the server");
            }
        }
        m_state->changed.wait_for(lock, std::chrono::milliseconds(50));
    }
    Frame frame = std::move(m_state->frames.front()); // a frame may be megabytes: never copied
    m_state->frames.pop_front();
    if (frame.binary)
        return std::move(frame.bytes);
    // A policy error: the traceback as text, then a close with 1011. Wait briefly for the close
    // to record its code, then drop the connection (the next run reconnects).
    m_state->changed.wait_for(lock, std::chrono::milliseconds(500),
                              [&] { return m_state->closed; });
    const int code = m_state->closeCode;
    lock.unlock();
    drop();
    throw Error(ErrorCode::RemoteError,
                m_name + " server error" +
                    (code ? " (closed with " + std::to_string(code) + ")" : std::string()) + ":\n" +
                    frame.bytes);
}

} // namespace kosmos::remote
