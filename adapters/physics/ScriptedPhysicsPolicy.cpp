#include "physics/ScriptedPhysicsPolicy.h"

#include "util/Error.h"

#include <algorithm>
#include <cmath>

namespace kosmos::physics {
namespace {

std::array<double, 3> vec3(const nlohmann::json &j, const char *what)
{
    if (!j.is_array() || j.size() < 3)
        throw Error(ErrorCode::InvalidInput,
                    std::string("physics scripted policy: the world state lacks ") + what);
    return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>()};
}

} // namespace

PhysicsSkill physicsSkillByName(const std::string &name)
{
    if (name == "expert")
        return PhysicsSkill::Expert;
    if (name == "noisy")
        return PhysicsSkill::Noisy;
    if (name == "confuser")
        return PhysicsSkill::Confuser;
    throw Error(ErrorCode::InvalidInput, "physics.scripted_policy settings.skill must be expert, "
                                         "noisy or confuser, not '" +
                                             name + "'");
}

void ScriptedPhysicsPolicy::reset(std::uint64_t seed, const std::string &instruction)
{
    m_task = parseTask(instruction);
    m_rng.seed(seed);
    m_phase = 0;
    m_wait = 0;
    m_retries = 0;
    m_block = m_task.block;
    m_noise = 0;
    m_graspOffset = {0, 0};
    if (m_skill == PhysicsSkill::Noisy) {
        m_noise = 0.0065;
        std::normal_distribution<double> sloppy(0.0, 0.01);
        m_graspOffset = {sloppy(m_rng), sloppy(m_rng)};
    } else if (m_skill == PhysicsSkill::Confuser) {
        std::uniform_real_distribution<double> coin(0.0, 1.0);
        if (coin(m_rng) < 0.5) {
            std::vector<std::string> others;
            for (auto name : kBlockNames) {
                if (name != m_task.block)
                    others.emplace_back(name);
            }
            const auto pick =
                static_cast<std::size_t>(coin(m_rng) * static_cast<double>(others.size()));
            m_block = others[pick % others.size()];
        }
    }
}

Action ScriptedPhysicsPolicy::moveTo(const std::array<double, 3> &hand,
                                     const std::array<double, 3> &target, double gripper,
                                     bool &arrived, double tolerance, double cap)
{
    Action a(7, 0.0);
    arrived = true;
    for (std::size_t i = 0; i < 3; ++i) {
        const double d = target[i] - hand[i];
        arrived = arrived && std::abs(d) <= tolerance;
        a[i] = std::clamp(d, -cap, cap);
    }
    a[6] = gripper;
    return a;
}

ActionChunk ScriptedPhysicsPolicy::act(const Observation &observation)
{
    const nlohmann::json &s = observation.state;
    if (!s.is_object() || !s.contains("blocks") || !s.contains("regions"))
        throw Error(ErrorCode::InvalidInput,
                    "physics.scripted_policy reads the simulator's state and runs only in the "
                    "physics.tabletop world (this world gives no state)");
    const auto hand = vec3(s.value("hand", nlohmann::json()), "the hand position");
    const auto block =
        vec3(s["blocks"].value(m_block, nlohmann::json()).value("pos", nlohmann::json()),
             "the block position");
    const auto &centerJson =
        s["regions"].value(m_task.region, nlohmann::json()).value("center", nlohmann::json());
    if (!centerJson.is_array() || centerJson.size() != 2)
        throw Error(ErrorCode::InvalidInput,
                    "physics scripted policy: the world state lacks the square");
    const std::array<double, 2> c = {centerJson[0].get<double>(), centerJson[1].get<double>()};
    bool arrived = false;
    Action a;
    if (m_task.kind == TaskKind::PickPlace) {
        const std::array<double, 3> above = {block[0] + m_graspOffset[0],
                                             block[1] + m_graspOffset[1], 0.10};
        switch (m_phase) {
        case 0: // over the block, open
            a = moveTo(hand, above, 1.0, arrived);
            break;
        case 1: // down around it
            a = moveTo(hand, {above[0], above[1], 0.006}, 1.0, arrived, 0.003);
            break;
        case 2: // close
            a = moveTo(hand, hand, 0.0, arrived);
            arrived = ++m_wait >= 3;
            break;
        case 3: // lift
            a = moveTo(hand, {hand[0], hand[1], 0.12}, 0.0, arrived);
            break;
        case 4: // carry over the square
            a = moveTo(hand, {c[0], c[1], 0.12}, 0.0, arrived);
            break;
        case 5: // lower
            a = moveTo(hand, {c[0], c[1], 0.016}, 0.0, arrived, 0.003);
            m_wait = 0;
            break;
        case 6: // release
            a = moveTo(hand, hand, 1.0, arrived);
            arrived = ++m_wait >= 2;
            break;
        case 7: // away
            a = moveTo(hand, {hand[0], hand[1], 0.12}, 1.0, arrived);
            break;
        default: // done: hold still, open
            a = moveTo(hand, hand, 1.0, arrived);
            arrived = false;
        }
    } else {
        // Push: from behind the block, along the line from it to the square's centre.
        double ux = block[0] - c[0], uy = block[1] - c[1];
        const double n = std::max(1e-9, std::hypot(ux, uy));
        ux /= n;
        uy /= n;
        const std::array<double, 3> behind = {block[0] + 0.065 * ux + m_graspOffset[0],
                                              block[1] + 0.065 * uy + m_graspOffset[1], 0.10};
        switch (m_phase) {
        case 0: // above the point behind it, fingers closed
            a = moveTo(hand, behind, 0.0, arrived);
            break;
        case 1: // down to the table
            a = moveTo(hand, {behind[0], behind[1], 0.008}, 0.0, arrived, 0.003);
            break;
        case 2: { // push until the block is at the centre
            const double hx = hand[0] - block[0], hy = hand[1] - block[1];
            const double along = hx * ux + hy * uy;
            const double aside = std::abs(-hx * uy + hy * ux);
            if (along < 0.015 || aside > 0.02 || std::hypot(hx, hy) > 0.08) {
                m_phase = 4; // it slipped aside: up, and again from behind
                a = moveTo(hand, {hand[0], hand[1], 0.10}, 0.0, arrived);
                arrived = false;
                break;
            }
            a = moveTo(hand, {c[0] + 0.03 * ux, c[1] + 0.03 * uy, 0.008}, 0.0, arrived, 0.002,
                       0.015);
            arrived = n < 0.008;
            break;
        }
        case 3: // pushed: away upwards
            a = moveTo(hand, {hand[0], hand[1], 0.10}, 0.0, arrived);
            if (arrived)
                m_phase = 4; // becomes 5: done
            break;
        case 4: // up after a slip, then start again
            a = moveTo(hand, {hand[0], hand[1], 0.10}, 0.0, arrived);
            if (arrived) {
                m_phase = -1; // becomes 0
                ++m_retries;
                if (m_retries > 6) // give up
                    m_phase = 4;
            }
            break;
        default: // done
            a = moveTo(hand, hand, 0.0, arrived);
            arrived = false;
        }
    }
    if (arrived) {
        ++m_phase;
        m_wait = 0;
    }
    if (m_noise > 0) {
        std::normal_distribution<double> noise(0.0, m_noise);
        for (std::size_t i = 0; i < 3; ++i)
            a[i] = std::clamp(a[i] + noise(m_rng), -0.05, 0.05);
    }
    return {a};
}

} // namespace kosmos::physics
