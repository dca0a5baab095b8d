#pragma once

// remote.lerobot: a LeRobot policy checkpoint folder (ACT, Diffusion Policy, ... as LeRobot's
// save_pretrained writes it) evaluated without an export step (docs/remote-policies.md,
// "LeRobot policies"). The adapter starts the bridge (python/kosmos_serve/lerobot_policy.py)
// itself with the interpreter where LeRobot is installed, on a free port, waits for its health
// check, and stops it when this process is done with it (the bridge also exits when this
// process is gone). One bridge serves one episode at a time: workers in threads each get their
// own, reused from run to run. Or, with settings.url, it speaks to a bridge started by hand
// (on a GPU machine, say).

#include "components/Components.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace kosmos::remote {

Availability leRobotAvailability(const nlohmann::json &settings);
// The checkpoint's files (SHA-256 each), its policy type and the LeRobot and torch versions of
// the interpreter, computed here without starting the bridge; with settings.url, the bridge's
// own metadata.
nlohmann::json leRobotIdentity(const nlohmann::json &settings);
std::unique_ptr<Policy> createLeRobotPolicy(const nlohmann::json &settings);

} // namespace kosmos::remote
