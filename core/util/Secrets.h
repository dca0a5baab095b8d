#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace kosmos {

// Secrets never enter a ledger: protocols, component settings and judge configurations are
// frozen into immutable tables, so an API key written there could never be removed. Keys name
// an environment variable instead (e.g. "api_key_env").

// The first secret in a JSON document, as "<where>.<path>: <why>": an object key named like a
// credential (api_key, apikey, token, access_token, password, passwd, secret, client_secret,
// authorization, private_key, access_key; not the *_env / *_file / *_path names that point at
// one) holding a non-empty value, or a string that looks like a credential (sk-..., Bearer ...,
// hf_..., ghp_..., AKIA..., xox?-...). nullopt when there is none.
std::optional<std::string> findSecret(const nlohmann::json &document, const std::string &where);

// Throws Error(InvalidInput) with findSecret's finding and what to do instead.
void refuseSecrets(const nlohmann::json &document, const std::string &where);

// `text` with every registered secret value and every credential-shaped string replaced by
// "[redacted]": for anything stored or logged that came from a server (error bodies, answers).
std::string redactSecrets(std::string_view text);

// Registers a secret value this process holds (an API key read from the environment) so that
// redactSecrets removes it wherever it is echoed. Values shorter than 8 characters are ignored.
void registerSecret(std::string value);

} // namespace kosmos
