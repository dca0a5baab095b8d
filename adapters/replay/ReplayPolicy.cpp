#include "replay/ReplayPolicy.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <cmath>

namespace kosmos::replay {

ReplayPolicy::ReplayPolicy(const std::filesystem::path &file, const std::string &which)
    : m_file(file)
{
    if (which != "policy_actions" && which != "world_actions")
        throw Error(ErrorCode::InvalidInput, "replay.actions settings.which must be "
                                             "policy_actions or world_actions, not '" +
                                                 which + "'");
    json::Limits limits;
    limits.maxBytes = 64u << 20;
    limits.maxDepth = 16;
    const nlohmann::json doc = json::parseFile(file, limits);
    const std::string where = file.string();
    if (!doc.is_object() || !doc.contains(which) || !doc[which].is_array())
        throw Error(ErrorCode::InvalidInput,
                    where + " has no \"" + which + "\" array (a run's actions.json)");
    // Another width than Bridge's 7, named by "dimension_names": the recorded values are what
    // they are; the world's contract bounds them, not this one.
    if (doc.contains("dimension_names") && doc["dimension_names"].is_array() &&
        doc["dimension_names"].size() != 7) {
        if (doc["dimension_names"].empty() || doc["dimension_names"].size() > 256)
            throw Error(ErrorCode::InvalidInput,
                        where + ": dimension_names must name 1 to 256 values");
        m_contract = ActionContract{};
        for (const auto &name : doc["dimension_names"]) {
            if (!name.is_string())
                throw Error(ErrorCode::InvalidInput,
                            where + ": dimension_names holds a value that is not a text");
            m_contract.dimensions.push_back({name.get<std::string>(), "1", -1e9, 1e9});
        }
        if (doc.contains("control_rate_hz") && doc["control_rate_hz"].is_number() &&
            doc["control_rate_hz"].get<double>() > 0)
            m_contract.controlRateHz = doc["control_rate_hz"].get<double>();
    }
    const ActionContract &contract = m_contract;
    for (std::size_t i = 0; i < doc[which].size(); ++i) {
        const auto &row = doc[which][i];
        if (!row.is_array() || static_cast<int>(row.size()) != contract.dimension())
            throw Error(ErrorCode::InvalidInput,
                        where + ": " + which + "[" + std::to_string(i) + "] is not " +
                            std::to_string(contract.dimension()) +
                            (contract.dimension() == 7
                                 ? " numbers (a 7-D Bridge end-effector action)"
                                 : " numbers (its dimension_names)"));
        Action a;
        for (const auto &v : row) {
            if (!v.is_number() || !std::isfinite(v.get<double>()))
                throw Error(ErrorCode::InvalidInput, where + ": " + which + "[" +
                                                         std::to_string(i) +
                                                         "] holds a value that is not a number");
            a.push_back(v.get<double>());
        }
        m_actions.push_back(std::move(a));
    }
    if (m_actions.empty())
        throw Error(ErrorCode::InvalidInput, where + ": " + which + " is empty");
}

ActionChunk ReplayPolicy::act(const Observation &observation)
{
    if (observation.step < 0 || static_cast<std::size_t>(observation.step) >= m_actions.size())
        throw Error(ErrorCode::InvalidInput,
                    "replay.actions: " + m_file.string() + " holds " +
                        std::to_string(m_actions.size()) + " actions; step " +
                        std::to_string(observation.step) +
                        " asks for more (set the protocol's horizon to at most that)");
    return {m_actions[static_cast<std::size_t>(observation.step)]};
}

} // namespace kosmos::replay
