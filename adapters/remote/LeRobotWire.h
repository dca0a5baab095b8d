#pragma once

// remote.lerobot's messages (docs/remote-policies.md, "LeRobot policies"), apart from the socket
// and the bridge process so that they are tested on recorded bytes and fuzzed: the metadata the
// bridge (python/kosmos_serve/lerobot_policy.py) sends first, read into the policy's input
// features and action contract; the workstation's observation mapped onto those features by
// their names; the reset and act requests; the reply's action. Every problem throws
// Error(InvalidInput) "remote.lerobot: ..." naming the field or the feature.

#include "NumpyMsgpack.h"
#include "components/Components.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos::remote {

struct LeRobotFeature
{
    std::string name; // "observation.image", "observation.images.top", "observation.state"
    std::string type; // VISUAL | STATE | ENV | ...
    std::vector<std::int64_t> shape;
};

struct LeRobotDescription
{
    std::string policyType; // act, diffusion, smolvla, pi0 ...
    std::vector<LeRobotFeature> inputs;
    int actionDim = 0;
    std::vector<std::string> actionNames;
    // The action range of the normalization statistics saved with the checkpoint (the training
    // data's min and max); empty when the checkpoint has none.
    std::vector<double> actionMin, actionMax;
    nlohmann::json metadata; // as the bridge sent it (small arrays as lists)
};

// Reads the bridge's metadata frame. Besides malformed fields, refuses a policy the workstation
// cannot feed: an input other than camera images (VISUAL, channels-first [3, H, W]) and one
// state vector (STATE), such as PushT's observation.environment_state (the simulator's
// privileged keypoints), and more than one camera (the worlds here render one).
LeRobotDescription describeLeRobotPolicy(const std::string &metadataBytes);

// The policy's action contract: the action names of the checkpoint, its statistics' range
// widened by `margin` times the range on each side (or `bounds` {"min": [...], "max": [...]} as
// given; a dimension whose range is one value keeps a width of 1e-9 of it), one action per call
// (LeRobot's select_action), `rateHz`. Throws when neither the statistics nor `bounds` give a
// range.
ActionContract leRobotContract(const LeRobotDescription &d, double margin,
                               const nlohmann::json &bounds, double rateHz);

// {"type": "reset", "seed": seed, "instruction": instruction}
std::string packLeRobotReset(std::uint64_t seed, const std::string &instruction);
// {"type": "act", "observation": {FEATURE: value, ...}, "instruction": instruction}: the camera
// feature gets the observation's frame (RGB uint8 [H, W, 3], resized to the feature's size with
// INTER_AREA when smaller, INTER_LINEAR when larger), the state feature the world's proprio as
// float32 (exactly as many values as the feature's shape, else an error naming both).
std::string packLeRobotAct(const LeRobotDescription &d, const Observation &observation);
// An act reply: its "actions" (float [1, D] or [D], D the policy's action width, finite) and the
// bridge's own time for the call (server_timing.infer_ms), where it says.
struct LeRobotReply
{
    Action action;
    std::optional<double> inferMs;
};
LeRobotReply parseLeRobotReply(const std::string &reply, const LeRobotDescription &d);
// Its action alone.
Action parseLeRobotActions(const std::string &reply, const LeRobotDescription &d);

} // namespace kosmos::remote
