#pragma once
// The synthetic tabletop components the benchmarks run (header-only, bench/ only).

#include "pipeline/RolloutEngine.h"
#include "synthetic/FrameJudge.h"
#include "synthetic/ScriptedPolicy.h"
#include "synthetic/TabletopWorldModel.h"

#include <chrono>
#include <memory>
#include <string>
#include <thread>

namespace kosmos::bench {

// A scripted policy that answers after a fixed latency (what a model server or a GPU policy
// costs: pi0 20-40 ms a call).
class SlowPolicy : public synthetic::ScriptedPolicy
{
public:
    SlowPolicy(const synthetic::PolicySkill &skill, int latencyMs)
        : ScriptedPolicy(skill), m_latency(latencyMs)
    {
    }
    ActionChunk act(const Observation &obs) override
    {
        std::this_thread::sleep_for(m_latency);
        return ScriptedPolicy::act(obs);
    }

private:
    std::chrono::milliseconds m_latency;
};

// Every plugin id resolves to: the scripted policy of the skill in its settings ("skill", else
// `defaultSkill`), answering after `policyMs`; the tabletop world model (320x256); the frame
// judge.
class SyntheticFactory : public ComponentFactory
{
public:
    explicit SyntheticFactory(std::string defaultSkill = "expert", int policyMs = 0)
        : m_defaultSkill(std::move(defaultSkill)), m_policyMs(policyMs)
    {
    }
    std::string version(const std::string &) override { return "1.0.0"; }
    std::unique_ptr<Policy> createPolicy(const ComponentSpec &spec) override
    {
        const auto skill =
            synthetic::PolicySkill::byName(spec.settings.value("skill", m_defaultSkill));
        if (m_policyMs > 0)
            return std::make_unique<SlowPolicy>(skill, m_policyMs);
        return std::make_unique<synthetic::ScriptedPolicy>(skill);
    }
    std::unique_ptr<WorldModel> createWorldModel(const ComponentSpec &) override
    {
        return std::make_unique<synthetic::TabletopWorldModel>();
    }
    std::unique_ptr<Judge> createJudge(const ComponentSpec &) override
    {
        return std::make_unique<synthetic::FrameJudge>(0.1);
    }

private:
    std::string m_defaultSkill;
    int m_policyMs = 0;
};

} // namespace kosmos::bench
