// kosmos: the desktop workstation. Wiring only: the main window composes the views of ui/.
#include "AboutRuntime.h"
#include "MainWindow.h"
#include "Translations.h"
#include "player/FramePlayer.h"
#include "run/LauncherDialog.h"
#include "run/PluginManagerDialog.h"
#include "views/EvaluationView.h"
#include "workspaces/DatasetWorkspace.h"

#include "host/PluginRegistry.h"
#include "util/ProcessTuning.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QIcon>
#include <QScreen>
#include <QTabWidget>

#include <cstdio>

namespace {

// For Help > About (ui/AboutRuntime.h): reads plugin metadata only, loading none.
QStringList runtimeLines()
{
    kosmos::PluginRegistry registry;
    registry.scan(kosmos::PluginRegistry::configuredSearchPath(
        QCoreApplication::applicationDirPath().toStdString()));
    std::vector<std::pair<std::string, nlohmann::json>> plugins;
    for (const auto &plugin : registry.plugins())
        plugins.emplace_back(plugin.id, plugin.metadata);
    return kosmos::ui::libtorchAboutLines(plugins);
}

// Without a display a Qt GUI aborts: say so, and still answer --help, --version and
// --screenshot (which render offscreen).
bool haveDisplayOrOffscreenUse(int argc, char *argv[])
{
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        bool offscreenOk = false;
        for (int i = 1; i < argc; ++i) {
            const QByteArray arg(argv[i]);
            offscreenOk = offscreenOk || arg == "-h" || arg == "--help" || arg == "--version" ||
                          arg == "-v" || arg.startsWith("--screenshot");
        }
        if (!offscreenOk) {
            std::fprintf(stderr, "kosmos: no display (DISPLAY and WAYLAND_DISPLAY are unset).\n"
                                 "Use the headless twin, e.g. kosmos-cli info LEDGER, or set "
                                 "QT_QPA_PLATFORM=offscreen.\n");
            return false;
        }
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    return true;
}

void raiseDock(kosmos::ui::MainWindow &window, const QString &name)
{
    using Workspace = kosmos::ui::MainWindow::Workspace;
    const QHash<QString, Workspace> workspaces = {
        {QStringLiteral("review"), Workspace::Review},
        {QStringLiteral("compare"), Workspace::Compare},
        {QStringLiteral("evaluate"), Workspace::Evaluate},
        {QStringLiteral("evaluation"), Workspace::Evaluate},
        {QStringLiteral("run"), Workspace::Run},
        {QStringLiteral("progress"), Workspace::Run},
        {QStringLiteral("dataset"), Workspace::Dataset}};
    if (workspaces.contains(name)) {
        window.setWorkspace(workspaces.value(name));
        return;
    }
    window.setWorkspace(Workspace::Review); // the docks are the Review workspace's
    auto *dock = window.findChild<QDockWidget *>(name + QStringLiteral("Dock"));
    if (!dock)
        dock =
            window.findChild<QDockWidget *>(name.chopped(1) + QStringLiteral("Dock")); // "verdicts"
    if (dock) {
        dock->show();
        dock->raise();
    }
}

// --screenshot --dialog NAME: the plugin manager or the launcher (filled from a protocol file).
int screenshotOfDialog(kosmos::ui::MainWindow &window, const QString &name,
                       const QString &protocolFile, const QString &png)
{
    std::unique_ptr<QDialog> dialog;
    if (name == QLatin1String("plugins")) {
        dialog =
            std::make_unique<kosmos::ui::PluginManagerDialog>(*window.pluginCatalog(), &window);
    } else {
        auto launcher = std::make_unique<kosmos::ui::LauncherDialog>(
            *window.pluginCatalog(), *window.runController(), &window);
        QFile file(protocolFile);
        if (file.open(QIODevice::ReadOnly)) {
            const QByteArray bytes = file.readAll();
            launcher->setProtocol(nlohmann::json::parse(
                bytes.constData(), bytes.constData() + bytes.size(), nullptr, false));
            launcher->check();
        }
        dialog = std::move(launcher);
    }
    dialog->resize(1200, 760);
    dialog->show();
    for (int i = 0; i < 20; ++i)
        QCoreApplication::processEvents();
    return dialog->grab().save(png) ? 0 : 1;
}

// --screenshot: the window at a frame (-1: the middle one), once decode-ahead has settled.
int screenshotOfWindow(kosmos::ui::MainWindow &window, int frame, const QString &png)
{
    QCoreApplication::processEvents();
    kosmos::ui::FramePlayer *player =
        window.workspace() == kosmos::ui::MainWindow::Workspace::Dataset
            ? window.datasetWorkspace()->player()
            : window.player();
    player->seek(frame >= 0 ? frame : player->frameCount() / 2);
    QElapsedTimer settle; // let decode-ahead, plots and a video's first frame arrive
    settle.start();
    while (settle.elapsed() < 1500)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    const QPixmap picture = QGuiApplication::platformName() == QLatin1String("xcb")
                                ? window.screen()->grabWindow(window.winId())
                                : window.grab();
    return picture.save(png) ? 0 : 1;
}

} // namespace

int main(int argc, char *argv[])
{
    if (!haveDisplayOrOffscreenUse(argc, argv))
        return 2;
    kosmos::applyProcessTuning(); // before any plugin loads (util/ProcessTuning.h)
    // Qt Multimedia's GStreamer backend crashes without its plugins; FFmpeg is always there.
    if (qEnvironmentVariableIsEmpty("QT_MEDIA_BACKEND"))
        qputenv("QT_MEDIA_BACKEND", "ffmpeg");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kosmos-workstation"));
    QApplication::setApplicationName(QStringLiteral("Kosmos"));
    QApplication::setApplicationVersion(QStringLiteral(KOSMOS_VERSION));
    // The desktop entry (packaging/linux) names the window's application on Wayland; the icon is
    // the installed theme's, else the one built in.
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.kosmos_workstation.Kosmos"));
    QIcon icon = QIcon::fromTheme(QStringLiteral("io.github.kosmos_workstation.Kosmos"));
    if (icon.isNull())
        for (const int size : {32, 64, 256})
            icon.addFile(QStringLiteral(":/icons/kosmos-%1.png").arg(size), QSize(size, size));
    QApplication::setWindowIcon(icon);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Kosmos Workstation: review rollouts, verdicts and provenance."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(
        QStringLiteral("ledger"),
        QStringLiteral("a NAME.kosmos bundle to open, or a LeRobot dataset folder to review"));
    const QCommandLineOption episodeOption(QStringLiteral("episode"),
                                           QStringLiteral("show this episode of a dataset"),
                                           QStringLiteral("index"));
    const QCommandLineOption sizeOption(
        QStringLiteral("size"), QStringLiteral("with --screenshot: the window's size (1400x860)"),
        QStringLiteral("WxH"));
    const QCommandLineOption runOption(QStringLiteral("run"), QStringLiteral("select this run id"),
                                       QStringLiteral("id"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"),
        QStringLiteral("render the window to this PNG and quit (a real screen grab under X11, so "
                       "videos show; a widget grab offscreen)"),
        QStringLiteral("png"));
    const QCommandLineOption compareOption(QStringLiteral("compare"),
                                           QStringLiteral("compare the selected run with this one"),
                                           QStringLiteral("id"));
    const QCommandLineOption raiseOption(
        QStringLiteral("raise"),
        QStringLiteral(
            "show this workspace (review, compare, evaluate, run, dataset) or bring this dock of "
            "Review to "
            "the front: runs, verdicts, provenance, bookmarks, events"),
        QStringLiteral("dock"));
    const QCommandLineOption languageOption(
        QStringLiteral("language"),
        QStringLiteral("user-interface language (en, de), this time only"), QStringLiteral("code"));
    const QCommandLineOption frameOption(QStringLiteral("frame"),
                                         QStringLiteral("show this frame of the run"),
                                         QStringLiteral("index"));
    const QCommandLineOption dialogOption(
        QStringLiteral("dialog"),
        QStringLiteral("with --screenshot: render this dialog instead: launcher, plugins"),
        QStringLiteral("name"));
    const QCommandLineOption protocolOption(
        QStringLiteral("protocol"),
        QStringLiteral("with --dialog launcher: fill it from this file"), QStringLiteral("json"));
    const QCommandLineOption tabOption(
        QStringLiteral("evaluation-tab"),
        QStringLiteral("show this tab of the Evaluate workspace (0-3; 3: Fidelity)"),
        QStringLiteral("index"));
    parser.addOptions({runOption, screenshotOption, compareOption, raiseOption, languageOption,
                       frameOption, dialogOption, protocolOption, tabOption, episodeOption,
                       sizeOption});
    parser.process(app);

    const bool screenshot = parser.isSet(screenshotOption);
    if (screenshot) // reproducible pictures: never the user's saved layout or language
        QApplication::setOrganizationName(QStringLiteral("kosmos-workstation-screenshots"));
    kosmos::ui::installTranslations(parser.isSet(languageOption)
                                        ? QLocale(parser.value(languageOption))
                                        : kosmos::ui::configuredLocale());

    kosmos::ui::MainWindow window;
    window.setAboutExtras(runtimeLines);
    window.setCliPath(QCoreApplication::applicationDirPath() + QStringLiteral("/kosmos-cli"));
    if (screenshot) { // otherwise the window keeps its saved size, or fits the screen
        const QStringList size = parser.value(sizeOption).split(QLatin1Char('x'));
        if (size.size() == 2 && size[0].toInt() > 0 && size[1].toInt() > 0)
            window.resize(size[0].toInt(), size[1].toInt());
        else
            window.resize(1400, 860);
    }
    if (!parser.positionalArguments().isEmpty())
        window.openLedger(parser.positionalArguments().first());
    if (parser.isSet(episodeOption))
        window.datasetWorkspace()->showEpisode(parser.value(episodeOption).toLongLong());
    if (parser.isSet(runOption))
        window.selectRun(parser.value(runOption).toLongLong());
    if (parser.isSet(compareOption))
        window.compareRuns(parser.value(runOption).toLongLong(),
                           parser.value(compareOption).toLongLong());
    if (parser.isSet(raiseOption))
        raiseDock(window, parser.value(raiseOption));
    if (parser.isSet(tabOption))
        window.evaluation()->tabs()->setCurrentIndex(parser.value(tabOption).toInt());
    window.show();
    if (screenshot && parser.isSet(dialogOption))
        return screenshotOfDialog(window, parser.value(dialogOption), parser.value(protocolOption),
                                  parser.value(screenshotOption));
    if (screenshot)
        return screenshotOfWindow(
            window, parser.isSet(frameOption) ? parser.value(frameOption).toInt() : -1,
            parser.value(screenshotOption));
    return app.exec();
}
