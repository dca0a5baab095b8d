#pragma once

#include <QByteArray>
#include <QUrl>

#include <functional>
#include <string>
#include <utility>

namespace kosmos::remote {

struct HttpReply
{
    int status = 0;
    QByteArray body;
};

// Whether `data` holds a whole HTTP/1.x response (status line, headers, a body by Content-Length,
// chunked transfer coding, or up to the close); fills `reply` when it does. `closed`: the server
// has closed the connection. Throws Error(RemoteError) for a response that is not HTTP/1.x, a
// Content-Length that is not a size, or a malformed chunk. Sizes are checked before they are
// added, never trusted.
bool parseHttpResponse(const QByteArray &data, bool closed, HttpReply &reply,
                       const std::string &who);

// One HTTP/1.1 POST over its own connection (TCP, or TLS for https://), sent exactly once: a
// request that may have reached the server is never sent again (QNetworkAccessManager resends a
// request whose connection closed before an answer, so a server that crashed on the first copy
// met a second one, or a refused connection that hid the crash). `who` names the server in
// errors. Throws Error with
//   RemoteUnreachable   no connection could be made (nothing was sent);
//   RemoteDisconnected  the connection closed after the request was sent, before a whole answer;
//   RemoteTimeout       no whole answer within timeoutMs (the connection is closed);
//   RemoteError         an answer that is not HTTP/1.x, or larger than maxReplyBytes;
//   InvalidInput        `cancelled` returned true (checked every 50 ms).
HttpReply postOnce(const QUrl &url, const QByteArray &body, const QByteArray &contentType,
                   int timeoutMs, const std::function<bool()> &cancelled, const std::string &who,
                   qint64 maxReplyBytes = qint64{256} << 20);

// GET `url` with a timeout (a server's /healthz): the HTTP status, or 0 with the reason when no
// answer came.
std::pair<int, std::string> httpGet(const QUrl &url, int timeoutMs);
// A websocket server's health check: ws(s)://host:port -> http(s)://host:port/healthz.
QUrl healthzUrl(const QString &websocketUrl);

} // namespace kosmos::remote
