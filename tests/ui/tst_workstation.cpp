// Qt Test (offscreen): the workstation as a new user meets it - workspaces, no stale state,
// interactive traces, compare with a picker, verdict summary, focus and multi-selection, runs
// filters. The demo ledger (kosmos-cli demo: 3 scripted policies x 2 tasks x 10 episodes) is the
// fixture, as in the README's first command.
#include "MainWindow.h"
#include "Translations.h"
#include "dataset/LeRobotDataset.h"
#include "dataset/ParquetReader.h"
#include "dialogs/ExportDialog.h"
#include "evaluation/EvaluationRecord.h"
#include "ledger/Ledger.h"
#include "models/RunsModel.h"
#include "panels/BookmarksPanel.h"
#include "panels/EventsPanel.h"
#include "panels/ProvenancePanel.h"
#include "panels/VerdictPanel.h"
#include "player/FramePlayer.h"
#include "player/TracesPlot.h"
#include "queries/RolloutQuery.h"
#include "report/ReportWriter.h"
#include "run/LauncherDialog.h"
#include "run/PluginCatalog.h"
#include "run/ProgressPanel.h"
#include "run/RunController.h"
#include "run/SettingsForm.h"
#include "views/CompareView.h"
#include "views/EvaluationView.h"
#include "views/RunsView.h"
#include "workspaces/DatasetWorkspace.h"
#include "workspaces/ReviewWorkspace.h"

#include "TestSupport.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopeGuard>
#include <QScreen>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QWheelEvent>
#include <qcustomplot.h>

#include <filesystem>
#include <fstream>

using namespace kosmos;

class TestWorkstation : public QObject
{
    Q_OBJECT

private:
    test::TempDir m_dir;
    QString m_demo;

    QString copyOfDemo(const char *name)
    {
        const auto to = m_dir / name;
        std::filesystem::copy(m_demo.toStdString(), to, std::filesystem::copy_options::recursive);
        return QString::fromStdString(to.string());
    }

    static void selectRows(ui::MainWindow &window, const QList<int> &rows)
    {
        QTableView *table = window.runsView()->table();
        table->clearSelection();
        for (int r : rows)
            table->selectionModel()->select(window.runsModel()->index(r, 0),
                                            QItemSelectionModel::Select |
                                                QItemSelectionModel::Rows);
    }

private slots:
    void initTestCase()
    {
        QSettings().clear();
        // tst_workstation_real_window_de runs under a German locale: the workstation's and Qt's
        // own German, as the application installs them.
        if (QLocale().language() == QLocale::German)
            QVERIFY(ui::installTranslations(QLocale(), QStringLiteral(KOSMOS_QM_DIR)));
        m_demo = QString::fromStdString((m_dir / "demo.kosmos").string());
        const auto r = test::runProcess(
            {test::cliPath(), "demo", "--ledger", m_demo.toStdString(), "--workers", "2"});
        QVERIFY2(r.exitCode == 0, r.output.c_str());
    }

    void cleanupTestCase() { QSettings().clear(); }

    // 1. Opening another ledger resets every view; nothing of the previous one stays.
    void openingAnotherLedgerResetsEveryView()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(copyOfDemo("stale.kosmos")));
        window.selectRun(5);
        window.player()->seek(3);
        QVERIFY(window.addBookmark(QStringLiteral("look")));
        window.compareRuns(5, 6);
        QVERIFY(window.player()->frameCount() > 0);
        QVERIFY(window.traces()->trackCount() > 0);
        QVERIFY(window.verdicts()->tree()->topLevelItemCount() > 0);
        QVERIFY(window.provenance()->tree()->topLevelItemCount() > 0);
        QCOMPARE(window.bookmarks()->list()->count(), 1);
        QVERIFY(window.events()->eventCount() > 0);
        QVERIFY(window.compareView()->playerA()->frameCount() > 0);
        QVERIFY(window.ledgerSummary()->text().contains(QStringLiteral("60 runs")));
        // File > New ledger: an empty one.
        QVERIFY(window.createLedger(QString::fromStdString((m_dir / "empty.kosmos").string())));
        QCOMPARE(window.player()->frameCount(), 0);
        QCOMPARE(window.traces()->trackCount(), 0);
        QCOMPARE(window.verdicts()->tree()->topLevelItemCount(), 0);
        QCOMPARE(window.verdicts()->summary()->text(), QStringLiteral("No run selected."));
        QCOMPARE(window.provenance()->tree()->topLevelItemCount(), 0);
        QCOMPARE(window.bookmarks()->list()->count(), 0);
        QCOMPARE(window.events()->eventCount(), 0);
        QCOMPARE(window.compareView()->playerA()->frameCount(), 0);
        QCOMPARE(window.compareView()->runA(), 0);
        QVERIFY2(window.ledgerSummary()->text().contains(QStringLiteral("0 runs, 0 artifacts")),
                 qPrintable(window.ledgerSummary()->text()));
        QCOMPARE(window.runsModel()->matchingCount(), 0);
        // Adding a bookmark now has no run to go to.
        QVERIFY(!window.addBookmark(QStringLiteral("nowhere")));
    }

    // The Review workspace's controller works without the window around it: it shows a run of
    // the ledger it is given, bookmarks through its own writable connection, exports, and
    // lets go of everything when the ledger goes.
    void reviewWorkspaceWorksWithoutTheWindow()
    {
        QWidget host;
        ui::ReviewWorkspace review(&host);
        QSignalSpy messages(&review, &ui::ReviewWorkspace::message);
        Ledger ledger =
            Ledger::open(copyOfDemo("review-alone.kosmos").toStdString(), {OpenMode::ReadOnly});
        QVERIFY(review.runsModel()->open(QString::fromStdString(ledger.readerUri())));
        review.setLedger(&ledger);
        review.selectRun(4);
        QCOMPARE(review.currentRun(), 4);
        QVERIFY(review.player()->frameCount() > 0);
        QVERIFY(review.traces()->trackCount() > 0);
        QVERIFY(review.verdicts()->tree()->topLevelItemCount() > 0);
        QVERIFY(!messages.isEmpty());
        QVERIFY(messages.last().at(0).toString().startsWith(QStringLiteral("run 4:")));
        review.player()->seek(2);
        QVERIFY(review.addBookmark(QStringLiteral("here")));
        QCOMPARE(review.bookmarks()->list()->count(), 1);
        QCOMPARE(ledger.bookmarks(4).size(), std::size_t(1)); // it reached the ledger
        const QString out = QString::fromStdString((m_dir / "review-alone-export").string());
        QVERIFY(review.exportRun(4, out, ExportOptions{true, true, false, true}));
        QVERIFY(QDir(out).exists());
        QCOMPARE(review.runsToActOn(), QList<qint64>{4});
        review.setLedger(nullptr);
        QCOMPARE(review.currentRun(), 0);
        QCOMPARE(review.player()->frameCount(), 0);
        QCOMPARE(review.bookmarks()->list()->count(), 0);
        QVERIFY(!review.addBookmark(QStringLiteral("no run")));
    }

    // A LeRobot dataset (File > Open dataset, drag and drop, `kosmos DIR`, or given where a
    // ledger is expected) opens in the Dataset workspace, read in place: its episodes with their
    // outcome, the camera, the traces named from info.json, the shared cursor and the playback
    // keys, switching episodes, the filter, and the export of the episode shown. Without the
    // Parquet module a v3.0 dataset says why it cannot be read and what to install.
    void aLeRobotDatasetOpensForReviewInPlace()
    {
        ui::MainWindow window;
        window.resize(1280, 720);
        window.show();
        QVERIFY(window.openLedger(m_demo));
        const QString title = window.windowTitle();
        const QString dataset =
            QStringLiteral(KOSMOS_SOURCE_DIR "/tests/fixtures/lerobot/pusht-h264");
        ui::DatasetWorkspace *d = window.datasetWorkspace();
        std::string why;
        if (!parquetAvailable(&why)) {
            QVERIFY(!window.openLedger(dataset));
            QVERIFY2(window.lastError().contains(QStringLiteral("libkosmos-parquet.so")),
                     qPrintable(window.lastError()));
            QVERIFY2(window.lastError().contains(QStringLiteral("setup-arrow.sh")),
                     qPrintable(window.lastError()));
            QCOMPARE(window.windowTitle(), title); // the ledger shown stays
            QVERIFY(!d->isOpen());
            return;
        }
        QVERIFY2(window.openLedger(dataset), qPrintable(window.lastError())); // routed
        QCOMPARE(window.workspace(), ui::MainWindow::Workspace::Dataset);
        QVERIFY(window.windowTitle().contains(QStringLiteral("pusht-h264 (dataset)")));
        QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("read-only")));
        QCOMPARE(window.runsModel()->rowCount(), 60); // the ledger stays open beside it

        // The episodes: index, task, frames, seconds, outcome fields (v3.0 statistics).
        QAbstractItemModel *episodes = d->episodesTable()->model();
        QCOMPARE(episodes->rowCount(), 3);
        QStringList headers;
        for (int c = 0; c < episodes->columnCount(); ++c)
            headers << episodes->headerData(c, Qt::Horizontal).toString();
        QCOMPARE(headers, (QStringList{QStringLiteral("Episode"), QStringLiteral("Frames"),
                                       QStringLiteral("Seconds"), QStringLiteral("next.reward"),
                                       QStringLiteral("next.success"), QStringLiteral("Task")}));
        QCOMPARE(episodes->index(0, 1).data().toInt(), 24);
        QCOMPARE(episodes->index(0, 4).data().toString(), QStringLiteral("no"));
        QVERIFY(episodes->index(0, 5).data().toString().contains(QStringLiteral("T-shaped")));

        // The first episode is shown: its camera, frames, traces named from info.json.
        QCOMPARE(d->currentEpisode(), 0);
        QCOMPARE(d->cameraBox()->currentText(), QStringLiteral("observation.image"));
        QCOMPARE(d->player()->frameCount(), 24);
        QTRY_VERIFY(!d->player()->view()->image().isNull());
        QCOMPARE(d->player()->view()->image().size(), QSize(96, 96));
        const QStringList channels = d->traces()->channels();
        QVERIFY2(channels.join(QLatin1Char(',')).contains(QStringLiteral("motor_0")),
                 qPrintable(channels.join(QLatin1Char(','))));
        QVERIFY2(channels.join(QLatin1Char(',')).contains(QStringLiteral("observation.state")),
                 qPrintable(channels.join(QLatin1Char(','))));
        QVERIFY(d->summary()->text().contains(QStringLiteral("kosmos-cli import --lerobot")));

        // The shared cursor and the keys: the traces follow the player.
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        d->episodesTable()->setFocus();
        QTRY_VERIFY(d->episodesTable()->hasFocus());
        QTest::keyClick(d->episodesTable(), Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(d->player()->position(), 10);
        QTest::keyClick(d->episodesTable(), Qt::Key_Right);
        QCOMPARE(d->player()->position(), 11);
        QTRY_VERIFY(!d->player()->view()->image().isNull());

        // Another episode: its own frames and values.
        const QImage before = d->player()->view()->image();
        QVERIFY(d->showEpisode(2));
        QCOMPARE(d->episodesTable()->currentIndex().row(), 2);
        QCOMPARE(d->player()->frameCount(), 24);
        QTRY_VERIFY(!d->player()->view()->image().isNull());
        QVERIFY(!d->showEpisode(7)); // not in the dataset: said, nothing shown half
        QVERIFY2(d->lastError().contains(QStringLiteral("7")), qPrintable(d->lastError()));

        // The filter narrows the episodes.
        d->filter()->setText(QStringLiteral("no such task"));
        QCOMPARE(episodes->rowCount(), 0);
        d->filter()->clear();
        QCOMPARE(episodes->rowCount(), 3);

        // Export of the episode shown: frames, values, video.
        QVERIFY(d->showEpisode(1));
        const test::TempDir out;
        const QString to = QString::fromStdString((out.path() / "episode-1").string());
        QVERIFY2(d->exportEpisode(to, true), qPrintable(d->lastError()));
        QCOMPARE(QDir(to + QStringLiteral("/frames")).entryList(QDir::Files).size(), 24);
        QVERIFY(QFile::exists(to + QStringLiteral("/values.csv")));
        QVERIFY(QFile::exists(to + QStringLiteral("/episode-1.mp4")));

        // A folder that is not a dataset is refused; the dataset shown stays.
        QVERIFY(!window.openDataset(QStringLiteral(KOSMOS_SOURCE_DIR "/docs")));
        QVERIFY2(window.lastError().contains(QStringLiteral("meta/info.json")),
                 qPrintable(window.lastError()));
        QCOMPARE(d->currentEpisode(), 1);
        QCOMPARE(d->player()->frameCount(), 24);

        // v2.1 opens the same way.
        QVERIFY2(window.openDataset(
                     QStringLiteral(KOSMOS_SOURCE_DIR "/tests/fixtures/lerobot/pusht-v21")),
                 qPrintable(window.lastError()));
        QCOMPARE(episodes->rowCount(), 2);
        QCOMPARE(d->player()->frameCount(), d->dataset()->episodes().front().length);
        QTRY_VERIFY(!d->player()->view()->image().isNull());
        QCOMPARE(episodes->index(0, 4).data().toString(), QStringLiteral("no"));

        // ALOHA (gym-aloha, recorded by LeRobot): a 480x640 camera, 14 named joints.
        QVERIFY2(window.openDataset(
                     QStringLiteral(KOSMOS_SOURCE_DIR "/tests/fixtures/lerobot/aloha-h264")),
                 qPrintable(window.lastError()));
        QCOMPARE(d->cameraBox()->currentText(), QStringLiteral("observation.images.top"));
        QTRY_VERIFY(!d->player()->view()->image().isNull());
        QCOMPARE(d->player()->view()->image().size(), QSize(640, 480));
        QVERIFY(d->traces()
                    ->channels()
                    .join(QLatin1Char(','))
                    .contains(QStringLiteral("right_arm_gripper")));
    }

    // A ledger that fails to open leaves the one shown intact: never a mix of the two.
    void aLedgerThatFailsToOpenLeavesThePreviousOneShown()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        window.selectRun(5);
        const QString title = window.windowTitle();
        const int frames = window.player()->frameCount();
        const QString verdict = window.verdicts()->summary()->text();
        QVERIFY(frames > 0);
        // Cut at several points, with whatever -wal/-shm files the demo left beside it.
        for (const int eighths : {1, 4, 6, 7}) {
            const QString broken =
                copyOfDemo(qPrintable(QStringLiteral("cut-%1.kosmos").arg(eighths)));
            const auto sqlite = std::filesystem::path(broken.toStdString()) / "ledger.sqlite";
            std::filesystem::resize_file(sqlite, std::filesystem::file_size(sqlite) * eighths / 8);
            QVERIFY(!window.openLedger(broken));
            QVERIFY2(window.lastError().contains(QStringLiteral("malformed")),
                     qPrintable(window.lastError()));
            // kosmos-cli info and verify say the same of it.
            for (const char *verb : {"info", "verify"}) {
                const auto r =
                    test::runProcessWithStderr({test::cliPath(), verb, broken.toStdString()});
                QCOMPARE(r.exitCode, 3);
                QVERIFY2(r.output.find("malformed") != std::string::npos, r.output.c_str());
            }
            QCOMPARE(window.windowTitle(), title);
            QCOMPARE(window.runsModel()->rowCount(), 60);
            QCOMPARE(window.player()->frameCount(), frames);
            QCOMPARE(window.verdicts()->summary()->text(), verdict);
            QVERIFY(window.ledgerSummary()->text().contains(QStringLiteral("60 runs")));
            QVERIFY(window.statusBar()->currentMessage().startsWith(QStringLiteral("Cannot open")));
        }
    }

    // 1. Finished runs refresh every view that depends on them.
    void finishedRunsRefreshTheViewsThatDependOnThem()
    {
        const QString bundle = QString::fromStdString((m_dir / "growing.kosmos").string());
        Ledger::create(bundle.toStdString());
        ui::MainWindow window;
        window.setCliPath(QString::fromStdString(test::cliPath()));
        QVERIFY(window.openLedger(bundle));
        QVERIFY(window.ledgerSummary()->text().contains(QStringLiteral("0 runs")));
        auto *protocols = window.runsView()->findChildren<QComboBox *>().last();
        // Another process (a batch's worker) writes runs of a new protocol.
        {
            Ledger writer = Ledger::open(bundle.toStdString());
            const auto protocol = writer.freezeProtocol("later", test::testProtocol());
            for (int i = 0; i < 3; ++i)
                writer.submitRun(test::testRunSpec(protocol, i));
            auto lease = writer.claim("w", 30000);
            writer.recordJudgment(*lease, test::testJudgment());
            writer.finishAttempt(*lease, AttemptOutcome::completed());
        }
        emit window.runController()->runsFinished();
        QTRY_VERIFY_WITH_TIMEOUT(window.ledgerSummary()->text().contains(QStringLiteral("3 runs")),
                                 5000);
        QCOMPARE(window.runsModel()->matchingCount(), 3);
        bool listed = false;
        for (int i = 0; i < protocols->count(); ++i)
            listed |= protocols->itemText(i).startsWith(QStringLiteral("later ("));
        QVERIFY2(listed, "the runs view's protocol filter lists the new protocol");
        // Evaluation is recomputed when next shown: its protocol list has the new one.
        window.setWorkspace(ui::MainWindow::Workspace::Evaluate);
        window.show();
        QTRY_VERIFY(window.evaluation()->isVisible());
    }

    // 2. Workspaces: each view gets the whole window; remembered; nothing forces the window
    // beyond the screen.
    void workspacesGiveEachViewTheWholeWindowAndAreRemembered()
    {
        QSettings().remove(QStringLiteral("window"));
        {
            ui::MainWindow window;
            // First start: fits the screen.
            const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
            QVERIFY(window.width() <= screen.width() && window.height() <= screen.height());
            window.setCliPath(QString::fromStdString(test::cliPath()));
            QVERIFY(window.openLedger(m_demo));
            window.resize(1280, 720);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            for (auto w : {ui::MainWindow::Workspace::Review, ui::MainWindow::Workspace::Compare,
                           ui::MainWindow::Workspace::Evaluate, ui::MainWindow::Workspace::Run}) {
                window.setWorkspace(w);
                QCoreApplication::processEvents();
                QWidget *page = window.workspaceWidget(w);
                QVERIFY(page->isVisible());
                // The workspace fills the window's centre; the window's minimum fits 1280x720.
                QVERIFY2(page->height() > 720 / 2, qPrintable(QString::number(page->height())));
                QVERIFY2(window.minimumSizeHint().height() <= 720 &&
                             window.minimumSizeHint().width() <= 1280,
                         qPrintable(QStringLiteral("%1x%2")
                                        .arg(window.minimumSizeHint().width())
                                        .arg(window.minimumSizeHint().height())));
                QCOMPARE(window.size(), QSize(1280, 720));
            }
            // Evaluation no longer forces its height: it scrolls inside its workspace.
            window.setWorkspace(ui::MainWindow::Workspace::Evaluate);
            QVERIFY(window.evaluation()->isVisible());
            QVERIFY(window.workspaceWidget(ui::MainWindow::Workspace::Evaluate)->height() <= 720);
            // The mode buttons take no focus (a focus frame read as a second checked tab).
            for (QToolButton *button : window.findChild<QToolBar *>(QStringLiteral("workspaceBar"))
                                           ->findChildren<QToolButton *>())
                if (!button->text().isEmpty() && button->isVisible())
                    QCOMPARE(button->focusPolicy(), Qt::NoFocus);
            // Ctrl+2 switches to Compare.
            window.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&window));
            QTest::keyClick(&window, Qt::Key_2, Qt::ControlModifier);
            QCOMPARE(window.workspace(), ui::MainWindow::Workspace::Compare);
            QTest::keyClick(&window, Qt::Key_3, Qt::ControlModifier);
            QCOMPARE(window.workspace(), ui::MainWindow::Workspace::Evaluate);
            window.saveLayout();
        }
        ui::MainWindow window;
        QSettings().remove(QStringLiteral("window")); // the next tests start in Review
        QCOMPARE(window.workspace(), ui::MainWindow::Workspace::Evaluate);
        // The saved size, within the screen (the offscreen platform's is 800x600).
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        QCOMPARE(window.size(), QSize(1280, 720).boundedTo(screen.size()));
    }

    // Quitting in another workspace keeps Review's docks as they were last seen (not shrunk).
    void quittingOutsideReviewKeepsTheReviewLayout()
    {
        // The offscreen screen (800x800) cannot hold the 1280x720 window it compares.
        if (QGuiApplication::platformName() != QLatin1String("xcb"))
            QSKIP("needs a real X server: tests/ui/real-window.sh runs it under Xvfb");
        QSettings().remove(QStringLiteral("window"));
        auto dockSizes = [](ui::MainWindow &window) {
            QList<QSize> sizes;
            for (QDockWidget *dock : window.findChildren<QDockWidget *>())
                if (dock->isVisible())
                    sizes << dock->size();
            return sizes;
        };
        QList<QSize> before;
        {
            ui::MainWindow window;
            QVERIFY(window.openLedger(m_demo));
            window.resize(1280, 720);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.setWorkspace(ui::MainWindow::Workspace::Review);
            QTest::qWait(100);
            before = dockSizes(window);
            QVERIFY(!before.isEmpty());
            for (auto w : {ui::MainWindow::Workspace::Compare, ui::MainWindow::Workspace::Run,
                           ui::MainWindow::Workspace::Evaluate}) {
                window.setWorkspace(w);
                QTest::qWait(50);
            }
            window.resize(1100, 650); // resized while Review is hidden, then back
            QTest::qWait(50);
            window.resize(1280, 720);
            QTest::qWait(50);
            window.close(); // saves the layout, in Evaluate
        }
        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.setWorkspace(ui::MainWindow::Workspace::Review);
        QTest::qWait(100);
        const QList<QSize> after = dockSizes(window);
        QSettings().remove(QStringLiteral("window"));
        QCOMPARE(after.size(), before.size());
        for (int i = 0; i < before.size(); ++i)
            QVERIFY2(std::abs(after[i].width() - before[i].width()) <= 8 &&
                         std::abs(after[i].height() - before[i].height()) <= 8,
                     qPrintable(QStringLiteral("dock %1: %2x%3, was %4x%5")
                                    .arg(i)
                                    .arg(after[i].width())
                                    .arg(after[i].height())
                                    .arg(before[i].width())
                                    .arg(before[i].height())));
    }

    // A real window under a real X server (tests/ui/real-window.sh starts Xvfb; skipped on the
    // offscreen platform): the demo ledger in every workspace fits the screen with no widget
    // squeezed below its minimum, and opening another ledger shows that one. With
    // KOSMOS_SCREENSHOTS_DIR set it saves each workspace as PNG (tools/screenshots.sh).
    void realWindowFitsTheScreenInEveryWorkspace()
    {
        if (QGuiApplication::platformName() != QLatin1String("xcb"))
            QSKIP("needs a real X server: tests/ui/real-window.sh runs it under Xvfb");
        QSettings().remove(QStringLiteral("window"));
        const QRect screen = QGuiApplication::primaryScreen()->availableGeometry();
        const QString shots = qEnvironmentVariable("KOSMOS_SCREENSHOTS_DIR");
        ui::MainWindow window;
        window.setCliPath(QString::fromStdString(test::cliPath()));
        QVERIFY(window.openLedger(m_demo));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(screen.contains(window.frameGeometry()));
        window.selectRun(1);
        const char *names[] = {"review", "compare", "evaluate", "run"};
        for (int i = 0; i < 4; ++i) {
            const auto w = static_cast<ui::MainWindow::Workspace>(i);
            if (w == ui::MainWindow::Workspace::Compare)
                window.compareSelected();
            window.setWorkspace(w);
            QTest::qWait(300);
            QVERIFY2(screen.contains(window.frameGeometry()),
                     qPrintable(QStringLiteral("%1: window %2,%3 %4x%5 on a %6x%7 screen")
                                    .arg(QString::fromLatin1(names[i]))
                                    .arg(window.frameGeometry().x())
                                    .arg(window.frameGeometry().y())
                                    .arg(window.frameGeometry().width())
                                    .arg(window.frameGeometry().height())
                                    .arg(screen.width())
                                    .arg(screen.height())));
            QVERIFY(window.minimumSizeHint().width() <= screen.width());
            QVERIFY(window.minimumSizeHint().height() <= screen.height());
            // No visible widget below the minimum it asks for.
            for (QWidget *child : window.findChildren<QWidget *>()) {
                if (!child->isVisible() || child->isWindow())
                    continue;
                const QSize min = child->minimumSize();
                QVERIFY2(
                    child->width() >= min.width() && child->height() >= min.height(),
                    qPrintable(QStringLiteral("%1 (%2) is %3x%4, below its minimum %5x%6 in %7")
                                   .arg(child->objectName(),
                                        QString::fromLatin1(child->metaObject()->className()))
                                   .arg(child->width())
                                   .arg(child->height())
                                   .arg(min.width())
                                   .arg(min.height())
                                   .arg(QString::fromLatin1(names[i]))));
            }
            // The workspace's main view gets most of the window.
            QWidget *page = window.workspaceWidget(w);
            QVERIFY(page->height() > window.height() / 2);
            if (!shots.isEmpty()) {
                QDir().mkpath(shots);
                QPixmap shot = window.screen()->grabWindow(window.winId());
                if (shot.isNull())
                    shot = window.grab();
                QVERIFY(shot.save(QDir(shots).filePath(QStringLiteral("%1-%2x%3.png")
                                                           .arg(QString::fromLatin1(names[i]))
                                                           .arg(screen.width())
                                                           .arg(screen.height()))));
            }
        }
        // The player and traces have room: frames and every track visible in Review.
        window.setWorkspace(ui::MainWindow::Workspace::Review);
        QTest::qWait(100);
        QVERIFY(window.player()->height() >= 128);
        QVERIFY(window.traces()->plot()->height() >= 120);
        // Another ledger: every view shows it, nothing of the demo.
        QVERIFY(
            window.createLedger(QString::fromStdString((m_dir / "real-empty.kosmos").string())));
        QCOMPARE(window.player()->frameCount(), 0);
        QCOMPARE(window.runsModel()->rowCount(), 0);
        QVERIFY(window.windowTitle().startsWith(QStringLiteral("real-empty.kosmos")));
        QSettings().remove(QStringLiteral("window"));
    }

    // The walk of a new user (README, user guide): an empty ledger, New batch, the physics world
    // and a shipped trained policy chosen from the picker, run, watched, reviewed. Offscreen and,
    // by tst_workstation_real_window(_de), in a real 1280x720 window in English and German;
    // with KOSMOS_SCREENSHOTS_DIR set it saves each step as PNG (tools/screenshots.sh).
    void firstUseRunsAShippedModelFromAnEmptyLedger()
    {
        ui::MainWindow window;
        window.setCliPath(QString::fromStdString(test::cliPath()));
        if (!window.pluginCatalog()->find(QStringLiteral("torch.generic_policy")) ||
            !window.pluginCatalog()->find(QStringLiteral("physics.tabletop")))
            QSKIP("needs the libtorch and MuJoCo plugins");
        const QString shots = qEnvironmentVariable("KOSMOS_SCREENSHOTS_DIR");
        const QString language =
            QLocale().name().left(2) == QLatin1String("de") ? QStringLiteral("-de") : QString();
        auto shoot = [&](QWidget *w, const QString &name) {
            if (shots.isEmpty())
                return;
            QDir().mkpath(shots);
            QPixmap shot = w->screen()->grabWindow(w->winId());
            if (shot.isNull() || QGuiApplication::platformName() == QLatin1String("offscreen"))
                shot = w->grab();
            const QSize screen = w->screen()->size();
            shot.save(QDir(shots).filePath(QStringLiteral("first-use-%1-%2x%3%4.png")
                                               .arg(name)
                                               .arg(screen.width())
                                               .arg(screen.height())
                                               .arg(language)));
        };
        const QString bundle = QString::fromStdString((m_dir / "first-use.kosmos").string());
        QVERIFY(window.createLedger(bundle));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QCOMPARE(window.runsModel()->rowCount(), 0);

        // New batch (Ctrl+N): filled in while the dialog is open, as a user would.
        bool walked = false;
        QTimer::singleShot(0, this, [&] {
            auto *dialog = qobject_cast<ui::LauncherDialog *>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            // A check that fails returns here: the dialog closes, the test reports it.
            const auto closeUnlessWalked = qScopeGuard([&] {
                if (!walked)
                    dialog->reject();
            });
            const QRect screen = dialog->screen()->availableGeometry();
            QTRY_VERIFY(dialog->isVisible());
            QVERIFY2(dialog->width() <= screen.width() && dialog->height() <= screen.height(),
                     qPrintable(QStringLiteral("New batch is %1x%2 on a %3x%4 screen")
                                    .arg(dialog->width())
                                    .arg(dialog->height())
                                    .arg(screen.width())
                                    .arg(screen.height())));
            QVERIFY(dialog->startButton()->isVisible());
            dialog->worldPlugin()->setCurrentIndex(
                dialog->worldPlugin()->findData(QStringLiteral("physics.tabletop")));
            QCOMPARE(dialog->tasks()->rowCount(), 2); // the world's own tasks
            dialog->policyPlugin()->setCurrentIndex(
                dialog->policyPlugin()->findData(QStringLiteral("torch.generic_policy")));
            auto *package =
                qobject_cast<QComboBox *>(dialog->policyForm()->editor(QStringLiteral("package")));
            QVERIFY(package);
            package->setCurrentIndex(package->findText(QStringLiteral("bc-expert-full")));
            QTRY_VERIFY_WITH_TIMEOUT(dialog->policyStatus()->styleSheet().isEmpty() &&
                                         !dialog->policyStatus()->text().isEmpty(),
                                     30000);
            dialog->addPolicy();
            dialog->horizon()->setValue(20);
            dialog->episodes()->setValue(1);
            QTRY_VERIFY2_WITH_TIMEOUT(dialog->problems().isEmpty(),
                                      qPrintable(dialog->problems().join(QLatin1Char('\n'))),
                                      30000);
            if (!language.isEmpty()) { // German: the dialog and Qt's own buttons
                QCOMPARE(dialog->windowTitle(), QStringLiteral("Neuer Stapel"));
                auto *box = dialog->findChild<QDialogButtonBox *>();
                QVERIFY(box);
                QCOMPARE(box->button(QDialogButtonBox::Cancel)->text(),
                         QStringLiteral("Abbrechen"));
            }
            QTest::qWait(300); // painted as the user sees it
            shoot(dialog, QStringLiteral("launcher"));
            dialog->startButton()->click();
            walked = true;
        });
        QAction *newBatch = nullptr;
        for (QAction *a : window.findChildren<QAction *>())
            if (a->shortcut() == QKeySequence(QKeySequence::New))
                newBatch = a;
        QVERIFY(newBatch);
        newBatch->trigger();
        QVERIFY(walked);

        // Watched in Run, then reviewed: two runs (two tasks, one episode), frames and traces.
        QVERIFY(window.workspace() == ui::MainWindow::Workspace::Run);
        // The Run page names the policy as the runs table does (its model package).
        QTRY_VERIFY_WITH_TIMEOUT(window.progressPanel()->tree()->topLevelItemCount() > 0, 10000);
        QVERIFY2(window.progressPanel()->tree()->topLevelItem(0)->text(2).startsWith(
                     QStringLiteral("bc-expert-full")),
                 qPrintable(window.progressPanel()->tree()->topLevelItem(0)->text(2)));
        QTest::qWait(1500);
        shoot(&window, QStringLiteral("run"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.runController()->active(), 240000);
        QTRY_COMPARE_WITH_TIMEOUT(window.runsModel()->rowCount(), 2, 10000);
        QVERIFY2(!window.statusBar()->currentMessage().contains(QStringLiteral(": 0 ")),
                 qPrintable(window.statusBar()->currentMessage()));
        window.setWorkspace(ui::MainWindow::Workspace::Review);
        window.runsView()->table()->selectRow(0);
        QTRY_COMPARE(window.player()->frameCount(), 21); // the start frame and 20 steps
        QVERIFY(window.traces()->trackCount() > 0);
        window.player()->seek(12);
        QTest::qWait(300);
        shoot(&window, QStringLiteral("review"));
        // Seven action dimensions and the objects' tracks, each tall enough for its value ticks,
        // which are shown: the traces scroll rather than flatten.
        QCustomPlot *plot = window.traces()->plot();
        QVERIFY(window.traces()->trackCount() >= 10);
        plot->replot();
        for (int i = 0; i < plot->axisRectCount(); ++i) {
            QVERIFY2(plot->axisRect(i)->height() >= ui::TracesPlot::kTrackHeight - 14,
                     qPrintable(QStringLiteral("track %1 is %2 px high")
                                    .arg(i)
                                    .arg(plot->axisRect(i)->height())));
            QVERIFY(plot->axisRect(i)->axis(QCPAxis::atLeft)->tickLabels());
        }
        // The runs say what ran: the package, not "{}".
        const QString policy =
            window.runsModel()->index(0, ui::RunsModel::Policy).data().toString();
        QVERIFY2(policy.contains(QStringLiteral("bc-expert-full")), qPrintable(policy));
        // The ledger's words in the window's language; the stored value stays for filters.
        const QString status =
            window.runsModel()->index(0, ui::RunsModel::Status).data().toString();
        QCOMPARE(status, language.isEmpty() ? QStringLiteral("completed")
                                            : QStringLiteral("abgeschlossen"));
        if (!language.isEmpty())
            QVERIFY2(window.verdicts()->labels()->text().contains(QStringLiteral("erfüllt")),
                     qPrintable(window.verdicts()->labels()->text()));
    }

    // The smaller ones: markers on the frame slider, the Events attempt column, Ctrl+wheel zoom
    // around the mouse.
    void sliderMarkersAttemptNumbersAndZoomAroundTheMouse()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(100);
        window.selectRun(3);
        // The judge's 16 frames (and world-model calls when chunked) along the slider.
        QVERIFY2(window.player()->slider()->markerCount() >= 16,
                 qPrintable(QString::number(window.player()->slider()->markerCount())));
        window.player()->seek(5);
        QVERIFY(window.addBookmark(QStringLiteral("here")));
        QVERIFY(window.player()->slider()->markerCount() >= 17);
        // Events name the attempt by its number, as the payloads do.
        QTableWidget *events = window.events()->table();
        bool attemptRow = false;
        for (int r = 0; r < events->rowCount(); ++r)
            if (events->item(r, 2)->text() == QLatin1String("1")) {
                attemptRow = true;
                QVERIFY(events->item(r, 2)->toolTip().startsWith(QStringLiteral("attempt id ")));
            }
        QVERIFY(attemptRow);
        // Ctrl+wheel keeps the image point under the mouse where it is.
        auto *view = const_cast<ui::FrameView *>(window.player()->view());
        const QPointF at(view->width() * 0.3, view->height() * 0.4);
        const QPointF before = view->imagePointAt(at);
        QWheelEvent wheel(at, view->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::ControlModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(view, &wheel);
        QVERIFY(view->zoom() > 0);
        const QPointF after = view->imagePointAt(at);
        QVERIFY2(std::abs(after.x() - before.x()) < 1.0 && std::abs(after.y() - before.y()) < 1.0,
                 qPrintable(QStringLiteral("%1,%2 -> %3,%4")
                                .arg(before.x())
                                .arg(before.y())
                                .arg(after.x())
                                .arg(after.y())));
    }

    // A batch of 100,000 runs: the progress list shows the running runs first, then the next
    // queued and the latest finished, at most ProgressPanel::kMaxRows rows, and says so.
    void progressOfAHugeBatchListsTheRunningRunsFirst()
    {
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        ui::ProgressPanel panel(controller);
        BatchProgress p;
        p.protocolName = "huge";
        p.protocolSha256 = std::string(64, 'a');
        for (int i = 1; i <= 100000; ++i) {
            RunProgress r;
            r.runId = i;
            r.status = i % 1000 == 0 ? "running" : i < 50000 ? "completed" : "queued";
            if (r.status == "completed")
                r.finishedAtMs = i;
            r.horizon = 40;
            p.runs.push_back(r);
            p.total += 1;
            p.running += r.status == "running";
            p.queued += r.status == "queued";
            p.completed += r.status == "completed";
        }
        emit controller.progressChanged(p);
        QCOMPARE(panel.tree()->topLevelItemCount(), static_cast<int>(ui::ProgressPanel::kMaxRows));
        QCOMPARE(panel.tree()->topLevelItem(0)->text(3), QStringLiteral("running"));
        QCOMPARE(panel.tree()->topLevelItem(100)->text(3), QStringLiteral("queued"));
        QVERIFY2(panel.statusText().contains(QStringLiteral("Showing 300 of 100000 runs")),
                 qPrintable(panel.statusText()));
    }

    // 3. Traces: hover read-out, x zoom/pan shared by the tracks and following the player,
    // channel picker, grouping, legend, overlay.
    void tracesReadOutZoomPanAndPickChannels()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        window.resize(1280, 720);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(100); // the first layout of the docks, once shown
        window.selectRun(1);
        ui::TracesPlot *traces = window.traces();
        Ledger ledger = Ledger::open(m_demo.toStdString(), {OpenMode::ReadOnly});
        const RolloutView rollout = loadRollout(ledger, 1);
        const int dims = static_cast<int>(rollout.actions.at(0).size());
        QCOMPARE(traces->trackCount(), dims + static_cast<int>(rollout.objectTracks.size()));
        QCOMPARE(traces->channels().size(), traces->trackCount());
        QCustomPlot *plot = traces->plot();
        // Hover over step 3 of the first track: step, time, the channel's value and unit. (The
        // window's first layout may still be settling on a loaded machine: wait for it.)
        auto pointAt = [plot](double frame) {
            plot->replot();
            QCPAxisRect *rect = plot->axisRect(0);
            return QPointF(rect->axis(QCPAxis::atBottom)->coordToPixel(frame),
                           rect->rect().center().y());
        };
        QTRY_VERIFY_WITH_TIMEOUT(
            traces->readOutAt(pointAt(3.5)).startsWith(QStringLiteral("step 3,")), 5000);
        QCPAxisRect *first = plot->axisRect(0);
        const QPointF at = pointAt(3.5);
        const QString text = traces->readOutAt(at);
        const QString expected =
            QStringLiteral("%1 = %2").arg(QString::fromStdString(rollout.dimensionNames.at(0)),
                                          QString::number(rollout.actions.at(3).at(0), 'g', 5));
        QVERIFY2(text.startsWith(QStringLiteral("step 3, t = %1 s: ")
                                     .arg(QString::number(3 / rollout.controlRateHz, 'f', 2))),
                 qPrintable(text));
        QVERIFY2(text.contains(expected), qPrintable(text + " / " + expected));
        QVERIFY(rollout.dimensionNames.at(0).find('[') != std::string::npos); // the unit
        QTest::mouseMove(plot, at.toPoint());
        QTRY_COMPARE(traces->readOut(), text);
        // Wheel over frame 10 zooms in around it, on every track at once.
        const auto [from0, to0] = traces->visibleRange();
        const QPointF wheelAt(first->axis(QCPAxis::atBottom)->coordToPixel(10), at.y());
        QWheelEvent wheel(wheelAt, plot->mapToGlobal(wheelAt), QPoint(), QPoint(0, 480),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(plot, &wheel);
        const auto [from1, to1] = traces->visibleRange();
        QVERIFY2(to1 - from1 < 0.6 * (to0 - from0), qPrintable(QString::number(to1 - from1)));
        QVERIFY(from1 <= 10 && to1 >= 10);
        for (int i = 0; i < plot->axisRectCount(); ++i)
            QCOMPARE(plot->axisRect(i)->axis(QCPAxis::atBottom)->range().lower, from1);
        QVERIFY(traces->rangeBar()->isVisible());
        // The range bar pans; the player leaving the view moves it along.
        traces->rangeBar()->setValue(traces->rangeBar()->maximum());
        QVERIFY(traces->visibleRange().first > from1);
        window.player()->seek(1);
        QVERIFY(traces->visibleRange().first <= 1.0);
        // Shift+drag pans (the left button alone seeks).
        const double before = traces->visibleRange().first;
        window.player()->seek(20);
        const double width = traces->visibleRange().second - traces->visibleRange().first;
        traces->setVisibleRange(10, 10 + width);
        const QPoint start = first->rect().center();
        QTest::mousePress(plot, Qt::LeftButton, Qt::ShiftModifier, start);
        QTest::mouseMove(plot, start - QPoint(80, 0));
        QTest::mouseRelease(plot, Qt::LeftButton, Qt::ShiftModifier, start - QPoint(80, 0));
        QVERIFY2(traces->visibleRange().first > 10, qPrintable(QString::number(before)));
        QCOMPARE(window.player()->position(), 20); // panning did not seek
        // Double-click (or Reset) shows everything again.
        traces->resetZoom();
        QVERIFY(!traces->rangeBar()->isVisible());
        // Channel picker: hide one, group the rest on one axis.
        traces->setChannelVisible(0, false);
        QCOMPARE(traces->trackCount(), dims - 1 + static_cast<int>(rollout.objectTracks.size()));
        traces->setGrouped(true);
        QCOMPARE(traces->trackCount(), 1 + static_cast<int>(rollout.objectTracks.size()));
        const QString legend = traces->legendText();
        QVERIFY2(legend.contains(QString::fromStdString(rollout.dimensionNames.at(1))),
                 qPrintable(legend));
        QVERIFY(!legend.contains(QString::fromStdString(rollout.dimensionNames.at(0)) +
                                 QStringLiteral(" ")));
        QVERIFY(legend.contains(QStringLiteral("judge frames")));
        QVERIFY(legend.contains(QStringLiteral("bookmarks")));
        // The grouped track's hover names every channel on it.
        QVERIFY(
            traces
                ->readOutAt(QPointF(plot->axisRect(0)->axis(QCPAxis::atBottom)->coordToPixel(3.5),
                                    plot->axisRect(0)->rect().center().y()))
                .contains(QString::fromStdString(rollout.dimensionNames.at(1))));
        traces->setGrouped(false);
        traces->setChannelVisible(0, true);
        QCOMPARE(traces->trackCount(), dims + static_cast<int>(rollout.objectTracks.size()));
        // Another run starts with the cursor at its first frame (#35: the cursor stayed at the
        // old run's frame until the next step).
        QCOMPARE(traces->cursor(), 20);
        window.selectRun(2);
        QCOMPARE(traces->cursor(), 0);
    }

    // 4. Compare: a picker of runs from the same start (other policies first), from a
    // multi-selection too, with traces overlaid on shared axes.
    void compareOffersTheSameStartAndOverlaysTraces()
    {
        {
            // Compare (Ctrl+2, the workspace button) with a run chosen in Review shows it (#35:
            // it stayed empty, "Choose a run in Review").
            ui::MainWindow fresh;
            QVERIFY(fresh.openLedger(m_demo));
            fresh.selectRun(1);
            auto *bar = fresh.findChild<QToolBar *>(QStringLiteral("workspaceBar"));
            QVERIFY(bar);
            bar->actions().at(1)->trigger();
            QCOMPARE(fresh.workspace(), ui::MainWindow::Workspace::Compare);
            QCOMPARE(fresh.compareView()->runA(), 1);
        }
        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        window.selectRun(1);
        selectRows(window, {0});
        window.compareSelected();
        QCOMPARE(window.workspace(), ui::MainWindow::Workspace::Compare);
        ui::CompareView *compare = window.compareView();
        QCOMPARE(compare->runA(), 1);
        QVERIFY(compare->runB() > 0);
        QComboBox *picker = compare->picker();
        QVERIFY(picker->count() >= 2);
        QVERIFY2(picker->itemText(0).contains(QStringLiteral("other policy")),
                 qPrintable(picker->itemText(0)));
        QCOMPARE(picker->itemData(0).toLongLong(), compare->runB());
        // Choosing another candidate compares with it.
        picker->setCurrentIndex(1);
        QCOMPARE(compare->runB(), picker->itemData(1).toLongLong());
        // From two selected rows.
        selectRows(window, {2, 4});
        window.compareSelected();
        QCOMPARE(compare->runA(), window.runsModel()->runIdAt(2));
        QCOMPARE(compare->runB(), window.runsModel()->runIdAt(4));
        // Overlay: one plot, both runs on shared axes, named in the legend.
        compare->overlay()->setChecked(true);
        QVERIFY(!compare->overlayTraces()->isHidden());
        QVERIFY(compare->overlayTraces()->legendText().contains(
            QStringLiteral("run %1").arg(compare->runB())));
        QVERIFY(compare->overlayTraces()->plot()->graphCount() >
                compare->overlayTraces()->trackCount());
        compare->playerA()->seek(4);
        QCOMPARE(compare->playerB()->position(), 4);
    }

    // 5. The verdict summary first; evidence frames as thumbnails that seek; raw text wrapped
    // and selectable.
    void verdictSummaryComesFirstWithEvidenceAndRawText()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        window.selectRun(2);
        ui::VerdictPanel *verdicts = window.verdicts();
        const QString summary = verdicts->summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("quorum:")), qPrintable(summary));
        QVERIFY(summary.contains(QStringLiteral("success")) ||
                summary.contains(QStringLiteral("failure")) ||
                summary.contains(QStringLiteral("unknown")));
        QVERIFY(summary.contains(QStringLiteral("progress:")));
        // Tokens, decode time and raw text are not columns that push the panel sideways.
        QVERIFY(verdicts->tree()->header()->isSectionHidden(3));
        QVERIFY(verdicts->tree()->header()->isSectionHidden(6));
        QVERIFY(!verdicts->rawText()->toPlainText().isEmpty());
        QCOMPARE(verdicts->rawText()->lineWrapMode(), QPlainTextEdit::WidgetWidth);
        QVERIFY(verdicts->rawText()->isReadOnly());
        // Provenance: the selected item in full (the run key, cut in the tree) below the tree.
        QTreeWidget *provenance = window.provenance()->tree();
        provenance->setCurrentItem(provenance->topLevelItem(0));
        const QString details = window.provenance()->details()->toPlainText();
        Ledger ledger = Ledger::open(m_demo.toStdString(), {OpenMode::ReadOnly});
        QVERIFY2(details.contains(QString::fromStdString(ledger.run(2)->runKey)),
                 qPrintable(details));
        if (verdicts->evidence()->count() > 0) {
            // The samples' evidence column names the same rollout frames as the thumbnails.
            QSet<int> thumbnails;
            for (int i = 0; i < verdicts->evidence()->count(); ++i)
                thumbnails << verdicts->evidence()->item(i)->data(Qt::UserRole).toInt();
            QTreeWidgetItem *judgment =
                verdicts->tree()->topLevelItem(verdicts->tree()->topLevelItemCount() - 1);
            for (int c = 0; c < judgment->childCount(); ++c)
                for (const QString &frame :
                     judgment->child(c)->text(5).split(QStringLiteral(", "), Qt::SkipEmptyParts))
                    QVERIFY2(thumbnails.contains(frame.toInt()),
                             qPrintable(judgment->child(c)->text(5)));
            QListWidgetItem *item = verdicts->evidence()->item(0);
            QVERIFY(!item->icon().isNull());
            const int frame = item->data(Qt::UserRole).toInt();
            emit verdicts->evidence()->itemClicked(item);
            QCOMPARE(window.player()->position(), frame);
        }
    }

    // 6. Playback keys work from the runs table; multi-selection with its actions.
    void playbackKeysWorkFromTheRunsTableAndMultiSelectionHasActions()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        window.show();
        window.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        QTableView *table = window.runsView()->table();
        table->setFocus();
        QTRY_VERIFY(table->hasFocus());
        QCOMPARE(window.player()->position(), 0);
        QTest::keyClick(table, Qt::Key_Right);
        QCOMPARE(window.player()->position(), 1);
        QTest::keyClick(table, Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(window.player()->position(), 11);
        QTest::keyClick(table, Qt::Key_Home);
        QCOMPARE(window.player()->position(), 0);
        QTest::keyClick(table, Qt::Key_Space);
        QVERIFY(window.player()->isPlaying());
        QTest::keyClick(table, Qt::Key_Space);
        QVERIFY(!window.player()->isPlaying());
        // Down still moves between runs.
        const qint64 before = window.runsModel()->runIdAt(table->currentIndex().row());
        QTest::keyClick(table, Qt::Key_Down);
        QVERIFY(window.runsModel()->runIdAt(table->currentIndex().row()) != before);
        // Typing in a filter keeps its keys.
        QLineEdit *text = window.runsView()->textFilter();
        text->setFocus();
        QTRY_VERIFY(text->hasFocus());
        const int position = window.player()->position();
        QTest::keyClicks(text, QStringLiteral("ab"));
        QTest::keyClick(text, Qt::Key_Left);
        QCOMPARE(window.player()->position(), position);
        QCOMPARE(text->cursorPosition(), 1);
        text->clear();
        // Multi-selection: three rows, their keys copied.
        QCOMPARE(table->selectionMode(), QAbstractItemView::ExtendedSelection);
        selectRows(window, {0, 1, 2});
        QCOMPARE(window.selectedRuns().size(), 3);
        const QStringList keys = window.copySelectedRunKeys().split(QLatin1Char('\n'));
        QCOMPARE(keys.size(), 3);
        for (const QString &k : keys)
            QCOMPARE(k.size(), 64);
        QCOMPARE(QGuiApplication::clipboard()->text().split(QLatin1Char('\n')), keys);
    }

    // 6. Re-judging the selected runs with another judge configuration, from the workstation.
    void selectedRunsAreJudgedAgainBesideTheirJudgments()
    {
        const QString bundle = copyOfDemo("rejudge.kosmos");
        const auto config = m_dir / "judge-b.json";
        std::ofstream(config) << R"({"plugin": "synthetic.frame_judge",
            "settings": {"format_noise": 0.6},
            "quorum": {"samples": 5, "quorum": 3, "temperature": 0.7, "top_p": 1.0,
                       "max_new_tokens": 512}})";
        ui::MainWindow window;
        window.setCliPath(QString::fromStdString(test::cliPath()));
        QVERIFY(window.openLedger(bundle));
        selectRows(window, {0, 1});
        QSignalSpy done(window.runController(), &ui::RunController::rejudgeFinished);
        QVERIFY2(window.rejudgeSelected(QString::fromStdString(config.string())),
                 qPrintable(window.runController()->error()));
        QVERIFY(!window.rejudgeSelected(QString::fromStdString(config.string()))); // one at a time
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 60000);
        QCOMPARE(done.at(0).at(0).toInt(), 2);
        QVERIFY(done.at(0).at(1).toStringList().isEmpty());
        // The shown run's verdicts refresh with the finished runs (within the second).
        window.selectRun(window.runsModel()->runIdAt(0));
        QTRY_VERIFY_WITH_TIMEOUT(
            window.verdicts()->summary()->text().contains(QStringLiteral("latest of 2")), 5000);
        // A configuration that is not one: named, nothing recorded.
        std::ofstream(m_dir / "bad-judge.json") << "{\"plugin\": 3}";
        selectRows(window, {2});
        QVERIFY(
            window.rejudgeSelected(QString::fromStdString((m_dir / "bad-judge.json").string())));
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 2, 60000);
        QCOMPARE(done.at(1).at(0).toInt(), 0);
        QCOMPARE(done.at(1).at(1).toStringList().size(), 1);
        QVERIFY(done.at(1).at(1).toStringList().at(0).startsWith(
            QStringLiteral("run %1: ").arg(window.runsModel()->runIdAt(2))));
    }

    // Export: where (created when missing) and what (frames, actions, video), of one run or of
    // the selected runs, one folder each.
    void exportChoosesItsOutputsAndFolder()
    {
        ui::ExportDialog dialog(2, QString::fromStdString(m_dir.path().string()));
        for (QCheckBox *box : {dialog.frames(), dialog.actions(), dialog.video()})
            box->setChecked(false);
        QVERIFY(!dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
        dialog.video()->setChecked(true);
        QVERIFY(dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->isEnabled());
        const ExportOptions chosen = dialog.options();
        QVERIFY(!chosen.frames && !chosen.actions && chosen.video && chosen.overlay);

        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        const auto out = m_dir / "exports" / "not-yet-made";
        QVERIFY2(window.exportRuns({1, 2}, QString::fromStdString(out.string()), chosen) == 2,
                 qPrintable(window.lastError()));
        for (const char *run : {"run-1", "run-2"}) {
            QVERIFY(std::filesystem::exists(out / run / "rollout.mp4"));
            QVERIFY(!std::filesystem::exists(out / run / "frames"));
            QVERIFY(!std::filesystem::exists(out / run / "actions.csv"));
        }
        QVERIFY(!window.exportRun(1, QString::fromStdString((m_dir / "none").string()),
                                  ExportOptions{false, false, false, false}));
        QVERIFY2(window.lastError().contains(QStringLiteral("nothing to export")),
                 qPrintable(window.lastError()));
    }

    // 8. Evaluation defaults: the audit says a second configuration is needed, the ranking plot
    // names the policies, the record's components are blocks whose hashes can wrap.
    void evaluationSaysWhatIsMissingAndNamesPolicies()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(m_demo));
        window.setWorkspace(ui::MainWindow::Workspace::Evaluate);
        window.show();
        ui::EvaluationView *evaluation = window.evaluation();
        QTRY_VERIFY(evaluation->auditA()->count() == 1);
        QTRY_VERIFY(evaluation->auditTable()->rowCount() > 0);
        QCOMPARE(evaluation->auditTable()->item(0, 0)->text(),
                 QStringLiteral("needs two configurations"));
        // The workstation's own action first, then the CLI's.
        QVERIFY(evaluation->auditTable()->item(0, 1)->text().contains(
            QStringLiteral("Judge again with another judge")));
        QVERIFY(evaluation->auditTable()->item(0, 1)->text().contains(
            QStringLiteral("kosmos-cli judge --all")));
        QTRY_VERIFY(evaluation->ratesTable()->rowCount() == 3);
        auto ticker =
            qSharedPointerDynamicCast<QCPAxisTickerText>(evaluation->ratesPlot()->xAxis->ticker());
        QVERIFY(ticker);
        QCOMPARE(ticker->ticks().size(), 3);
        for (const QString &label : ticker->ticks())
            QVERIFY2(label.contains(QStringLiteral("synthetic.scr")) ||
                         label.contains(QStringLiteral("skill")),
                     qPrintable(label));
        EvaluationRecord record;
        record.components = {
            {"policy",
             "a.policy",
             "1.0",
             std::string(64, 'a'),
             std::string(64, 'b'),
             {{"checkpoint", std::string(80, 'c')}},
             20},
            {"world_model", "a.world", "2.0", std::string(64, 'd'), std::nullopt, nullptr, 20}};
        const QString html = ui::reportHtml(record, [](const QString &) { return QString(); });
        QCOMPARE(html.count(QStringLiteral("identity SHA-256")), 2);
        QVERIFY(html.contains(QStringLiteral("<b>policy</b>: a.policy 1.0, 20 run(s)")));
        QVERIFY(html.contains(QChar(0x200B))); // hashes and settings may wrap
        QVERIFY(html.contains(QStringLiteral("none (no weights)")));
    }

    // 7. Runs table: short policy labels, filters as you type, value lists, remembered per
    // ledger.
    void runsFiltersApplyAsYouTypeOfferValuesAndAreRememberedPerLedger()
    {
        const QString bundle = copyOfDemo("filters.kosmos");
        {
            ui::MainWindow window;
            QVERIFY(window.openLedger(bundle));
            ui::RunsModel *model = window.runsModel();
            QCOMPARE(model->matchingCount(), 60);
            // The policy column tells the three scripted policies apart, the full identity in
            // the tooltip.
            QSet<QString> labels;
            for (int r = 0; r < model->rowCount(); ++r)
                labels << model->data(model->index(r, ui::RunsModel::Policy)).toString();
            QCOMPARE(labels.size(), 3);
            for (const QString &label : labels)
                QVERIFY2(label.size() < 60, qPrintable(label));
            QVERIFY(model->data(model->index(0, ui::RunsModel::Policy), Qt::ToolTipRole)
                        .toString()
                        .size() >=
                    model->data(model->index(0, ui::RunsModel::Policy)).toString().size());
            // The policy filter lists the three; choosing one shows its 20 runs.
            QComboBox *policy = window.runsView()->policyFilter();
            QCOMPARE(policy->count(), 3);
            policy->setCurrentIndex(1);
            window.runsView()->applyFilter();
            QCOMPARE(model->matchingCount(), 20);
            policy->setEditText(QString());
            window.runsView()->applyFilter();
            QCOMPARE(model->matchingCount(), 60);
            QVERIFY(window.runsView()->worldModelFilter()->count() >= 1);
            // Typing filters without Enter.
            QLineEdit *text = window.runsView()->textFilter();
            const QString task = model->data(model->index(0, ui::RunsModel::Task)).toString();
            QTest::keyClicks(text, task);
            QTRY_VERIFY_WITH_TIMEOUT(model->matchingCount() < 60, 2000);
            QCOMPARE(model->matchingCount(), 30);
        }
        {
            ui::MainWindow window; // the next session, the same ledger: the same filter
            QVERIFY(window.openLedger(bundle));
            QCOMPARE(window.runsModel()->matchingCount(), 30);
            QVERIFY(!window.runsView()->textFilter()->text().isEmpty());
            // Another ledger has its own (none).
            QVERIFY(window.openLedger(m_demo));
            QCOMPARE(window.runsModel()->matchingCount(), 60);
            QVERIFY(window.runsView()->textFilter()->text().isEmpty());
        }
    }
};

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("QT_MEDIA_BACKEND", "ffmpeg"); // build-notes pitfall 5
    QApplication app(argc, argv);
    // Settings of their own per platform: ctest runs the offscreen and the Xvfb (xcb) runs of
    // this binary at once, and each remembers the window and the workspace.
    QApplication::setOrganizationName(QStringLiteral("kosmos-workstation-ux-tests-") +
                                      QGuiApplication::platformName());
    TestWorkstation test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_workstation.moc"
