#include "queries/SameStart.h"

#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>

namespace kosmos {
namespace {

struct RunStart
{
    std::int64_t runId = 0;
    std::string instruction;
    std::int64_t worldModelId = 0;
    std::string worldModel;
    nlohmann::json seed;
    nlohmann::json start; // null: not known
    std::int64_t policyId = 0;
    std::string policy;
    std::string status;
};

// Every run of the given run's instruction with its start: the physics label's recorded start
// state, else the protocol task's own start_state when it names the blocks.
std::vector<RunStart> runsOfTheSameInstruction(Ledger &ledger, std::int64_t runId)
{
    sqlite::Statement s(LedgerSql::of(ledger),
                        R"sql(
        SELECT r.run_id, COALESCE(r.instruction, ''), COALESCE(r.world_model_id, 0),
               COALESCE(c.label, ''),
               json_extract(r.key_json, '$.seeds.episode'), p.protocol_sha256, r.task,
               (SELECT json_extract(h.notes, '$.start_state') FROM counted_labels h
                 WHERE h.run_id = r.run_id AND h.source = 'physics' AND json_valid(h.notes)
                 ORDER BY h.label_id DESC LIMIT 1),
               COALESCE(r.policy_id, 0),
               COALESCE(pc.label, ''),
               r.status
          FROM runs r
          JOIN protocols p ON p.protocol_id = r.protocol_id
          LEFT JOIN component_labels c ON c.component_id = r.world_model_id
          LEFT JOIN component_labels pc ON pc.component_id = r.policy_id
         WHERE COALESCE(r.instruction, '') =
               (SELECT COALESCE(instruction, '') FROM runs WHERE run_id = ?)
         ORDER BY r.run_id)sql");
    s.bind(1, runId);
    std::map<std::string, nlohmann::json> protocols;
    std::vector<RunStart> runs;
    while (s.step()) {
        RunStart r{s.int64(0), s.text(1),  s.int64(2), s.text(3), nullptr,
                   nullptr,    s.int64(8), s.text(9),  s.text(10)};
        if (const auto seed = s.optText(4))
            r.seed = *seed;
        if (const auto recorded = s.optText(7)) {
            r.start = nlohmann::json::parse(*recorded, nullptr, false);
        } else if (const auto task = s.optText(6)) {
            const std::string sha = s.text(5);
            if (!protocols.count(sha))
                protocols[sha] = ledger.protocol(sha).value_or(nlohmann::json());
            const auto &tasks = protocols[sha].value("tasks", nlohmann::json::array());
            for (const auto &t : tasks.is_array() ? tasks : nlohmann::json::array()) {
                if (t.is_object() && t.value("id", "") == *task && t.contains("start_state") &&
                    t["start_state"].is_object() && t["start_state"].contains("blocks"))
                    r.start = t["start_state"];
            }
        }
        if (r.start.is_discarded())
            r.start = nullptr;
        runs.push_back(std::move(r));
    }
    return runs;
}

// "start_state", "seed" or "" for a run against the run compared from.
std::string sameStart(const RunStart &self, const RunStart &r)
{
    if (!self.start.is_null() && r.start == self.start)
        return "start_state";
    if (!self.seed.is_null() && r.seed == self.seed)
        return "seed";
    return "";
}

} // namespace

std::vector<SameStartRun> runsFromTheSameStart(Ledger &ledger, std::int64_t runId)
{
    const std::vector<RunStart> runs = runsOfTheSameInstruction(ledger, runId);
    const RunStart *self = nullptr;
    for (const auto &r : runs) {
        if (r.runId == runId)
            self = &r;
    }
    std::vector<SameStartRun> out;
    if (!self)
        return out;
    for (const auto &r : runs) {
        if (r.runId == runId || r.status != "completed" || r.instruction != self->instruction ||
            r.worldModelId == self->worldModelId)
            continue;
        if (std::string matched = sameStart(*self, r); !matched.empty())
            out.push_back({r.runId, r.worldModel, std::move(matched)});
    }
    return out;
}

std::vector<CompareCandidate> compareCandidates(Ledger &ledger, std::int64_t runId,
                                                std::size_t limit)
{
    const std::vector<RunStart> runs = runsOfTheSameInstruction(ledger, runId);
    const auto self = std::find_if(runs.begin(), runs.end(),
                                   [runId](const RunStart &r) { return r.runId == runId; });
    std::vector<std::pair<int, CompareCandidate>> ranked;
    if (self == runs.end())
        return {};
    for (const auto &r : runs) {
        if (r.runId == runId)
            continue;
        CompareCandidate c{r.runId,
                           r.policy,
                           r.worldModel,
                           r.status,
                           sameStart(*self, r),
                           r.policyId != self->policyId,
                           r.worldModelId != self->worldModelId};
        const int group = c.matchedBy.empty() ? 3 : c.otherPolicy ? 0 : c.otherWorldModel ? 1 : 2;
        ranked.emplace_back(group, std::move(c));
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<CompareCandidate> out;
    for (auto &[group, c] : ranked) {
        if (out.size() >= limit)
            break;
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace kosmos
