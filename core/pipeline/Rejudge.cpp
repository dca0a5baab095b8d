#include "pipeline/Rejudge.h"

#include "judge/JudgeRunner.h"
#include "ledger/AttemptScope.h"
#include "queries/LedgerFacts.h"
#include "util/Error.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <chrono>
#include <thread>

namespace kosmos {

namespace {

// Re-judging holds a lease like any attempt: renewed in the background, so a slow judge never
// loses it, and a dead judging process is taken over at once (see Ledger::claim).
constexpr std::int64_t kJudgeLeaseMs = std::int64_t{60} * 1000;

class Stop
{
};

} // namespace

namespace {

// A source run's latest completed attempt (the rollout to judge again).
// The re-judging run of a source run: its policy and world model, the new judge, the source's
// seeds with rejudge_of. Leaves out.state "skipped" (with why) when there is nothing to judge.
std::optional<RunSpec> rejudgingRun(Ledger &ledger, const RunRecord &source,
                                    const ComponentIdentity &judgeIdentity, RejudgeOutcome &out)
{
    if (source.status != "completed" || !latestCompletedAttempt(ledger, source.runId)) {
        out.state = "skipped";
        out.detail = "run " + std::to_string(source.runId) + " is " + source.status +
                     "; only completed rollouts are judged";
        return std::nullopt;
    }
    const RunComponents components = runComponents(ledger, source.runId);
    const auto key = nlohmann::json::parse(source.keyJson);
    if (key.contains("seeds") && key["seeds"].contains("rejudge_of")) {
        out.state = "skipped";
        out.detail = "run " + std::to_string(source.runId) +
                     " is itself a re-judgment; judge its source run";
        return std::nullopt;
    }
    RunSpec spec;
    spec.protocolSha256 = source.protocolSha256;
    spec.episodeIndex = source.episodeIndex;
    spec.policy = componentIdentity(ledger, components.policyId);
    spec.worldModel = componentIdentity(ledger, components.worldModelId);
    spec.judge = judgeIdentity;
    spec.seeds = key.value("seeds", nlohmann::json::object());
    spec.seeds["rejudge_of"] = source.runKey;
    spec.task = source.task;
    spec.instruction = source.instruction;
    return spec;
}

// Claims the re-judging run. Held by another live process (a second `judge --all`): waits for it
// to end there, as the engine waits for held runs; a dead holder's lease is taken over by the
// claim. nullptr (with out.state said) when it was judged elsewhere or the call was stopped.
std::unique_ptr<AttemptScope> claimRejudging(Ledger &ledger, std::int64_t runId,
                                             const std::atomic<bool> &stop, RejudgeOutcome &out)
{
    for (;;) {
        auto scope =
            AttemptScope::claim(ledger, {"kosmos-judge", kJudgeLeaseMs, kJudgeLeaseMs / 6}, runId);
        if (scope)
            return scope;
        const bool finishedElsewhere = ledger.run(runId)->finishedAtMs.has_value();
        if (stop || finishedElsewhere) {
            out.state = finishedElsewhere ? "skipped" : "busy";
            out.detail =
                finishedElsewhere
                    ? "judged meanwhile by another process (run " + std::to_string(runId) + ")"
                    : "another live process is judging it (run " + std::to_string(runId) +
                          "); not judged by this call";
            return nullptr;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
}

// The source attempt's frames, attached to the re-judging attempt and decoded (hash-checked).
std::vector<cv::Mat> attachSourceFrames(Ledger &ledger, const Lease &lease,
                                        std::int64_t sourceAttempt)
{
    std::vector<Ledger::Attachment> frames;
    for (auto &[name, object] : attemptArtifacts(ledger, sourceAttempt, "frame"))
        frames.push_back({"frame", name, object});
    std::vector<cv::Mat> decoded;
    decoded.reserve(frames.size());
    for (const auto &frame : frames)
        decoded.push_back(ledger.artifacts().readRgb(frame.object.sha256));
    ledger.attachArtifacts(lease, frames);
    return decoded;
}

} // namespace

std::vector<RejudgeOutcome> rejudgeRuns(Ledger &ledger, ComponentFactory &factory,
                                        const ComponentSpec &judgeSpec,
                                        const QuorumSettings &quorum,
                                        const std::vector<std::int64_t> &runIds,
                                        const std::atomic<bool> &stop)
{
    const ComponentIdentity judgeIdentity =
        makeJudgeIdentity(factory.version(judgeSpec.plugin), judgeSpec, quorum);
    // Made once, before any run is submitted: a judge that cannot be made (a replay file that is
    // not JSON, a missing package) is refused here with nothing written, never N failed runs.
    const std::unique_ptr<Judge> judge = factory.createJudge(judgeSpec);
    std::vector<RejudgeOutcome> out;
    for (const std::int64_t sourceId : runIds) {
        if (stop)
            break;
        RejudgeOutcome o;
        o.sourceRunId = sourceId;
        const auto source = ledger.run(sourceId);
        if (!source)
            throw Error(ErrorCode::NotFound, "run " + std::to_string(sourceId) + " does not exist");
        const std::optional<RunSpec> spec = rejudgingRun(ledger, *source, judgeIdentity, o);
        if (!spec) {
            out.push_back(o);
            continue;
        }
        const std::int64_t sourceAttempt = *latestCompletedAttempt(ledger, sourceId);
        o.runId = ledger.submitRun(*spec).runId;
        if (ledger.run(o.runId)->finishedAtMs) {
            o.state = "skipped";
            o.detail =
                "already judged with this configuration (run " + std::to_string(o.runId) + ")";
            out.push_back(o);
            continue;
        }
        const std::unique_ptr<AttemptScope> scope = claimRejudging(ledger, o.runId, stop, o);
        if (!scope) {
            out.push_back(o);
            continue;
        }
        try {
            scope->bufferEvent("rejudge_of", {{"source_run_id", sourceId},
                                              {"source_attempt_id", sourceAttempt},
                                              {"source_run_key", source->runKey}});
            const std::vector<cv::Mat> decoded =
                attachSourceFrames(ledger, scope->lease(), sourceAttempt);
            std::vector<std::string> forbidden;
            for (const auto &component : {spec->policy, spec->worldModel}) {
                if (component)
                    forbidden.push_back(component->adapterId);
            }
            JudgmentRecord record =
                runJudge(*judge, decoded, source->task.value_or(""),
                         source->instruction.value_or(""), quorum, forbidden, [&] {
                             scope->throwIfLost();
                             if (stop || scope->cancelRequested())
                                 throw Stop{};
                         });
            record.judgeComponentId = ledger.registerComponent(judgeIdentity);
            ledger.recordJudgment(scope->lease(), record);
            o.state = attemptResultName(scope->complete());
            o.detail =
                record.outcome + (record.unknownReason ? " (" + *record.unknownReason + ")" : "");
        } catch (const Stop &) {
            o.state = attemptResultName(scope->cancel("stopped"));
        } catch (const Error &e) {
            if (e.code() == ErrorCode::LeaseLost)
                throw;
            o.state = attemptResultName(
                scope->fail(std::string(errorCodeName(e.code())),
                            "run " + std::to_string(o.runId) + ", stage judge: " + e.what()));
            o.detail = e.what();
        } catch (const std::exception &e) { // a failing judge fails the attempt, never strands it
            o.state = attemptResultName(scope->fail("exception", "run " + std::to_string(o.runId) +
                                                                     ", stage judge: " + e.what()));
            o.detail = e.what();
        }
        if (o.state == "lease_lost")
            throw Error(ErrorCode::LeaseLost,
                        "run " + std::to_string(o.runId) + ": the lease was lost while judging");
        out.push_back(o);
    }
    return out;
}

} // namespace kosmos
