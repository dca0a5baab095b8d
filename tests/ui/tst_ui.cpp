// Qt Test (offscreen): the runs view-model, the player, opening bad ledgers.
#include "AboutRuntime.h"
#include "MainWindow.h"
#include "Translations.h"
#include "dialogs/SettingsDialog.h"
#include "judge/JudgeSchema.h"
#include "ledger/Ledger.h"
#include "ledger/Schema.h"
#include "media/VideoDecoder.h"
#include "models/RunsModel.h"
#include "panels/BookmarksPanel.h"
#include "panels/EventsPanel.h"
#include "panels/ProvenancePanel.h"
#include "panels/VerdictPanel.h"
#include "pipeline/Importer.h"
#include "player/FramePlayer.h"
#include "player/ReferenceVideo.h"
#include "player/TracesPlot.h"
#include "queries/RolloutQuery.h"
#include "views/CompareView.h"
#include "views/RunsView.h"

#include "TestSupport.h"

#include <QApplication>
#include <QComboBox>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QMediaPlayer>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QTranslator>
#include <QTreeWidget>

#include <fstream>
#include <opencv2/imgcodecs.hpp>

using namespace kosmos;

class TestUi : public QObject
{
    Q_OBJECT

private:
    test::TempDir m_dir;
    std::filesystem::path m_bundle;

    // 600 runs: every 3rd completed with a judgment, every 7th failed, the rest queued; one run
    // with 20 frames and actions for the player.
    void makeLedger()
    {
        m_bundle = m_dir / "ui.kosmos";
        Ledger ledger = Ledger::create(m_bundle);
        const auto protocol = ledger.freezeProtocol("p", test::testProtocol());
        for (int i = 0; i < 600; ++i) {
            auto spec = test::testRunSpec(protocol, i);
            spec.task = i % 2 ? "pick_carrot" : "stack_cups";
            ledger.submitRun(spec);
        }
        for (int i = 0; i < 600; ++i) {
            if (i % 3 != 0 && i % 7 != 0)
                continue;
            auto lease = ledger.claim("w", 30000, i + 1);
            if (i % 7 == 0) {
                ledger.finishAttempt(*lease, AttemptOutcome::failed("x", "y"));
                continue;
            }
            if (i == 3) {
                for (int f = 0; f < 21; ++f)
                    ledger.putArtifact(*lease, "frame",
                                       "frame_" + std::to_string(1000 + f) + ".png",
                                       test::testImage(32, 24, f), "image/png");
                nlohmann::json actions = {{"policy_actions", nlohmann::json::array()},
                                          {"dimension_names", {"dx [m]", "gripper [1]"}},
                                          {"control_rate_hz", 5.0}};
                for (int t = 0; t < 20; ++t)
                    actions["policy_actions"].push_back({0.01 * t, t < 10 ? 1.0 : 0.0});
                const std::string text = actions.dump();
                ledger.putArtifact(
                    *lease, "actions", "actions.json",
                    std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()),
                    "application/json");
                for (int step : {0, 8}) // a policy's own images (SuSIE's subgoals)
                    ledger.putArtifact(*lease, "policy_image",
                                       "step-" + std::to_string(step) + "-subgoal.png",
                                       test::testImage(16, 16, 100 + step), "image/png");
                for (int step = 4; step <= 20; step += 4) // five world-model calls of 4 actions
                    ledger.appendEvent(*lease, "step", {{"step", step}, {"frames", step + 1}});
            }
            JudgmentRecord judgment = test::testJudgment();
            if (i == 3) // the judge's 16 frames of this 21-frame rollout
                judgment.frameIndices = selectJudgeFrames(21);
            ledger.recordJudgment(*lease, judgment);
            ledger.finishAttempt(*lease, AttemptOutcome::completed());
        }
    }

private slots:
    void initTestCase() { makeLedger(); }

    void runsModelFetchesLazily()
    {
        ui::RunsModel model;
        QVERIFY2(model.open(QString::fromStdString((m_bundle / "ledger.sqlite").string())),
                 qPrintable(model.errorString()));
        QCOMPARE(model.matchingCount(), 600);
        QCOMPARE(model.rowCount(), ui::RunsModel::kPageSize);
        QVERIFY(model.canFetchMore());
        model.fetchMore();
        QCOMPARE(model.rowCount(), 2 * ui::RunsModel::kPageSize);
        model.fetchMore();
        QCOMPARE(model.rowCount(), 600);
        QVERIFY(!model.canFetchMore());
        QCOMPARE(model.data(model.index(0, ui::RunsModel::Run)).toLongLong(), 1LL);
    }

    void runsModelFiltersAndSorts()
    {
        ui::RunsModel model;
        QVERIFY(model.open(QString::fromStdString((m_bundle / "ledger.sqlite").string())));
        ui::RunsFilter f;
        f.status = QStringLiteral("failed");
        model.setFilter(f);
        QCOMPARE(model.matchingCount(), 86); // i % 7 == 0 for i in 0..599
        f = {};
        f.judgeOutcome = QStringLiteral("success");
        model.setFilter(f);
        QCOMPARE(model.matchingCount(), 200 - 29); // i % 3 == 0 and not i % 7 == 0
        f.text = QStringLiteral("CUPS");
        model.setFilter(f);
        QVERIFY(model.matchingCount() > 0);
        for (int r = 0; r < model.rowCount(); ++r)
            QCOMPARE(model.data(model.index(r, ui::RunsModel::Task)).toString(),
                     QStringLiteral("stack_cups"));
        f = {};
        f.worldModel = QStringLiteral("WORLD_model");
        model.setFilter(f);
        QCOMPARE(model.matchingCount(), 600);
        f.worldModel = QStringLiteral("cosmos");
        model.setFilter(f);
        QCOMPARE(model.matchingCount(), 0);
        f = {};
        f.human = QStringLiteral("none");
        model.setFilter(f);
        QCOMPARE(model.matchingCount(), 600);
        f.human = QStringLiteral("met");
        model.setFilter(f);
        QCOMPARE(model.matchingCount(), 0);
        QCOMPARE(model.protocols().size(), 1);
        f = {};
        f.protocolSha = model.protocols().at(0).second;
        model.setFilter(f);
        QCOMPARE(model.matchingCount(), 600);
        f.protocolSha = QString(64, QLatin1Char('0'));
        model.setFilter(f);
        QCOMPARE(model.matchingCount(), 0);
        model.setFilter({});
        model.sort(ui::RunsModel::Run, Qt::DescendingOrder);
        QCOMPARE(model.runIdAt(0), 600LL);
        model.sort(ui::RunsModel::Status, Qt::AscendingOrder);
        QCOMPARE(model.data(model.index(0, ui::RunsModel::Status)).toString(),
                 QStringLiteral("completed"));
    }

    void playerSeeksStepsAndFollowsTheCursor()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(QString::fromStdString(m_bundle.string())));
        window.selectRun(4); // i == 3
        auto *player = window.player();
        QCOMPARE(player->frameCount(), 21);
        QCOMPARE(window.traces()->trackCount(), 2);
        // World-model chunk boundaries at 4, 8, 12, 16 (the end at 20 is not one), per track.
        QCOMPARE(window.traces()->chunkBoundaryCount(), 2 * 4);
        QSignalSpy moved(player, &ui::FramePlayer::positionChanged);
        player->step(1);
        QCOMPARE(player->position(), 1);
        QTest::keyClick(player, Qt::Key_Right, Qt::ShiftModifier);
        QCOMPARE(player->position(), 11);
        QTest::keyClick(player, Qt::Key_End);
        QCOMPARE(player->position(), 20);
        QTest::keyClick(player, Qt::Key_Home);
        QCOMPARE(player->position(), 0);
        player->seek(500);
        QCOMPARE(player->position(), 20); // seeking past the end clamps
        QVERIFY(moved.count() >= 4);
        QVERIFY(!player->view()->image().isNull());
        QCOMPARE(player->view()->image().width(), 32);
        QTest::keyClick(player, Qt::Key_Space);
        QVERIFY(player->isPlaying());
        QTest::keyClick(player, Qt::Key_Space);
        QVERIFY(!player->isPlaying());
        // Zoom: fit by default, 1 = true size, +/- step through the list, 0 fits again.
        QCOMPARE(player->view()->zoom(), 0.0);
        QTest::keyClick(player, Qt::Key_1);
        QCOMPARE(player->view()->effectiveZoom(), 1.0);
        QTest::keyClick(player, Qt::Key_Plus);
        QCOMPARE(player->view()->zoom(), 2.0);
        QTest::keyClick(player, Qt::Key_Minus);
        QTest::keyClick(player, Qt::Key_Minus);
        QCOMPARE(player->view()->zoom(), 0.5);
        QTest::keyClick(player, Qt::Key_0);
        QCOMPARE(player->view()->zoom(), 0.0);
        emit window.traces()->seekRequested(7);
        QCOMPARE(player->position(), 7);
        // The policy's subgoal beside the frame: made at step 0 for frame 7, at step 8 from
        // frame 9 (which follows action 8).
        QVERIFY(!player->policyImage()->isHidden());
        QVERIFY2(player->policyImage()->toolTip().contains(QStringLiteral("step 0")),
                 qPrintable(player->policyImage()->toolTip()));
        player->seek(9);
        QVERIFY(player->policyImage()->toolTip().contains(QStringLiteral("step 8")));
        QVERIFY(!player->policyImage()->pixmap().isNull());
        player->seek(7);
        // The verdict panel shows the stored parse of each sample.
        QTreeWidget *verdicts = window.verdicts()->tree();
        QCOMPARE(verdicts->topLevelItemCount(), 1);
        QCOMPARE(verdicts->topLevelItem(0)->childCount(), 5);
        // The judge named its frames 14 and 15 of 16: shown as the rollout's frames they are.
        QCOMPARE(verdicts->topLevelItem(0)->child(0)->text(5), QStringLiteral("19, 20"));
        QCOMPARE(verdicts->topLevelItem(0)->child(0)->text(1), QStringLiteral("bare_json"));
    }

    void provenanceShowsWhereEveryByteCameFromAndVerifies()
    {
        const auto copy = m_dir / "copy.kosmos";
        std::filesystem::copy(m_bundle, copy, std::filesystem::copy_options::recursive);
        ui::MainWindow window;
        QVERIFY(window.openLedger(QString::fromStdString(copy.string())));
        window.selectRun(4);
        QTreeWidget *tree = window.provenance()->tree();
        QCOMPARE(tree->topLevelItemCount(), 4);           // run, components, attempts, artifacts
        QCOMPARE(tree->topLevelItem(1)->childCount(), 3); // policy, world model, judge
        // 21 frames + actions + 2 policy images
        QVERIFY(tree->topLevelItem(3)->text(0).contains(QStringLiteral("(24)")));
        QCOMPARE(window.provenance()->verifyArtifacts(), 0);
        // Tamper with one frame: Verify names it.
        Ledger ledger = Ledger::open(copy, {OpenMode::ReadOnly});
        const auto rollout = loadRollout(ledger, 4);
        const auto path = ledger.artifacts().objectPath(rollout.frames[5].sha256);
        std::filesystem::permissions(path, std::filesystem::perms::owner_write,
                                     std::filesystem::perm_options::add);
        std::ofstream(path, std::ios::binary | std::ios::app) << "x";
        QCOMPARE(window.provenance()->verifyArtifacts(), 1);
    }

    void bookmarksPersistInTheLedgerAndMarkTheTimeline()
    {
        {
            ui::MainWindow window;
            QVERIFY(window.openLedger(QString::fromStdString(m_bundle.string())));
            window.selectRun(4);
            window.player()->seek(12);
            QVERIFY2(window.addBookmark(QStringLiteral("gripper slips")),
                     qPrintable(window.lastError()));
            QCOMPARE(window.bookmarks()->list()->count(), 1);
            // 2 tracks x (16 judge frames + 1 bookmark)
            QCOMPARE(window.traces()->markerCount(), 2 * 17);
        }
        {
            ui::MainWindow window; // a new session finds it again
            QVERIFY(window.openLedger(QString::fromStdString(m_bundle.string())));
            window.selectRun(4);
            QCOMPARE(window.bookmarks()->list()->count(), 1);
            QVERIFY(window.bookmarks()->list()->item(0)->text().contains(
                QStringLiteral("gripper slips")));
            emit window.bookmarks()->seekRequested(12);
            QCOMPARE(window.player()->position(), 12);
            emit window.bookmarks()->removeRequested(
                window.bookmarks()->list()->item(0)->data(Qt::UserRole).toLongLong());
            QCOMPARE(window.bookmarks()->list()->count(), 0);
        }
        Ledger ledger = Ledger::open(m_bundle, {OpenMode::ReadOnly});
        QVERIFY(ledger.bookmarks(4).empty());
    }

    void exportWritesFramesActionsAndVideo()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(QString::fromStdString(m_bundle.string())));
        window.selectRun(4);
        const auto out = m_dir / "export";
        QVERIFY2(window.exportCurrentRun(QString::fromStdString(out.string()), true),
                 qPrintable(window.lastError()));
        QVERIFY(std::filesystem::exists(out / "frames" / "frame_00020.png"));
        QVERIFY(
            test::readFile(out / "actions.csv").find("step,time_s,\"dx [m]\",\"gripper [1]\"") ==
            0);
        const DecodedVideo video = decodeVideo(out / "rollout.mp4");
        QCOMPARE(video.frames.size(), std::size_t{21});
        // H.264 (browsers play it), and each number the shortest text that reads back exactly.
        QCOMPARE(QString::fromStdString(video.codec), QStringLiteral("h264"));
        const std::string csv = test::readFile(out / "actions.csv");
        QVERIFY2(csv.find("\n3,0.6,0.03,1\n") != std::string::npos, csv.c_str());
        QVERIFY(csv.find("0000000") == std::string::npos);
    }

    void compareShowsTwoRunsOnOneTimeline()
    {
        ui::MainWindow window;
        QVERIFY(window.openLedger(QString::fromStdString(m_bundle.string())));
        window.compareRuns(4, 7);
        auto *a = window.compareView()->playerA();
        auto *b = window.compareView()->playerB();
        QCOMPARE(a->frameCount(), 21);
        QCOMPARE(b->frameCount(), 0); // run 7 has no frames: shown as such, no crash
        window.compareRuns(4, 4);
        a->seek(9);
        QCOMPARE(b->position(), 9);
        b->seek(3);
        QCOMPARE(a->position(), 3);
    }

    void layoutIsRestoredByTheNextWindow()
    {
        {
            ui::MainWindow window;
            window.runsView()->table()->horizontalHeader()->resizeSection(2, 222);
            window.saveLayout();
        }
        ui::MainWindow window;
        QCOMPARE(window.runsView()->table()->horizontalHeader()->sectionSize(2), 222);
        QSettings().remove(QStringLiteral("window"));
    }

    void referenceRecordingPlaysBesideTheFrames()
    {
        // An imported episode with a real camera's recording: Qt Multimedia plays it, held at
        // the shared cursor; the generated frames stay the frame-exact ones.
        const auto src = m_dir / "ref-episode";
        std::filesystem::create_directories(src / "frames");
        std::vector<cv::Mat> frames;
        for (int f = 0; f < 10; ++f) {
            frames.push_back(cv::Mat(48, 64, CV_8UC3, cv::Scalar(20 * f, 100, 200 - 10 * f)));
            cv::imwrite((src / "frames" / ("f" + std::to_string(10 + f) + ".png")).string(),
                        frames.back());
        }
        encodeVideo(src / "reference.mp4", frames, 5);
        std::ofstream(src / "import.json")
            << nlohmann::json{{"task", "t"}, {"instruction", "i"}, {"fps", 5}}.dump();
        std::ofstream actions(src / "actions.csv");
        for (int t = 0; t < 9; ++t)
            actions << 0.01 * t << "," << 1 << "\n";
        actions.close();
        const auto bundle = m_dir / "ref.kosmos";
        std::int64_t runId = 0;
        {
            Ledger ledger = Ledger::create(bundle);
            const auto r = importDirectory(ledger, src);
            QCOMPARE(QString::fromStdString(r.state), QStringLiteral("completed"));
            runId = r.runId;
        }
        ui::MainWindow window;
        QVERIFY(window.openLedger(QString::fromStdString(bundle.string())));
        window.selectRun(runId);
        ui::ReferenceVideo *reference = window.player()->reference();
        QVERIFY(reference->hasVideo());
        QVERIFY(reference->caption().contains(QStringLiteral("not generated")));
        QTRY_VERIFY_WITH_TIMEOUT(reference->mediaPlayer()->duration() > 0, 10000);
        QCOMPARE(reference->mediaPlayer()->error(), QMediaPlayer::NoError);
        window.player()->seek(5);
        QCOMPARE(reference->mediaPlayer()->position(), 1000); // frame 5 at 5 fps
        // A run without a recording hides the pane.
        window.openLedger(QString::fromStdString(m_bundle.string()));
        window.selectRun(4);
        QVERIFY(!reference->hasVideo());
    }

    void aboutNamesTheLibraryVersions()
    {
        ui::MainWindow window;
        window.setAboutExtras(
            [] { return QStringList{QStringLiteral("libtorch 1.13.1: used by x")}; });
        const QString text = window.aboutText();
        QVERIFY(text.contains(QStringLiteral("Qt ") + QString::fromLatin1(qVersion())));
        QVERIFY(text.contains(QStringLiteral("SQLite 3.")));
        QVERIFY(text.contains(QStringLiteral("OpenCV 4.")));
        QVERIFY(text.contains(QStringLiteral("libtorch 1.13.1: used by x")));
    }

    // The build stamps the libtorch a torch plugin was built against into its metadata as
    // runtime.libtorch; About reads it there (it read a key nothing wrote, and said "libtorch ?").
    void aboutNamesTheLibtorchTheTorchPluginsWereBuiltWith()
    {
        const nlohmann::json torch = {{"requires", {{"libtorch", true}}},
                                      {"runtime", {{"libtorch", "1.13.1"}, {"cuda", false}}}};
        const nlohmann::json other = {{"requires", nlohmann::json::object()}};
        QStringList lines = ui::libtorchAboutLines(
            {{"torch.generic_policy", torch}, {"synthetic.scripted_policy", other}});
        QCOMPARE(lines.value(0), QStringLiteral("libtorch 1.13.1: used by torch.generic_policy "
                                                "(loaded only when one of them runs)"));
        QCOMPARE(lines.value(1), QStringLiteral("plugins found: 2"));
        lines = ui::libtorchAboutLines({{"synthetic.scripted_policy", other}});
        QCOMPARE(lines.value(0), QStringLiteral("libtorch: no installed plugin uses it"));
        // The metadata this build stamped, when it built the torch plugins.
        std::vector<std::pair<std::string, nlohmann::json>> built;
        std::string stamped;
        for (const auto &dir : std::filesystem::directory_iterator(KOSMOS_PLUGIN_METADATA_DIR)) {
            for (const auto &file : std::filesystem::directory_iterator(dir.path())) {
                std::ifstream in(file.path());
                const auto metadata = nlohmann::json::parse(in, nullptr, false);
                if (metadata.is_object() && metadata.contains("runtime"))
                    stamped = metadata["runtime"].value("libtorch", "");
                built.emplace_back(file.path().stem().string(), metadata);
            }
        }
        if (stamped.empty())
            QSKIP("this build has no torch plugins");
        QVERIFY2(ui::libtorchAboutLines(built).value(0).startsWith(QStringLiteral("libtorch ") +
                                                                   QString::fromStdString(stamped) +
                                                                   QStringLiteral(": used by ")),
                 qPrintable(ui::libtorchAboutLines(built).value(0)));
    }

    void germanTranslationIsCompleteAndLoads()
    {
        QVERIFY(ui::installTranslations(QLocale(QStringLiteral("de_DE")),
                                        QStringLiteral(KOSMOS_QM_DIR)));
        {
            ui::MainWindow window;
            QCOMPARE(window.menuBar()->actions().at(0)->text(), QStringLiteral("&Datei"));
            QCOMPARE(window.runsModel()->headerData(ui::RunsModel::Task, Qt::Horizontal).toString(),
                     QStringLiteral("Aufgabe"));
        }
        // Back to the English source strings for the other tests.
        for (QTranslator *t : QCoreApplication::instance()->findChildren<QTranslator *>()) {
            QCoreApplication::removeTranslator(t);
            delete t;
        }
        ui::MainWindow window;
        QCOMPARE(window.menuBar()->actions().at(0)->text(), QStringLiteral("&File"));
        // English needs no file; an unknown language loads nothing and keeps English.
        QVERIFY(!ui::installTranslations(QLocale(QStringLiteral("sw_KE")),
                                         QStringLiteral(KOSMOS_QM_DIR)));
    }

    void settingsDialogSavesPluginFolders()
    {
        ui::SettingsDialog dialog;
        dialog.folders()->setPlainText(QStringLiteral("/opt/kosmos/plugins\n\n  /srv/more  \n"));
        dialog.save();
        QCOMPARE(QSettings().value(QStringLiteral("plugins/folders")).toStringList(),
                 QStringList({QStringLiteral("/opt/kosmos/plugins"), QStringLiteral("/srv/more")}));
        QSettings().remove(QStringLiteral("plugins/folders"));
        // Another language: the dialog itself says when it takes effect.
        QVERIFY(dialog.restartNote()->isHidden());
        dialog.language()->setCurrentIndex(dialog.language()->findData(QStringLiteral("de")));
        QVERIFY(!dialog.restartNote()->isHidden());
        QVERIFY(dialog.restartNote()->text().contains(QStringLiteral("next starts")));
    }

    void eventsFollowAnotherWriter()
    {
        const auto bundle = m_dir / "live.kosmos";
        Ledger writer = Ledger::create(bundle);
        const auto protocol = writer.freezeProtocol("p", test::testProtocol());
        writer.submitRun(test::testRunSpec(protocol, 0));
        ui::MainWindow window;
        QVERIFY(window.openLedger(QString::fromStdString(bundle.string())));
        window.selectRun(1);
        QCOMPARE(window.events()->eventCount(), 1); // run_submitted
        auto lease = writer.claim("w", 30000);      // another connection, as another process would
        writer.appendEvent(*lease, "stage", {{"stage", "policy"}});
        window.events()->poll();
        QCOMPARE(window.events()->eventCount(), 3);
        writer.finishAttempt(*lease, AttemptOutcome::completed());
        QTRY_COMPARE(window.events()->eventCount(), 4); // the timer follows by itself
    }

    void badLedgersGiveAClearMessageAndNoCrash()
    {
        ui::MainWindow window;
        QVERIFY(!window.openLedger(QString::fromStdString((m_dir / "missing.kosmos").string())));
        QVERIFY(window.lastError().contains(QStringLiteral("no ledger")));
        std::filesystem::create_directories(m_dir / "junk.kosmos");
        std::ofstream(m_dir / "junk.kosmos" / "ledger.sqlite")
            << "this is not a database at all, long enough text";
        QVERIFY(!window.openLedger(QString::fromStdString((m_dir / "junk.kosmos").string())));
        QVERIFY(window.lastError().contains(QStringLiteral("not a Kosmos ledger")));
        // A newer schema version.
        const std::string newerSql =
            std::string(currentSchema().createSql) + "\nPRAGMA user_version = 99;\n";
        const SchemaSpec newer{99, newerSql, {}};
        {
            Ledger::create(m_dir / "future.kosmos", {OpenMode::ReadWrite, &newer});
        }
        QVERIFY(!window.openLedger(QString::fromStdString((m_dir / "future.kosmos").string())));
        QVERIFY(window.lastError().contains(QStringLiteral("newer Kosmos")));
        // Artifacts missing: the run opens, the frames show as absent.
        Ledger ledger = Ledger::open(m_bundle, {OpenMode::ReadOnly});
        const auto rollout = loadRollout(ledger, 4);
        std::filesystem::rename(m_bundle / "objects", m_dir / "objects.away");
        QVERIFY(window.openLedger(QString::fromStdString(m_bundle.string())));
        window.selectRun(4);
        QVERIFY(window.player()->view()->image().isNull());
        std::filesystem::rename(m_dir / "objects.away", m_bundle / "objects");
        QCOMPARE(rollout.frames.size(), std::size_t{21});
    }
};

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("QT_MEDIA_BACKEND", "ffmpeg"); // build-notes pitfall 5
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kosmos-workstation-tests"));
    TestUi test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_ui.moc"
