#pragma once

#include "components/Components.h"

#include <filesystem>
#include <map>

namespace kosmos::replay {

// Open-loop replay of recorded actions: step k gives the k-th recorded action, whatever the world
// shows. With a recorded start state (docs/physics-world.md) the same actions can be run through
// another world, or through the physics world again, and compared frame by frame. Reads a
// run's actions artifact (actions.json: "policy_actions" or "world_actions", as `kosmos-cli
// dataset export` and `kosmos-cli export` write it) of 7-D Bridge end-effector actions; with
// "dimension_names" of another width, actions of that width named so (a recorded PushT or ALOHA
// episode replayed in the simulator it came from, docs/remote-worlds.md).
class ReplayPolicy : public Policy
{
public:
    // Throws Error(InvalidInput) naming the file and what is wrong with it.
    ReplayPolicy(const std::filesystem::path &file, const std::string &which);
    ActionContract actionContract() const override { return m_contract; }
    void reset(std::uint64_t, const std::string &) override {}
    ActionChunk act(const Observation &observation) override;
    std::size_t size() const { return m_actions.size(); }

private:
    std::filesystem::path m_file;
    ActionChunk m_actions;
    ActionContract m_contract = ActionContract::bridgeEndEffector();
};

// The format of an open-loop replay keyed by seed.
inline constexpr const char *kReplayBySeedFormat = "kosmos.replay_by_seed/1";

// The imagined twin of a policy that reads the simulator's state (a scripted expert), written by
// kosmos-cli fidelity prepare: a world model has no state to give it, so each imagined run replays
// the actions that policy took in physics from the same start, whatever the world model shows.
// The file ("kosmos.replay_by_seed/1") holds the replayed policy's label, its action contract as
// its runs recorded it, and per start the seed the imagined run's policy is reset with
// (policySeedOf), the instruction and the recorded actions:
//   {"format": "kosmos.replay_by_seed/1", "replays": "physics.scripted_policy {...}",
//    "action_contract": {...},
//    "episodes": [{"policy_seed": "<decimal>", "lineage": "task#3", "instruction": "...",
//                  "physics_run": 12, "policy_actions": [[...], ...]}, ...]}
// The other way (kosmos-cli fidelity prepare --in-physics): "actions_from": "imagined", each
// episode the actions a policy took in the world model ("imagined_run"), replayed in physics from
// the same start; settings.actions_from must say so too (absent: "physics").
// reset() picks the episode by seed; act() gives its recorded chunk at that step. A seed with no
// episode, another instruction or a step past the recording throws, naming the file.
class SeededReplayPolicy : public Policy
{
public:
    // Throws Error(InvalidInput) naming the file and what is wrong with it; `replays` must be the
    // file's (the ledger names the component by its settings, so they say what it replays).
    SeededReplayPolicy(const std::filesystem::path &file, const std::string &replays,
                       const std::string &actionsFrom = "physics");
    ActionContract actionContract() const override { return m_contract; }
    void reset(std::uint64_t seed, const std::string &instruction) override;
    ActionChunk act(const Observation &observation) override;
    std::size_t episodes() const { return m_episodes.size(); }

private:
    struct Episode
    {
        std::string lineage;
        std::string instruction;
        ActionChunk actions;
    };
    std::filesystem::path m_file;
    ActionContract m_contract;
    std::map<std::uint64_t, Episode> m_episodes;
    const Episode *m_current = nullptr;
};

} // namespace kosmos::replay
