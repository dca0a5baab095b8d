#include "TestSupport.h"

#include "queries/LedgerFacts.h"
#include "util/Error.h"

#include <opencv2/imgcodecs.hpp>

#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <random>
#include <spawn.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace kosmos::test {

TempDir::TempDir()
{
    std::string pattern = (std::filesystem::temp_directory_path() / "kosmos-test-XXXXXX").string();
    if (!::mkdtemp(pattern.data()))
        throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
}

TempDir::~TempDir()
{
    std::error_code ec;
    std::filesystem::permissions(m_path, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(m_path, ec);
}

std::vector<std::uint8_t> testImage(int width, int height, int seed, const std::string &ext)
{
    cv::Mat image(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x)
            image.at<cv::Vec3b>(y, x) = cv::Vec3b(static_cast<uchar>((x * 7 + seed) & 0xff),
                                                  static_cast<uchar>((y * 13 + seed * 3) & 0xff),
                                                  static_cast<uchar>((x * y + seed * 5) & 0xff));
    }
    std::vector<std::uint8_t> out;
    cv::imencode(ext, image, out);
    return out;
}

std::vector<std::uint8_t> randomBytes(std::size_t size, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> out(size);
    for (auto &b : out)
        b = static_cast<std::uint8_t>(rng());
    return out;
}

ComponentIdentity testPolicy(const std::string &variant)
{
    ComponentIdentity c;
    c.family = ComponentFamily::Policy;
    c.adapterId = "synthetic.policy";
    c.adapterVersion = "1.0.0";
    c.config = {{"variant", variant}, {"action_scale", 0.5}};
    return c;
}

ComponentIdentity testWorldModel()
{
    ComponentIdentity c;
    c.family = ComponentFamily::WorldModel;
    c.adapterId = "synthetic.world_model";
    c.adapterVersion = "1.0.0";
    c.config = {{"frames_per_chunk", 4}};
    return c;
}

ComponentIdentity testJudge()
{
    ComponentIdentity c;
    c.family = ComponentFamily::Judge;
    c.adapterId = "synthetic.judge";
    c.adapterVersion = "1.0.0";
    c.config = {{"samples", 5}, {"quorum", 3}, {"temperature", 0.7}};
    return c;
}

nlohmann::json testProtocol()
{
    return {{"name", "bridge-pick-v1"},
            {"tasks", {{{"id", "pick_carrot"}, {"instruction", "put the carrot on the plate"}}}},
            {"horizon", 60},
            {"episodes", 100}};
}

RunSpec testRunSpec(const std::string &protocolSha256, std::int64_t episode)
{
    RunSpec spec;
    spec.protocolSha256 = protocolSha256;
    spec.episodeIndex = episode;
    spec.policy = testPolicy();
    spec.worldModel = testWorldModel();
    spec.judge = testJudge();
    spec.seeds = {{"policy", 7}, {"world_model", 11}};
    spec.task = "pick_carrot";
    spec.instruction = "put the carrot on the plate";
    return spec;
}

JudgmentRecord testJudgment()
{
    JudgmentRecord j;
    j.settings = {{"samples", 5}, {"quorum", 3}, {"temperature", 0.7}, {"top_p", 1.0}};
    j.outcome = "success";
    j.progress = 5;
    j.decisiveVotes = 5;
    // No frame indices: the unit tests' attempts hold one or two placeholder frames, and verify
    // checks that a judgment's 16 frames lie inside its rollout (real judgments always do).
    j.frameIndices = nullptr;
    for (int i = 0; i < 5; ++i) {
        JudgeSampleRecord s;
        s.sampleIndex = i;
        s.seed = 1000 + i;
        s.parsed = {{"integrity", "intact"},
                    {"collision", "none_visible"},
                    {"progress", 5},
                    {"completion_evidence", "met"},
                    {"evidence_frame_indices", {14, 15}},
                    {"observable_reasons", "the carrot rests on the plate"}};
        s.rawText = s.parsed.dump();
        s.formatClass = "bare_json";
        s.generatedTokens = 60 + i;
        s.decodeMs = 900 + i;
        j.samples.push_back(s);
    }
    return j;
}

namespace {
std::vector<char *> argv(const std::vector<std::string> &args)
{
    std::vector<char *> out;
    out.reserve(args.size() + 1);
    for (const auto &a : args)
        out.push_back(const_cast<char *>(a.c_str()));
    out.push_back(nullptr);
    return out;
}
} // namespace

pid_t startProcess(const std::vector<std::string> &args,
                   const std::optional<std::filesystem::path> &stdoutFile, bool mergeStderr)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    const std::string out = stdoutFile ? stdoutFile->string() : std::string("/dev/null");
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (mergeStderr)
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = 0;
    auto av = argv(args);
    const int rc = posix_spawn(&pid, av[0], &actions, nullptr, av.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        throw std::runtime_error("cannot start " + args[0]);
    return pid;
}

ProcessResult waitProcess(pid_t pid)
{
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            throw std::runtime_error("waitpid failed");
    }
    ProcessResult r;
    if (WIFEXITED(status))
        r.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        r.signal = WTERMSIG(status);
    return r;
}

ProcessResult runProcess(const std::vector<std::string> &args)
{
    TempDir dir;
    const auto out = dir / "stdout";
    ProcessResult r = waitProcess(startProcess(args, out));
    r.output = readFile(out);
    return r;
}

ProcessResult runProcessWithStderr(const std::vector<std::string> &args)
{
    TempDir dir;
    const auto out = dir / "output";
    ProcessResult r = waitProcess(startProcess(args, out, true));
    r.output = readFile(out);
    return r;
}

std::string readFile(const std::filesystem::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string cliPath()
{
    return KOSMOS_CLI_PATH;
}

std::string toolPath()
{
    return KOSMOS_TEST_TOOL_PATH;
}

std::string errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const Error &e) {
        return e.what();
    }
    return "(no error)";
}

nlohmann::json smallSyntheticProtocol(const std::string &name, int episodes, int horizon)
{
    return {{"kosmos_protocol", 1},
            {"name", name},
            {"seed", 5},
            {"horizon", horizon},
            {"episodes_per_task", episodes},
            {"tasks", {{{"id", "red"}, {"instruction", "put the red block in the green square"}}}},
            {"policies",
             {{{"plugin", "synthetic.scripted_policy"}, {"settings", {{"skill", "noisy"}}}}}},
            {"world_model", {{"plugin", "synthetic.tabletop"}}},
            {"judge", {{"plugin", "synthetic.frame_judge"}}}};
}

namespace {

struct FidelityWriter
{
    Ledger &ledger;
    std::string physics;
    std::string imagined;

    std::pair<std::int64_t, Lease> add(const std::string &protocol, const std::string &policy,
                                       const std::string &task, int episode)
    {
        RunSpec spec = testRunSpec(protocol, episode);
        spec.policy = testPolicy(policy);
        if (policy.rfind("replay:", 0) == 0) { // fidelity prepare's open-loop twin of a policy
            const ComponentIdentity replayed = testPolicy(policy.substr(7));
            spec.policy->adapterId = "replay.actions";
            spec.policy->config = {{"by_seed", "replays/policy-0.json"},
                                   {"replays", replayed.adapterId + " " + replayed.config.dump()}};
        }
        if (policy.rfind("inphys:", 0) ==
            0) { // fidelity prepare --in-physics: X's imagined actions
            const ComponentIdentity replayed = testPolicy(policy.substr(7));
            spec.policy->adapterId = "replay.actions";
            spec.policy->config = {{"by_seed", "in-physics/replays/policy-0.json"},
                                   {"replays", replayed.adapterId + " " + replayed.config.dump()},
                                   {"actions_from", "imagined"}};
        }
        spec.task = task;
        spec.seeds = {{"start", task}}; // tasks differ only here, as the engine's keys do
        const auto submitted = ledger.submitRun(spec);
        auto lease = ledger.claim("w", 30000, submitted.runId);
        if (!lease)
            throw std::runtime_error("fidelity fixture: cannot claim its run");
        return std::pair{submitted.runId, *lease};
    }
    void physicsRun(const std::string &policy, int episode, bool success, int judged = -1,
                    const std::string &task = "t")
    {
        const auto [run, lease] = add(physics, policy, task, episode);
        if (judged >= 0) { // the physics protocol's own judge on this rollout
            JudgmentRecord j = testJudgment();
            j.outcome = judged == 1 ? "success" : "failure";
            j.progress = judged == 1 ? 5 : 1;
            ledger.recordJudgment(lease, j);
        }
        HumanLabelRecord label;
        label.runId = run;
        label.annotatorId = "physics.tabletop";
        label.source = "physics";
        label.progress = success ? 5 : 2;
        label.completion = success ? "met" : "not_met";
        ledger.finishAttempt(lease, AttemptOutcome::completed(), {label});
    }
    void imaginedRun(const std::string &policy, const std::string &start,
                     std::optional<bool> success)
    {
        const auto [run, lease] = add(imagined, policy, start, 0);
        if (!success) { // a frozen rollout: validation fails, the judge never sees it
            ledger.recordValidation(
                lease, {"kosmos.validate", "1", "invalid", {"frozen_sequence"}, nullptr});
            ledger.finishAttempt(lease, AttemptOutcome::completed());
            return;
        }
        JudgmentRecord j = testJudgment();
        j.outcome = *success ? "success" : "failure";
        j.progress = *success ? 5 : 1;
        ledger.recordJudgment(lease, j);
        ledger.finishAttempt(lease, AttemptOutcome::completed());
    }
};

} // namespace

std::pair<std::string, std::string>
writeFidelityFixture(Ledger &ledger, const std::map<std::string, std::vector<int>> &physics,
                     const std::map<std::string, std::vector<int>> &imagined,
                     const std::map<std::string, std::vector<int>> &judgedPhysics, int tasks)
{
    FidelityWriter w{ledger,
                     ledger.freezeProtocol("phys", {{"name", "phys"}, {"world", "physics"}}),
                     ledger.freezeProtocol("imag", {{"name", "imag"}, {"world", "learned"}})};
    const auto taskOf = [tasks](std::size_t start) {
        return tasks > 1 ? "t" + std::to_string(start % static_cast<std::size_t>(tasks))
                         : std::string("t");
    };
    for (const auto &[policy, outcomes] : physics)
        for (std::size_t e = 0; e < outcomes.size(); ++e) {
            const auto judged = judgedPhysics.find(policy);
            w.physicsRun(policy, static_cast<int>(e), outcomes[e] == 1,
                         judged == judgedPhysics.end() ? -1 : judged->second.at(e), taskOf(e));
        }
    for (const auto &[policy, outcomes] : imagined)
        for (std::size_t e = 0; e < outcomes.size(); ++e)
            w.imaginedRun(policy, taskOf(e) + "#" + std::to_string(e),
                          outcomes[e] < 0 ? std::nullopt : std::optional<bool>(outcomes[e] == 1));
    return {w.physics, w.imagined};
}

std::pair<std::string, std::string>
writeFidelityProtocols(Ledger &ledger, const std::string &physicsName,
                       const std::string &imaginedName, const nlohmann::json &physicsFields,
                       const nlohmann::json &imaginedFields,
                       const std::map<std::string, std::vector<int>> &physics,
                       const std::map<std::string, std::vector<int>> &imagined)
{
    nlohmann::json physicsDoc = physicsFields;
    physicsDoc["name"] = physicsName;
    physicsDoc["world"] = "physics";
    nlohmann::json imaginedDoc = imaginedFields;
    imaginedDoc["name"] = imaginedName;
    imaginedDoc["world"] = "learned";
    FidelityWriter w{ledger, ledger.freezeProtocol(physicsName, physicsDoc),
                     ledger.freezeProtocol(imaginedName, imaginedDoc)};
    for (const auto &[policy, outcomes] : physics)
        for (std::size_t e = 0; e < outcomes.size(); ++e)
            w.physicsRun(policy, static_cast<int>(e), outcomes[e] == 1);
    for (const auto &[policy, outcomes] : imagined)
        for (std::size_t e = 0; e < outcomes.size(); ++e)
            w.imaginedRun(policy, "t#" + std::to_string(e),
                          outcomes[e] < 0 ? std::nullopt : std::optional<bool>(outcomes[e] == 1));
    return {w.physics, w.imagined};
}

void rejudgeRun(Ledger &ledger, std::int64_t runId, bool success)
{
    const auto source = ledger.run(runId);
    if (!source)
        throw std::runtime_error("rejudgeRun: no run " + std::to_string(runId));
    const RunComponents components = runComponents(ledger, runId);
    RunSpec spec;
    spec.protocolSha256 = source->protocolSha256;
    spec.episodeIndex = source->episodeIndex;
    spec.policy = componentIdentity(ledger, components.policyId);
    spec.worldModel = componentIdentity(ledger, components.worldModelId);
    spec.judge = testJudge();
    spec.judge->config["temperature"] = 0.25;
    spec.seeds = nlohmann::json::parse(source->keyJson).value("seeds", nlohmann::json::object());
    spec.seeds["rejudge_of"] = source->runKey;
    spec.task = source->task;
    spec.instruction = source->instruction;
    const auto lease = ledger.claim("judge-2", 30000, ledger.submitRun(spec).runId);
    if (!lease)
        throw std::runtime_error("rejudgeRun: cannot claim the re-judging run");
    JudgmentRecord j = testJudgment();
    j.settings["temperature"] = 0.25; // (the judgment names no component: its settings tell)
    j.outcome = success ? "success" : "failure";
    j.progress = success ? 5 : 1;
    ledger.recordJudgment(*lease, j);
    ledger.finishAttempt(*lease, AttemptOutcome::completed());
}

std::string writeInPhysicsRuns(Ledger &ledger, const std::string &name,
                               const std::map<std::string, std::vector<int>> &outcomes,
                               const std::map<std::string, std::vector<int>> &judged)
{
    FidelityWriter w{ledger, ledger.freezeProtocol(name, {{"name", name}, {"world", "physics"}}),
                     ""};
    for (const auto &[policy, runs] : outcomes) {
        const auto verdicts = judged.find(policy);
        for (std::size_t e = 0; e < runs.size(); ++e)
            if (runs[e] >= 0)
                w.physicsRun(policy.find(':') == std::string::npos ? "inphys:" + policy : policy,
                             static_cast<int>(e), runs[e] == 1,
                             verdicts == judged.end() ? -1 : verdicts->second.at(e));
    }
    return w.physics;
}

std::pair<std::string, std::string> writeFidelityFixture(Ledger &ledger)
{
    // physics: A 1 1 1 0, B 1 0 1 0, C 0 0 0 0; imagined: A 1 1 0 0, B 1 1 1 0, C 0 0 1 ?
    const auto shas = writeFidelityFixture(
        ledger, {{"A", {1, 1, 1, 0}}, {"B", {1, 0, 1, 0}}, {"C", {0, 0, 0, 0}}},
        {{"A", {1, 1, 0, 0}}, {"B", {1, 1, 1, 0}}, {"C", {0, 0, 1, -1}}});
    FidelityWriter w{ledger, shas.first, shas.second};
    w.physicsRun("A", 4, true);      // no imagined run from this start
    w.imaginedRun("A", "t#9", true); // a start physics never had
    return shas;
}

} // namespace kosmos::test
