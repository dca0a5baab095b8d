#pragma once

// Scripted policies for the physics tabletop. They read the simulator's state
// (Observation::state: privileged, as a scripted baseline does; never what a learned policy
// sees) and give 7-D Bridge end-effector actions. Three skills give the world a known spread of
// success rates:
//   expert    precise pick and place / push
//   noisy     action noise and a sloppy grasp point (seeded per episode)
//   confuser  half of its episodes (seeded) handle the wrong block

#include "components/Components.h"
#include "physics/TabletopTask.h"

#include <cstdint>
#include <random>
#include <string>

namespace kosmos::physics {

enum class PhysicsSkill
{
    Expert,
    Noisy,
    Confuser
};

PhysicsSkill physicsSkillByName(const std::string &name); // Error(InvalidInput) naming it

class ScriptedPhysicsPolicy : public Policy
{
public:
    explicit ScriptedPhysicsPolicy(PhysicsSkill skill) : m_skill(skill) {}
    ActionContract actionContract() const override { return ActionContract::bridgeEndEffector(); }
    void reset(std::uint64_t seed, const std::string &instruction) override;
    ActionChunk act(const Observation &observation) override;

private:
    Action moveTo(const std::array<double, 3> &hand, const std::array<double, 3> &target,
                  double gripper, bool &arrived, double tolerance = 0.004, double cap = 0.05);

    PhysicsSkill m_skill;
    TabletopTask m_task;
    std::string m_block; // the block it handles (the confuser's may be another)
    std::mt19937_64 m_rng;
    double m_noise = 0;
    std::array<double, 2> m_graspOffset{};
    int m_phase = 0;
    int m_wait = 0;
    int m_retries = 0;
};

} // namespace kosmos::physics
