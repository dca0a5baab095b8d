// kosmos-cli: the headless twin of the Kosmos workstation. Wiring only: every verb calls core/.
#include "CliCommands.h"

#include <QCommandLineParser>
#include <QCoreApplication>

#include <iostream>

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
    "\n"
    "BUNDLE may also be the bundle's ledger.sqlite.\n"
    "\n"
    "Exit codes:\n"
    "  0    success (verify: the ledger is clean)\n"
    "  1    verify found problems; each is listed\n"
    "  2    bad command line\n"
    "  3    cannot open the ledger: missing, not a ledger, newer schema, failed migration\n"
    "  4    any other failure (I/O, database, invalid input)\n"
    "  130  events --follow interrupted";

int usage(const QCommandLineParser &parser, const QString &message)
{
    std::cerr << "kosmos-cli: " << message.toStdString() << "\n\n"
              << parser.helpText().toStdString();
    return ExitCode::Usage;
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("kosmos-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(KOSMOS_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QString::fromUtf8(kDescription));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("command"),
                                 QStringLiteral("init, info, verify or events"));
    const QCommandLineOption jsonOption(QStringLiteral("json"),
                                        QStringLiteral("Machine-readable JSON output."));
    const QCommandLineOption followOption(
        QStringLiteral("follow"), QStringLiteral("events: keep following until the run finishes."));
    const QCommandLineOption intervalOption(
        QStringLiteral("interval-ms"),
        QStringLiteral("events --follow: poll interval (default 100)."), QStringLiteral("ms"),
        QStringLiteral("100"));
    parser.addOptions({jsonOption, followOption, intervalOption});

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
    return usage(parser, QStringLiteral("unknown command '%1'").arg(command));
}
