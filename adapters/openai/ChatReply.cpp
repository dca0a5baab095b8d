#include "openai/ChatReply.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <nlohmann/json.hpp>

namespace kosmos {
namespace {

std::optional<std::string> optString(const nlohmann::json &object, const char *key)
{
    const auto it = object.find(key);
    if (it == object.end() || !it->is_string())
        return std::nullopt;
    return it->get<std::string>();
}

} // namespace

ChatReply parseChatReply(const std::string &body, const std::string &where)
{
    json::Limits limits;
    limits.maxDepth = 32;
    limits.maxBytes = 8u << 20;
    nlohmann::json doc;
    try {
        doc = json::parseBounded(body, where, limits);
    } catch (const Error &e) {
        throw Error(ErrorCode::RemoteError,
                    where + " answered with a body that is not JSON within limits (" + e.what() +
                        "): " + body.substr(0, 200));
    }
    if (!doc.is_object())
        throw Error(ErrorCode::RemoteError, where + " answered JSON that is not an object");
    const auto choices = doc.find("choices");
    if (choices == doc.end() || !choices->is_array() || choices->empty())
        throw Error(ErrorCode::RemoteError, where + " answered without choices");
    ChatReply reply;
    reply.serverModel = optString(doc, "model");
    reply.systemFingerprint = optString(doc, "system_fingerprint");
    if (const auto usage = doc.find("usage"); usage != doc.end() && usage->is_object()) {
        if (const auto tokens = usage->find("completion_tokens");
            tokens != usage->end() && tokens->is_number_integer())
            reply.completionTokens = tokens->get<std::int64_t>();
    }
    for (const auto &choice : *choices) {
        ChatChoice c;
        if (choice.is_object()) {
            if (const auto message = choice.find("message");
                message != choice.end() && message->is_object())
                c.text = optString(*message, "content");
            c.finishReason = optString(choice, "finish_reason");
        }
        reply.choices.push_back(std::move(c));
    }
    return reply;
}

} // namespace kosmos
