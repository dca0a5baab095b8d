#pragma once

#include "judge/JudgeSchema.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kosmos {

// A component named by plugin id, with its settings.
struct ComponentSpec
{
    std::string plugin;
    nlohmann::json settings = nlohmann::json::object();
};

struct TaskSpec
{
    std::string id;
    std::string instruction;
    nlohmann::json startState = nlohmann::json::object();
};

// Does the policy see the world model's predicted frames (closed loop) or only the start frame
// (open loop)? Recorded with every run.
enum class FeedbackMode
{
    ClosedLoop,
    OpenLoop
};

// Limits on a protocol, checked before anything is frozen (docs/reliability.md).
constexpr std::uint64_t kMaxRunsPerProtocol = 100000; // policies x tasks x episodes
constexpr std::size_t kMaxInstructionBytes = 4096;    // a task's instruction (UTF-8 bytes)
constexpr std::size_t kMaxNameBytes = 256;            // names, task ids, plugin ids
constexpr std::size_t kMaxProtocolBytes = 4u << 20;   // the canonical document
constexpr int kMaxProtocolDepth = 32;                 // nesting of the document

// An evaluation protocol (docs/pipeline.md): frozen (canonical JSON, SHA-256) in the ledger
// before anything runs. Runs = policies x tasks x episodes.
struct Protocol
{
    std::string name;
    std::int64_t seed = 0;
    int horizon = 40;
    int episodesPerTask = 1;
    FeedbackMode feedback = FeedbackMode::ClosedLoop;
    std::vector<TaskSpec> tasks;
    std::vector<ComponentSpec> policies;
    ComponentSpec worldModel;
    std::optional<ComponentSpec> judge;
    QuorumSettings quorum;
    nlohmann::json document; // the protocol as given (what is frozen)

    // Throws Error(InvalidInput) naming the field, e.g. "protocol.tasks[1].instruction:
    // missing required field".
    static Protocol fromJson(const nlohmann::json &document);
    static Protocol fromFile(const std::string &path);
    // The same for a document's text; `path` names it in errors.
    static Protocol fromText(std::string_view text, const std::string &path);
};

std::string feedbackModeName(FeedbackMode mode);

// One run of a protocol: which policy, task and episode, and its derived seed.
struct RunPlan
{
    int policyIndex = 0;
    int taskIndex = 0;
    int episode = 0;
    std::int64_t episodeIndex = 0; // the ledger's episode index: task * episodesPerTask + episode
    std::uint64_t seed = 0;        // derived from (protocol seed, task id, episode)
};

std::vector<RunPlan> expandRuns(const Protocol &protocol);

// The seed a run's policy is reset with: its run seed, mixed so that policy and world draw apart.
// kosmos-cli fidelity prepare keys the recorded episodes of an open-loop replay by it.
constexpr std::uint64_t policySeedOf(std::uint64_t runSeed)
{
    return runSeed ^ 0x5bd1e995ULL;
}

} // namespace kosmos
