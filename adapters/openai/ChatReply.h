#pragma once

// The reply of an OpenAI-compatible chat-completions server (POST /v1/chat/completions), read
// once for the judge adapter (OpenAiJudge) and for `kosmos-cli judge-request --send`, so both
// take the same fields the same way.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

struct ChatChoice
{
    std::optional<std::string> text; // choices[i].message.content when it is a string
    std::optional<std::string> finishReason;
};

struct ChatReply
{
    std::optional<std::string> serverModel;       // `model`: what the server says answered
    std::optional<std::string> systemFingerprint; // `system_fingerprint`
    std::optional<std::int64_t> completionTokens; // usage.completion_tokens (all choices together)
    std::vector<ChatChoice> choices;              // never empty
};

// Reads a reply body, bounded (8 MiB, depth 32). Throws Error(RemoteError) naming `where` when
// the body is too large, not JSON, not an object, or has no choices.
ChatReply parseChatReply(const std::string &body, const std::string &where);

} // namespace kosmos
