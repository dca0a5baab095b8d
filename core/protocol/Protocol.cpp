#include "protocol/Protocol.h"

#include "util/BoundedJson.h"
#include "util/CanonicalJson.h"
#include "util/Error.h"
#include "util/JsonFields.h"
#include "util/Secrets.h"

#include <fstream>
#include <set>
#include <sstream>

namespace kosmos {

std::string feedbackModeName(FeedbackMode mode)
{
    return mode == FeedbackMode::ClosedLoop ? "closed_loop" : "open_loop";
}

namespace {

// A string field within its cap, counted in bytes of UTF-8 (what it costs in every row that
// repeats it).
std::string cappedString(const nlohmann::json &object, const std::string &key,
                         const std::string &where, std::size_t maxBytes)
{
    std::string value = json::requireString(object, key, where);
    if (value.empty())
        json::fail(where + "." + key, "must not be empty");
    if (value.size() > maxBytes)
        json::fail(where + "." + key, std::to_string(value.size()) + " bytes, more than the " +
                                          std::to_string(maxBytes) + " allowed");
    return value;
}

// Bounded recursion: a document built in memory is walked at most maxDepth levels deep.
void requireDepth(const nlohmann::json &j, const std::string &where, int depth)
{
    if (!j.is_structured())
        return;
    if (depth >= kMaxProtocolDepth)
        json::fail(where, "nested deeper than " + std::to_string(kMaxProtocolDepth) + " levels");
    for (const auto &child : j)
        requireDepth(child, where, depth + 1);
}

ComponentSpec component(const nlohmann::json &j, const std::string &where)
{
    ComponentSpec c;
    c.plugin = cappedString(j, "plugin", where, kMaxNameBytes);
    if (j.contains("settings")) {
        if (!j["settings"].is_object())
            json::fail(where + ".settings", "expected an object");
        c.settings = j["settings"];
    }
    return c;
}

} // namespace

Protocol Protocol::fromJson(const nlohmann::json &doc)
{
    const std::string where = "protocol";
    if (!doc.is_object())
        json::fail(where, "expected a JSON object");
    requireDepth(doc, where, 0);
    refuseSecrets(doc, where);
    Protocol p;
    p.document = doc;
    const auto version = json::requireInt(doc, "kosmos_protocol", where, 1, 1000);
    if (version != 1)
        json::fail(where + ".kosmos_protocol",
                   "version " + std::to_string(version) + " is not supported (this build reads 1)");
    p.name = cappedString(doc, "name", where, kMaxNameBytes);
    p.seed = json::requireInt(doc, "seed", where, 0, (std::int64_t{1} << 53) - 1);
    p.horizon = static_cast<int>(json::requireInt(doc, "horizon", where, 1, 100000));
    p.episodesPerTask =
        static_cast<int>(json::requireInt(doc, "episodes_per_task", where, 1, 1000000));
    const std::string feedback =
        json::optString(doc, "feedback_mode", where).value_or("closed_loop");
    if (feedback == "closed_loop")
        p.feedback = FeedbackMode::ClosedLoop;
    else if (feedback == "open_loop")
        p.feedback = FeedbackMode::OpenLoop;
    else
        json::fail(where + ".feedback_mode",
                   "must be closed_loop or open_loop, got '" + feedback + "'");

    const auto &tasks = json::requireArray(doc, "tasks", where);
    if (tasks.empty())
        json::fail(where + ".tasks", "needs at least one task");
    std::set<std::string> ids;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
        const std::string at = where + ".tasks[" + std::to_string(i) + "]";
        TaskSpec t;
        t.id = cappedString(tasks[i], "id", at, kMaxNameBytes);
        t.instruction = cappedString(tasks[i], "instruction", at, kMaxInstructionBytes);
        if (tasks[i].contains("start_state")) {
            if (!tasks[i]["start_state"].is_object())
                json::fail(at + ".start_state", "expected an object");
            t.startState = tasks[i]["start_state"];
        }
        if (!ids.insert(t.id).second)
            json::fail(at + ".id", "duplicate task id '" + t.id + "'");
        p.tasks.push_back(std::move(t));
    }
    const auto &policies = json::requireArray(doc, "policies", where);
    if (policies.empty())
        json::fail(where + ".policies", "needs at least one policy");
    for (std::size_t i = 0; i < policies.size(); ++i)
        p.policies.push_back(
            component(policies[i], where + ".policies[" + std::to_string(i) + "]"));
    p.worldModel =
        component(json::requireObject(doc, "world_model", where), where + ".world_model");
    if (doc.contains("judge") && !doc["judge"].is_null()) {
        const auto &judge = json::requireObject(doc, "judge", where);
        p.judge = component(judge, where + ".judge");
        if (judge.contains("quorum"))
            p.quorum = QuorumSettings::fromJson(
                json::requireObject(judge, "quorum", where + ".judge"), where + ".judge.quorum");
        else
            p.quorum = QuorumSettings::fromJson(nlohmann::json::object(), where + ".judge.quorum");
        if (p.horizon + 1 < 16)
            json::fail(where + ".horizon",
                       "the judge needs at least 16 frames: horizon must be 15 or more");
    }
    const auto runs = static_cast<std::uint64_t>(p.policies.size()) * p.tasks.size() *
                      static_cast<std::uint64_t>(p.episodesPerTask);
    if (runs > kMaxRunsPerProtocol)
        json::fail(where, std::to_string(p.policies.size()) + " policies x " +
                              std::to_string(p.tasks.size()) + " tasks x " +
                              std::to_string(p.episodesPerTask) +
                              " episodes = " + std::to_string(runs) + " runs, more than the " +
                              std::to_string(kMaxRunsPerProtocol) +
                              " one protocol may expand to (split it into several)");
    const std::string canonical = canonicalJson(doc); // refuses NaN, invalid UTF-8 ...
    if (canonical.size() > kMaxProtocolBytes)
        json::fail(where, std::to_string(canonical.size()) + " bytes, more than the " +
                              std::to_string(kMaxProtocolBytes) + " a protocol may have");
    return p;
}

Protocol Protocol::fromFile(const std::string &path)
{
    return fromText(json::readFileBounded(path, kMaxProtocolBytes), path);
}

Protocol Protocol::fromText(std::string_view text, const std::string &path)
{
    json::Limits limits;
    limits.maxDepth = kMaxProtocolDepth;
    limits.maxBytes = kMaxProtocolBytes;
    limits.rejectDuplicateKeys = true;
    const nlohmann::json doc = json::parseBounded(text, path, limits);
    try {
        return fromJson(doc);
    } catch (const Error &e) {
        throw Error(e.code(), path + ": " + e.what());
    }
}

std::vector<RunPlan> expandRuns(const Protocol &p)
{
    std::vector<RunPlan> runs;
    for (int policy = 0; policy < static_cast<int>(p.policies.size()); ++policy) {
        for (int task = 0; task < static_cast<int>(p.tasks.size()); ++task) {
            for (int episode = 0; episode < p.episodesPerTask; ++episode) {
                RunPlan r;
                r.policyIndex = policy;
                r.taskIndex = task;
                r.episode = episode;
                r.episodeIndex = static_cast<std::int64_t>(task) * p.episodesPerTask + episode;
                // The same start and seed for every policy: paired comparisons.
                const std::string digest =
                    canonicalHash({{"protocol_seed", p.seed},
                                   {"task", p.tasks[static_cast<std::size_t>(task)].id},
                                   {"episode", episode}});
                r.seed = std::stoull(digest.substr(0, 13), nullptr, 16); // 52 bits
                runs.push_back(r);
            }
        }
    }
    return runs;
}

} // namespace kosmos
