#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kosmos {

// Canonical JSON, version 1 (documented in docs/ledger.md, "Canonical JSON"):
// - UTF-8; invalid UTF-8 is an error;
// - object keys sorted by their UTF-8 bytes, no insignificant whitespace;
// - non-ASCII characters written as UTF-8 (not \u escapes), control characters escaped;
// - integers in decimal; a float with an integral value and magnitude below 2^53 is
//   written as that integer (so 1.0 and 1 hash alike, and -0.0 becomes 0); other floats in
//   their shortest round-trip form (0.7, 1e-05);
// - NaN and infinities are an error.
// Throws Error(InvalidInput) naming the JSON pointer of the offending value.
std::string canonicalJson(const nlohmann::json &value);

// SHA-256 (64 lowercase hex characters) of canonicalJson(value).
std::string canonicalHash(const nlohmann::json &value);

} // namespace kosmos
