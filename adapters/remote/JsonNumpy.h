#pragma once

// json_numpy replies of OpenVLA's REST server (deploy.py), decoded without Qt so that a fuzzer
// can drive the parser directly (fuzz/fuzz_json_numpy.cpp).
#include "contracts/ActionContract.h"

#include <cstddef>
#include <string>

namespace kosmos::remote {

// The most bytes a reply may have (a chunk of actions is a few kilobytes).
constexpr std::size_t kMaxActReplyBytes = 16u << 20;

// A reply: one json_numpy array (dtype <f8/<f4, shape [D] or [N, D]), or a list of actions
// (OpenVLA-OFT: each a json_numpy array or a list of numbers). The JSON string "error" is the
// server's model failing: an Error naming it, never an action. Every other malformation (bad
// base64, a shape that does not match the bytes, a zero or negative size, nesting, size) is an
// Error(InvalidInput) naming it.
ActionChunk parseActReply(const std::string &body);

} // namespace kosmos::remote
