#include "evaluation/OpenLoopTwin.h"

#include "queries/ComponentLabels.h"
#include "queries/RolloutQuery.h"
#include "util/Error.h"

namespace kosmos {

std::pair<std::string, nlohmann::json> adapterAndSettings(const std::string &label)
{
    LabelledComponent c = labelledComponentOf(label);
    if (c.config.is_null())
        c.config = nlohmann::json::object();
    else if (c.config.is_object())
        c.config.erase("resolved");
    return {c.adapterId, c.config};
}

namespace {

// The replay document of `label`'s runs among `runs`, each start named by `lineageOf(run)`.
template<typename LineageOf>
OpenLoopTwin replayDocument(Ledger &ledger, const std::string &label,
                            const std::vector<LatestRun> &runs,
                            const std::map<std::string, std::uint64_t> &policySeedOf, int horizon,
                            LineageOf lineageOf, const char *actionsFrom)
{
    const bool imagined = std::string(actionsFrom) == "imagined";
    nlohmann::json contract;
    nlohmann::json recorded = nlohmann::json::array();
    for (const LatestRun &run : runs) {
        if (run.policyLabel != label)
            continue;
        const std::string lineage = lineageOf(run);
        const auto seed = policySeedOf.find(lineage);
        if (seed == policySeedOf.end())
            continue; // no run to replay it in: a start without frames
        const RolloutView view = loadRollout(ledger, run.runId);
        // Every step's action, or the replay could not go as far as the horizon.
        if (static_cast<int>(view.actions.size()) < horizon || view.policyActionContract.is_null())
            continue;
        if (contract.is_null())
            contract = view.policyActionContract;
        else if (contract != view.policyActionContract)
            throw Error(ErrorCode::InvalidInput,
                        "runs of " + label + " recorded different action contracts (run " +
                            std::to_string(run.runId) + "): no one replay can stand for them");
        nlohmann::json actions = nlohmann::json::array();
        for (int k = 0; k < horizon; ++k)
            actions.push_back(view.actions[static_cast<std::size_t>(k)]);
        recorded.push_back({{"policy_seed", std::to_string(seed->second)},
                            {"lineage", lineage},
                            {"instruction", run.instruction.value_or("")},
                            {imagined ? "imagined_run" : "physics_run", run.runId},
                            {"policy_actions", std::move(actions)}});
    }
    if (recorded.empty())
        throw Error(ErrorCode::InvalidInput,
                    label +
                        (imagined ? ": its actions in the world model are replayed in physics"
                                  : ": its imagined twin replays its physics actions") +
                        ", and no run of it recorded all " + std::to_string(horizon) +
                        " actions and its contract");
    OpenLoopTwin twin;
    twin.episodes = static_cast<int>(recorded.size());
    twin.document = {{"format", "kosmos.replay_by_seed/1"},
                     {"replays", label},
                     {"action_contract", contract},
                     {"episodes", std::move(recorded)}};
    if (imagined) // an open-loop twin's document is as it always was (the same SHA-256)
        twin.document["actions_from"] = actionsFrom;
    return twin;
}

} // namespace

OpenLoopTwin openLoopTwin(Ledger &ledger, const std::string &label,
                          const std::vector<LatestRun> &runs,
                          const std::map<std::string, std::uint64_t> &policySeedOf, int horizon)
{
    return replayDocument(
        ledger, label, runs, policySeedOf, horizon,
        [](const LatestRun &run) { return run.task + "#" + std::to_string(run.episodeIndex); },
        "physics");
}

OpenLoopTwin imaginedActionsTwin(Ledger &ledger, const std::string &label,
                                 const std::vector<LatestRun> &imaginedRuns,
                                 const std::map<std::string, std::uint64_t> &policySeedOf,
                                 int horizon)
{
    // An imagined task is named by its physics start ("<task>#<episode>", one episode each).
    return replayDocument(
        ledger, label, imaginedRuns, policySeedOf, horizon,
        [](const LatestRun &run) { return run.task; }, "imagined");
}

} // namespace kosmos
