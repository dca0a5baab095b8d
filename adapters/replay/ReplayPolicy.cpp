#include "replay/ReplayPolicy.h"

#include "util/BoundedJson.h"
#include "util/Error.h"

#include <algorithm>
#include <cmath>

namespace kosmos::replay {

namespace {

// One recorded action of `width` finite numbers; `where` names it in the error.
Action actionOf(const nlohmann::json &row, int width, const std::string &where,
                const std::string &what)
{
    if (!row.is_array() || static_cast<int>(row.size()) != width)
        throw Error(ErrorCode::InvalidInput,
                    where + " is not " + std::to_string(width) + " numbers (" + what + ")");
    Action a;
    for (const auto &v : row) {
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            throw Error(ErrorCode::InvalidInput, where + " holds a value that is not a number");
        a.push_back(v.get<double>());
    }
    return a;
}

} // namespace

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
    const std::string what =
        contract.dimension() == 7 ? "a 7-D Bridge end-effector action" : "its dimension_names";
    for (std::size_t i = 0; i < doc[which].size(); ++i)
        m_actions.push_back(actionOf(doc[which][i], contract.dimension(),
                                     where + ": " + which + "[" + std::to_string(i) + "]", what));
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

namespace kosmos::replay {

SeededReplayPolicy::SeededReplayPolicy(const std::filesystem::path &file,
                                       const std::string &replays, const std::string &actionsFrom)
    : m_file(file)
{
    json::Limits limits;
    limits.maxBytes = 256u << 20;
    limits.maxDepth = 16;
    const nlohmann::json doc = json::parseFile(file, limits);
    const std::string where = file.string();
    if (!doc.is_object() || doc.value("format", "") != kReplayBySeedFormat)
        throw Error(ErrorCode::InvalidInput, where + " is not a " +
                                                 std::string(kReplayBySeedFormat) +
                                                 " file (kosmos-cli fidelity prepare writes them)");
    if (!doc.contains("replays") || !doc["replays"].is_string() || doc["replays"] != replays)
        throw Error(ErrorCode::InvalidInput,
                    where + " replays " +
                        (doc.contains("replays") ? doc["replays"].dump() : "nothing named") +
                        ", not what settings.replays names: " + replays);
    const nlohmann::json from = doc.value("actions_from", nlohmann::json("physics"));
    if (from != actionsFrom)
        throw Error(ErrorCode::InvalidInput, where + " holds actions from " + from.dump() +
                                                 ", not from what settings.actions_from says: \"" +
                                                 actionsFrom + "\"");
    if (!doc.contains("action_contract"))
        throw Error(ErrorCode::InvalidInput, where + " has no action_contract");
    m_contract = ActionContract::fromJson(doc["action_contract"], where + ": action_contract");
    if (!doc.contains("episodes") || !doc["episodes"].is_array() || doc["episodes"].empty())
        throw Error(ErrorCode::InvalidInput, where + " has no episodes");
    for (std::size_t i = 0; i < doc["episodes"].size(); ++i) {
        const auto &e = doc["episodes"][i];
        const std::string at = where + ": episodes[" + std::to_string(i) + "]";
        if (!e.is_object() || !e.contains("policy_seed") || !e["policy_seed"].is_string() ||
            !e.contains("instruction") || !e["instruction"].is_string() ||
            !e.contains("policy_actions") || !e["policy_actions"].is_array() ||
            e["policy_actions"].empty())
            throw Error(ErrorCode::InvalidInput,
                        at + " needs policy_seed (decimal text), instruction and policy_actions");
        std::uint64_t seed = 0;
        const std::string text = e["policy_seed"].get<std::string>();
        std::size_t used = 0;
        try {
            seed = std::stoull(text, &used, 10);
        } catch (const std::exception &) {
            used = 0;
        }
        if (used == 0 || used != text.size() || text.front() == '-')
            throw Error(ErrorCode::InvalidInput,
                        at + ".policy_seed is not a decimal seed: '" + text + "'");
        Episode episode;
        episode.lineage = e.value("lineage", "");
        episode.instruction = e["instruction"].get<std::string>();
        const auto &rows = e["policy_actions"];
        for (std::size_t k = 0; k < rows.size(); ++k)
            episode.actions.push_back(actionOf(rows[k], m_contract.dimension(),
                                               at + ".policy_actions[" + std::to_string(k) + "]",
                                               "the action contract's dimensions"));
        if (!m_episodes.emplace(seed, std::move(episode)).second)
            throw Error(ErrorCode::InvalidInput, at + ": seed " + text + " is recorded twice");
    }
}

void SeededReplayPolicy::reset(std::uint64_t seed, const std::string &instruction)
{
    m_current = nullptr;
    const auto it = m_episodes.find(seed);
    if (it == m_episodes.end())
        throw Error(ErrorCode::InvalidInput,
                    "replay.actions: " + m_file.string() + " has no episode recorded for seed " +
                        std::to_string(seed) +
                        " (it replays the starts of the protocol it was prepared from)");
    if (it->second.instruction != instruction)
        throw Error(ErrorCode::InvalidInput,
                    "replay.actions: " + m_file.string() + ": the episode of seed " +
                        std::to_string(seed) + " (" + it->second.lineage + ") was recorded for '" +
                        it->second.instruction + "', this run's instruction is '" + instruction +
                        "'");
    m_current = &it->second;
}

ActionChunk SeededReplayPolicy::act(const Observation &observation)
{
    if (!m_current)
        throw Error(ErrorCode::InvalidInput, "replay.actions: act() before reset()");
    const auto &actions = m_current->actions;
    const auto step = static_cast<std::size_t>(std::max(0, observation.step));
    if (observation.step < 0 || step >= actions.size())
        throw Error(ErrorCode::InvalidInput,
                    "replay.actions: " + m_file.string() + ": " + m_current->lineage + " holds " +
                        std::to_string(actions.size()) + " recorded actions; step " +
                        std::to_string(observation.step) +
                        " is past them (the horizon must be at most the physics protocol's)");
    // The recorded actions from this step on, a chunk of the contract's length: the same action
    // at each step as in physics, wherever the world model's chunks begin. The physics protocol's
    // horizon cut its last chunk; past the recording the chunk is filled with its last action,
    // which the engine cuts again at a horizon no longer than the recording's.
    const auto length = static_cast<std::size_t>(std::max(1, m_contract.chunkLength));
    ActionChunk chunk;
    for (std::size_t k = step; k < step + length; ++k)
        chunk.push_back(actions[std::min(k, actions.size() - 1)]);
    return chunk;
}

} // namespace kosmos::replay
