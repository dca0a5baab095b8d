#pragma once

// remote.world (docs/remote-worlds.md): a world that lives in a Python process behind the
// reference server (python/kosmos_world: a gymnasium environment, or a Python world model), on
// openpi's wire (OpenPiClient: metadata first, one binary msgpack-numpy request, one reply; a
// server error is its traceback, then close 1011; the server's pings are answered while a step
// runs). The metadata gives the action contract (names, bounds, rate, certified chunk lengths)
// and the frame size; a simulator's success becomes a physics label naming the environment and
// its versions. What the server says it runs is recorded as reported by the server, not verified.

#include "components/Components.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace kosmos::remote {

Availability remoteWorldAvailability(const nlohmann::json &settings);
std::unique_ptr<WorldModel> createRemoteWorld(const nlohmann::json &settings);
// The server's metadata, part of the component identity (and so of the run key).
nlohmann::json remoteWorldIdentity(const nlohmann::json &settings);

} // namespace kosmos::remote
