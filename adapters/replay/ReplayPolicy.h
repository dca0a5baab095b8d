#pragma once

#include "components/Components.h"

#include <filesystem>

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

} // namespace kosmos::replay
