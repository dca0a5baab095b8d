// An MJCF task file of physics.mjcf (adapters/mjcf/MjcfTask.h; docs/physics-world.md, "Task
// files"): a user's file, read before any scene is loaded. Bad input must be a named error; what
// is accepted must hold together (every reference resolved, every action dimension used).
#include "FuzzSupport.h"
#include "mjcf/MjcfTask.h"

#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string input = kosmos::fuzz::text(data, size);
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        const kosmos::mjcf::MjcfTask t = kosmos::mjcf::MjcfTask::fromText(input, "task.json");
        const int dims = t.contract.dimension();
        if (dims < 1 || t.stages.empty() || t.successReward > t.maxReward() || t.substeps < 1)
            __builtin_trap();
        std::vector<bool> used(static_cast<std::size_t>(dims), false);
        for (const auto &a : t.actuators) {
            if (a.action < 0 || a.action >= dims)
                __builtin_trap();
            used[static_cast<std::size_t>(a.action)] = true;
        }
        for (const auto &m : t.mocaps) {
            if (m.pos < 0 || m.pos + 3 > dims || m.quat + 4 > dims)
                __builtin_trap();
            for (int k = 0; k < 3; ++k)
                used[static_cast<std::size_t>(m.pos + k)] = true;
            for (int k = 0; m.quat >= 0 && k < 4; ++k)
                used[static_cast<std::size_t>(m.quat + k)] = true;
        }
        for (bool u : used)
            if (!u)
                __builtin_trap();
        for (const auto &s : t.stages)
            if (s.when.kind == kosmos::mjcf::Predicate::Kind::Ref &&
                !t.predicates.count(s.when.ref))
                __builtin_trap();
    });
    return 0;
}
