#include "HttpPost.h"

#include "util/Error.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSslSocket>
#include <QTcpSocket>

#include <memory>

namespace kosmos::remote {

bool parseHttpResponse(const QByteArray &data, bool closed, HttpReply &reply,
                       const std::string &who)
{
    const qsizetype headerEnd = data.indexOf("\r\n\r\n");
    if (headerEnd < 0)
        return false;
    const QList<QByteArray> lines = data.left(headerEnd).split('\n');
    const QList<QByteArray> statusLine = lines.value(0).trimmed().split(' ');
    bool ok = false;
    reply.status = statusLine.value(1).toInt(&ok);
    if (!statusLine.value(0).startsWith("HTTP/1.") || !ok)
        throw Error(ErrorCode::RemoteError,
                    who + " answered something that is not HTTP/1.x: " +
                        data.left(std::min<qsizetype>(headerEnd, 120)).toStdString());
    qint64 length = -1;
    bool chunked = false;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        if (colon < 0)
            continue;
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "content-length") {
            length = value.toLongLong(&ok);
            if (!ok || length < 0)
                throw Error(ErrorCode::RemoteError,
                            who + " sent a Content-Length that is not a size: " +
                                value.left(40).toStdString());
        } else if (name == "transfer-encoding" && value.toLower().contains("chunked"))
            chunked = true;
    }
    const QByteArray rest = data.mid(headerEnd + 4);
    if (chunked) {
        QByteArray out;
        qsizetype at = 0;
        for (;;) {
            const qsizetype lineEnd = rest.indexOf("\r\n", at);
            if (lineEnd < 0)
                return false;
            const qint64 size =
                rest.mid(at, lineEnd - at).split(';').value(0).trimmed().toLongLong(&ok, 16);
            if (!ok || size < 0)
                throw Error(ErrorCode::RemoteError, who + " sent a malformed chunked answer");
            if (size == 0) {
                reply.body = out;
                return true; // trailers, if any, are not needed
            }
            const qsizetype dataStart = lineEnd + 2;
            // Compared before anything is added: a declared size near 2^63 must not overflow.
            if (size > rest.size() - dataStart || rest.size() - dataStart - size < 2)
                return false;
            out += rest.mid(dataStart, static_cast<qsizetype>(size));
            at = dataStart + static_cast<qsizetype>(size) + 2;
        }
    }
    if (length >= 0) {
        if (rest.size() < length)
            return false;
        reply.body = rest.left(length);
        return true;
    }
    if (reply.status == 204 || reply.status == 304 || (reply.status >= 100 && reply.status < 200)) {
        reply.body.clear();
        return true;
    }
    if (!closed)
        return false; // the body ends when the server closes the connection
    reply.body = rest;
    return true;
}

HttpReply postOnce(const QUrl &url, const QByteArray &body, const QByteArray &contentType,
                   int timeoutMs, const std::function<bool()> &cancelled, const std::string &who,
                   qint64 maxReplyBytes)
{
    const bool tls = url.scheme() == QLatin1String("https");
    const int port = url.port(tls ? 443 : 80);
    const std::string target = url.toString().toStdString();
    std::unique_ptr<QTcpSocket> socket;
    if (tls) {
        auto ssl = std::make_unique<QSslSocket>();
        ssl->connectToHostEncrypted(url.host(), static_cast<quint16>(port));
        socket = std::move(ssl);
    } else {
        socket = std::make_unique<QTcpSocket>();
        socket->connectToHost(url.host(), static_cast<quint16>(port));
    }
    QElapsedTimer clock;
    clock.start();
    auto left = [&] { return std::max<qint64>(0, timeoutMs - clock.elapsed()); };
    auto checkCancel = [&] {
        if (cancelled && cancelled()) {
            socket->abort();
            throw Error(ErrorCode::InvalidInput, who + ": cancelled during the request");
        }
    };
    // Connecting: nothing was sent yet, so a failure here is "unreachable".
    while (socket->state() != QAbstractSocket::ConnectedState ||
           (tls && !static_cast<QSslSocket *>(socket.get())->isEncrypted())) {
        checkCancel();
        if (left() == 0) {
            socket->abort();
            throw Error(ErrorCode::RemoteTimeout, who + ": no connection to " + target +
                                                      " within " + std::to_string(timeoutMs) +
                                                      " ms (settings.timeout_s)");
        }
        const bool done =
            tls ? static_cast<QSslSocket *>(socket.get())
                      ->waitForEncrypted(static_cast<int>(std::min<qint64>(50, left())))
                : socket->waitForConnected(static_cast<int>(std::min<qint64>(50, left())));
        if (!done && socket->state() == QAbstractSocket::UnconnectedState)
            throw Error(ErrorCode::RemoteUnreachable, who + " unreachable: " + target + ": " +
                                                          socket->errorString().toStdString());
    }
    QByteArray path = url.path(QUrl::FullyEncoded).toUtf8();
    if (path.isEmpty())
        path = "/";
    if (url.hasQuery())
        path += "?" + url.query(QUrl::FullyEncoded).toUtf8();
    const bool defaultPort = url.port() < 0;
    QByteArray request = "POST " + path + " HTTP/1.1\r\nHost: " + url.host().toUtf8() +
                         (defaultPort ? QByteArray() : ":" + QByteArray::number(port)) +
                         "\r\nContent-Type: " + contentType +
                         "\r\nContent-Length: " + QByteArray::number(body.size()) +
                         "\r\nAccept: application/json\r\nConnection: close\r\n\r\n" + body;
    socket->write(request);
    // From the first byte written the server may have the request: every failure from here on
    // is a disconnection (or a timeout), never a reason to send it again.
    QByteArray data;
    HttpReply reply;
    for (;;) {
        checkCancel();
        if (left() == 0) {
            socket->abort();
            throw Error(ErrorCode::RemoteTimeout, who + ": no reply within " +
                                                      std::to_string(timeoutMs) +
                                                      " ms (settings.timeout_s)");
        }
        if (socket->bytesToWrite() > 0)
            socket->waitForBytesWritten(static_cast<int>(std::min<qint64>(50, left())));
        else
            socket->waitForReadyRead(static_cast<int>(std::min<qint64>(50, left())));
        data += socket->readAll();
        if (data.size() > maxReplyBytes) {
            socket->abort();
            throw Error(ErrorCode::RemoteError, who + ": an answer larger than " +
                                                    std::to_string(maxReplyBytes) + " bytes");
        }
        const bool closed = socket->state() == QAbstractSocket::UnconnectedState;
        if (parseHttpResponse(data, closed, reply, who)) {
            socket->abort();
            return reply;
        }
        if (closed)
            throw Error(ErrorCode::RemoteDisconnected,
                        who +
                            " closed the connection after the request was sent, before it "
                            "answered" +
                            (data.isEmpty()
                                 ? std::string()
                                 : " (" + std::to_string(data.size()) + " bytes of an answer)") +
                            " (" + socket->errorString().toStdString() +
                            "): it may have crashed, see its log; the request was not sent "
                            "again");
    }
}

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

QUrl healthzUrl(const QString &websocketUrl)
{
    QUrl health(websocketUrl);
    health.setScheme(health.scheme() == QLatin1String("wss") ? QStringLiteral("https")
                                                             : QStringLiteral("http"));
    health.setPath(QStringLiteral("/healthz"));
    return health;
}

} // namespace kosmos::remote
