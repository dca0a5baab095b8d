#pragma once

#include "components/Components.h"

#include <nlohmann/json.hpp>

#include <map>
#include <mutex>
#include <string>

namespace kosmos::openai {

// Settings of the OpenAI-compatible judge (vLLM, SGLang, llama.cpp server, Ollama, OpenAI).
// The API key is never a setting: `api_key_env` names the environment variable that holds it,
// so the key never reaches the ledger (only the endpoint host, the model and the prompt hash do).
struct JudgeSettings
{
    std::string baseUrl;                 // e.g. http://127.0.0.1:8000 (the /v1/... path is added)
    std::string model;                   // e.g. Qwen/Qwen2.5-VL-7B-Instruct
    std::string apiKeyEnv;               // empty: no Authorization header
    double timeoutS = 120.0;             // per request
    int maxRetries = 2;                  // on connection errors, 429 and 5xx, with backoff
    double backoffS = 1.0;               // first backoff; doubles each retry
    bool useN = false;                   // ask for all samples in one request (`n`)
    bool jsonSchema = true;              // send response_format json_schema
    std::int64_t maxBodyBytes = 8 << 20; // a larger reply is refused

    static JudgeSettings fromJson(const nlohmann::json &settings); // throws Error(InvalidInput)
};

// Why the judge cannot run with these settings (endpoint unset, key variable unset, endpoint
// unreachable), or available.
Availability checkAvailability(const nlohmann::json &settings, bool probeEndpoint);

class OpenAiJudge : public Judge
{
public:
    explicit OpenAiJudge(JudgeSettings settings) : m_settings(std::move(settings)) {}
    JudgeAnswer sample(const JudgeRequest &request) override;

    // The request body for one call (exposed for tests and for `kosmos-cli` dry runs).
    nlohmann::json requestBody(const JudgeRequest &request, int n) const;

private:
    struct Reply
    {
        int status = 0;
        std::string body;
        std::string error; // transport error or refusal (too large, timeout)
        double elapsedMs = 0;
    };
    Reply post(const std::string &body) const;
    std::string chatUrl() const { return m_settings.baseUrl + "/v1/chat/completions"; }
    JudgeAnswer call(const JudgeRequest &request, int n, std::vector<JudgeAnswer> *others);

    JudgeSettings m_settings;
    std::mutex m_mutex;
    std::map<int, JudgeAnswer> m_batched; // useN: answers for later sample indices
};

} // namespace kosmos::openai
