#include "util/Secrets.h"

#include "util/Error.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <regex>
#include <vector>

namespace kosmos {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool endsWith(const std::string &s, std::string_view suffix)
{
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool credentialKey(const std::string &key)
{
    const std::string k = lower(key);
    for (const char *pointer : {"_env", "_file", "_path", "_var", "_name", "_url"})
        if (endsWith(k, pointer))
            return false;
    static const char *const kNames[] = {
        "api_key",       "apikey",        "api-key",     "token",      "access_token",
        "auth_token",    "refresh_token", "password",    "passwd",     "secret",
        "client_secret", "authorization", "private_key", "access_key", "secret_key"};
    for (const char *name : kNames) {
        // Compound names also as suffixes (openai_api_key); single words only whole, so that
        // append_token or max_tokens stay ordinary settings.
        const bool compound = std::string_view(name).find('_') != std::string_view::npos;
        if (k == name || (compound && endsWith(k, std::string("_") + name)))
            return true;
    }
    return false;
}

const std::regex &credentialPattern()
{
    // OpenAI / Anthropic style keys, bearer tokens, Hugging Face, GitHub, AWS, Slack tokens.
    static const std::regex pattern(
        R"((sk-[A-Za-z0-9_\-]{16,})|(Bearer\s+[A-Za-z0-9._~+/=\-]{8,})|(hf_[A-Za-z0-9]{20,})|)"
        R"((gh[pousr]_[A-Za-z0-9]{20,})|(AKIA[0-9A-Z]{16})|(xox[abpr]-[A-Za-z0-9\-]{10,}))");
    return pattern;
}

std::mutex g_mutex;
std::vector<std::string> &registered()
{
    static std::vector<std::string> values;
    return values;
}

std::optional<std::string> find(const nlohmann::json &j, const std::string &path, int depth)
{
    if (depth > 64)
        return std::nullopt;
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it) {
            const std::string at = path + "." + it.key();
            if (credentialKey(it.key()) && !it->is_null() &&
                !(it->is_string() && it->get<std::string>().empty()))
                return at + ": a key named like a credential ('" + it.key() + "')";
            if (auto found = find(*it, at, depth + 1))
                return found;
        }
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            if (auto found = find(j[i], path + "[" + std::to_string(i) + "]", depth + 1))
                return found;
    } else if (j.is_string()) {
        const std::string &s = j.get_ref<const std::string &>();
        if (s.size() <= 4096 && std::regex_search(s, credentialPattern()))
            return path + ": a value that looks like a credential";
    }
    return std::nullopt;
}

} // namespace

std::optional<std::string> findSecret(const nlohmann::json &document, const std::string &where)
{
    return find(document, where, 0);
}

void refuseSecrets(const nlohmann::json &document, const std::string &where)
{
    if (const auto found = findSecret(document, where))
        throw Error(ErrorCode::InvalidInput,
                    *found + "; secrets are never written into a ledger (its records are "
                             "immutable): put the secret in an environment variable and name "
                             "the variable (e.g. \"api_key_env\": \"OPENAI_API_KEY\")");
}

void registerSecret(std::string value)
{
    if (value.size() < 8)
        return;
    std::lock_guard lock(g_mutex);
    auto &values = registered();
    if (std::find(values.begin(), values.end(), value) == values.end())
        values.push_back(std::move(value));
}

std::string redactSecrets(std::string_view text)
{
    std::string out(text);
    {
        std::lock_guard lock(g_mutex);
        for (const auto &value : registered()) {
            for (auto at = out.find(value); at != std::string::npos; at = out.find(value, at))
                out.replace(at, value.size(), "[redacted]");
        }
    }
    // std::regex is slow: run it only when a credential's prefix occurs at all.
    bool marked = false;
    for (const char *prefix : {"sk-", "Bearer", "hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_",
                               "AKIA", "xoxa-", "xoxb-", "xoxp-", "xoxr-"})
        marked = marked || out.find(prefix) != std::string::npos;
    if (!marked || out.size() > (1u << 20))
        return out; // (regex on megabytes is slow; registered values were still removed)
    return std::regex_replace(out, credentialPattern(), "[redacted]");
}

} // namespace kosmos
