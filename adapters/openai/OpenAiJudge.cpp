#include "openai/OpenAiJudge.h"
#include "artifacts/ImageCodecs.h"
#include "openai/ChatReply.h"

#include "util/Error.h"
#include "util/JsonFields.h"
#include "util/Secrets.h"

#include <QByteArray>
#include <QEventLoop>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QUrl>

#include <chrono>
#include <cstdlib>
#include <thread>

namespace kosmos::openai {

namespace {

nlohmann::json judgmentJsonSchema()
{
    return {
        {"type", "object"},
        {"additionalProperties", false},
        {"required",
         {"integrity", "collision", "progress", "completion_evidence", "evidence_frame_indices",
          "observable_reasons"}},
        {"properties",
         {{"integrity", {{"type", "string"}, {"enum", {"intact", "artifact", "uncertain"}}}},
          {"collision", {{"type", "string"}, {"enum", {"none_visible", "visible", "uncertain"}}}},
          {"progress", {{"type", {"integer", "null"}}, {"minimum", 0}, {"maximum", 5}}},
          {"completion_evidence", {{"type", "string"}, {"enum", {"met", "not_met", "uncertain"}}}},
          {"evidence_frame_indices",
           {{"type", "array"},
            {"minItems", 1},
            {"items", {{"type", "integer"}, {"minimum", 0}, {"maximum", 15}}}}},
          {"observable_reasons", {{"type", "string"}, {"maxLength", 1200}}}}}};
}

std::string base64(const std::vector<std::uint8_t> &bytes)
{
    return QByteArray::fromRawData(reinterpret_cast<const char *>(bytes.data()),
                                   static_cast<qsizetype>(bytes.size()))
        .toBase64()
        .toStdString();
}

std::string host(const std::string &url)
{
    return QUrl(QString::fromStdString(url)).host().toStdString();
}

} // namespace

JudgeSettings JudgeSettings::fromJson(const nlohmann::json &j)
{
    JudgeSettings s;
    const std::string where = "settings";
    s.baseUrl = json::requireString(j, "base_url", where);
    const QUrl url(QString::fromStdString(s.baseUrl));
    if (!url.isValid() || (url.scheme() != "http" && url.scheme() != "https") ||
        url.host().isEmpty())
        json::fail(where + ".base_url", "expected http(s)://host[:port], got '" + s.baseUrl + "'");
    while (!s.baseUrl.empty() && s.baseUrl.back() == '/')
        s.baseUrl.pop_back();
    s.model = json::requireString(j, "model", where);
    s.apiKeyEnv = json::optString(j, "api_key_env", where).value_or("");
    if (j.contains("api_key"))
        json::fail(where + ".api_key",
                   "keys are never settings (they would be recorded); name an environment "
                   "variable in settings.api_key_env instead");
    if (auto v = json::optNumber(j, "timeout_s", where))
        s.timeoutS = *v;
    if (auto v = json::optInt(j, "max_retries", where, 0, 10))
        s.maxRetries = static_cast<int>(*v);
    if (auto v = json::optNumber(j, "backoff_s", where))
        s.backoffS = *v;
    if (j.contains("use_n"))
        s.useN = j["use_n"].get<bool>();
    if (j.contains("json_schema"))
        s.jsonSchema = j["json_schema"].get<bool>();
    if (auto v = json::optInt(j, "max_body_bytes", where, 1024, std::int64_t{1} << 32))
        s.maxBodyBytes = *v;
    return s;
}

Availability checkAvailability(const nlohmann::json &settings, bool probeEndpoint)
{
    JudgeSettings s;
    try {
        if (!settings.contains("base_url"))
            return Availability::no(
                "endpoint unset (settings.base_url, e.g. http://127.0.0.1:8000 for vLLM)");
        s = JudgeSettings::fromJson(settings);
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
    if (!s.apiKeyEnv.empty() && !std::getenv(s.apiKeyEnv.c_str()))
        return Availability::no("the API key variable " + s.apiKeyEnv + " is not set");
    if (!probeEndpoint)
        return Availability::yes();
    QNetworkAccessManager nam;
    QNetworkRequest request(QUrl(QString::fromStdString(s.baseUrl + "/v1/models")));
    request.setTransferTimeout(3000);
    if (!s.apiKeyEnv.empty())
        request.setRawHeader("Authorization",
                             QByteArray("Bearer ") + std::getenv(s.apiKeyEnv.c_str()));
    QNetworkReply *reply = nam.get(request);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const std::string error = reply->errorString().toStdString();
    reply->deleteLater();
    if (status == 200)
        return Availability::yes();
    if (status == 0)
        return Availability::no("endpoint unreachable: " + s.baseUrl + " (" + error + ")");
    return Availability::no("endpoint " + s.baseUrl + " answered HTTP " + std::to_string(status) +
                            " to /v1/models");
}

nlohmann::json OpenAiJudge::requestBody(const JudgeRequest &request, int n) const
{
    nlohmann::json content = nlohmann::json::array();
    content.push_back({{"type", "text"}, {"text", request.prompt}});
    // The runner's data URLs when it gave them (so the ledger holds exactly the bytes sent, and
    // nothing is encoded again per call); else the frames encoded as the runner encodes them.
    const bool given = request.frameDataUrls.size() == request.frames.size();
    const bool encoded = request.framePngs.size() == request.frames.size();
    for (std::size_t i = 0; i < request.frames.size(); ++i) {
        const std::string url = given
                                    ? request.frameDataUrls[i]
                                    : "data:image/png;base64," +
                                          base64(encoded ? request.framePngs[i]
                                                         : encodeJudgeFramePng(request.frames[i]));
        content.push_back({{"type", "image_url"}, {"image_url", {{"url", url}}}});
    }
    nlohmann::json body = {{"model", m_settings.model},
                           {"messages", {{{"role", "user"}, {"content", content}}}},
                           {"temperature", request.temperature},
                           {"top_p", request.topP},
                           {"max_tokens", request.maxNewTokens},
                           {"seed", request.seed},
                           {"n", n}};
    if (m_settings.jsonSchema)
        body["response_format"] = {
            {"type", "json_schema"},
            {"json_schema",
             {{"name", "kosmos_judgment"}, {"schema", judgmentJsonSchema()}, {"strict", true}}}};
    return body;
}

OpenAiJudge::Reply OpenAiJudge::post(const std::string &text) const
{
    Reply out;
    const auto start = std::chrono::steady_clock::now();
    QNetworkAccessManager nam; // one per call: safe in any thread
    QNetworkRequest request(QUrl(QString::fromStdString(chatUrl())));
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    request.setTransferTimeout(static_cast<int>(m_settings.timeoutS * 1000));
    if (!m_settings.apiKeyEnv.empty()) {
        if (const char *key = std::getenv(m_settings.apiKeyEnv.c_str())) {
            registerSecret(key); // redacted from anything stored, should the server echo it
            request.setRawHeader("Authorization", QByteArray("Bearer ") + key);
        }
    }
    QNetworkReply *reply =
        nam.post(request, QByteArray(text.data(), static_cast<qsizetype>(text.size())));
    bool tooLarge = false;
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    QObject::connect(
        reply, &QNetworkReply::downloadProgress, reply, [&](qint64 received, qint64 total) {
            if (received > m_settings.maxBodyBytes || total > m_settings.maxBodyBytes) {
                tooLarge = true;
                reply->abort();
            }
        });
    loop.exec();
    out.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (tooLarge)
        out.error = "the reply is larger than " + std::to_string(m_settings.maxBodyBytes) +
                    " bytes; refused";
    else if (reply->error() != QNetworkReply::NoError && (out.status == 0 || out.status == 200))
        out.error = reply->errorString().toStdString();
    else
        out.body = reply->readAll().toStdString();
    reply->deleteLater();
    out.elapsedMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
}

JudgeAnswer OpenAiJudge::call(const JudgeRequest &request, int n, std::vector<JudgeAnswer> *others)
{
    const std::string body = requestBody(request, n).dump();
    const std::string where = host(m_settings.baseUrl);
    JudgeAnswer failed;
    failed.seedUsed = request.seed;
    failed.wireBody = body;
    failed.wireUrl = chatUrl();
    Reply reply;
    for (int attempt = 0; attempt <= m_settings.maxRetries; ++attempt) {
        if (attempt > 0)
            std::this_thread::sleep_for(
                std::chrono::duration<double>(m_settings.backoffS * (1 << (attempt - 1))));
        reply = post(body);
        const bool retryable =
            (!reply.error.empty() && reply.error.find("larger than") == std::string::npos) ||
            reply.status == 429 || reply.status >= 500;
        if (!retryable)
            break;
    }
    failed.decodeMs = static_cast<std::int64_t>(reply.elapsedMs);
    if (!reply.error.empty()) {
        failed.error = where + ": " + reply.error;
        return failed;
    }
    if (reply.status != 200) {
        failed.error = where + " answered HTTP " + std::to_string(reply.status) + ": " +
                       reply.body.substr(0, 300);
        return failed;
    }
    ChatReply chat;
    try {
        chat = parseChatReply(reply.body, where);
    } catch (const Error &e) {
        failed.error = e.what();
        return failed;
    }
    failed.serverModel = chat.serverModel;
    failed.systemFingerprint = chat.systemFingerprint;
    std::vector<JudgeAnswer> answers;
    for (const auto &choice : chat.choices) {
        JudgeAnswer a = failed; // the request's provenance, the reply's identity
        a.error.clear();
        a.decodeMs = static_cast<std::int64_t>(reply.elapsedMs);
        if (choice.text)
            a.rawText = *choice.text;
        else
            a.error = where + " answered a choice without text content";
        a.finishReason = choice.finishReason;
        answers.push_back(a);
    }
    if (chat.completionTokens && answers.size() == 1)
        answers[0].generatedTokens = chat.completionTokens;
    if (others) {
        for (std::size_t i = 1; i < answers.size(); ++i)
            others->push_back(answers[i]);
    }
    return answers[0];
}

JudgeAnswer OpenAiJudge::sample(const JudgeRequest &request)
{
    if (!m_settings.useN || request.tryIndex > 0 || request.sampleCount <= 1)
        return call(request, 1, nullptr);
    std::lock_guard lock(m_mutex);
    if (request.sampleIndex == 0) {
        m_batched.clear();
        std::vector<JudgeAnswer> others;
        JudgeAnswer first = call(request, request.sampleCount, &others);
        for (std::size_t i = 0; i < others.size(); ++i)
            m_batched[static_cast<int>(i) + 1] = others[i];
        if (!first.rawText) // the whole request failed: every sample fails with the same reason
            for (int i = 1; i < request.sampleCount; ++i)
                m_batched[i] = first;
        return first;
    }
    const auto it = m_batched.find(request.sampleIndex);
    if (it == m_batched.end()) {
        JudgeAnswer missing;
        missing.error = host(m_settings.baseUrl) + " returned " +
                        std::to_string(m_batched.size() + 1) + " of " +
                        std::to_string(request.sampleCount) + " samples asked for with n";
        return missing;
    }
    return it->second;
}

} // namespace kosmos::openai
