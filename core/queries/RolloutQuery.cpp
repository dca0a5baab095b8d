#include "queries/RolloutQuery.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"

#include <algorithm>
#include <limits>
#include <map>

namespace kosmos {

namespace {

// The hand, block and body positions a physics world reported per step (world_states artifact).
std::vector<ObjectTrack> objectTracksOf(const nlohmann::json &states)
{
    std::vector<ObjectTrack> out;
    if (!states.is_object() || !states.value("states", nlohmann::json()).is_array())
        return out;
    std::map<std::string, ObjectTrack> tracks;
    auto add = [&](const std::string &name, int frame, const nlohmann::json &p) {
        if (!p.is_array() || p.size() != 3 || !p[0].is_number() || !p[1].is_number() ||
            !p[2].is_number())
            return;
        ObjectTrack &t = tracks[name];
        t.name = name;
        t.unit = "m";
        t.axes = {"x", "y", "z"};
        t.frames.push_back(frame);
        t.values.push_back({p[0].get<double>(), p[1].get<double>(), p[2].get<double>()});
    };
    for (const auto &entry : states["states"]) {
        if (!entry.is_object() || !entry.value("step", nlohmann::json()).is_number_integer())
            continue;
        const int frame = entry["step"].get<int>();
        const auto &state = entry.value("state", nlohmann::json());
        if (!state.is_object())
            continue;
        add("hand", frame, state.value("hand", nlohmann::json()));
        if (state.value("blocks", nlohmann::json()).is_object()) {
            for (const auto &[name, block] : state["blocks"].items()) {
                if (block.is_object())
                    add(name + " block", frame, block.value("pos", nlohmann::json()));
            }
        }
        // physics.mjcf's tracked bodies (the cube, the peg, the socket), by their scene names.
        if (state.value("bodies", nlohmann::json()).is_object()) {
            for (const auto &[name, body] : state["bodies"].items()) {
                if (body.is_object())
                    add(name, frame, body.value("pos", nlohmann::json()));
            }
        }
    }
    for (auto &[name, track] : tracks)
        out.push_back(std::move(track));
    return out;
}

// The proprioception a world reported after each call, one row per frame when every one of the
// `frames` has a row of the same width; else none.
std::vector<std::vector<double>> proprioOf(const nlohmann::json &states, std::size_t frames)
{
    if (!states.is_object() || !states.value("states", nlohmann::json()).is_array() || !frames)
        return {};
    std::vector<std::vector<double>> rows(frames);
    for (const auto &entry : states["states"]) {
        if (!entry.is_object() || !entry.value("step", nlohmann::json()).is_number_integer())
            continue;
        const std::int64_t step = entry["step"].get<std::int64_t>();
        const auto &p = entry.value("proprio", nlohmann::json());
        if (step < 0 || step >= static_cast<std::int64_t>(frames) || !p.is_array())
            continue;
        std::vector<double> row;
        for (const auto &v : p) {
            if (!v.is_number())
                return {}; // a value that was not finite (stored as null)
            row.push_back(v.get<double>());
        }
        rows[static_cast<std::size_t>(step)] = std::move(row);
    }
    for (const auto &row : rows)
        if (row.empty() || row.size() != rows.front().size())
            return {};
    return rows;
}

// Recorded states (an imported run's states artifact, kosmos.states/1): one track per recorded
// feature, a row per frame; a malformed document shows nothing (verify reports the artifact).
std::vector<ObjectTrack> recordedStatesOf(const nlohmann::json &doc)
{
    std::vector<ObjectTrack> out;
    if (!doc.is_object() || doc.value("schema", "") != "kosmos.states/1" ||
        !doc.value("tracks", nlohmann::json()).is_array())
        return out;
    for (const auto &t : doc["tracks"]) {
        if (!t.is_object() || !t.value("name", nlohmann::json()).is_string() ||
            !t.value("names", nlohmann::json()).is_array() ||
            !t.value("values", nlohmann::json()).is_array())
            continue;
        ObjectTrack track;
        track.name = t["name"].get<std::string>();
        for (const auto &n : t["names"])
            track.axes.push_back(n.is_string() ? n.get<std::string>() : std::string());
        bool ok = true;
        for (std::size_t f = 0; f < t["values"].size() && ok; ++f) {
            const auto &row = t["values"][f];
            ok = row.is_array() && row.size() == track.axes.size();
            std::vector<double> values;
            for (std::size_t j = 0; ok && j < row.size(); ++j) {
                ok = row[j].is_number();
                if (ok)
                    values.push_back(row[j].get<double>());
            }
            track.frames.push_back(static_cast<int>(f));
            track.values.push_back(std::move(values));
        }
        if (ok && !track.axes.empty())
            out.push_back(std::move(track));
    }
    return out;
}

// "step-<N>-<label>.png" -> {N, label, sha}; nullopt for any other name.
std::optional<PolicyImage> policyImageOf(const std::string &name, const std::string &sha)
{
    const auto dash = name.find('-', 5);
    if (name.rfind("step-", 0) != 0 || dash == std::string::npos)
        return std::nullopt;
    try {
        const int step = std::stoi(name.substr(5, dash - 5));
        std::string label = name.substr(dash + 1);
        if (label.size() > 4 && label.ends_with(".png"))
            label.resize(label.size() - 4);
        return PolicyImage{step, label, sha};
    } catch (const std::exception &) {
        return std::nullopt;
    }
}

} // namespace

namespace {

// The actions (policy space), their dimension names (from the actions file, else the action
// contract, else a0, a1 ...), the control rate and the gripper's index.
void readActions(RolloutView &view, const nlohmann::json &actions, const nlohmann::json &contracts)
{
    if (contracts.is_object() && contracts.contains("policy_action_contract"))
        view.policyActionContract = contracts["policy_action_contract"];
    if (actions.is_object()) {
        // A value that is not a number is shown as NaN: imports before non-finite actions were
        // refused stored NaN and infinity as null (kosmos-cli verify reports such runs).
        for (const auto &row : actions.value("policy_actions", nlohmann::json::array())) {
            std::vector<double> action;
            for (const auto &v : row)
                action.push_back(v.is_number() ? v.get<double>()
                                               : std::numeric_limits<double>::quiet_NaN());
            view.actions.push_back(std::move(action));
        }
        for (const auto &name : actions.value("dimension_names", nlohmann::json::array()))
            view.dimensionNames.push_back(name.is_string() ? name.get<std::string>() : name.dump());
        view.controlRateHz = actions.value("control_rate_hz", 5.0);
    }
    if (contracts.is_object()) {
        const auto &ac = contracts.contains("policy_action_contract")
                             ? contracts["policy_action_contract"]
                             : contracts.value("action_contract", nlohmann::json());
        if (ac.is_object() && ac.contains("gripper_index") &&
            ac["gripper_index"].is_number_integer())
            view.gripperIndex = ac["gripper_index"].get<int>();
        if (view.dimensionNames.empty() && ac.is_object() && ac.contains("dimensions"))
            for (const auto &d : ac["dimensions"])
                view.dimensionNames.push_back(d.value("name", "?") + " [" + d.value("unit", "?") +
                                              "]");
    }
    if (!view.actions.empty() && view.dimensionNames.size() != view.actions[0].size()) {
        view.dimensionNames.clear();
        for (std::size_t i = 0; i < view.actions[0].size(); ++i)
            view.dimensionNames.push_back("a" + std::to_string(i));
    }
}

// Each "step" event closes one world-model call; its "step" is the action count so far.
void readChunkBoundaries(sqlite::Database &db, RolloutView &view)
{
    sqlite::Statement steps(db, "SELECT payload_json FROM events WHERE attempt_id = ? AND type = "
                                "'step' ORDER BY seq");
    steps.bind(1, *view.attemptId);
    while (steps.step()) {
        const auto payload = nlohmann::json::parse(steps.text(0), nullptr, false);
        if (payload.is_object() && payload.contains("step") && payload["step"].is_number_integer())
            view.chunkBoundaries.push_back(payload["step"].get<int>());
    }
    if (!view.chunkBoundaries.empty() &&
        view.chunkBoundaries.back() >= static_cast<int>(view.actions.size()))
        view.chunkBoundaries.pop_back(); // the rollout's end is not a boundary
}

// The latest validation's verdict, details and the frames its checks named.
void readValidation(sqlite::Database &db, RolloutView &view)
{
    sqlite::Statement validation(
        db, "SELECT verdict, details_json FROM validation_results WHERE attempt_id = ? "
            "ORDER BY validation_id DESC LIMIT 1");
    validation.bind(1, *view.attemptId);
    if (validation.step()) {
        view.validationVerdict = validation.text(0);
        if (auto details = validation.optText(1))
            view.validation = nlohmann::json::parse(*details);
        for (const auto &check : view.validation.value("checks", nlohmann::json::array())) {
            const auto &measured = check.value("measured", nlohmann::json::object());
            for (const char *key : {"black_frames", "constant_frames", "jump_frames"}) {
                if (measured.contains(key) && measured[key].is_array())
                    for (const auto &f : measured[key])
                        view.validationFailureFrames.push_back(f.get<int>());
            }
        }
    }
}

} // namespace

RolloutView loadRollout(Ledger &ledger, std::int64_t runId)
{
    RolloutView view;
    view.runId = runId;
    auto &db = LedgerSql::of(ledger);
    {
        sqlite::Statement policy(db, R"sql(
            SELECT c.label FROM runs r JOIN component_labels c ON c.component_id = r.policy_id
             WHERE r.run_id = ?)sql");
        policy.bind(1, runId);
        if (policy.step())
            view.policyIdentity = policy.text(0);
    }
    sqlite::Statement attempt(db, R"sql(
        SELECT a.attempt_id, a.state FROM attempts a
         WHERE a.run_id = ? AND EXISTS (SELECT 1 FROM attempt_artifacts aa
                                         WHERE aa.attempt_id = a.attempt_id AND aa.role = 'frame')
         ORDER BY a.attempt_no DESC LIMIT 1)sql");
    attempt.bind(1, runId);
    if (!attempt.step())
        return view;
    view.attemptId = attempt.int64(0);
    view.attemptState = attempt.text(1);
    sqlite::Statement artifacts(
        db, "SELECT aa.role, aa.name, x.sha256 FROM attempt_artifacts aa "
            "JOIN artifacts x USING (artifact_id) WHERE aa.attempt_id = ? ORDER BY aa.name");
    artifacts.bind(1, *view.attemptId);
    std::optional<std::string> actionsSha;
    std::optional<std::string> contractsSha;
    std::optional<std::string> statesSha;
    std::optional<std::string> recordedSha;
    while (artifacts.step()) {
        const std::string role = artifacts.text(0);
        if (role == "frame")
            view.frames.push_back({artifacts.text(1), artifacts.text(2)});
        else if (role == "actions")
            actionsSha = artifacts.text(2);
        else if (role == "contracts")
            contractsSha = artifacts.text(2);
        else if (role == "world_states")
            statesSha = artifacts.text(2);
        else if (role == "states")
            recordedSha = artifacts.text(2);
        else if (role == "reference_video")
            view.referenceVideoSha256 = artifacts.text(2);
        else if (role == "video")
            view.sourceVideoSha256 = artifacts.text(2);
        else if (role == "policy_image") {
            if (auto image = policyImageOf(artifacts.text(1), artifacts.text(2)))
                view.policyImages.push_back(*image);
        }
    }
    auto readJson = [&](const std::optional<std::string> &sha) -> nlohmann::json {
        if (!sha)
            return nullptr;
        try {
            const auto bytes = ledger.artifacts().read(*sha);
            return nlohmann::json::parse(bytes.begin(), bytes.end());
        } catch (const std::exception &) {
            return nullptr; // missing or corrupt: shown as absent, reported by verify
        }
    };
    std::sort(view.policyImages.begin(), view.policyImages.end(),
              [](const PolicyImage &a, const PolicyImage &b) { return a.step < b.step; });
    const nlohmann::json worldStates = readJson(statesSha);
    view.objectTracks = objectTracksOf(worldStates);
    view.proprio = proprioOf(worldStates, view.frames.size());
    for (ObjectTrack &t : recordedStatesOf(readJson(recordedSha)))
        view.objectTracks.push_back(std::move(t));
    readActions(view, readJson(actionsSha), readJson(contractsSha));
    readChunkBoundaries(db, view);
    readValidation(db, view);
    return view;
}

} // namespace kosmos
