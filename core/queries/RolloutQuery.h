#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

struct RolloutFrame
{
    std::string name;
    std::string sha256;
};

// An image a policy made on the way (SuSIE's subgoal), stored as "step-<N>-<label>.png".
struct PolicyImage
{
    int step = 0;
    std::string label; // "subgoal"
    std::string sha256;
};

// What the workstation shows of one run: its latest attempt that holds frames, the frame
// artifacts in order, the actions as recorded, the contracts, the validation verdict.
// A value over the rollout that is not an action: a position from the world's own state (the
// physics world's world_states artifact: the hand or a block, x/y/z in metres), or a recorded
// state (an imported run's states artifact: a robot's observation.state, named per value), at
// the frame each value belongs to (0: after the reset, or the start frame).
struct ObjectTrack
{
    std::string name;              // "hand", "red block", "observation.state" ...
    std::string unit;              // "m"; empty when not known
    std::vector<std::string> axes; // "x", "y", "z"; a recorded state's value names
    std::vector<int> frames;
    std::vector<std::vector<double>> values; // per frame, one value per axis
    bool isPosition() const { return axes.size() == 3 && unit == "m"; }
};

struct RolloutView
{
    std::int64_t runId = 0;
    // The policy as "ADAPTER SETTINGS-JSON" (labelsOfIdentityTexts names it); "" when unknown.
    std::string policyIdentity;
    std::optional<std::int64_t> attemptId;
    std::string attemptState;
    std::vector<RolloutFrame> frames;
    std::vector<std::vector<double>> actions; // policy actions, one row per step
    std::vector<std::string> dimensionNames;  // "dx [m]" ...
    double controlRateHz = 5.0;
    // The policy's action contract as the run recorded it (contracts.json); null when none.
    nlohmann::json policyActionContract;
    std::optional<int> gripperIndex;
    std::optional<std::string> validationVerdict;
    nlohmann::json validation;                // the stored details (checks, measurements)
    std::vector<int> validationFailureFrames; // frames a failed check points at (black, jump ...)
    // Action steps at which a world-model call began (after the first at 0), from the engine's
    // "step" events: the chunk boundaries of the rollout. Empty for imported runs.
    std::vector<int> chunkBoundaries;
    // Videos kept as given: a real camera's reference recording, and the video the frames of an
    // imported run were decoded from. Artifact SHA-256s; the workstation plays them as is.
    std::optional<std::string> referenceVideoSha256;
    std::optional<std::string> sourceVideoSha256;
    std::vector<PolicyImage> policyImages; // by step
    std::vector<ObjectTrack> objectTracks; // empty for worlds without a state
    // The world's proprioception (what the policy was given) at every frame, from the
    // world_states artifact; empty unless every frame has one of the same width (worlds without
    // proprioception, runs recorded before it was kept, worlds that step in chunks).
    std::vector<std::vector<double>> proprio;
};

// Reads the rollout of a run (read-only). Missing pieces stay empty; never throws for a run
// without frames.
RolloutView loadRollout(Ledger &ledger, std::int64_t runId);

} // namespace kosmos
