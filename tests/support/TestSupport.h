#pragma once

#include "ledger/Ledger.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

namespace kosmos::test {

// A fresh directory under the system temp dir, removed when the object dies.
class TempDir
{
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const std::filesystem::path &path() const { return m_path; }
    std::filesystem::path operator/(const std::string &name) const { return m_path / name; }

private:
    std::filesystem::path m_path;
};

// A small deterministic RGB test image, PNG-encoded (or in another lossless format: ".bmp").
std::vector<std::uint8_t> testImage(int width, int height, int seed,
                                    const std::string &ext = ".png");
std::vector<std::uint8_t> randomBytes(std::size_t size, std::uint32_t seed);

ComponentIdentity testPolicy(const std::string &variant = "a");
ComponentIdentity testWorldModel();
ComponentIdentity testJudge();
nlohmann::json testProtocol();
// A protocol of the synthetic backends: the noisy scripted policy, one task, the tabletop, the
// frame judge; `episodes` per task of `horizon` steps.
nlohmann::json smallSyntheticProtocol(const std::string &name, int episodes, int horizon);
RunSpec testRunSpec(const std::string &protocolSha256, std::int64_t episode);
// A judgment with five well-formed samples.
JudgmentRecord testJudgment();
// The fidelity fixture (tests/evaluation/tst_fidelity.cpp has the numbers worked out by hand):
// in a new ledger, protocol "phys" (physics labels) and "imag" (judged runs of tasks "t#k"):
// policies A, B, C from four starts (C's fourth imagined rollout failed validation and has no
// verdict), plus one unpaired run on each side. Returns the two SHAs.
std::pair<std::string, std::string> writeFidelityFixture(Ledger &ledger);
// The same with given outcomes per policy: physics 1/0 per start, imagined 1/0 (judged) or -1 (a
// rollout that failed validation), start k of every policy paired as "t#k"; `judgedPhysics`
// gives the physics protocol's judge a verdict on a policy's physics runs (1/0, -1 none). An
// imagined policy named "replay:X" is X's open-loop twin (replay.actions by seed, replaying X).
// With `tasks` > 1, start k is of task "t<k mod tasks>" (imagined "t<k mod tasks>#k").
std::pair<std::string, std::string>
writeFidelityFixture(Ledger &ledger, const std::map<std::string, std::vector<int>> &physics,
                     const std::map<std::string, std::vector<int>> &imagined,
                     const std::map<std::string, std::vector<int>> &judgedPhysics = {},
                     int tasks = 1);
// A protocol `name` of the fidelity fixture's starts whose runs replay, in physics, policy X's
// imagined actions (kosmos-cli fidelity prepare --in-physics: replay.actions, actions_from
// "imagined", replaying X), per start 1/0 (the physics label) or -1 (no run); a policy named
// with a prefix ("A:B") is written as that adapter label instead (a run of something else).
// Returns its SHA.
// `judged`: the protocol's judge on a policy's replays, per start 1/0 (-1 none).
std::string writeInPhysicsRuns(Ledger &ledger, const std::string &name,
                               const std::map<std::string, std::vector<int>> &outcomes,
                               const std::map<std::string, std::vector<int>> &judged = {});
// A re-judgment as `kosmos-cli judge` records it (core/pipeline/Rejudge.cpp): a run of the source
// run's protocol, policy, world model and seeds with rejudge_of, whose judgment ("judge-2":
// testJudge() at temperature 0.25) says `success`.
void rejudgeRun(Ledger &ledger, std::int64_t runId, bool success);
// As the above, into protocols of the given names whose frozen documents also hold the given
// fields (a study's protocols of policies added later on the same starts: the same fields).
std::pair<std::string, std::string>
writeFidelityProtocols(Ledger &ledger, const std::string &physicsName,
                       const std::string &imaginedName, const nlohmann::json &physicsFields,
                       const nlohmann::json &imaginedFields,
                       const std::map<std::string, std::vector<int>> &physics,
                       const std::map<std::string, std::vector<int>> &imagined);

struct ProcessResult
{
    int exitCode = -1;  // -1 when killed by a signal
    int signal = 0;     // the signal that ended it, if any
    std::string output; // stdout
};

// Runs a program to completion and captures its stdout.
ProcessResult runProcess(const std::vector<std::string> &args);
// The same with stderr into `output` too (where a program names what was wrong).
ProcessResult runProcessWithStderr(const std::vector<std::string> &args);
// Starts a program with stdout (and, with mergeStderr, stderr) to the given file (or /dev/null);
// returns its pid.
pid_t startProcess(const std::vector<std::string> &args,
                   const std::optional<std::filesystem::path> &stdoutFile = std::nullopt,
                   bool mergeStderr = false);
ProcessResult waitProcess(pid_t pid);

std::string readFile(const std::filesystem::path &path);

// Paths of the binaries under test (set by CMake).
std::string cliPath();
// The message of the kosmos::Error that f throws, or "(no error)".
std::string errorOf(const std::function<void()> &f);
std::string toolPath();

} // namespace kosmos::test
