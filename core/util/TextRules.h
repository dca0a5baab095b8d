#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace kosmos {

// `text` as valid UTF-8: every byte that does not belong to a well-formed UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF included) is replaced by U+FFFD.
// For text that reaches the ledger from outside (error messages of plugins and parsers, which
// may quote the bytes of a bad file): canonical JSON refuses invalid UTF-8, and a message that
// cannot be written must never keep an attempt from ending.
std::string validUtf8(std::string_view text);

// The one filter for free text that enters a ledger (messages, names, notes, a judge's raw
// answer): credentials redacted (util/Secrets.h), then validUtf8. Idempotent.
std::string ledgerText(std::string_view text);

// `value` with validUtf8 applied to every string and object key in it (depth-bounded: deeper
// parts than 64 levels are left as they are and refused later by canonical JSON).
nlohmann::json withValidUtf8(const nlohmann::json &value);

} // namespace kosmos
