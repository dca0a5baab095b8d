// kosmos-cli: the headless twin of the Kosmos workstation. Wiring only: every verb calls core/.
// One table (verbs()) defines each verb's synopsis, summary, options and handler; --help, each
// verb's own help (`kosmos-cli VERB --help`), the usage line of a bad call and the shell
// completion (`kosmos-cli completion bash`) are all generated from it.
#include "CliCommands.h"

#include "util/Error.h"
#include "util/ProcessTuning.h"
#include "util/TextRules.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace {

const char *const kIntro =
    "Kosmos: auditable evaluation of robot policies through learned world models.\n";

const char *const kExitCodes =
    "BUNDLE may also be the bundle's ledger.sqlite.\n"
    "\n"
    "Exit codes:\n"
    "  0    success (verify: the ledger is clean)\n"
    "  1    verify found problems; each is listed\n"
    "  2    bad command line\n"
    "  3    cannot open the ledger: missing, not a ledger, newer schema, failed migration\n"
    "  4    any other failure (I/O, database, invalid input)\n"
    "  5    run/demo/import/judge: runs failed (each is recorded in the ledger)\n"
    "  6    run/judge: runs left unfinished (held by another live process, or the\n"
    "       lease was lost); the same command again finishes them\n"
    "  130  interrupted (events --follow, run, demo, import: Ctrl-C or SIGTERM stops\n"
    "       cleanly; the runs in flight go back to the queue: the same command again\n"
    "       finishes them)\n"
    "\n"
    "Plugins are searched in <bin>/../" KOSMOS_PKGLIBDIR "/plugins, then in KOSMOS_PLUGIN_PATH\n"
    "(folders separated by ':'), then in the folders saved in the workstation's settings\n"
    "(File > Settings; key plugins/folders of ~/.config/kosmos-workstation/Kosmos.conf).";

using OptionMap = std::map<QString, const QCommandLineOption *>;

// What a handler gets: the parsed command line.
struct Call
{
    const QCommandLineParser &parser;
    const QStringList &args; // args[0] is the verb
    const OptionMap &options;
    bool json = false;
    std::string exeDir;

    bool nArgs(qsizetype n) const { return args.size() == n; }
    bool isSet(const char *name) const
    {
        return parser.isSet(*options.at(QString::fromLatin1(name)));
    }
    QString value(const char *name) const
    {
        return parser.value(*options.at(QString::fromLatin1(name)));
    }
    QStringList values(const char *name) const
    {
        return parser.values(*options.at(QString::fromLatin1(name)));
    }
    std::string str(qsizetype i) const { return args[i].toStdString(); }
    // The option's value in [min, max]; otherwise says which option and what was wrong (before
    // the verb's usage line) and returns nullopt.
    std::optional<int> intValue(const char *name, int min, int max) const
    {
        bool ok = false;
        const int v = value(name).toInt(&ok);
        if (ok && v >= min && v <= max)
            return v;
        if (!value(name).isEmpty()) // a missing option is named by the usage line
            std::cerr << "kosmos-cli: --" << name << " must be a whole number from " << min
                      << " to " << max << ", not '" << value(name).toStdString() << "'\n";
        return std::nullopt;
    }
    std::vector<std::string> from(qsizetype first) const
    {
        std::vector<std::string> out;
        for (qsizetype i = first; i < args.size(); ++i)
            out.push_back(str(i));
        return out;
    }
};

// A handler returns the exit code, or nullopt for a bad call (its usage line is printed, exit 2).
using Handler = std::function<std::optional<int>(const Call &)>;

struct Verb
{
    const char *name;
    const char *synopsis; // after "kosmos-cli "
    const char *summary;  // for --help, indented under the synopsis
    std::vector<const char *> options;
    Handler handler; // null: handled in main (completion needs the table itself)
};

bool oneOf(const QString &value, std::initializer_list<const char *> allowed)
{
    return std::any_of(allowed.begin(), allowed.end(),
                       [&](const char *a) { return value == QLatin1String(a); });
}

const std::vector<Verb> &verbs()
{
    using R = std::optional<int>;
    static const std::vector<Verb> table = {
        {"init",
         "init BUNDLE",
         "create a new ledger (BUNDLE is NAME.kosmos)",
         {},
         [](const Call &c) -> R {
             if (!c.nArgs(2))
                 return std::nullopt;
             return runInit(c.str(1));
         }},
        {"info",
         "info BUNDLE",
         "schema version, counts by status, labels by source, sizes",
         {"json"},
         [](const Call &c) -> R {
             if (!c.nArgs(2))
                 return std::nullopt;
             return runInfo(c.str(1), c.json);
         }},
        {"verify",
         "verify BUNDLE",
         "check integrity, every artifact hash, references, seals, judge requests",
         {"json"},
         [](const Call &c) -> R {
             if (!c.nArgs(2))
                 return std::nullopt;
             return runVerify(c.str(1), c.json);
         }},
        {"gc",
         "gc BUNDLE",
         "remove object files that no artifact row names (left by a writer killed\n"
         "between storing and recording them; verify notes them); an object named by a\n"
         "row is never removed, nor one younger than --min-age seconds (default 600)",
         {"min-age", "json"},
         [](const Call &c) -> R {
             const auto minAge = c.intValue("min-age", 0, 100000000);
             if (!c.nArgs(2) || !minAge)
                 return std::nullopt;
             return runGc(c.str(1), *minAge, c.json);
         }},
        {"events",
         "events BUNDLE RUN",
         "print a run's events (RUN: run id or run-key prefix);\n"
         "--follow keeps printing as other processes write",
         {"follow", "interval-ms", "json"},
         [](const Call &c) -> R {
             const auto interval = c.intValue("interval-ms", 1, 60000);
             if (!c.nArgs(3) || !interval)
                 return std::nullopt;
             return runEvents(c.str(1), c.str(2), c.isSet("follow"), c.json, *interval);
         }},
        {"plugins",
         "plugins [--test ID | --check ID] [--settings JSON]",
         "every plugin found: id, family, version, API version, available or\n"
         "unavailable with the reason; --test ID: one step of that adapter with its\n"
         "timing and memory (a smoke test only, not evidence); --check ID: only\n"
         "whether it can run here with these settings, and why not",
         {"test", "check", "settings", "json"},
         [](const Call &c) -> R {
             if (!c.nArgs(1) || (c.isSet("test") && c.isSet("check")))
                 return std::nullopt;
             if (c.isSet("test") || c.isSet("check"))
                 return runPluginTest(
                     c.exeDir, c.value(c.isSet("test") ? "test" : "check").toStdString(),
                     c.value("settings").toStdString(), c.json,
                     c.isSet("check") ? PluginProbe::Availability : PluginProbe::OneStep);
             return runPlugins(c.exeDir, c.json);
         }},
        {"gpus",
         "gpus",
         "NVIDIA GPUs as the driver reports them (NVML, loaded at run time): name,\n"
         "memory used and free, utilisation, compute processes; says \"no NVIDIA\n"
         "driver\" where there is none",
         {"json"},
         [](const Call &c) -> R {
             if (!c.nArgs(1))
                 return std::nullopt;
             return runGpus(c.json);
         }},
        {"run",
         "run PROTOCOL --ledger BUNDLE",
         "run an evaluation protocol (JSON) into the ledger; running it again resumes\n"
         "(finished runs are skipped; runs interrupted by Ctrl-C or SIGTERM went back to\n"
         "the queue and run again); --isolate: worker processes, a plugin crash fails\n"
         "one attempt (recorded with its signal), never the batch; --retry-failed:\n"
         "failed runs get a new attempt (the failed attempts stay recorded); --device:\n"
         "every component whose plugin can use it runs there (torch.* plugins); --batch N:\n"
         "each worker runs N episodes in lockstep, one call of a batched policy or world\n"
         "model for all of them (torch.generic_*; the others are called per episode)",
         {"ledger", "workers", "batch", "isolate", "retry-failed", "dry-run", "shard", "device",
          "json"},
         [](const Call &c) -> R {
             const auto workers = c.intValue("workers", 1, 64);
             const auto batch = c.intValue("batch", 1, 256);
             if (!c.nArgs(2) || !c.isSet("ledger") || !workers || !batch)
                 return std::nullopt;
             const RunMode mode = c.isSet("dry-run")          ? RunMode::DryRun
                                  : c.isSet("worker-process") ? RunMode::WorkerProcess
                                  : c.isSet("isolate")        ? RunMode::Isolated
                                                              : RunMode::Threads;
             return runProtocol(c.exeDir, c.str(1), c.value("ledger").toStdString(), *workers,
                                c.json, mode, c.isSet("retry-failed"),
                                c.value("shard").toStdString(), c.value("device").toStdString(),
                                *batch);
         }},
        {"merge",
         "merge OUT SHARD...",
         "merge shard ledgers (run --shard, or any ledgers) into OUT by run key:\n"
         "idempotent and resumable; every artifact hash and attempt seal is checked\n"
         "before it is taken; a run recorded differently is refused with the reason",
         {"json", "runs-per-transaction"},
         [](const Call &c) -> R {
             const auto batch = c.intValue("runs-per-transaction", 1, 100000);
             if (c.args.size() < 3 || !batch)
                 return std::nullopt;
             return runMerge(c.str(1), c.from(2), c.json, *batch);
         }},
        {"submit",
         "submit PROTOCOL --ledger OUT --shards N (--slurm|--local)",
         "run a protocol as N shards: --slurm writes and submits a Slurm job array\n"
         "(one task per shard) and a merge job that runs after it; --local runs N\n"
         "processes here and merges; --dry-run (with --slurm) writes the scripts only;\n"
         "--device: as for run, in the protocol every shard runs; --workers, --batch:\n"
         "as for run, in every shard",
         {"ledger", "shards", "slurm", "local", "partition", "gres", "time", "sbatch-arg",
          "workers", "batch", "dry-run", "device", "json"},
         [](const Call &c) -> R {
             const auto shards = c.intValue("shards", 1, 10000);
             const auto workers = c.intValue("workers", 1, 64);
             const auto batch = c.intValue("batch", 1, 256);
             if (!c.nArgs(2) || !c.isSet("ledger") || !c.isSet("shards") || !shards || !workers ||
                 !batch || c.isSet("slurm") == c.isSet("local"))
                 return std::nullopt;
             SubmitOptions o;
             o.protocolPath = c.str(1);
             o.bundle = c.value("ledger").toStdString();
             o.shards = *shards;
             o.workers = *workers;
             o.batch = *batch;
             o.slurm = c.isSet("slurm");
             o.partition = c.value("partition").toStdString();
             o.gres = c.value("gres").toStdString();
             o.timeLimit = c.value("time").toStdString();
             for (const QString &a : c.values("sbatch-arg"))
                 o.sbatchArgs.push_back(a.toStdString());
             o.dryRun = c.isSet("dry-run");
             o.device = c.value("device").toStdString();
             o.json = c.json;
             return runSubmit(c.exeDir, o);
         }},
        {"status",
         "status OUT",
         "a sharded evaluation's progress: each shard's runs from its ledger (read\n"
         "only), the Slurm jobs' states (squeue, sacct when accounting is on), merged",
         {"json"},
         [](const Call &c) -> R {
             if (!c.nArgs(2))
                 return std::nullopt;
             return runStatus(c.str(1), c.json);
         }},
        {"cancel",
         "cancel OUT",
         "cancel a sharded evaluation's Slurm jobs (scancel: the shard tasks and the\n"
         "merge job); what the shards finished stays in their ledgers",
         {},
         [](const Call &c) -> R {
             if (!c.nArgs(2))
                 return std::nullopt;
             return runCancel(c.str(1));
         }},
        {"judge",
         "judge RUN|--all --ledger BUNDLE --judge CONFIG",
         "judge finished rollouts again with another judge configuration\n"
         "(new judgments beside the old ones)",
         {"all", "ledger", "judge"},
         [](const Call &c) -> R {
             const bool all = c.isSet("all");
             if (!c.isSet("ledger") || !c.isSet("judge") || (all ? !c.nArgs(1) : !c.nArgs(2)))
                 return std::nullopt;
             return runJudge(c.exeDir, c.value("ledger").toStdString(),
                             all ? std::string("--all") : c.str(1), c.value("judge").toStdString());
         }},
        {"judgments",
         "judgments BUNDLE RUN",
         "a run's judgments: samples, how each answer was written, outcome",
         {"json"},
         [](const Call &c) -> R {
             if (!c.nArgs(3))
                 return std::nullopt;
             return runJudgments(c.str(1), c.str(2), c.json);
         }},
        {"judge-request",
         "judge-request BUNDLE JUDGMENT SAMPLE",
         "the exact request of one judge call, rebuilt from the ledger and\n"
         "hash-checked; --out writes it; --send replays it byte for byte to another\n"
         "endpoint and compares the answer",
         {"try", "out", "send", "api-key-env", "json"},
         [](const Call &c) -> R {
             if (!c.nArgs(4))
                 return std::nullopt;
             bool okJudgment = false, okSample = false;
             JudgeRequestOptions o;
             o.judgmentId = c.args[2].toLongLong(&okJudgment);
             o.sampleIndex = c.args[3].toInt(&okSample);
             const auto tryIndex = c.intValue("try", 0, 1);
             if (!okJudgment || !okSample || !tryIndex || o.judgmentId < 1 || o.sampleIndex < 0)
                 return std::nullopt;
             o.tryIndex = *tryIndex;
             o.bundle = c.str(1);
             o.outPath = c.value("out").toStdString();
             o.sendUrl = c.value("send").toStdString();
             o.apiKeyEnv = c.value("api-key-env").toStdString();
             o.json = c.json;
             return runJudgeRequest(o);
         }},
        {"calibrate",
         "calibrate BUNDLE [CONFIG]",
         "a judge configuration against labels: confusion, kappa,\n"
         "sensitivity/specificity with intervals, gate",
         {"labels", "min-labels", "min-per-class", "json"},
         [](const Call &c) -> R {
             const QString labels = c.value("labels");
             const auto minLabels = c.intValue("min-labels", 1, 1000000);
             const auto perClass = c.intValue("min-per-class", 0, 1000000);
             if (!(c.nArgs(2) || c.nArgs(3)) || !minLabels || !perClass ||
                 !oneOf(labels, {"human", "reference", "physics"}))
                 return std::nullopt;
             return runCalibrate(c.str(1), c.nArgs(3) ? c.str(2) : "", labels.toStdString(),
                                 *minLabels, *perClass, c.json);
         }},
        {"packet",
         "packet export BUNDLE RUN...|--all --to DIR\n  packet import BUNDLE ANSWERS --key K",
         "blind annotation packets: frames and task only, out; human labels,\n"
         "hash-checked, back in",
         {"all", "to", "key"},
         [](const Call &c) -> R {
             const QString verb = c.args.size() > 1 ? c.args[1] : QString();
             if (verb == QLatin1String("export") && c.args.size() >= 3 && c.isSet("to") &&
                 (c.isSet("all") != (c.args.size() > 3)))
                 return runPacketExport(c.str(2), c.from(3), c.isSet("all"),
                                        c.value("to").toStdString());
             if (verb == QLatin1String("import") && c.nArgs(4) && c.isSet("key"))
                 return runPacketImport(c.str(2), c.str(3), c.value("key").toStdString());
             return std::nullopt;
         }},
        {"rank",
         "rank BUNDLE [PROTOCOL]",
         "success per policy with intervals, pairwise orders or indeterminate;\n"
         "--reference-csv: Pearson, Spearman, MMRV against reference rates",
         {"source", "reference-csv", "json"},
         [](const Call &c) -> R {
             const QString source = c.value("source");
             if (!(c.nArgs(2) || c.nArgs(3)) ||
                 !oneOf(source, {"judge", "reference", "physics", "human"}))
                 return std::nullopt;
             return runRank(c.str(1), c.nArgs(3) ? c.str(2) : "", source.toStdString(),
                            c.value("reference-csv").toStdString(), c.json);
         }},
        {"audit",
         "audit BUNDLE [A B]",
         "two judge configurations on the same clips (the paired audit);\n"
         "without A B, lists the configurations",
         {"json"},
         [](const Call &c) -> R {
             if (!(c.nArgs(2) || c.nArgs(4)))
                 return std::nullopt;
             return runAudit(c.str(1), c.from(2), c.json);
         }},
        {"agreement",
         "agreement BUNDLE [A B]",
         "two human annotators on the clips both labelled; without A B, lists\n"
         "the annotators",
         {"split", "min-labels", "json"},
         [](const Call &c) -> R {
             const auto minClips = c.intValue("min-labels", 1, 1000000);
             if (!(c.nArgs(2) || c.nArgs(4)) || !minClips)
                 return std::nullopt;
             return runAgreement(c.str(1), c.from(2), c.value("split").toStdString(), *minClips,
                                 c.json);
         }},
        {"report",
         "report BUNDLE [PROTOCOL]",
         "the evaluation record: protocol hash, components, rates with n and\n"
         "intervals, missing-outcome bounds, calibration and gate, audit, reference\n"
         "rates, what it does and does not support; text, --json, --html, --pdf, --png",
         {"source", "config", "audit", "reference-csv", "min-labels", "min-per-class", "json",
          "html", "pdf", "png"},
         [](const Call &c) -> R {
             const QString source = c.value("source");
             const auto minLabels = c.intValue("min-labels", 1, 1000000);
             const auto perClass = c.intValue("min-per-class", 0, 1000000);
             const QStringList audit = c.value("audit").split(QLatin1Char(','), Qt::SkipEmptyParts);
             if (!(c.nArgs(2) || c.nArgs(3)) || !minLabels || !perClass ||
                 (c.isSet("audit") && audit.size() != 2) ||
                 !oneOf(source, {"judge", "reference", "human"}))
                 return std::nullopt;
             ReportRequest request;
             request.minLabels = *minLabels;
             request.minPerClass = *perClass;
             request.bundle = c.str(1);
             request.protocol = c.nArgs(3) ? c.str(2) : "";
             request.source = source.toStdString();
             request.judgeConfig = c.value("config").toStdString();
             for (const QString &a : audit)
                 request.audit.push_back(a.trimmed().toStdString());
             request.referenceCsv = c.value("reference-csv").toStdString();
             request.htmlPath = c.value("html").toStdString();
             request.pdfPath = c.value("pdf").toStdString();
             request.pngPath = c.value("png").toStdString();
             request.json = c.json;
             return runReport(request);
         }},
        {"export",
         "export BUNDLE RUN --to DIR",
         "write a run's frames (PNG), actions (CSV) and, with --video, a video",
         {"to", "video"},
         [](const Call &c) -> R {
             if (!c.nArgs(3) || !c.isSet("to"))
                 return std::nullopt;
             return runExport(c.str(1), c.str(2), c.value("to").toStdString(), c.isSet("video"));
         }},
        {"fidelity",
         "fidelity BUNDLE --physics P [--physics P2] --imagined I [--imagined I2] [--config N] "
         "[--in-physics R [--in-physics R2]] | "
         "fidelity prepare BUNDLE --protocol P "
         "--world-model WM.json --judge J.json --to DIR [--open-loop] | fidelity prepare BUNDLE "
         "--protocol P --in-physics I --to DIR | fidelity replay DATASET "
         "--world-model WM.json [--episodes 0-9] [--camera KEY]",
         "a learned world model against physics: the same policies from the same starts,\n"
         "success rates with intervals, Pearson/Spearman/MMRV with bootstrap intervals,\n"
         "pairwise orders, per-episode agreement, PSNR/SSIM of open-loop replays;\n"
         "prepare: the imagined protocol (one task per physics start); --open-loop: every\n"
         "policy's physics actions replayed, the world model's and judge's errors alone;\n"
         "--in-physics: the imagined runs' actions replayed in physics, and in the report\n"
         "the closed loop's disagreement split into the world model's and the policies' part;\n"
         "replay: a LeRobot dataset's recorded actions open loop in the world model, PSNR/SSIM\n"
         "per step against the recorded frames with 95% intervals (docs/fidelity.md)",
         {"physics", "imagined", "replays", "protocol", "world-model", "judge", "to", "episodes",
          "camera", "config", "open-loop", "in-physics", "json"},
         [](const Call &c) -> R {
             if (c.args.size() >= 2 && c.args[1] == QLatin1String("replay")) {
                 if (!c.nArgs(3) || !c.isSet("world-model"))
                     return std::nullopt;
                 return runFidelityReplay({c.exeDir, c.str(2), c.value("world-model").toStdString(),
                                           c.value("episodes").toStdString(),
                                           c.value("camera").toStdString(), c.json});
             }
             if (c.args.size() >= 2 && c.args[1] == QLatin1String("prepare")) {
                 const bool inPhysics = c.isSet("in-physics");
                 if (!c.nArgs(3) || !c.isSet("protocol") || !c.isSet("to") ||
                     (inPhysics &&
                      (c.isSet("world-model") || c.isSet("judge") || c.isSet("open-loop"))) ||
                     (!inPhysics && (!c.isSet("world-model") || !c.isSet("judge"))))
                     return std::nullopt;
                 return runFidelityPrepare({c.exeDir, c.str(2), c.value("protocol").toStdString(),
                                            c.value("world-model").toStdString(),
                                            c.value("judge").toStdString(),
                                            c.value("to").toStdString(), c.isSet("open-loop"),
                                            c.value("in-physics").toStdString()});
             }
             const auto replays = c.intValue("replays", 0, 100000);
             if (!c.nArgs(2) || !c.isSet("physics") || !c.isSet("imagined") || !replays)
                 return std::nullopt;
             auto list = [&](const char *name) {
                 std::vector<std::string> out;
                 for (const QString &v : c.values(name))
                     out.push_back(v.toStdString());
                 return out;
             };
             return runFidelity({c.exeDir, c.str(1), list("physics"), list("imagined"), *replays,
                                 c.value("config").toStdString(), list("in-physics"), c.json});
         }},
        {"serve-world",
         "serve-world ENV_ID [--import PKG] [--kwargs JSON] | serve-world --model "
         "MODULE:FACTORY [--args JSON] [--shared]",
         "the reference world server for remote.world (docs/remote-worlds.md) in place of\n"
         "this process: a gymnasium environment by its id (gym_pusht/PushT-v0 with --import\n"
         "gym_pusht) or a Python world model; --port (8765), --host (127.0.0.1), --python\n"
         "(the interpreter with the environment's packages: a venv's bin/python)",
         {"model", "args", "shared", "import", "kwargs", "port", "host", "python"},
         [](const Call &c) -> R {
             const auto port = c.intValue("port", 0, 65535);
             if (!port || !(c.nArgs(1) || c.nArgs(2)) || (c.nArgs(2) == c.isSet("model")))
                 return std::nullopt;
             ServeWorldOptions o;
             o.envId = c.nArgs(2) ? c.str(1) : "";
             o.model = c.value("model").toStdString();
             for (const QString &module : c.values("import"))
                 o.imports.push_back(module.toStdString());
             o.kwargs = c.value("kwargs").toStdString();
             o.args = c.value("args").toStdString();
             o.shared = c.isSet("shared");
             o.host = c.value("host").toStdString();
             o.port = *port;
             o.python = c.value("python").toStdString();
             return runServeWorld(o);
         }},
        {"dataset",
         "dataset export BUNDLE --to DIR [--format kosmos|lerobot] [--lossless] | "
         "dataset inspect DIR [--episode N]",
         "export: write completed runs as demonstrations (frames, actions, world states,\n"
         "instruction, success and its source) for training (layout: docs/datasets.md);\n"
         "--format lerobot: a LeRobot v3.0 dataset LeRobot loads (H.264; --lossless: exact);\n"
         "inspect: what a LeRobot dataset (v3.0, v2.1) holds: features, tasks, episodes,\n"
         "and one episode's actions and states (docs/datasets.md, \"LeRobot datasets\")",
         {"to", "protocol", "policy", "outcome", "episode", "format", "lossless", "json"},
         [](const Call &c) -> R {
             if (c.args.size() >= 2 && c.args[1] == QLatin1String("inspect")) {
                 std::optional<int> episode;
                 if (c.isSet("episode") && !(episode = c.intValue("episode", 0, 100000000)))
                     return std::nullopt;
                 if (!c.nArgs(3))
                     return std::nullopt;
                 return runDatasetInspect(c.str(2), episode, c.json);
             }
             if (!c.nArgs(3) || c.args[1] != QLatin1String("export") || !c.isSet("to"))
                 return std::nullopt;
             kosmos::DatasetFilter filter;
             filter.protocol = c.value("protocol").toStdString();
             filter.policy = c.value("policy").toStdString();
             filter.outcome = c.value("outcome").toStdString();
             const QString format =
                 c.isSet("format") ? c.value("format") : QStringLiteral("kosmos");
             return runDatasetExport(c.str(2), filter, c.value("to").toStdString(),
                                     format.toStdString(), c.isSet("lossless"), c.json);
         }},
        {"import",
         "import DIR --ledger BUNDLE | import --lerobot DATASET --ledger BUNDLE "
         "[--episodes 0-9,17] [--camera KEY]",
         "import saved frames/video + actions (+ judge samples) as a run\n"
         "(layout: docs/import.md); --lerobot: a LeRobot dataset's episodes as recorded\n"
         "runs (frames of one camera, actions, success as a reference label)",
         {"ledger", "lerobot", "episodes", "camera"},
         [](const Call &c) -> R {
             if (!c.nArgs(2) || !c.isSet("ledger"))
                 return std::nullopt;
             if (c.isSet("lerobot"))
                 return runImportLeRobot(c.str(1), c.value("ledger").toStdString(),
                                         c.value("episodes").toStdString(),
                                         c.value("camera").toStdString());
             return runImport(c.str(1), c.value("ledger").toStdString());
         }},
        {"demo",
         "demo [--ledger BUNDLE] [--world synthetic|physics]",
         "build a demo ledger (default: demo.kosmos) with the synthetic backends, or\n"
         "with --world physics in the MuJoCo world (examples/physics-demo.json)",
         {"ledger", "workers", "world"},
         [](const Call &c) -> R {
             const auto workers = c.intValue("workers", 1, 64);
             if (!c.nArgs(1) || !workers)
                 return std::nullopt;
             const QString bundle =
                 c.isSet("ledger") ? c.value("ledger") : QStringLiteral("demo.kosmos");
             return runDemo(c.exeDir, bundle.toStdString(), *workers,
                            c.value("world").toStdString());
         }},
        {"completion",
         "completion bash",
         "a bash completion script generated from this table (source it, or install it\n"
         "as /usr/share/bash-completion/completions/kosmos-cli)",
         {},
         nullptr},
    };
    return table;
}

const Verb *findVerb(const QString &name)
{
    for (const Verb &v : verbs())
        if (name == QLatin1String(v.name))
            return &v;
    return nullptr;
}

// Indents every line of `text` by `by` spaces.
std::string indented(const std::string &text, const std::string &by)
{
    std::string out;
    std::size_t at = 0;
    for (;;) {
        const auto nl = text.find('\n', at);
        out += by + text.substr(at, nl == std::string::npos ? nl : nl - at) + "\n";
        if (nl == std::string::npos)
            return out;
        at = nl + 1;
    }
}

// The Commands section of --help, from the table.
std::string commandsText()
{
    std::string out = "Commands (kosmos-cli VERB --help: one verb and its options):\n";
    for (const Verb &v : verbs())
        out += indented(v.synopsis, "  ") + indented(v.summary, "      ");
    return out;
}

std::string optionSynopsis(const QCommandLineOption &o)
{
    std::string s = "--" + o.names().first().toStdString();
    if (!o.valueName().isEmpty())
        s += " " + o.valueName().toUpper().toStdString();
    return s;
}

// `kosmos-cli VERB --help`: the verb's synopsis, what it does, and only its options.
void printVerbHelp(const Verb &v, const OptionMap &options)
{
    std::cout << "Usage: kosmos-cli " << v.synopsis << "\n\n" << v.summary << "\n";
    if (!v.options.empty()) {
        std::cout << "\nOptions:\n";
        for (const char *name : v.options) {
            const QCommandLineOption &o = *options.at(QString::fromLatin1(name));
            std::string left = optionSynopsis(o);
            left.resize(std::max<std::size_t>(left.size() + 2, 28), ' ');
            std::cout << "  " << left << o.description().toStdString() << "\n";
        }
    }
    std::cout << "\nExit codes: see kosmos-cli --help.\n";
}

void printBashCompletion(const OptionMap &options)
{
    std::string names;
    for (const Verb &v : verbs())
        names += std::string(names.empty() ? "" : " ") + v.name;
    std::cout << "# bash completion for kosmos-cli (generated by `kosmos-cli completion bash`)\n"
                 "_kosmos_cli() {\n"
                 "    local cur verb opts\n"
                 "    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n"
                 "    verb=\"${COMP_WORDS[1]}\"\n"
                 "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
                 "        COMPREPLY=($(compgen -W \""
              << names
              << " --help --version\" -- \"$cur\"))\n"
                 "        return\n"
                 "    fi\n"
                 "    case \"$verb\" in\n";
    for (const Verb &v : verbs()) {
        std::string opts = "--help";
        for (const char *name : v.options)
            opts += " --" + options.at(QString::fromLatin1(name))->names().first().toStdString();
        std::cout << "    " << v.name << ") opts=\"" << opts << "\" ;;\n";
    }
    std::cout << "    *) opts=\"\" ;;\n"
                 "    esac\n"
                 "    if [[ \"$cur\" == -* ]]; then\n"
                 "        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
                 "    else\n"
                 "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
                 "    fi\n"
                 "}\n"
                 "complete -F _kosmos_cli kosmos-cli\n";
}

// Every option of every verb (a verb lists the ones it takes in kVerbs); --help, per-verb help
// and shell completion are generated from this table and kVerbs.
struct OptionSpec
{
    const char *name;
    const char *description;
    const char *valueName = nullptr; // null: a flag
    const char *defaultValue = nullptr;
    bool hidden = false;
};

constexpr OptionSpec kOptions[] = {
    {"json", "Machine-readable JSON output.", nullptr, nullptr, false},
    {"follow", "events: keep following until the run finishes.", nullptr, nullptr, false},
    {"interval-ms", "events --follow: poll interval (default 100).", "ms", "100", false},
    {"min-age", "gc: remove only stray objects older than this (seconds, default 600).", "seconds",
     "600", false},
    {"ledger", "run, demo: the ledger bundle to write; submit: the ledger the shards merge into.",
     "bundle", nullptr, false},
    {"workers", "run, demo: worker threads (default 1); submit: worker threads of each shard.", "n",
     "1", false},
    {"batch",
     "run, submit: episodes each worker runs in lockstep, one call of a batched component for all "
     "(default 1).",
     "n", "1", false},
    {"judge", "judge, fidelity prepare: the judge configuration (JSON: plugin, settings, quorum).",
     "config", nullptr, false},
    {"all", "judge: every completed rollout.", nullptr, nullptr, false},
    {"to", "export: the output folder.", "dir", nullptr, false},
    {"video", "export: also write rollout.mp4 with an overlay.", nullptr, nullptr, false},
    {"isolate",
     "run: each worker is a process of its own; a crash in plugin code fails that attempt (with "
     "its signal), not the batch.",
     nullptr, nullptr, false},
    {"test",
     "plugins: run one step of this adapter on a placeholder input and report its timing and "
     "memory (a smoke test, not evidence).",
     "id", nullptr, false},
    {"check",
     "plugins: whether this adapter can run here with --settings, and why not (nothing is run).",
     "id", nullptr, false},
    {"settings", "plugins --test, --check: the adapter's settings (JSON).", "json", "{}", false},
    {"source", "rank: success by judge (default), reference (synthetic), physics or human labels.",
     "source", "judge", false},
    {"reference-csv", "rank: reference success rates, lines \"policy,rate\".", "file", nullptr,
     false},
    {"key", "packet import: the key file written beside the exported packet.", "file", nullptr,
     false},
    {"labels",
     "calibrate: human (default), reference (synthetic ground truth) or physics (a simulator's "
     "state).",
     "source", "human", false},
    {"min-per-class",
     "calibrate, report: labelled successes and labelled failures the gate needs each; below "
     "either it is INCONCLUSIVE (default 20).",
     "n", "20", false},
    {"min-labels", "calibrate: decisive labelled clips the gate needs (default 20).", "n", "20",
     false},
    {"dry-run",
     "run: say how many runs there are, how many are already done, and whether the contracts fit; "
     "write nothing. submit --slurm: write the scripts, submit nothing.",
     nullptr, nullptr, false},
    {"split", "agreement: held_out (default), development or all.", "split", "held_out", false},
    {"audit", "report: the paired audit of two judge configurations, \"A,B\".", "a,b", nullptr,
     false},
    {"config",
     "report: the judge configuration to calibrate (default: the protocol's own judge); "
     "fidelity: the judge configuration whose verdicts count on both sides, its own or re-judging "
     "the recorded rollouts (kosmos-cli judge); its number in `kosmos-cli audit BUNDLE` or its "
     "key.",
     "n", nullptr, false},
    {"html", "report: write the record as HTML (plots embedded).", "file", nullptr, false},
    {"pdf", "report: write the record as PDF.", "file", nullptr, false},
    {"png", "report: write the start of the record as an image (900 px wide).", "file", nullptr,
     false},
    {"retry-failed",
     "run: give every failed run of the protocol a new attempt (the failed attempts stay "
     "recorded).",
     nullptr, nullptr, false},
    {"try", "judge-request: 1 for the format retry (default 0).", "n", "0", false},
    {"out", "judge-request: write the request body to this file.", "file", nullptr, false},
    {"send",
     "judge-request: send the request to this endpoint (http(s)://host:port, the recorded path is "
     "added) and compare the answer.",
     "url", nullptr, false},
    {"api-key-env", "judge-request --send: the environment variable holding the API key.", "var",
     nullptr, false},
    {"protocol",
     "dataset export: only runs of this protocol (SHA-256 or a prefix); fidelity prepare: the "
     "physics protocol.",
     "sha", nullptr, false},
    {"policy", "dataset export: only runs whose policy (\"adapter settings\") contains this text.",
     "text", nullptr, false},
    {"outcome",
     "dataset export: met, not_met or any (default), by the run's reference label (physics, "
     "synthetic or human).",
     "outcome", "any", false},
    {"world", "demo: synthetic (default) or physics (the MuJoCo world).", "world", "synthetic",
     false},
    {"lerobot",
     "import: DIR is a LeRobot dataset (v3.0, v2.1); each episode becomes a recorded run.", nullptr,
     nullptr, false},
    {"episodes",
     "import --lerobot, fidelity replay: the episodes to use, e.g. 0-9,17 (default: all).", "list",
     nullptr, false},
    {"camera",
     "import --lerobot: the camera whose frames the runs hold; fidelity replay: the camera "
     "compared (default: the first).",
     "key", nullptr, false},
    {"episode", "dataset inspect: also summarize this episode's actions, states and other values.",
     "n", nullptr, false},
    {"format",
     "dataset export: kosmos (default: the layout of docs/datasets.md) or lerobot (a LeRobot "
     "v3.0 dataset).",
     "format", "kosmos", false},
    {"lossless",
     "dataset export --format lerobot: encode the videos losslessly (H.264 RGB, crf 0): every "
     "frame reads back exactly.",
     nullptr, nullptr, false},
    {"physics",
     "fidelity: the physics protocol (name or SHA-256 prefix); again: a protocol of policies "
     "evaluated later on the same starts (same seed, tasks, episodes, horizon, world) joins it.",
     "protocol", nullptr, false},
    {"imagined",
     "fidelity: the imagined protocol (name or SHA-256 prefix); again: the imagined protocol of "
     "each physics protocol that joins (same world model, judge, horizon).",
     "protocol", nullptr, false},
    {"replays", "fidelity: physics starts replayed open loop in the world model (default 20).", "n",
     "20", false},
    {"open-loop",
     "fidelity prepare: every policy's imagined runs replay the actions it took in physics from "
     "the same start (protocol NAME-open-loop), not only those of policies that read the "
     "simulator's state: the world model's and judge's errors apart from how the policies react "
     "to imagined frames.",
     nullptr, nullptr, false},
    {"in-physics",
     "fidelity prepare: the imagined protocol whose runs' actions are replayed in the physics "
     "protocol's world from the same starts (protocol I-in-physics), each policy's closed-loop "
     "actions judged by physics; fidelity: that replay protocol (again: one per imagined "
     "protocol joined), which splits the report's per-episode disagreement into the world "
     "model's and judge's errors on the very actions and the policies acting otherwise on "
     "imagined frames.",
     "protocol", nullptr, false},
    {"world-model",
     "fidelity prepare, fidelity replay: the world model configuration (JSON: plugin, settings).",
     "file", nullptr, false},
    {"device",
     "run, submit: cpu, cuda or cuda:N for every component whose plugin can use it (torch.*; "
     "its settings.device); the others are left as they are.",
     "device", nullptr, false},
    {"shard",
     "run: only shard I of N of the protocol's runs (I/N, from 0; the ledger is that shard's).",
     "i/n", nullptr, false},
    {"shards", "submit: how many shards (Slurm array tasks or local processes).", "n", nullptr,
     false},
    {"slurm", "submit: run the shards as a Slurm job array (sbatch).", nullptr, nullptr, false},
    {"local", "submit: run the shards as processes on this machine, then merge.", nullptr, nullptr,
     false},
    {"partition", "submit --slurm: the partition (sbatch --partition).", "name", nullptr, false},
    {"gres", "submit --slurm: generic resources per shard task, e.g. gpu:1.", "gres", nullptr,
     false},
    {"time", "submit --slurm: the time limit of each shard task, e.g. 04:00:00.", "limit", nullptr,
     false},
    {"sbatch-arg",
     "submit --slurm: one more sbatch option (repeatable), written with '=': "
     "--sbatch-arg=--account=lab.",
     "arg", nullptr, false},
    {"model", "serve-world: serve this Python world model, MODULE:FACTORY.", "module:factory",
     nullptr, false},
    {"args", "serve-world --model: the factory's keyword arguments (a JSON object).", "json", "{}",
     false},
    {"shared", "serve-world --model: one instance for every connection (one GPU model).", nullptr,
     nullptr, false},
    {"import",
     "serve-world: a module to import first, which registers the environment (repeatable).",
     "module", nullptr, false},
    {"kwargs", "serve-world: gym.make's keyword arguments (a JSON object).", "json", "{}", false},
    {"port", "serve-world: the port to listen on (0: any free one; default 8765).", "n", "8765",
     false},
    {"host", "serve-world: the address to listen on (default 127.0.0.1).", "address", "127.0.0.1",
     false},
    {"python",
     "serve-world: the Python interpreter (default: $KOSMOS_PYTHON, else python3 on PATH).", "path",
     nullptr, false},
    {"runs-per-transaction", "merge: runs taken per transaction (default 64).", "n", "64", true},
    {"worker-process", "run: internal, one isolated worker.", nullptr, nullptr, true},
};

int usage(const QCommandLineParser &parser, const QString &message)
{
    std::cerr << "kosmos-cli: " << message.toStdString() << "\n\n"
              << parser.helpText().toStdString();
    return ExitCode::Usage;
}

} // namespace

// Called by the `kosmos-cli` front (app/cli/front.cpp) for every command line it does not answer
// itself.
extern "C" __attribute__((visibility("default"))) int kosmos_cli_main(int argc, char *argv[])
{
    kosmos::applyProcessTuning(); // before any plugin loads (util/ProcessTuning.h)
    // `report --html/--pdf` draws its plots with QCustomPlot (widgets): it needs a GUI
    // application, offscreen when there is no display. Every other verb stays QtCore only.
    std::unique_ptr<QCoreApplication> application;
    bool rendersReport = false;
    for (int i = 2; argc > 1 && std::strcmp(argv[1], "report") == 0 && i < argc; ++i)
        rendersReport = rendersReport || std::strncmp(argv[i], "--html", 6) == 0 ||
                        std::strncmp(argv[i], "--pdf", 5) == 0 ||
                        std::strncmp(argv[i], "--png", 5) == 0;
    if (rendersReport) {
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
            qEnvironmentVariableIsEmpty("DISPLAY") &&
            qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        application = std::make_unique<QApplication>(argc, argv);
    } else {
        application = std::make_unique<QCoreApplication>(argc, argv);
    }
    // Qt reads the command line as text: a byte that is not UTF-8 (a folder named in another
    // encoding) would reach the verb as U+FFFD and name a path that does not exist.
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg(argv[i]);
        if (const std::string text = kosmos::validUtf8(arg); text != arg) {
            std::cerr << "kosmos-cli: argument " << i << " ('" << text
                      << "') holds bytes that are not UTF-8; a file or folder name with such "
                         "bytes cannot be passed on here: rename it\n";
            return ExitCode::Usage;
        }
    }
    QCoreApplication::setApplicationName(QStringLiteral("kosmos-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KOSMOS_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QString::fromUtf8(kIntro) + QLatin1Char('\n') +
                                     QString::fromStdString(commandsText()) + QLatin1Char('\n') +
                                     QString::fromUtf8(kExitCodes));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("one of the commands above"));
    std::deque<QCommandLineOption> all; // stable addresses for the map below
    OptionMap options;
    for (const OptionSpec &spec : kOptions) {
        const QString name = QString::fromLatin1(spec.name);
        const QString description = QString::fromUtf8(spec.description);
        QCommandLineOption &o =
            spec.valueName
                ? all.emplace_back(name, description, QString::fromLatin1(spec.valueName),
                                   spec.defaultValue ? QString::fromLatin1(spec.defaultValue)
                                                     : QString())
                : all.emplace_back(name, description);
        if (spec.hidden)
            o.setFlags(QCommandLineOption::HiddenFromHelp);
        parser.addOption(o);
        options[name] = &o;
    }

    if (!parser.parse(QCoreApplication::arguments()))
        return usage(parser, parser.errorText());
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    const QStringList args = parser.positionalArguments();
    const Verb *verb = args.isEmpty() ? nullptr : findVerb(args.first());
    if (parser.isSet(QStringLiteral("help"))) {
        if (!verb)
            parser.showHelp(ExitCode::Ok);
        printVerbHelp(*verb, options);
        return ExitCode::Ok;
    }
    if (args.isEmpty())
        return usage(parser, QStringLiteral("no command given"));
    if (!verb)
        return usage(parser, QStringLiteral("unknown command '%1'").arg(args.first()));
    if (!verb->handler) { // completion
        if (args.size() != 2 || args[1] != QLatin1String("bash"))
            return usage(parser, QStringLiteral("usage: kosmos-cli completion bash"));
        printBashCompletion(options);
        return ExitCode::Ok;
    }
    const Call call{parser, args, options, parser.isSet(QStringLiteral("json")),
                    QCoreApplication::applicationDirPath().toStdString()};
    std::optional<int> code;
    try {
        code = verb->handler(call);
    } catch (const kosmos::Error &e) { // a handler that let one through: still its documented exit
        return reportError(e);
    } catch (const std::exception &e) { // never `terminate called`: say what and exit 4
        std::cerr << "kosmos-cli: error [internal]: " << args.first().toStdString() << ": "
                  << e.what() << "\n";
        return ExitCode::Failed;
    }
    if (code)
        return finishOutput(*code);
    std::cerr << "kosmos-cli: usage: kosmos-cli " << verb->synopsis << "\n(kosmos-cli "
              << verb->name << " --help lists its options)\n";
    return ExitCode::Usage;
}
