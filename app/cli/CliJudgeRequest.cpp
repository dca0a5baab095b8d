// kosmos-cli judge-request: the exact request of one stored judge call, rebuilt from the ledger,
// written out or sent again to another endpoint (docs/judge.md "Provenance and replay").
#include "CliCommands.h"

#include "judge/JudgeRequestRecord.h"
#include "judge/JudgeSchema.h"
#include "ledger/Ledger.h"
#include "openai/ChatReply.h"
#include "queries/JudgmentQuery.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/FileWrite.h"

#include <QByteArray>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

#include <cstdlib>
#include <fstream>
#include <iostream>

using namespace kosmos;

namespace {

struct Reply
{
    int status = 0;
    std::string error;
    std::string body;
};

Reply post(const std::string &url, const std::string &body, const std::string &apiKeyEnv,
           int timeoutMs)
{
    QNetworkAccessManager nam;
    QNetworkRequest request{QUrl(QString::fromStdString(url))};
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    request.setTransferTimeout(timeoutMs);
    if (!apiKeyEnv.empty()) {
        const char *key = std::getenv(apiKeyEnv.c_str());
        if (!key)
            throw Error(ErrorCode::InvalidInput,
                        "--api-key-env names " + apiKeyEnv + ", which is not set");
        request.setRawHeader("Authorization", QByteArray("Bearer ") + key);
    }
    QNetworkReply *reply =
        nam.post(request, QByteArray(body.data(), static_cast<qsizetype>(body.size())));
    // A reply larger than the judge adapter's default limit (8 MiB) is refused, not read.
    constexpr qint64 kMaxReplyBytes = 8 << 20;
    bool tooLarge = false;
    QObject::connect(reply, &QNetworkReply::downloadProgress, reply,
                     [&](qint64 received, qint64 total) {
                         if (received > kMaxReplyBytes || total > kMaxReplyBytes) {
                             tooLarge = true;
                             reply->abort();
                         }
                     });
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    Reply out;
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (tooLarge)
        out.error =
            "the reply is larger than " + std::to_string(kMaxReplyBytes) + " bytes; refused";
    else if (reply->error() != QNetworkReply::NoError && out.status == 0)
        out.error = reply->errorString().toStdString();
    else
        out.body = reply->readAll().toStdString();
    reply->deleteLater();
    return out;
}

// The endpoint to send to: a full URL as given, or a bare http(s)://host[:port] with the
// stored request's path.
std::string targetUrl(const std::string &given, const std::string &storedUrl)
{
    const QUrl url(QString::fromStdString(given));
    if (!url.isValid() || (url.scheme() != "http" && url.scheme() != "https") ||
        url.host().isEmpty())
        throw Error(ErrorCode::InvalidInput,
                    "--send expects http(s)://host[:port][/path], got '" + given + "'");
    if (!url.path().isEmpty() && url.path() != "/")
        return given;
    std::string base = given;
    while (!base.empty() && base.back() == '/')
        base.pop_back();
    return base + QUrl(QString::fromStdString(storedUrl)).path().toStdString();
}

} // namespace

int runJudgeRequest(const JudgeRequestOptions &options)
{
    try {
        Ledger ledger = Ledger::open(options.bundle, {OpenMode::ReadOnly});
        const auto call =
            judgeCall(ledger, options.judgmentId, options.sampleIndex, options.tryIndex);
        const std::string which = "judgment " + std::to_string(options.judgmentId) + " sample " +
                                  std::to_string(options.sampleIndex) + " try " +
                                  std::to_string(options.tryIndex);
        if (!call)
            throw Error(ErrorCode::NotFound, "no " + which + " in " + options.bundle +
                                                 " (kosmos-cli judgments BUNDLE RUN lists them)");
        const auto &requestSha = call->requestSha256;
        const auto &storedRaw = call->rawText;
        const auto &storedModel = call->serverModel;
        if (!requestSha)
            throw Error(ErrorCode::NotFound,
                        which + " has no recorded request (imported, or written before schema "
                                "version 3)");
        const auto docBytes = ledger.artifacts().read(*requestSha);
        const nlohmann::json doc = json::parseBounded(
            std::string_view(reinterpret_cast<const char *>(docBytes.data()), docBytes.size()),
            "request " + *requestSha);
        const std::string body = rebuildJudgeWireBody(doc, ledger.artifacts());
        const std::string storedUrl = doc["wire"].value("url", "");

        if (!options.outPath.empty()) {
            writeFileAtomically(options.outPath, body);
        }
        if (options.sendUrl.empty()) {
            if (options.json) {
                std::cout << nlohmann::json({{"request_sha256", *requestSha},
                                             {"url", storedUrl},
                                             {"body_sha256", doc["wire"]["body_sha256"]},
                                             {"body_bytes", body.size()},
                                             {"out", options.outPath}})
                                 .dump(2)
                          << "\n";
            } else {
                std::cout << which << ": POST " << storedUrl << ", " << body.size()
                          << " bytes, SHA-256 " << doc["wire"]["body_sha256"].get<std::string>()
                          << " (rebuilt from the ledger and checked)\n";
                if (!options.outPath.empty())
                    std::cout << "written to " << options.outPath << "\n";
                else
                    std::cout << "(--out FILE writes it; --send URL sends it again)\n";
            }
            return ExitCode::Ok;
        }

        const std::string url = targetUrl(options.sendUrl, storedUrl);
        const Reply reply = post(url, body, options.apiKeyEnv, options.timeoutMs);
        if (!reply.error.empty())
            throw Error(ErrorCode::RemoteUnreachable, url + ": " + reply.error);
        nlohmann::json answers = nlohmann::json::array();
        std::optional<std::string> model, fingerprint;
        try {
            const ChatReply chat = parseChatReply(reply.body, url);
            model = chat.serverModel;
            fingerprint = chat.systemFingerprint;
            for (const auto &choice : chat.choices) {
                if (!choice.text)
                    continue;
                const ParsedAnswer parsed = parseJudgeAnswer(*choice.text);
                answers.push_back({{"raw_text", *choice.text},
                                   {"format_class", formatClassName(parsed.format)},
                                   {"answer_form", answerFormName(parsed.form)},
                                   {"same_as_recorded", storedRaw && *storedRaw == *choice.text},
                                   {"parsed", parsed.value}});
            }
        } catch (const Error &) {
            // not a chat completion: reported below with the start of the body
        }
        if (options.json) {
            std::cout << nlohmann::json({{"request_sha256", *requestSha},
                                         {"sent_to", url},
                                         {"body_bytes", body.size()},
                                         {"status", reply.status},
                                         {"server_model", model ? nlohmann::json(*model) : nullptr},
                                         {"system_fingerprint",
                                          fingerprint ? nlohmann::json(*fingerprint) : nullptr},
                                         {"recorded_server_model",
                                          storedModel ? nlohmann::json(*storedModel) : nullptr},
                                         {"answers", answers}})
                             .dump(2)
                      << "\n";
        } else {
            std::cout << which << ": sent the recorded request (" << body.size()
                      << " bytes, byte for byte) to " << url << "\n  HTTP " << reply.status
                      << ", server model " << model.value_or("(not reported)")
                      << " (recorded: " << storedModel.value_or("(not reported)")
                      << "), system fingerprint " << fingerprint.value_or("(not reported)") << "\n";
            for (const auto &a : answers)
                std::cout << "  answer: " << a["format_class"].get<std::string>() << " (written "
                          << a["answer_form"].get<std::string>() << "), "
                          << (a["same_as_recorded"].get<bool>() ? "the same text as recorded"
                                                                : "differs from the recorded text")
                          << "\n";
            if (answers.empty())
                std::cout << "  no answer text in the reply: " << reply.body.substr(0, 300) << "\n";
        }
        return reply.status == 200 ? ExitCode::Ok : ExitCode::Failed;
    } catch (const Error &e) {
        return reportError(e);
    }
}
