// kosmos: the desktop workstation. Wiring only: the main window composes the views of ui/.
#include "MainWindow.h"
#include "player/FramePlayer.h"

#include <QApplication>
#include <QCommandLineParser>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kosmos-workstation"));
    QApplication::setApplicationName(QStringLiteral("Kosmos"));
    QApplication::setApplicationVersion(QStringLiteral(KOSMOS_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Kosmos Workstation: review rollouts, verdicts and provenance."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("ledger"),
                                 QStringLiteral("a NAME.kosmos bundle to open"));
    const QCommandLineOption runOption(QStringLiteral("run"), QStringLiteral("select this run id"),
                                       QStringLiteral("id"));
    const QCommandLineOption screenshotOption(
        QStringLiteral("screenshot"), QStringLiteral("render the window to this PNG and quit"),
        QStringLiteral("png"));
    parser.addOptions({runOption, screenshotOption});
    parser.process(app);

    kosmos::ui::MainWindow window;
    window.resize(1400, 860);
    if (!parser.positionalArguments().isEmpty())
        window.openLedger(parser.positionalArguments().first());
    if (parser.isSet(runOption))
        window.selectRun(parser.value(runOption).toLongLong());
    window.show();
    if (parser.isSet(screenshotOption)) {
        app.processEvents();
        window.player()->seek(window.player()->frameCount() / 2);
        for (int i = 0; i < 20; ++i)
            app.processEvents();
        return window.grab().save(parser.value(screenshotOption)) ? 0 : 1;
    }
    return app.exec();
}
