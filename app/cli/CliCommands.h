#pragma once

#include "media/DatasetExport.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

// Exit codes of kosmos-cli (also printed by `kosmos-cli --help`).
namespace ExitCode {
constexpr int Ok = 0;            // success; verify: the ledger is clean
constexpr int ProblemsFound = 1; // verify: problems were found (each is listed)
constexpr int Usage = 2;         // bad command line
constexpr int CannotOpen = 3;    // no ledger there, not a ledger, newer schema, migration failed
constexpr int Failed = 4;        // anything else went wrong (I/O, database, invalid input)
constexpr int RunsFailed = 5;    // run/demo: some runs failed (each is recorded in the ledger)
constexpr int Unfinished = 6;    // run/judge: some runs were left unfinished (held by another
                                 // live process, or the lease was lost); run again to finish
constexpr int Interrupted = 130; // events --follow stopped by Ctrl-C / SIGTERM
} // namespace ExitCode

namespace kosmos {
class Error;
class PluginRegistry;
struct JudgeConfig;
} // namespace kosmos
// Prints "kosmos-cli: error [code]: message" and returns the documented exit code.
int reportError(const kosmos::Error &e);
// Flushes standard output once a verb is done and checks that everything reached it: a full disk
// or a closed descriptor is an error (printed, exit 4 where the verb would have exited 0), never
// a success that wrote nothing. Returns the exit code to use.
int finishOutput(int code);
// A judge configuration named on the command line: its number in `kosmos-cli audit BUNDLE`'s
// listing (1-based) or its full key. Throws Error(InvalidInput) naming the text.
std::string resolveJudgeConfig(const std::vector<kosmos::JudgeConfig> &configs,
                               const std::string &text);

// `judge-request`: the exact request of one stored judge call, rebuilt from the ledger (and
// checked against the hash of what was sent); written to a file and/or sent to an endpoint.
struct JudgeRequestOptions
{
    std::string bundle;
    std::int64_t judgmentId = 0;
    int sampleIndex = 0;
    int tryIndex = 0;
    std::string outPath;
    std::string sendUrl;
    std::string apiKeyEnv;
    int timeoutMs = 120000;
    bool json = false;
};
int runJudgeRequest(const JudgeRequestOptions &options);

// `fidelity prepare`: one imagined task per physics start (its frame 0), the physics
// protocol's policies, the given world model and judge; `fidelity`: the report
// (core/evaluation/Fidelity.h) with an open-loop frame comparison of `replays` starts.
struct FidelityPrepareOptions
{
    std::string executableDir;
    std::string bundle;
    std::string physicsProtocol;
    std::string worldModelConfig;
    std::string judgeConfig;
    std::string directory;
    bool everyPolicyOpenLoop = false; // --open-loop: every policy replays its physics actions
    // --in-physics I: the physics protocol with each policy replaced by the actions it took in
    // the imagined protocol I, replayed from the same starts (worldModelConfig, judgeConfig unused)
    std::string inPhysics;
};
int runFidelityPrepare(const FidelityPrepareOptions &options);
struct FidelityOptionsCli
{
    std::string executableDir;
    std::string bundle;
    std::vector<std::string> physicsProtocols; // the first, then those that join it
    std::vector<std::string> imaginedProtocols;
    int replays = 20;
    std::string judgeConfig; // its number or key; empty: the protocols' own judge
    // --in-physics (again for each imagined protocol joined): the imagined runs' actions
    // replayed in physics
    std::vector<std::string> inPhysics;
    bool json = false;
};
int runFidelity(const FidelityOptionsCli &options);
struct FidelityReplayOptions
{
    std::string executableDir;
    std::string dataset;
    std::string worldModelConfig;
    std::string episodes; // "0-9,17"; empty: all
    std::string camera;
    bool json = false;
};
int runFidelityReplay(const FidelityReplayOptions &options);

// `serve-world`: the reference world server (python/kosmos_world, installed in
// share/kosmos/python) in place of this process, serving a gymnasium environment (`envId`) or a
// Python world model (`model`, MODULE:FACTORY). Returns only when it cannot be started.
struct ServeWorldOptions
{
    std::string envId;                // gym ENV_ID, or empty with `model`
    std::string model;                // MODULE:FACTORY
    std::vector<std::string> imports; // gym: modules imported first (registering the env)
    std::string kwargs = "{}";        // gym.make keyword arguments (JSON object)
    std::string args = "{}";          // FACTORY's keyword arguments (JSON object)
    bool shared = false;              // model: one instance for every connection
    std::string host = "127.0.0.1";
    int port = 8765;
    std::string python; // the interpreter; empty: $KOSMOS_PYTHON, else python3 on PATH
};
int runServeWorld(const ServeWorldOptions &options);

int runInit(const std::string &bundle);
int runInfo(const std::string &bundle, bool json);
int runVerify(const std::string &bundle, bool json);
// `gc`: removes object files no artifact row names (verify's note) older than minAgeSeconds.
int runGc(const std::string &bundle, int minAgeSeconds, bool json);
int runPlugins(const std::string &executableDir, bool json);
// NVML's view of the GPUs (util/GpuMonitor): always exit 0; no driver is an answer.
int runGpus(bool json);
// One step of one configured adapter on a placeholder input (a grey frame, zero actions, 16
// grey frames for a judge): its timing and memory. A smoke test, not evidence of anything.
// PluginProbe::Availability stops after the availability check with these settings (what the
// launcher asks while the settings are typed).
enum class PluginProbe
{
    OneStep,
    Availability
};
int runPluginTest(const std::string &executableDir, const std::string &id,
                  const std::string &settingsJson, bool json,
                  PluginProbe probe = PluginProbe::OneStep);
// How `run` executes: worker threads in this process; worker processes under this one as a
// supervisor (a crash in plugin code fails one attempt, with its signal, not the batch); or one
// such worker process (started by a supervisor).
enum class RunMode
{
    Threads,
    Isolated,
    WorkerProcess,
    DryRun // what would run: counts, runs already done, contract misfits; writes nothing
};
// retryFailed: every failed run of the protocol gets a new attempt (the failed ones are kept).
// `run --device` and `submit --device`: the protocol document with the device in the settings of
// every component whose plugin (metadata read from `registry`) can use it; says which went where
// on stdout unless `quiet`.
nlohmann::json placedOnDevice(const kosmos::PluginRegistry &registry,
                              const nlohmann::json &document, const std::string &device,
                              bool quiet);
// batch: episodes each worker runs in lockstep (--batch N, EngineOptions::batch).
int runProtocol(const std::string &executableDir, const std::string &protocolPath,
                const std::string &bundle, int workers, bool json, RunMode mode = RunMode::Threads,
                bool retryFailed = false, const std::string &shard = {},
                const std::string &device = {}, int batch = 1);
// Scale-out (core/scaleout, docs/scale-out.md): merge shard ledgers; submit a protocol as N
// shards (Slurm job array + merge job, or N local processes); the shards' progress; scancel.
int runMerge(const std::string &target, const std::vector<std::string> &sources, bool json,
             int runsPerTransaction = 64);
struct SubmitOptions
{
    std::string protocolPath;
    std::string bundle;
    int shards = 1;
    int workers = 1;
    int batch = 1; // run --batch in every shard
    bool slurm = false;
    std::string partition;
    std::string gres;
    std::string timeLimit;
    std::vector<std::string> sbatchArgs;
    bool dryRun = false;
    std::string device; // run --device's placement, in the protocol the shards run
    bool json = false;
};
int runSubmit(const std::string &executableDir, const SubmitOptions &options);
int runStatus(const std::string &bundle, bool json);
int runCancel(const std::string &bundle);
int runDemo(const std::string &executableDir, const std::string &bundle, int workers,
            const std::string &world);
int runImport(const std::string &directory, const std::string &bundle);
int runJudge(const std::string &executableDir, const std::string &bundle, const std::string &run,
             const std::string &configPath);
// The paired judge audit of two judge configurations (numbers from the listing, or keys);
// without configurations, lists them.
int runAudit(const std::string &bundle, const std::vector<std::string> &configs, bool json);
// A judge configuration's calibration against human or reference labels, with the gate.
int runCalibrate(const std::string &bundle, const std::string &config, const std::string &labels,
                 int minLabels, int minPerClass, bool json);
// Blind annotation packets: export runs' frames for someone without the ledger; import their
// answers as human labels (hash-checked against the packet, through the exporter's key file).
int runPacketExport(const std::string &bundle, const std::vector<std::string> &runs, bool all,
                    const std::string &directory);
int runPacketImport(const std::string &bundle, const std::string &answers,
                    const std::string &keyFile);
// Success per policy of one protocol with Wilson intervals, pairwise verdicts (bootstrap and
// exact bounds), and optionally Pearson / Spearman / MMRV against reference rates from a CSV.
int runRank(const std::string &bundle, const std::string &protocol, const std::string &source,
            const std::string &referenceCsv, bool json);
// Two human annotators on the clips both labelled, of one split (held_out, development, all);
// without annotators, lists them.
int runAgreement(const std::string &bundle, const std::vector<std::string> &annotators,
                 const std::string &split, int minClips, bool json);
// The evaluation record of one protocol: text or JSON on stdout, or HTML (plots embedded) and
// PDF files. Rendering files needs a QGuiApplication (main makes one for `report`).
struct ReportRequest
{
    std::string bundle;
    std::string protocol;
    std::string source = "judge";
    std::string judgeConfig;        // number or key; empty: the protocol's own judge
    std::vector<std::string> audit; // two judge configurations, or none
    std::string referenceCsv;
    int minLabels = 20;
    int minPerClass = 20; // labelled successes and failures each (CalibrationGate)
    std::string htmlPath;
    std::string pdfPath;
    std::string pngPath; // the document's start as an image
    bool json = false;
};
int runReport(const ReportRequest &request);
int runJudgments(const std::string &bundle, const std::string &run, bool json);
int runDatasetExport(const std::string &bundle, const kosmos::DatasetFilter &filter,
                     const std::string &directory, const std::string &format, bool lossless,
                     bool json);
// The chosen episodes of a LeRobot dataset as recorded runs (pipeline/LeRobotImport.h); episodes
// "0-9,17" or empty for all, camera empty for the first.
int runImportLeRobot(const std::string &dataset, const std::string &bundle,
                     const std::string &episodes, const std::string &camera);
// A LeRobot dataset folder: its metadata, tasks and episodes, and with `episode` that episode's
// numeric features summarized (docs/datasets.md, "LeRobot datasets").
int runDatasetInspect(const std::string &folder, std::optional<int> episode, bool json);
int runExport(const std::string &bundle, const std::string &run, const std::string &directory,
              bool video);
int runEvents(const std::string &bundle, const std::string &run, bool follow, bool json,
              int pollIntervalMs);
