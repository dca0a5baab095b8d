// kosmos-cli: the headless twin of the Kosmos workstation. Wiring only: every verb calls core/.
#include "CliCommands.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>

#include <cstring>
#include <iostream>
#include <memory>

namespace {

const char *const kDescription =
    "Kosmos: auditable evaluation of robot policies through learned world models.\n"
    "\n"
    "Commands:\n"
    "  init BUNDLE              create a new ledger (BUNDLE is NAME.kosmos)\n"
    "  info BUNDLE              schema version, counts by status, sizes\n"
    "  verify BUNDLE            check integrity, every artifact hash, references, seals\n"
    "  events BUNDLE RUN        print a run's events (RUN: run id or run-key prefix);\n"
    "                           --follow keeps printing as other processes write\n"
    "  plugins                  every plugin found: id, family, version, API version,\n"
    "                           available or unavailable with the reason;\n"
    "                           --test ID [--settings JSON]: one step of that adapter\n"
    "                           with its timing and memory (a smoke test only)\n"
    "  run PROTOCOL --ledger L  run an evaluation protocol (JSON) into ledger L;\n"
    "                           running it again resumes (finished runs are skipped);\n"
    "                           --isolate: worker processes, a plugin crash fails one\n"
    "                           attempt (recorded with its signal), never the batch;\n"
    "                           --retry-failed: failed runs get a new attempt (the\n"
    "                           failed attempts stay recorded)\n"
    "  judge RUN|--all --ledger L --judge CONFIG\n"
    "                           re-judge finished rollouts with another judge\n"
    "                           configuration (new judgments beside the old ones)\n"
    "  judgments BUNDLE RUN     a run's judgments: samples, formats, outcome\n"
    "  judge-request BUNDLE JUDGMENT SAMPLE [--try 1] [--out FILE] [--send URL]\n"
    "                           the exact request of one judge call, rebuilt from the\n"
    "                           ledger and hash-checked; --send replays it byte for\n"
    "                           byte to another endpoint (--api-key-env VAR)\n"
    "  calibrate BUNDLE [CONFIG] [--labels human|reference]\n"
    "                           a judge configuration against labels: confusion,\n"
    "                           kappa, sensitivity/specificity with intervals, gate\n"
    "  packet export BUNDLE RUN...|--all --to DIR / packet import BUNDLE ANSWERS --key K\n"
    "                           blind annotation packets: frames and task only, out;\n"
    "                           human labels, hash-checked, back in\n"
    "  rank BUNDLE [PROTOCOL]   success per policy with intervals, pairwise orders\n"
    "                           or indeterminate; --reference-csv: Pearson, Spearman,\n"
    "                           MMRV against reference rates\n"
    "  audit BUNDLE [A B]       two judge configurations on the same clips (the\n"
    "                           paired audit); without A B, lists the configurations\n"
    "  agreement BUNDLE [A B] [--split held_out|development|all]\n"
    "                           two human annotators on the clips both labelled;\n"
    "                           without A B, lists the annotators\n"
    "  report BUNDLE [PROTOCOL] the evaluation record: protocol hash, components,\n"
    "                           rates with n and intervals, missing-outcome bounds,\n"
    "                           calibration and gate, audit (--audit A,B), reference\n"
    "                           rates (--reference-csv), what it does and does not\n"
    "                           support; text, --json, or --html FILE / --pdf FILE\n"
    "  export BUNDLE RUN --to DIR [--video]\n"
    "                           write a run's frames (PNG), actions (CSV) and a video\n"
    "  import DIR --ledger L    import saved frames/video + actions (+ judge samples)\n"
    "                           as a run (layout: docs/import.md)\n"
    "  demo [--ledger L]        build a demo ledger with the synthetic backends\n"
    "                           (default L: demo.kosmos)\n"
    "\n"
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
    "  130  interrupted (events --follow, run, demo: Ctrl-C cancels cleanly)\n"
    "\n"
    "Plugins are searched in <bin>/../lib/kosmos/plugins, then in KOSMOS_PLUGIN_PATH\n"
    "(folders separated by ':'), then in the folders saved in the workstation's settings\n"
    "(File > Settings; key plugins/folders of ~/.config/kosmos-workstation/Kosmos.conf).";

int usage(const QCommandLineParser &parser, const QString &message)
{
    std::cerr << "kosmos-cli: " << message.toStdString() << "\n\n"
              << parser.helpText().toStdString();
    return ExitCode::Usage;
}

} // namespace

int main(int argc, char *argv[])
{
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
    QCoreApplication::setApplicationName(QStringLiteral("kosmos-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KOSMOS_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QString::fromUtf8(kDescription));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("one of the commands above"));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Machine-readable JSON output."));
    const QCommandLineOption followOption(
        QStringLiteral("follow"), QStringLiteral("events: keep following until the run finishes."));
    const QCommandLineOption intervalOption(
        QStringLiteral("interval-ms"),
        QStringLiteral("events --follow: poll interval (default 100)."), QStringLiteral("ms"),
        QStringLiteral("100"));
    const QCommandLineOption ledgerOption(QStringLiteral("ledger"),
                                          QStringLiteral("run, demo: the ledger bundle to write."),
                                          QStringLiteral("bundle"));
    const QCommandLineOption workersOption(QStringLiteral("workers"),
                                           QStringLiteral("run, demo: worker threads (default 1)."),
                                           QStringLiteral("n"), QStringLiteral("1"));
    const QCommandLineOption judgeOption(
        QStringLiteral("judge"),
        QStringLiteral("judge: the judge configuration (JSON: plugin, settings, quorum)."),
        QStringLiteral("config"));
    const QCommandLineOption allOption(QStringLiteral("all"),
                                       QStringLiteral("judge: every completed rollout."));
    const QCommandLineOption toOption(
        QStringLiteral("to"), QStringLiteral("export: the output folder."), QStringLiteral("dir"));
    const QCommandLineOption videoOption(
        QStringLiteral("video"), QStringLiteral("export: also write rollout.mp4 with an overlay."));
    const QCommandLineOption isolateOption(
        QStringLiteral("isolate"),
        QStringLiteral("run: each worker is a process of its own; a crash in plugin code fails "
                       "that attempt (with its signal), not the batch."));
    const QCommandLineOption testOption(
        QStringLiteral("test"),
        QStringLiteral("plugins: run one step of this adapter on a placeholder input and report "
                       "its timing and memory (a smoke test, not evidence)."),
        QStringLiteral("id"));
    const QCommandLineOption settingsOption(
        QStringLiteral("settings"),
        QStringLiteral("plugins --test: the adapter's settings (JSON)."), QStringLiteral("json"),
        QStringLiteral("{}"));
    const QCommandLineOption sourceOption(
        QStringLiteral("source"),
        QStringLiteral("rank: success by judge (default), reference or human labels."),
        QStringLiteral("source"), QStringLiteral("judge"));
    const QCommandLineOption referenceCsvOption(
        QStringLiteral("reference-csv"),
        QStringLiteral("rank: reference success rates, lines \"policy,rate\"."),
        QStringLiteral("file"));
    const QCommandLineOption keyOption(
        QStringLiteral("key"),
        QStringLiteral("packet import: the key file written beside the exported packet."),
        QStringLiteral("file"));
    const QCommandLineOption labelsOption(
        QStringLiteral("labels"),
        QStringLiteral("calibrate: human (default) or reference (synthetic ground truth)."),
        QStringLiteral("source"), QStringLiteral("human"));
    const QCommandLineOption minLabelsOption(
        QStringLiteral("min-labels"),
        QStringLiteral("calibrate: decisive labelled clips the gate needs (default 20)."),
        QStringLiteral("n"), QStringLiteral("20"));
    const QCommandLineOption dryRunOption(
        QStringLiteral("dry-run"),
        QStringLiteral("run: say how many runs there are, how many are already done, and whether "
                       "the contracts fit; write nothing."));
    const QCommandLineOption splitOption(
        QStringLiteral("split"),
        QStringLiteral("agreement: held_out (default), development or all."),
        QStringLiteral("split"), QStringLiteral("held_out"));
    const QCommandLineOption auditOption(
        QStringLiteral("audit"),
        QStringLiteral("report: the paired audit of two judge configurations, \"A,B\"."),
        QStringLiteral("a,b"));
    const QCommandLineOption configOption(
        QStringLiteral("config"),
        QStringLiteral("report: the judge configuration to calibrate (default: the protocol's "
                       "own judge)."),
        QStringLiteral("n"));
    const QCommandLineOption htmlOption(
        QStringLiteral("html"),
        QStringLiteral("report: write the record as HTML (plots embedded)."),
        QStringLiteral("file"));
    const QCommandLineOption pdfOption(QStringLiteral("pdf"),
                                       QStringLiteral("report: write the record as PDF."),
                                       QStringLiteral("file"));
    const QCommandLineOption pngOption(
        QStringLiteral("png"),
        QStringLiteral("report: write the start of the record as an image (900 px wide)."),
        QStringLiteral("file"));
    const QCommandLineOption retryFailedOption(
        QStringLiteral("retry-failed"),
        QStringLiteral("run: give every failed run of the protocol a new attempt (the failed "
                       "attempts stay recorded)."));
    const QCommandLineOption tryOption(
        QStringLiteral("try"), QStringLiteral("judge-request: 1 for the format retry (default 0)."),
        QStringLiteral("n"), QStringLiteral("0"));
    const QCommandLineOption outOption(
        QStringLiteral("out"),
        QStringLiteral("judge-request: write the request body to this file."),
        QStringLiteral("file"));
    const QCommandLineOption sendOption(
        QStringLiteral("send"),
        QStringLiteral("judge-request: send the request to this endpoint (http(s)://host:port, "
                       "the recorded path is added) and compare the answer."),
        QStringLiteral("url"));
    const QCommandLineOption apiKeyEnvOption(
        QStringLiteral("api-key-env"),
        QStringLiteral("judge-request --send: the environment variable holding the API key."),
        QStringLiteral("var"));
    QCommandLineOption workerProcessOption(QStringLiteral("worker-process"),
                                           QStringLiteral("run: internal, one isolated worker."));
    workerProcessOption.setFlags(QCommandLineOption::HiddenFromHelp);
    parser.addOptions(
        {jsonOption,        followOption, intervalOption,     ledgerOption, workersOption,
         judgeOption,       allOption,    toOption,           videoOption,  isolateOption,
         dryRunOption,      testOption,   settingsOption,     labelsOption, minLabelsOption,
         keyOption,         sourceOption, referenceCsvOption, splitOption,  auditOption,
         configOption,      htmlOption,   pdfOption,          pngOption,    workerProcessOption,
         retryFailedOption, tryOption,    outOption,          sendOption,   apiKeyEnvOption});

    if (!parser.parse(QCoreApplication::arguments()))
        return usage(parser, parser.errorText());
    if (parser.isSet(QStringLiteral("version")))
        parser.showVersion();
    if (parser.isSet(QStringLiteral("help")))
        parser.showHelp(ExitCode::Ok);

    const QStringList args = parser.positionalArguments();
    if (args.isEmpty())
        return usage(parser, QStringLiteral("no command given"));
    const QString command = args.first();
    const bool json = parser.isSet(jsonOption);
    auto expectArgs = [&](qsizetype n) { return args.size() == n; };

    if (command == QLatin1String("init")) {
        if (!expectArgs(2))
            return usage(parser, QStringLiteral("usage: kosmos-cli init BUNDLE"));
        return runInit(args[1].toStdString());
    }
    if (command == QLatin1String("info")) {
        if (!expectArgs(2))
            return usage(parser, QStringLiteral("usage: kosmos-cli info BUNDLE [--json]"));
        return runInfo(args[1].toStdString(), json);
    }
    if (command == QLatin1String("verify")) {
        if (!expectArgs(2))
            return usage(parser, QStringLiteral("usage: kosmos-cli verify BUNDLE [--json]"));
        return runVerify(args[1].toStdString(), json);
    }
    if (command == QLatin1String("events")) {
        if (!expectArgs(3))
            return usage(parser,
                         QStringLiteral("usage: kosmos-cli events BUNDLE RUN [--follow] [--json]"));
        bool ok = false;
        const int interval = parser.value(intervalOption).toInt(&ok);
        if (!ok || interval < 1 || interval > 60000)
            return usage(parser, QStringLiteral("--interval-ms needs a number from 1 to 60000"));
        return runEvents(args[1].toStdString(), args[2].toStdString(), parser.isSet(followOption),
                         json, interval);
    }
    const std::string exeDir = QCoreApplication::applicationDirPath().toStdString();
    bool workersOk = false;
    const int workers = parser.value(workersOption).toInt(&workersOk);
    if (!workersOk || workers < 1 || workers > 64)
        return usage(parser, QStringLiteral("--workers needs a number from 1 to 64"));
    if (command == QLatin1String("plugins")) {
        if (!expectArgs(1))
            return usage(parser, QStringLiteral("usage: kosmos-cli plugins [--json] [--test ID "
                                                "[--settings JSON]]"));
        if (parser.isSet(testOption))
            return runPluginTest(exeDir, parser.value(testOption).toStdString(),
                                 parser.value(settingsOption).toStdString(), json);
        return runPlugins(exeDir, json);
    }
    if (command == QLatin1String("run")) {
        if (!expectArgs(2) || !parser.isSet(ledgerOption))
            return usage(
                parser,
                QStringLiteral(
                    "usage: kosmos-cli run PROTOCOL --ledger BUNDLE [--workers N] [--isolate] "
                    "[--retry-failed] [--dry-run]"));
        const RunMode mode = parser.isSet(dryRunOption)          ? RunMode::DryRun
                             : parser.isSet(workerProcessOption) ? RunMode::WorkerProcess
                             : parser.isSet(isolateOption)       ? RunMode::Isolated
                                                                 : RunMode::Threads;
        return runProtocol(exeDir, args[1].toStdString(), parser.value(ledgerOption).toStdString(),
                           workers, json, mode, parser.isSet(retryFailedOption));
    }
    if (command == QLatin1String("judge")) {
        const bool all = parser.isSet(allOption);
        if (!parser.isSet(ledgerOption) || !parser.isSet(judgeOption) ||
            (all ? !expectArgs(1) : !expectArgs(2)))
            return usage(
                parser,
                QStringLiteral(
                    "usage: kosmos-cli judge RUN|--all --ledger BUNDLE --judge CONFIG.json"));
        return runJudge(exeDir, parser.value(ledgerOption).toStdString(),
                        all ? std::string("--all") : args[1].toStdString(),
                        parser.value(judgeOption).toStdString());
    }
    if (command == QLatin1String("packet")) {
        const QString verb = args.size() > 1 ? args[1] : QString();
        if (verb == QLatin1String("export") && args.size() >= 3 && parser.isSet(toOption) &&
            (parser.isSet(allOption) != (args.size() > 3))) {
            std::vector<std::string> runs;
            for (qsizetype i = 3; i < args.size(); ++i)
                runs.push_back(args[i].toStdString());
            return runPacketExport(args[2].toStdString(), runs, parser.isSet(allOption),
                                   parser.value(toOption).toStdString());
        }
        if (verb == QLatin1String("import") && expectArgs(4) && parser.isSet(keyOption))
            return runPacketImport(args[2].toStdString(), args[3].toStdString(),
                                   parser.value(keyOption).toStdString());
        return usage(parser, QStringLiteral("usage: kosmos-cli packet export BUNDLE RUN...|--all "
                                            "--to DIR\n       kosmos-cli packet import BUNDLE "
                                            "ANSWERS.json --key DIR.key.json"));
    }
    if (command == QLatin1String("rank")) {
        const QString source = parser.value(sourceOption);
        if (!(expectArgs(2) || expectArgs(3)) ||
            (source != QLatin1String("judge") && source != QLatin1String("reference") &&
             source != QLatin1String("human")))
            return usage(parser, QStringLiteral("usage: kosmos-cli rank BUNDLE [PROTOCOL] "
                                                "[--source judge|reference|human] "
                                                "[--reference-csv FILE] [--json]"));
        return runRank(args[1].toStdString(), expectArgs(3) ? args[2].toStdString() : "",
                       source.toStdString(), parser.value(referenceCsvOption).toStdString(), json);
    }
    if (command == QLatin1String("audit")) {
        if (!(expectArgs(2) || expectArgs(4)))
            return usage(parser,
                         QStringLiteral("usage: kosmos-cli audit BUNDLE [CONFIG_A CONFIG_B] "
                                        "[--json]"));
        std::vector<std::string> configs;
        for (qsizetype i = 2; i < args.size(); ++i)
            configs.push_back(args[i].toStdString());
        return runAudit(args[1].toStdString(), configs, json);
    }
    if (command == QLatin1String("calibrate")) {
        const QString labels = parser.value(labelsOption);
        bool ok = false;
        const int minLabels = parser.value(minLabelsOption).toInt(&ok);
        if (!(expectArgs(2) || expectArgs(3)) || !ok || minLabels < 1 ||
            (labels != QLatin1String("human") && labels != QLatin1String("reference")))
            return usage(parser, QStringLiteral("usage: kosmos-cli calibrate BUNDLE [CONFIG] "
                                                "[--labels human|reference] [--min-labels N] "
                                                "[--json]"));
        return runCalibrate(args[1].toStdString(), expectArgs(3) ? args[2].toStdString() : "",
                            labels.toStdString(), minLabels, json);
    }
    if (command == QLatin1String("agreement")) {
        const QString split = parser.value(splitOption);
        bool ok = false;
        const int minClips = parser.value(minLabelsOption).toInt(&ok);
        if (!(expectArgs(2) || expectArgs(4)) || !ok || minClips < 1)
            return usage(parser, QStringLiteral("usage: kosmos-cli agreement BUNDLE [A B] "
                                                "[--split held_out|development|all] "
                                                "[--min-labels N] [--json]"));
        std::vector<std::string> annotators;
        for (qsizetype i = 2; i < args.size(); ++i)
            annotators.push_back(args[i].toStdString());
        return runAgreement(args[1].toStdString(), annotators, split.toStdString(), minClips, json);
    }
    if (command == QLatin1String("report")) {
        const QString source = parser.value(sourceOption);
        bool ok = false;
        ReportRequest request;
        request.minLabels = parser.value(minLabelsOption).toInt(&ok);
        const QStringList audit =
            parser.value(auditOption).split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (!(expectArgs(2) || expectArgs(3)) || !ok || request.minLabels < 1 ||
            (parser.isSet(auditOption) && audit.size() != 2) ||
            (source != QLatin1String("judge") && source != QLatin1String("reference") &&
             source != QLatin1String("human")))
            return usage(parser, QStringLiteral("usage: kosmos-cli report BUNDLE [PROTOCOL] "
                                                "[--source judge|reference|human] [--config N] "
                                                "[--audit A,B] [--reference-csv FILE] "
                                                "[--min-labels N] [--json | --html FILE "
                                                "--pdf FILE]"));
        request.bundle = args[1].toStdString();
        request.protocol = expectArgs(3) ? args[2].toStdString() : "";
        request.source = source.toStdString();
        request.judgeConfig = parser.value(configOption).toStdString();
        for (const QString &a : audit)
            request.audit.push_back(a.trimmed().toStdString());
        request.referenceCsv = parser.value(referenceCsvOption).toStdString();
        request.htmlPath = parser.value(htmlOption).toStdString();
        request.pdfPath = parser.value(pdfOption).toStdString();
        request.pngPath = parser.value(pngOption).toStdString();
        request.json = json;
        return runReport(request);
    }
    if (command == QLatin1String("judgments")) {
        if (!expectArgs(3))
            return usage(parser, QStringLiteral("usage: kosmos-cli judgments BUNDLE RUN [--json]"));
        return runJudgments(args[1].toStdString(), args[2].toStdString(), json);
    }
    if (command == QLatin1String("judge-request")) {
        bool okJudgment = false, okSample = false, okTry = false;
        JudgeRequestOptions o;
        if (expectArgs(4)) {
            o.judgmentId = args[2].toLongLong(&okJudgment);
            o.sampleIndex = args[3].toInt(&okSample);
        }
        o.tryIndex = parser.value(tryOption).toInt(&okTry);
        if (!expectArgs(4) || !okJudgment || !okSample || !okTry || o.judgmentId < 1 ||
            o.sampleIndex < 0 || (o.tryIndex != 0 && o.tryIndex != 1))
            return usage(parser, QStringLiteral("usage: kosmos-cli judge-request BUNDLE JUDGMENT "
                                                "SAMPLE [--try 0|1] [--out FILE] [--send URL "
                                                "[--api-key-env VAR]] [--json]"));
        o.bundle = args[1].toStdString();
        o.outPath = parser.value(outOption).toStdString();
        o.sendUrl = parser.value(sendOption).toStdString();
        o.apiKeyEnv = parser.value(apiKeyEnvOption).toStdString();
        o.json = json;
        return runJudgeRequest(o);
    }
    if (command == QLatin1String("export")) {
        if (!expectArgs(3) || !parser.isSet(toOption))
            return usage(parser,
                         QStringLiteral("usage: kosmos-cli export BUNDLE RUN --to DIR [--video]"));
        return runExport(args[1].toStdString(), args[2].toStdString(),
                         parser.value(toOption).toStdString(), parser.isSet(videoOption));
    }
    if (command == QLatin1String("import")) {
        if (!expectArgs(2) || !parser.isSet(ledgerOption))
            return usage(parser, QStringLiteral("usage: kosmos-cli import DIR --ledger BUNDLE"));
        return runImport(args[1].toStdString(), parser.value(ledgerOption).toStdString());
    }
    if (command == QLatin1String("demo")) {
        if (!expectArgs(1))
            return usage(parser,
                         QStringLiteral("usage: kosmos-cli demo [--ledger BUNDLE] [--workers N]"));
        const QString bundle =
            parser.isSet(ledgerOption) ? parser.value(ledgerOption) : QStringLiteral("demo.kosmos");
        return runDemo(exeDir, bundle.toStdString(), workers);
    }
    return usage(parser, QStringLiteral("unknown command '%1'").arg(command));
}
