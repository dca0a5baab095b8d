#include "media/DatasetExport.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "media/LeRobotWriter.h"
#include "queries/LatestRuns.h"
#include "queries/RolloutQuery.h"
#include "util/Error.h"
#include "util/FileWrite.h"

#include <algorithm>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

namespace kosmos {
namespace fs = std::filesystem;
namespace {

void writeBytes(const fs::path &path, const std::vector<std::uint8_t> &bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out)
        throw Error(ErrorCode::Io, "cannot write " + path.string());
}

void writeJson(const fs::path &path, const nlohmann::json &doc)
{
    const std::string text = doc.dump(1) + "\n";
    writeBytes(path, std::vector<std::uint8_t>(text.begin(), text.end()));
}

struct Candidate
{
    std::int64_t runId = 0;
    std::string runKey;
    std::string protocolSha256;
    std::string task;
    std::string instruction;
    std::string policy;
    std::string worldModel;
    nlohmann::json seeds;
};

// The completed rollout runs of the filter's protocol and policy, in run order.
std::vector<Candidate> candidatesOf(Ledger &ledger, const DatasetFilter &filter)
{
    sqlite::Statement runs(LedgerSql::of(ledger), R"sql(
        SELECT r.run_id, r.run_key, p.protocol_sha256, r.task, r.instruction,
               pc.label, wc.label,
               json_extract(r.key_json, '$.seeds')
          FROM runs r
          JOIN protocols p ON p.protocol_id = r.protocol_id
          LEFT JOIN component_labels pc ON pc.component_id = r.policy_id
          LEFT JOIN component_labels wc ON wc.component_id = r.world_model_id
         WHERE r.status = 'completed'
           AND json_extract(r.key_json, '$.seeds.rejudge_of') IS NULL
           AND p.protocol_sha256 LIKE ? || '%'
         ORDER BY r.run_id)sql");
    runs.bind(1, filter.protocol);
    std::vector<Candidate> chosen;
    while (runs.step()) {
        Candidate c{runs.int64(0),
                    runs.text(1),
                    runs.text(2),
                    runs.text(3),
                    runs.text(4),
                    runs.optText(5).value_or(kNoPolicyLabel),
                    runs.optText(6).value_or("(unknown)"),
                    nlohmann::json::parse(runs.optText(7).value_or("null"), nullptr, false)};
        if (!filter.policy.empty() && c.policy.find(filter.policy) == std::string::npos)
            continue;
        chosen.push_back(std::move(c));
    }
    return chosen;
}

// What an episode's success is and where it comes from: the simulator's or the synthetic world's
// own truth, then a recorded dataset's own success field (an imported LeRobot episode), before a
// person's (JSON null where the run has no such label).
struct EpisodeLabel
{
    nlohmann::json success = nullptr;
    nlohmann::json progress = nullptr;
    nlohmann::json source = nullptr;
    nlohmann::json startState = nullptr;
};

class LabelReader
{
public:
    explicit LabelReader(Ledger &ledger)
        : m_label(LedgerSql::of(ledger), R"sql(
        SELECT h.completion, h.progress, h.source, h.notes FROM counted_labels h
         WHERE h.run_id = ?
           AND h.source IN ('physics', 'synthetic_reference', 'imported_reference', 'human')
         ORDER BY CASE h.source WHEN 'physics' THEN 0 WHEN 'synthetic_reference' THEN 1
                                WHEN 'imported_reference' THEN 2 ELSE 3 END,
                  h.label_id DESC
         LIMIT 1)sql")
    {
    }

    EpisodeLabel of(std::int64_t runId)
    {
        m_label.reset();
        m_label.bind(1, runId);
        EpisodeLabel out;
        if (!m_label.step())
            return out;
        const auto completion = m_label.optText(0);
        if (completion == std::optional<std::string>("met"))
            out.success = true;
        else if (completion == std::optional<std::string>("not_met"))
            out.success = false;
        if (const auto p = m_label.optInt64(1))
            out.progress = *p;
        out.source = m_label.text(2);
        if (const auto notes = m_label.optText(3)) {
            const auto details = nlohmann::json::parse(*notes, nullptr, false);
            if (details.is_object() && details.contains("start_state"))
                out.startState = details["start_state"];
        }
        return out;
    }

private:
    sqlite::Statement m_label;
};

// Writes one episode's folder (frames, actions, states, episode.json) and returns its entry in
// dataset.json.
class EpisodeWriter
{
public:
    explicit EpisodeWriter(Ledger &ledger)
        : m_ledger(ledger), m_artifact(LedgerSql::of(ledger), R"sql(
        SELECT a.sha256 FROM attempt_artifacts aa JOIN artifacts a USING (artifact_id)
         WHERE aa.attempt_id = ? AND aa.role = ? ORDER BY aa.name LIMIT 1)sql")
    {
    }

    nlohmann::json write(const fs::path &dir, const Candidate &c, const RolloutView &rollout,
                         const EpisodeLabel &label)
    {
        std::error_code ec;
        fs::create_directories(dir / "frames", ec);
        if (ec)
            throw Error(ErrorCode::Io, "cannot create " + (dir / "frames").string());
        for (std::size_t i = 0; i < rollout.frames.size(); ++i) {
            char frame[32];
            std::snprintf(frame, sizeof frame, "%06zu.png", i);
            writeBytes(dir / "frames" / frame, m_ledger.artifacts().read(rollout.frames[i].sha256));
        }
        if (const auto actions = artifactOf(*rollout.attemptId, "actions"))
            writeBytes(dir / "actions.json", m_ledger.artifacts().read(*actions));
        // The world's states (kosmos.world_states/1), or a recording's imported states
        // (kosmos.states/1: one row a frame per track, observation.state and the like).
        auto states = artifactOf(*rollout.attemptId, "world_states");
        if (!states)
            states = artifactOf(*rollout.attemptId, "states");
        if (states)
            writeBytes(dir / "states.json", m_ledger.artifacts().read(*states));
        writeJson(dir / "episode.json", {{"schema", "kosmos.episode/1"},
                                         {"run_id", c.runId},
                                         {"run_key", c.runKey},
                                         {"protocol_sha256", c.protocolSha256},
                                         {"task", c.task},
                                         {"instruction", c.instruction},
                                         {"policy", c.policy},
                                         {"world_model", c.worldModel},
                                         {"seeds", c.seeds},
                                         {"start_state", label.startState},
                                         {"frames", rollout.frames.size()},
                                         {"actions", rollout.actions.size()},
                                         {"control_rate_hz", rollout.controlRateHz},
                                         {"action_dimensions", rollout.dimensionNames},
                                         {"has_states", states.has_value()},
                                         {"success", label.success},
                                         {"progress", label.progress},
                                         {"success_source", label.source}});
        return {{"dir", dir.filename().string()}, {"run_id", c.runId},
                {"instruction", c.instruction},   {"policy", c.policy},
                {"success", label.success},       {"success_source", label.source}};
    }

private:
    std::optional<std::string> artifactOf(std::int64_t attemptId, const char *role)
    {
        m_artifact.reset();
        m_artifact.bind(1, attemptId).bind(2, std::string(role));
        return m_artifact.step() ? std::optional<std::string>(m_artifact.text(0)) : std::nullopt;
    }

    Ledger &m_ledger;
    sqlite::Statement m_artifact;
};

// What both exports refuse before anything is read or written.
void checkRequest(const DatasetFilter &filter, const fs::path &directory)
{
    if (filter.outcome != "any" && filter.outcome != "met" && filter.outcome != "not_met")
        throw Error(ErrorCode::InvalidInput,
                    "--outcome must be met, not_met or any, not '" + filter.outcome + "'");
    std::error_code ec;
    if (fs::exists(directory, ec) && !fs::is_empty(directory, ec))
        throw Error(ErrorCode::InvalidInput,
                    directory.string() + " exists and is not empty: give a new folder");
}

} // namespace

DatasetExportResult exportDataset(Ledger &ledger, const DatasetFilter &filter,
                                  const fs::path &directory)
{
    checkRequest(filter, directory);
    std::error_code ec;

    const std::vector<Candidate> chosen = candidatesOf(ledger, filter);
    LabelReader labels(ledger);
    EpisodeWriter writer(ledger);
    fs::create_directories(
        directory.parent_path().empty() ? fs::path(".") : directory.parent_path(), ec);
    StagingFolder stagingFolder(directory.parent_path(), "dataset");
    const fs::path &staging = stagingFolder.path();

    DatasetExportResult result;
    nlohmann::json episodes = nlohmann::json::array();
    for (const Candidate &c : chosen) {
        const EpisodeLabel label = labels.of(c.runId);
        if (filter.outcome != "any" &&
            (label.success.is_null() || label.success.get<bool>() != (filter.outcome == "met")))
            continue;
        const RolloutView rollout = loadRollout(ledger, c.runId);
        if (rollout.frames.empty() || !rollout.attemptId)
            continue;
        char name[32];
        std::snprintf(name, sizeof name, "episode_%05d", result.episodes);
        episodes.push_back(writer.write(staging / name, c, rollout, label));
        result.frames += static_cast<int>(rollout.frames.size());
        result.withoutLabel += label.success.is_null();
        ++result.episodes;
    }
    if (result.episodes == 0)
        throw Error(ErrorCode::InvalidInput, "no completed run with frames matches (protocol '" +
                                                 filter.protocol + "', policy '" + filter.policy +
                                                 "', outcome " + filter.outcome + ")");
    writeJson(
        staging / "dataset.json",
        {{"schema", "kosmos.dataset/1"},
         {"ledger", ledger.bundle().string()},
         {"filter",
          {{"protocol", filter.protocol}, {"policy", filter.policy}, {"outcome", filter.outcome}}},
         {"episodes", episodes},
         {"note", "Rollouts of the worlds named per episode. Success comes from the label "
                  "source named per episode (physics: a simulator's state; "
                  "synthetic_reference: the procedural world's own truth; "
                  "imported_reference: a recorded dataset's own success field; human: a "
                  "person). A simulated or generated rollout is not evidence of real "
                  "robot-task success."}});
    stagingFolder.publish(directory); // an empty folder given as the target is replaced
    result.directory = directory;
    return result;
}

namespace {

// A run's world state per frame as one row of values, named "<track>.<axis>"; empty when a
// track does not give every frame a value.
std::pair<std::vector<std::string>, std::vector<std::vector<double>>>
statesOf(const RolloutView &rollout)
{
    std::vector<std::string> names;
    std::vector<std::vector<double>> rows(rollout.frames.size());
    for (const ObjectTrack &t : rollout.objectTracks) {
        if (t.frames.size() != rollout.frames.size())
            return {};
        for (std::size_t i = 0; i < t.frames.size(); ++i)
            if (t.frames[i] != static_cast<int>(i) || t.values[i].size() != t.axes.size())
                return {};
        for (const std::string &axis : t.axes)
            names.push_back(t.axes.size() == 1 && axis == t.name ? t.name : t.name + "." + axis);
        for (std::size_t i = 0; i < rows.size(); ++i)
            rows[i].insert(rows[i].end(), t.values[i].begin(), t.values[i].end());
    }
    return {names, rows};
}

} // namespace

LeRobotExportResult exportLeRobotDataset(Ledger &ledger, const DatasetFilter &filter,
                                         const fs::path &directory, bool lossless)
{
    checkRequest(filter, directory);
    std::error_code ec;
    const std::vector<Candidate> candidates = candidatesOf(ledger, filter);
    LabelReader labels(ledger);
    struct Chosen
    {
        const Candidate *candidate;
        EpisodeLabel label;
        RolloutView rollout;
    };
    std::vector<Chosen> chosen;
    for (const Candidate &c : candidates) {
        EpisodeLabel label = labels.of(c.runId);
        if (filter.outcome != "any" &&
            (label.success.is_null() || label.success.get<bool>() != (filter.outcome == "met")))
            continue;
        RolloutView rollout = loadRollout(ledger, c.runId);
        if (rollout.frames.empty() || !rollout.attemptId || rollout.actions.empty())
            continue;
        chosen.push_back({&c, std::move(label), std::move(rollout)});
    }
    if (chosen.empty())
        throw Error(ErrorCode::InvalidInput, "no completed run with frames and actions matches "
                                             "(protocol '" +
                                                 filter.protocol + "', policy '" + filter.policy +
                                                 "', outcome " + filter.outcome + ")");
    // One action and state layout for the whole dataset: the first run's.
    LeRobotWriterOptions options;
    options.fps = std::round(chosen.front().rollout.controlRateHz);
    options.lossless = lossless;
    options.actionNames = chosen.front().rollout.dimensionNames;
    if (options.actionNames.empty())
        for (std::size_t d = 0; d < chosen.front().rollout.actions.front().size(); ++d)
            options.actionNames.push_back(std::to_string(d));
    // observation.state: the world's proprioception, what the policy was given (a LeRobot
    // policy trained on it is fed the same by remote.lerobot); observation.environment_state:
    // the world's tracked state (object poses: a simulator's privileged truth). Each only where
    // every run has it with the same layout.
    std::vector<std::string> stateNames = statesOf(chosen.front().rollout).first;
    for (const Chosen &c : chosen)
        if (statesOf(c.rollout).first != stateNames)
            stateNames.clear(); // not every run has the same state: none is written
    options.environmentStateNames = stateNames;
    const std::size_t proprioWidth =
        chosen.front().rollout.proprio.empty() ? 0 : chosen.front().rollout.proprio[0].size();
    const bool proprioEverywhere =
        proprioWidth > 0 && std::all_of(chosen.begin(), chosen.end(), [&](const Chosen &c) {
            return !c.rollout.proprio.empty() && c.rollout.proprio[0].size() == proprioWidth;
        });
    for (std::size_t i = 0; proprioEverywhere && i < proprioWidth; ++i)
        options.stateNames.push_back("proprio_" + std::to_string(i));

    fs::create_directories(
        directory.parent_path().empty() ? fs::path(".") : directory.parent_path(), ec);
    StagingFolder staging(directory.parent_path(), "lerobot");
    LeRobotExportResult result;
    {
        LeRobotWriter writer(staging.path(), options);
        for (const Chosen &c : chosen) {
            const std::string run = "run " + std::to_string(c.candidate->runId);
            if (c.rollout.dimensionNames != chosen.front().rollout.dimensionNames ||
                c.rollout.actions.front().size() != options.actionNames.size())
                throw Error(ErrorCode::InvalidInput,
                            run + "'s actions are not named as run " +
                                std::to_string(chosen.front().candidate->runId) +
                                "'s: one LeRobot dataset has one action layout (narrow the "
                                "export with --protocol or --policy)");
            if (std::abs(c.rollout.controlRateHz - options.fps) > 1e-9)
                throw Error(ErrorCode::InvalidInput,
                            run + " runs at " + std::to_string(c.rollout.controlRateHz) +
                                " Hz, the dataset at " + std::to_string(options.fps) + " Hz");
            LeRobotOutEpisode e;
            e.task = c.candidate->instruction;
            for (const RolloutFrame &f : c.rollout.frames) {
                const auto bytes = ledger.artifacts().read(f.sha256); // hash-checked
                cv::Mat bgr = cv::imdecode(bytes, cv::IMREAD_COLOR);
                if (bgr.empty())
                    throw Error(ErrorCode::Corrupt, run + ": frame " + f.name + " is not an image");
                cv::Mat rgb;
                cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
                e.frames.push_back(std::move(rgb));
            }
            // Frame i+1 follows action i: the last frame has no action of its own.
            e.actions = c.rollout.actions;
            e.actions.resize(e.frames.size(), c.rollout.actions.back());
            if (!options.environmentStateNames.empty())
                e.environmentStates = statesOf(c.rollout).second;
            if (!options.stateNames.empty())
                e.states = c.rollout.proprio;
            if (c.label.success.is_boolean())
                e.success = c.label.success.get<bool>();
            else
                ++result.withoutLabel;
            e.extra["kosmos/run_key"] = c.candidate->runKey;
            e.extra["kosmos/success_source"] =
                c.label.source.is_string() ? c.label.source.get<std::string>() : std::string();
            writer.add(e);
        }
        result.videoCodec = writer.finish();
        result.episodes = writer.episodes();
        result.frames = writer.frames();
    }
    result.states = !options.environmentStateNames.empty();
    result.proprio = !options.stateNames.empty();
    staging.publish(directory);
    result.directory = directory;
    return result;
}

} // namespace kosmos
