// Qt Test (offscreen): running rollouts from the workstation. The launcher's validation, the
// plugin manager's reasons and smoke test, a synthetic batch launched through the GUI's
// controller and half cancelled, a batch left running across windows, and a plugin that
// crashes mid-rollout while the GUI process carries on.
#include "LedgerSettings.h"
#include "MainWindow.h"
#include "Vocabulary.h"
#include "dataset/ParquetReader.h"
#include "dialogs/ExportDialog.h"
#include "dialogs/LabelingDialog.h"
#include "dialogs/ScreenFit.h"
#include "dialogs/SettingsDialog.h"
#include "evaluation/Calibration.h"
#include "evaluation/Fidelity.h"
#include "ledger/Ledger.h"
#include "media/LeRobotWriter.h"
#include "models/RunsModel.h"
#include "player/FramePlayer.h"
#include "plots/EvaluationPlots.h"
#include "queries/LatestRuns.h"
#include "run/LauncherDialog.h"
#include "run/PluginCatalog.h"
#include "run/PluginManagerDialog.h"
#include "run/ProgressPanel.h"
#include "run/RunController.h"
#include "run/SettingsForm.h"
#include "stats/Agreement.h"
#include "stats/Proportion.h"
#include "util/CanonicalJson.h"
#include "util/GpuMonitor.h"
#include "util/Sha256.h"
#include "util/Subprocess.h"
#include "verify/LedgerVerifier.h"
#include "views/EvaluationView.h"
#include "views/FidelityPanel.h"

#include "TestSupport.h"

#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>

#include <opencv2/core.hpp>
#include <qcustomplot.h>

#include <fstream>
#include <iterator>
#include <random>

using namespace kosmos;

namespace {

nlohmann::json batchProtocol(const std::string &name, int episodes,
                             const std::string &policy = "synthetic.scripted_policy",
                             nlohmann::json settings = {{"skill", "expert"}})
{
    return {
        {"kosmos_protocol", 1},
        {"name", name},
        {"seed", 7},
        {"horizon", 16},
        {"episodes_per_task", episodes},
        {"tasks",
         {{{"id", "red_to_green"},
           {"instruction", "put the red block in the green square"},
           {"start_state", {{"randomize_m", 0.02}}}}}},
        {"policies", {{{"plugin", policy}, {"settings", settings}}}},
        {"world_model", {{"plugin", "synthetic.tabletop"}, {"settings", nlohmann::json::object()}}},
        {"judge",
         {{"plugin", "synthetic.frame_judge"},
          {"settings", {{"format_noise", 0.1}}},
          {"quorum", {{"samples", 3}, {"quorum", 2}}}}}};
}

} // namespace

class TestRunGui : public QObject
{
    Q_OBJECT

private:
    test::TempDir m_dir;

    QString newLedger(const std::string &name)
    {
        const auto bundle = m_dir / name;
        Ledger::create(bundle);
        return QString::fromStdString(bundle.string());
    }

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        // The fixture plugins (one crashes on purpose) beside the installed ones.
        qputenv("KOSMOS_PLUGIN_PATH", KOSMOS_FIXTURE_PLUGIN_DIR);
        // The fake NVML (two devices) for the launcher's and the progress dock's GPU view.
        qputenv("KOSMOS_NVML_LIBRARY", KOSMOS_FAKE_NVML);
    }

    void launcherOffersCudaOnlyWhereAPluginAndADeviceCanUseIt()
    {
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        controller.setLedger(newLedger("cuda.kosmos"));
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY2(catalog.reload(), qPrintable(catalog.error()));
        const GpuSnapshot fake = GpuMonitor(KOSMOS_FAKE_NVML).sample();
        const GpuSnapshot none = GpuMonitor("/nonexistent/libnvidia-ml.so.1").sample();
        // As another build's plugins would be listed: CPU-only libtorch, then a CUDA one.
        QList<ui::PluginEntry> plugins = catalog.plugins();
        for (auto &p : plugins)
            if (p.id == QLatin1String("synthetic.scripted_policy"))
                p.runtime = {{"libtorch", "1.13.0"}, {"cuda", false}, {"aoti", false}};
            else
                p.runtime = nullptr;
        catalog.setPlugins(plugins);
        ui::DeviceChoice c = ui::deviceChoice(catalog, fake);
        QVERIFY(c.devices.isEmpty());
        QVERIFY2(c.reason.contains(QStringLiteral("built on libtorch 1.13.0, which is CPU-only")),
                 qPrintable(c.reason));
        for (auto &p : plugins)
            if (p.id == QLatin1String("synthetic.scripted_policy"))
                p.runtime = {{"libtorch", "2.15.0"}, {"cuda", true}, {"aoti", true}};
        catalog.setPlugins(plugins);
        c = ui::deviceChoice(catalog, none);
        QVERIFY(c.devices.isEmpty());
        QVERIFY2(c.reason.contains(QStringLiteral("can use CUDA, but here: no NVIDIA driver")),
                 qPrintable(c.reason));
        c = ui::deviceChoice(catalog, fake);
        QCOMPARE(c.devices.size(), 2);
        QCOMPARE(c.devices[0].first, QStringLiteral("cuda:0 - Fake GPU A (20.0 GiB free of 80.0)"));
        QCOMPARE(c.devices[1].second, QStringLiteral("cuda:1"));

        // Chosen in the launcher: the CUDA-capable component gets the device, the others not.
        ui::LauncherDialog dialog(catalog, controller);
        dialog.setProtocol(batchProtocol("cuda", 1, "synthetic.random_policy_without_cuda"));
        QVERIFY2(!dialog.deviceBox()->isEnabled(), "no chosen plugin can use CUDA");
        QVERIFY(dialog.deviceBox()->toolTip().contains(QStringLiteral("None of the chosen")));
        dialog.setProtocol(batchProtocol("cuda", 1));
        QVERIFY(dialog.deviceBox()->isEnabled());
        QCOMPARE(dialog.deviceBox()->count(), 3); // CPU, cuda:0, cuda:1
        QVERIFY(!dialog.protocol()["policies"][0]["settings"].contains("device"));
        dialog.deviceBox()->setCurrentIndex(2);
        QVERIFY(dialog.protocol()["policies"][0]["settings"]["device"] == "cuda:1");
        QVERIFY(!dialog.protocol()["world_model"]["settings"].contains("device"));
    }

    void theGateReadsInTheWindowsLanguageAsCoreWritesItInEnglish()
    {
        // Every kind of line (passed, failed, on the bound, more clips, over a million, a class
        // below its minimum, nothing measured), worded from its data: in English exactly core's
        // text, which the CLI and the record print.
        int lines = 0;
        std::mt19937 random(7);
        for (int trial = 0; trial < 400; ++trial) {
            std::vector<std::optional<bool>> judge, label;
            const int n = static_cast<int>(random() % 120);
            const double agree = 0.5 + (random() % 50) / 100.0;
            for (int i = 0; i < n; ++i) {
                const bool truth = static_cast<int>(random() % 100) < 30 + trial % 50;
                label.push_back(random() % 17 == 0 ? std::nullopt : std::optional<bool>(truth));
                judge.push_back((random() % 100) / 100.0 < agree ? truth : !truth);
            }
            CalibrationGate gate;
            gate.minSuccesses = static_cast<int>(random() % 30);
            gate.minFailures = static_cast<int>(random() % 30);
            for (const GateLine &line : evaluateGate(binaryAgreement(judge, label), gate).lines) {
                QCOMPARE(ui::gateLineWords(line), QString::fromStdString(gateLineText(line)));
                ++lines;
            }
        }
        QVERIFY(lines >= 2400);
    }

    void plotsSayWhyTheyAreEmptyAndNeverPrintNumbersOverEachOther()
    {
        auto texts = [](QCustomPlot &plot) {
            QStringList out;
            for (int i = 0; i < plot.itemCount(); ++i)
                if (auto *t = qobject_cast<QCPItemText *>(plot.item(i)))
                    out << t->text().trimmed();
            return out;
        };
        QCustomPlot plot;
        FidelityReport report;
        ui::EvaluationPlots::fidelity(&plot, report);
        QVERIFY2(texts(plot).join(' ').contains(QStringLiteral("No policy has a rate in both")),
                 qPrintable(texts(plot).join('|')));
        // Four policies at (0, 0) and one at (0.5, 0.25): two labels, not five.
        for (int i = 0; i < 4; ++i)
            report.policies.push_back({"p" + std::to_string(i), wilson(0, 8), wilson(0, 8)});
        report.policies.push_back({"p4", wilson(4, 8), wilson(2, 8)});
        ui::EvaluationPlots::fidelity(&plot, report);
        QStringList labels = texts(plot);
        labels.sort();
        QCOMPARE(labels, QStringList({QStringLiteral("1, 2, 3, 4"), QStringLiteral("5")}));
        FrameFidelityCurve curve;
        ui::EvaluationPlots::frameFidelity(&plot, curve);
        QVERIFY(texts(plot).join(' ').contains(QStringLiteral("No replay compared yet")));
        CalibrationReport calibration;
        ui::EvaluationPlots::reliability(&plot, calibration);
        QVERIFY(texts(plot).join(' ').contains(QStringLiteral("label clips blind")));
    }

    void fidelityTabShowsTheReportWithItsIntervals()
    {
        test::TempDir dir;
        Ledger ledger = Ledger::create(dir / "f.kosmos");
        test::writeFidelityFixture(ledger);
        ui::EvaluationView view;
        view.setCliPath(QString::fromStdString(test::cliPath()));
        view.setLedger(&ledger);
        view.tabs()->setCurrentWidget(view.fidelity());
        view.show();
        auto *panel = view.fidelity();
        panel->physicsProtocol()->setCurrentIndex(0);
        panel->imaginedProtocol()->setCurrentIndex(1);
        QCOMPARE(panel->table()->rowCount(), 3);
        QVERIFY(panel->table()->item(0, 2)->text().contains(QStringLiteral("n = 4")));
        QCOMPARE(panel->table()->item(2, 4)->text(), QStringLiteral("1 (1 invalid)")); // C
        const QString summary = panel->summary()->text();
        QVERIFY2(summary.contains(QStringLiteral("12 paired episodes")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("Pearson 0.564 [")), qPrintable(summary));
        QVERIFY(summary.contains(QStringLiteral("MMRV 0.167")));
        QVERIFY(summary.contains(QStringLiteral("not evidence of real robot-task success")));
        // The goals, each decided or said why not (three policies cannot spread; no judge ran
        // on the physics rollouts).
        QVERIFY2(summary.contains(QStringLiteral("[not met]</b> spread")), qPrintable(summary));
        QVERIFY2(summary.contains(QStringLiteral("[undecided]</b> judge")), qPrintable(summary));
        QVERIFY(panel->summary()->toolTip().contains(QStringLiteral("SC3-Eval 0.929")));
        // Judged by another configuration: A's four imagined rollouts re-judged as successes
        // (judge-2); chosen, the table and summary read its verdicts and say so.
        QCOMPARE(panel->judgeConfiguration()->count(), 2); // the protocols' own, and its key
        QVERIFY(!summary.contains(QStringLiteral("Judged by")));
        for (const LatestRun &run : latestRuns(ledger, {std::nullopt, true, std::nullopt}))
            if (run.policyLabel.find("\"A\"") != std::string::npos && run.task.starts_with("t#") &&
                run.task != "t#9")
                test::rejudgeRun(ledger, run.runId, true);
        view.setLedger(&ledger);
        panel->physicsProtocol()->setCurrentIndex(0);
        panel->imaginedProtocol()->setCurrentIndex(1);
        QCOMPARE(panel->judgeConfiguration()->count(), 3);
        const int judge2 =
            panel->judgeConfiguration()->findText(QStringLiteral("0.25"), Qt::MatchContains);
        QVERIFY(judge2 > 0);
        panel->judgeConfiguration()->setCurrentIndex(judge2);
        QVERIFY2(panel->summary()->text().contains(QStringLiteral("Judged by")),
                 qPrintable(panel->summary()->text()));
        QVERIFY2(panel->table()->item(0, 3)->text().startsWith(QStringLiteral("4/4")), // A
                 qPrintable(panel->table()->item(0, 3)->text()));
        panel->judgeConfiguration()->setCurrentIndex(0);
        QVERIFY(!panel->summary()->text().contains(QStringLiteral("Judged by")));
        // Only a protocol with physics labels is offered as the ground truth (#35: the demo
        // ledger's synthetic protocol was called "physics protocol (ground truth)").
        QCOMPARE(panel->physicsProtocol()->count(), 1);
        QCOMPARE(panel->imaginedProtocol()->count(), 2);
        // The same protocol twice: said, not computed.
        panel->imaginedProtocol()->setCurrentIndex(0);
        QVERIFY(panel->summary()->text().contains(QStringLiteral("Choose two different")));
        QCOMPARE(panel->table()->rowCount(), 0);
        // A ledger without physics labels: said so, and nothing of the previous ledger stays.
        Ledger plain = Ledger::create(dir / "plain.kosmos");
        const std::string sha = plain.freezeProtocol("tabletop-demo", test::testProtocol());
        plain.submitRun(test::testRunSpec(sha, 0));
        view.setLedger(&plain);
        QCOMPARE(panel->physicsProtocol()->count(), 0);
        QVERIFY2(panel->summary()->text().contains(
                     QStringLiteral("No protocol of this ledger has physics labels")),
                 qPrintable(panel->summary()->text()));
        QCOMPARE(panel->table()->rowCount(), 0);
        // An open-loop twin (a policy that reads the simulator's state): marked where the
        // column's elision cannot hide it, and said why in its tooltip.
        Ledger twin = Ledger::create(dir / "twin.kosmos");
        test::writeFidelityFixture(twin, {{"A", {1, 0}}, {"X", {1, 1}}},
                                   {{"A", {1, 0}}, {"replay:X", {1, 0}}});
        view.setLedger(&twin);
        panel->physicsProtocol()->setCurrentIndex(0);
        panel->imaginedProtocol()->setCurrentIndex(1);
        QCOMPARE(panel->table()->rowCount(), 2);
        QVERIFY2(panel->table()->item(0, 1)->text().startsWith(QStringLiteral("[open loop] ")),
                 qPrintable(panel->table()->item(0, 1)->text()));
        QVERIFY(panel->table()->item(0, 1)->toolTip().contains(QStringLiteral("replayed")));
        QVERIFY(!panel->table()->item(1, 1)->text().contains(QStringLiteral("open loop")));
        // A policy added later on the same starts (its own protocols): the study's protocols are
        // offered and chosen as one entry, every policy in one table.
        Ledger joined = Ledger::create(dir / "joined.kosmos");
        test::writeFidelityProtocols(joined, "s", "s-imagined", {{"seed", 1}}, {{"judge", "j"}},
                                     {{"A", {1, 0}}, {"B", {0, 0}}},
                                     {{"A", {1, 0}}, {"B", {0, 1}}});
        test::writeFidelityProtocols(joined, "e", "e-imagined", {{"seed", 1}}, {{"judge", "j"}},
                                     {{"X", {1, 1}}}, {{"replay:X", {1, 0}}});
        view.setLedger(&joined);
        QCOMPARE(panel->physicsProtocol()->currentText(), QStringLiteral("s + e"));
        QCOMPARE(panel->imaginedProtocol()->currentText(),
                 QStringLiteral("s-imagined + e-imagined"));
        QCOMPARE(panel->table()->rowCount(), 3);
        QVERIFY2(panel->summary()->text().contains(QStringLiteral("6 paired episodes")),
                 qPrintable(panel->summary()->text()));
        QVERIFY(!panel->summary()->text().contains(QStringLiteral("Where the disagreement")));
        // The imagined actions replayed in physics ("<imagined>-in-physics", kosmos-cli fidelity
        // prepare --in-physics): found and read, the split said (tst_fidelity works it out).
        Ledger split = Ledger::create(dir / "split.kosmos");
        test::writeFidelityFixture(split,
                                   {{"A", {1, 1, 1, 0}}, {"B", {1, 0, 1, 0}}, {"C", {0, 0, 0, 0}}},
                                   {{"A", {1, 1, 0, 0}}, {"B", {1, 1, 1, 0}}, {"C", {0, 0, 1, 1}}});
        test::writeInPhysicsRuns(split, "imag-in-physics",
                                 {{"A", {1, 0, 1, 0}}, {"B", {1, 1, 0, 0}}, {"C", {0, 0, 0, -1}}},
                                 {{"A", {1, 0, 0, 0}}, {"C", {0, 0, 0, -1}}});
        view.setLedger(&split);
        // (Nothing chosen on a side: said, nothing computed.)
        panel->imaginedProtocol()->setCurrentIndex(-1);
        QVERIFY2(panel->summary()->text().startsWith(QStringLiteral("Choose the physics")),
                 qPrintable(panel->summary()->text()));
        panel->physicsProtocol()->setCurrentIndex(
            panel->physicsProtocol()->findText(QStringLiteral("phys  ("), Qt::MatchStartsWith));
        panel->imaginedProtocol()->setCurrentIndex(
            panel->imaginedProtocol()->findText(QStringLiteral("imag  ("), Qt::MatchStartsWith));
        const QString text = panel->summary()->text();
        QVERIFY2(text.contains(QStringLiteral("Where the disagreement comes from</b> "
                                              "(imag-in-physics")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("of 11 pairs, 1 the policy acted otherwise")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("2 the world model or the judge erred on the very "
                                              "actions (1 lenient, 1 harsh)")),
                 qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("(kappa 0.290)")), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("the judge makes the same call on the physics frames "
                                              "of the actions in 1 of 2")),
                 qPrintable(text));
    }

    // Against recordings: a LeRobot dataset's recorded actions replayed in a world model by
    // kosmos-cli fidelity replay; the curve plotted with its 95% bands. Needs no ledger. What
    // the world model cannot take is said in the panel.
    void fidelityAgainstRecordingsPlotsTheCurveWithItsBands()
    {
        test::TempDir dir;
        ui::EvaluationView view;
        view.setCliPath(QString::fromStdString(test::cliPath()));
        auto *panel = view.fidelity();
        QVERIFY(panel->recordingsButton()->isEnabled());
        const QString config = QString::fromStdString((dir / "world.json").string());
        std::ofstream(config.toStdString())
            << R"({"plugin": "synthetic.tabletop", "settings": {}})";
        QSignalSpy done(panel, &ui::FidelityPanel::framesCompared);
        std::string why;
        if (!parquetAvailable(&why)) { // the CLI says why; the panel shows it
            panel->compareWithRecordings(
                QStringLiteral(KOSMOS_SOURCE_DIR "/tests/fixtures/lerobot/pusht-h264"), config);
            QVERIFY(done.wait(60000));
            QVERIFY2(panel->framesSummary()->text().contains(QStringLiteral("libkosmos-parquet")),
                     qPrintable(panel->framesSummary()->text()));
            return;
        }
        // Three recorded episodes of 8 frames: 7-D actions at 5 fps, 320x256 frames.
        const auto dataset = dir / "recorded";
        {
            LeRobotWriterOptions options;
            options.fps = 5;
            options.actionNames = {"dx", "dy", "dz", "droll", "dpitch", "dyaw", "gripper"};
            LeRobotWriter writer(dataset, options);
            for (int e = 0; e < 3; ++e) {
                LeRobotOutEpisode episode;
                episode.task = "put the red block in the green square";
                for (int k = 0; k < 8; ++k) {
                    episode.frames.emplace_back(256, 320, CV_8UC3,
                                                cv::Scalar(90 + 10 * e + k, 120, 150));
                    episode.actions.push_back({0.01 * (k % 3), 0, 0, 0, 0, 0, 1});
                }
                writer.add(episode);
            }
            writer.finish();
        }
        panel->compareWithRecordings(QString::fromStdString(dataset.string()), config);
        QVERIFY(done.wait(60000));
        QVERIFY2(panel->framesSummary()->text().contains(QStringLiteral("3 recorded episodes")),
                 qPrintable(panel->framesSummary()->text()));
        QVERIFY(panel->framesSummary()->text().contains(QStringLiteral("not evidence")));
        QCOMPARE(panel->frameCurve().psnrMean.size(), 7u);
        QCOMPARE(panel->frameCurve().psnrLower.size(), 7u);
        // The means and the two bands (each a pair of graphs).
        QCOMPARE(panel->framesPlot()->graphCount(), 6);
        // Actions the world model cannot take: said, with the CLI's words.
        panel->compareWithRecordings(
            QStringLiteral(KOSMOS_SOURCE_DIR "/tests/fixtures/lerobot/pusht-h264"), config);
        QVERIFY(done.wait(60000));
        QVERIFY2(panel->framesSummary()->text().contains(QStringLiteral("7-D actions")),
                 qPrintable(panel->framesSummary()->text()));
    }

    // Run > New batch lists remote.world beside the native worlds, with its settings form (the
    // server's address) and the reason it is unavailable while nothing listens there.
    void launcherOffersTheRemoteWorldWithItsAddress()
    {
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        controller.setLedger(newLedger("remote-world.kosmos"));
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY2(catalog.reload(), qPrintable(catalog.error()));
        ui::LauncherDialog dialog(catalog, controller);
        const int remote = dialog.worldPlugin()->findData(QStringLiteral("remote.world"));
        QVERIFY(remote >= 0);
        dialog.worldPlugin()->setCurrentIndex(remote);
        QVERIFY(dialog.worldForm()->editor(QStringLiteral("url")));
        QVERIFY(dialog.worldForm()->editor(QStringLiteral("timeout_s")));
    }

    // Run > New batch offers ALOHA sim (physics.mjcf): choosing the world fills in its two tasks,
    // its settings form has the camera and where gym-aloha is installed, and the scripted experts
    // are listed by their title with their noise levels.
    void launcherOffersAlohaSimWithItsTasksAndExperts()
    {
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        controller.setLedger(newLedger("aloha.kosmos"));
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY2(catalog.reload(), qPrintable(catalog.error()));
        if (!catalog.find(QStringLiteral("physics.mjcf")))
            QSKIP("built without the mujoco wheel (scripts/setup-worlds.sh)");
        ui::LauncherDialog dialog(catalog, controller);
        dialog.worldPlugin()->setCurrentIndex(
            dialog.worldPlugin()->findData(QStringLiteral("physics.mjcf")));
        QCOMPARE(dialog.tasks()->rowCount(), 2);
        QCOMPARE(dialog.tasks()->item(0, 0)->text(), QStringLiteral("aloha_transfer_cube"));
        QCOMPARE(dialog.tasks()->item(1, 1)->text(),
                 QStringLiteral("Insert the peg into the socket."));
        QVERIFY(dialog.worldForm()->editor(QStringLiteral("camera")));
        QVERIFY(dialog.worldForm()->editor(QStringLiteral("python")));
        const int expert = dialog.policyPlugin()->findData(QStringLiteral("mjcf.aloha_expert"));
        QVERIFY(expert >= 0);
        QVERIFY2(dialog.policyPlugin()->itemText(expert).startsWith(
                     QStringLiteral("ALOHA scripted expert (ACT's waypoints) (mjcf.aloha_expert")),
                 qPrintable(dialog.policyPlugin()->itemText(expert)));
        dialog.policyPlugin()->setCurrentIndex(expert);
        auto *noise =
            qobject_cast<QComboBox *>(dialog.policyForm()->editor(QStringLiteral("noise")));
        QVERIFY2(noise, "the noise level is chosen from its levels");
        QVERIFY(noise->findText(QStringLiteral("high")) >= 0);
    }

    // Run > New batch offers "LeRobot policy (local folder)": the checkpoint is chosen as a
    // folder, what is missing is said live, and the dry run starts the bridge (over the stand-in
    // for LeRobot's API, tests/fixtures/lerobot-standin) and finds the contracts fit.
    void launcherOffersALeRobotCheckpointFolder()
    {
        ::setenv("PYTHONPATH", KOSMOS_SOURCE_DIR "/tests/fixtures/lerobot-standin/site", 1);
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        controller.setLedger(newLedger("lerobot.kosmos"));
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY2(catalog.reload(), qPrintable(catalog.error()));
        ui::LauncherDialog dialog(catalog, controller);
        dialog.worldPlugin()->setCurrentIndex(
            dialog.worldPlugin()->findData(QStringLiteral("synthetic.tabletop")));
        const int lerobot = dialog.policyPlugin()->findData(QStringLiteral("remote.lerobot"));
        QVERIFY(lerobot >= 0);
        QVERIFY2(dialog.policyPlugin()->itemText(lerobot).startsWith(
                     QStringLiteral("LeRobot policy (local folder) (remote.lerobot")),
                 qPrintable(dialog.policyPlugin()->itemText(lerobot)));
        dialog.policyPlugin()->setCurrentIndex(lerobot);
        auto *folder =
            qobject_cast<QComboBox *>(dialog.policyForm()->editor(QStringLiteral("checkpoint")));
        QVERIFY2(folder, "the checkpoint is chosen as a folder");
        QVERIFY(folder->findText(QStringLiteral("Other folder...")) >= 0);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.policyStatus()->text().contains(
                                     QStringLiteral("choose a LeRobot checkpoint folder")),
                                 30000);
        auto protocol = batchProtocol("lerobot", 1);
        protocol["policies"] = nlohmann::json::array(
            {{{"plugin", "remote.lerobot"},
              {"settings",
               {{"checkpoint", KOSMOS_SOURCE_DIR "/tests/fixtures/lerobot-standin/checkpoint"},
                {"python", "/usr/bin/python3"}}}}});
        protocol["world_model"] = {{"plugin", "synthetic.tabletop"},
                                   {"settings", nlohmann::json::object()}};
        dialog.setProtocol(protocol);
        QTRY_VERIFY2_WITH_TIMEOUT(dialog.problems().isEmpty(),
                                  qPrintable(dialog.problems().join(QLatin1Char(10))), 30000);
        const auto report = dialog.check();
        ::unsetenv("PYTHONPATH");
        QVERIFY2(report.value("problems", nlohmann::json::array()).empty(),
                 qPrintable(QString::fromStdString(report.dump())));
        QCOMPARE(report.value("runs", 0), dialog.protocol().value("episodes_per_task", 0));
    }

    void launcherRefusesBadInputNamingTheField()
    {
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        controller.setLedger(newLedger("launch.kosmos"));
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY2(catalog.reload(), qPrintable(catalog.error()));
        ui::LauncherDialog dialog(catalog, controller);
        QVERIFY2(dialog.problems().join('\n').contains(QStringLiteral("Add a policy")),
                 qPrintable(dialog.problems().join('\n'))); // the world offered its tasks
        QVERIFY(!dialog.startButton()->isEnabled());

        dialog.setProtocol(batchProtocol("launcher", 2));
        QVERIFY2(dialog.problems().isEmpty(), qPrintable(dialog.problems().join('\n')));
        QVERIFY(dialog.startButton()->isEnabled());
        QVERIFY(dialog.protocol()["policies"].size() == 1);

        // The policy form is built from the plugin's schema: an enum is a combo box.
        dialog.policyPlugin()->setCurrentIndex(
            dialog.policyPlugin()->findData(QStringLiteral("synthetic.scripted_policy")));
        auto *skill =
            qobject_cast<QComboBox *>(dialog.policyForm()->editor(QStringLiteral("skill")));
        QVERIFY(skill);
        skill->setCurrentIndex(skill->findText(QStringLiteral("noisy")));
        dialog.addPolicy();
        QCOMPARE(dialog.policies()->count(), 2);
        QVERIFY(dialog.protocol()["policies"][1]["settings"]["skill"] == "noisy");
        // A policy added with its default settings is stored with them, not as {}.
        skill->setCurrentIndex(skill->findText(QStringLiteral("expert")));
        dialog.addPolicy();
        QVERIFY(dialog.protocol()["policies"][2]["settings"] ==
                nlohmann::json({{"skill", "expert"}}));
        delete dialog.policies()->item(2);

        // What a new user meets first is said with what to do (in the window's language).
        auto protocolWith = batchProtocol("launcher", 2);
        protocolWith["tasks"][0]["start_state"] = nlohmann::json::array();
        protocolWith["name"] = "";
        dialog.setProtocol(protocolWith);
        QVERIFY2(dialog.problems().join('\n').contains(QStringLiteral("must be a JSON object")),
                 qPrintable(dialog.problems().join('\n')));
        QVERIFY(dialog.problems().join('\n').contains(QStringLiteral("Give the batch a name")));
        dialog.setProtocol(batchProtocol("launcher", 2));
        // A judge needs 16 frames: a horizon of 10 is refused, naming the field.
        dialog.horizon()->setValue(10);
        QVERIFY(dialog.problems().join('\n').contains(QStringLiteral("horizon")));
        QVERIFY(!dialog.startButton()->isEnabled());
        dialog.horizon()->setValue(16);

        // Settings that fail the schema: the HTTP judge without its endpoint.
        auto protocol = batchProtocol("launcher", 2);
        protocol["judge"] = {{"plugin", "openai.chat_judge"},
                             {"settings", {{"model", "qwen"}}},
                             {"quorum", {{"samples", 3}, {"quorum", 2}}}};
        dialog.setProtocol(protocol);
        QVERIFY2(dialog.problems().join('\n').contains(
                     QStringLiteral("judge settings: base_url: is required")),
                 qPrintable(dialog.problems().join('\n')));

        // Loading a protocol and launching it unchanged keeps its hash (and so its run keys).
        std::ifstream example(KOSMOS_EXAMPLES_DIR "/tabletop-demo.json");
        const auto demo = nlohmann::json::parse(example);
        dialog.setProtocol(demo);
        QCOMPARE(QString::fromStdString(Sha256::hex(canonicalJson(dialog.protocol()))),
                 QString::fromStdString(Sha256::hex(canonicalJson(demo))));

        // The dry run counts runs and what the ledger already holds.
        dialog.setProtocol(batchProtocol("launcher", 2));
        const auto report = dialog.check();
        QCOMPARE(report.value("runs", 0), 2);
        QCOMPARE(report.value("finished", -1), 0);
        QVERIFY(dialog.summary()->text().contains(QStringLiteral("2 runs")));

        // New batch remembers the form per ledger, launched or not.
        const QString ledger = QString::fromStdString((m_dir / "launch.kosmos").string());
        dialog.horizon()->setValue(23);
        dialog.saveForm(ledger);
        ui::LauncherDialog again(catalog, controller);
        QVERIFY(again.restoreForm(ledger));
        QVERIFY(again.protocol() == dialog.protocol());
        QCOMPARE(again.horizon()->value(), 23);
        ui::LauncherDialog other(catalog, controller);
        QVERIFY(!other.restoreForm(ledger + QStringLiteral("-another")));
        QVERIFY(other.protocol()["policies"].empty());
        // A damaged entry (100,000 levels deep) is ignored, not a crash.
        {
            QSettings settings;
            settings.beginGroup(ui::perLedgerGroup(QStringLiteral("launcher"), ledger));
            settings.setValue(QStringLiteral("protocol"),
                              QByteArray(100000, '[') + QByteArray(100000, ']'));
        }
        ui::LauncherDialog damaged(catalog, controller);
        QVERIFY(!damaged.restoreForm(ledger));
    }

    void launcherRunsAShippedModelInTheWorldItChoosesWithoutTyping()
    {
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        controller.setLedger(newLedger("first-use.kosmos"));
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY2(catalog.reload(), qPrintable(catalog.error()));
        if (!catalog.find(QStringLiteral("torch.generic_policy")))
            QSKIP("no libtorch plugins in this build");
        ui::LauncherDialog dialog(catalog, controller);

        // The world offers its own tasks: a first batch needs no typing.
        dialog.worldPlugin()->setCurrentIndex(
            dialog.worldPlugin()->findData(QStringLiteral("physics.tabletop")));
        QCOMPARE(dialog.tasks()->rowCount(), 2);
        QCOMPARE(dialog.tasks()->item(1, 1)->text(),
                 QStringLiteral("push the blue block into the purple square"));
        QVERIFY2(!dialog.problems().join('\n').contains(QStringLiteral("Add a task")),
                 qPrintable(dialog.problems().join('\n')));
        // Another world's tasks replace them while the table is untouched...
        dialog.worldPlugin()->setCurrentIndex(
            dialog.worldPlugin()->findData(QStringLiteral("synthetic.tabletop")));
        QCOMPARE(dialog.tasks()->item(1, 0)->text(), QStringLiteral("blue_to_purple"));
        dialog.worldPlugin()->setCurrentIndex(
            dialog.worldPlugin()->findData(QStringLiteral("physics.tabletop")));
        QCOMPARE(dialog.tasks()->item(1, 0)->text(), QStringLiteral("push_blue_to_purple"));
        // ... and never once the user edited it.
        dialog.tasks()->item(0, 1)->setText(
            QStringLiteral("put the red block in the purple square"));
        dialog.worldPlugin()->setCurrentIndex(
            dialog.worldPlugin()->findData(QStringLiteral("synthetic.tabletop")));
        QCOMPARE(dialog.tasks()->item(0, 1)->text(),
                 QStringLiteral("put the red block in the purple square"));
        dialog.worldPlugin()->setCurrentIndex(
            dialog.worldPlugin()->findData(QStringLiteral("physics.tabletop")));
        dialog.tasks()->item(0, 1)->setText(
            QStringLiteral("put the red block in the green square"));

        // A plugin that needs settings can be chosen: what it lacks is said, then what it can do.
        const int generic = dialog.policyPlugin()->findData(QStringLiteral("torch.generic_policy"));
        QVERIFY(generic >= 0);
        auto *items = qobject_cast<QStandardItemModel *>(dialog.policyPlugin()->model());
        QVERIFY(items && items->item(generic)->isEnabled());
        QVERIFY(!dialog.policyPlugin()->itemText(generic).contains(QStringLiteral("unavailable")));
        dialog.policyPlugin()->setCurrentIndex(generic);
        QVERIFY2(dialog.policyForm()->problems().join('\n').contains(QStringLiteral("package")),
                 qPrintable(dialog.policyForm()->problems().join('\n')));
        // The shipped packages made for this plugin are offered by name.
        auto *package =
            qobject_cast<QComboBox *>(dialog.policyForm()->editor(QStringLiteral("package")));
        QVERIFY(package);
        const int expert = package->findText(QStringLiteral("bc-expert-full"));
        QVERIFY2(expert > 0, "the shipped bc-expert-full package is offered");
        QCOMPARE(package->findText(QStringLiteral("judge")), -1); // a judge package is not
        QSignalSpy known(&catalog, &ui::PluginCatalog::availabilityKnown);
        package->setCurrentIndex(expert);
        QVERIFY(dialog.policyForm()->problems().isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(
            dialog.policyStatus()->text().contains(QStringLiteral("can run with these settings")),
            30000);
        dialog.addPolicy();
        const auto policy = dialog.protocol()["policies"][0];
        QVERIFY(QString::fromStdString(policy["settings"]["package"].get<std::string>())
                    .endsWith(QStringLiteral("models/bc-expert-full")));
        // Stored with its defaults filled in: the runs say what ran.
        QCOMPARE(policy["settings"].value("warmup", -1), 1);
        QVERIFY(!policy["settings"].contains("device")); // no default: the package decides

        // The dry run makes the policy and the world: the contracts fit, nothing is refused.
        QTRY_VERIFY2_WITH_TIMEOUT(dialog.problems().isEmpty(),
                                  qPrintable(dialog.problems().join(QLatin1Char(10))), 30000);
        const auto report = dialog.check();
        QVERIFY2(report.value("problems", nlohmann::json::array()).empty(),
                 qPrintable(QString::fromStdString(report.dump())));
        QCOMPARE(report.value("runs", 0), 2 * dialog.protocol().value("episodes_per_task", 0));

        // A package that is not one: said live, with the plugin's own reason, and Start is off.
        auto protocol = dialog.protocol();
        protocol["policies"][0]["settings"]["package"] = "/nonexistent/package";
        dialog.setProtocol(protocol);
        QTRY_VERIFY_WITH_TIMEOUT(
            dialog.problems().join('\n').contains(
                QStringLiteral("policy 1 (torch.generic_policy) cannot run with these settings")),
            30000);
        QVERIFY(!dialog.startButton()->isEnabled());

        // The judge box names a model judge plainly once it has its package.
        protocol["policies"][0]["settings"]["package"] = policy["settings"]["package"];
        protocol["judge"] = {{"plugin", "torch.generic_judge"},
                             {"settings", {{"package", KOSMOS_SOURCE_DIR "/models/judge"}}},
                             {"quorum", {{"samples", 1}, {"quorum", 1}}}};
        dialog.setProtocol(protocol);
        QVERIFY2(!dialog.judgePlugin()->currentText().contains(QStringLiteral("unavailable")),
                 qPrintable(dialog.judgePlugin()->currentText()));
        QTRY_VERIFY_WITH_TIMEOUT(!known.isEmpty() && dialog.problems().isEmpty(), 30000);
    }

    void everyDialogFitsA1280x720Screen()
    {
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        controller.setLedger(newLedger("fit.kosmos"));
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY(catalog.reload());
        // Room on a 1280x720 screen less a window frame and a panel.
        const QSize room(1280 - 40, 720 - 80);
        auto fits = [&](QWidget &w, const char *name) {
            w.ensurePolished();
            const QSize min = w.minimumSizeHint().expandedTo(w.minimumSize());
            QVERIFY2(min.width() <= room.width() && min.height() <= room.height(),
                     qPrintable(QStringLiteral("%1 needs at least %2x%3")
                                    .arg(QString::fromLatin1(name))
                                    .arg(min.width())
                                    .arg(min.height())));
            // It opens within the screen it is on (the real-window check has a 1280x720 one).
            const QSize screen = ui::screenRoom(&w);
            QVERIFY2(w.width() <= screen.width() && w.height() <= screen.height(),
                     qPrintable(QStringLiteral("%1 opens at %2x%3")
                                    .arg(QString::fromLatin1(name))
                                    .arg(w.width())
                                    .arg(w.height())));
        };
        ui::LauncherDialog launcher(catalog, controller);
        std::ifstream example(KOSMOS_EXAMPLES_DIR "/tabletop-demo.json");
        launcher.setProtocol(nlohmann::json::parse(example));
        // The largest settings form: a torch world model's (eight fields).
        const int cosmos = launcher.worldPlugin()->findData(QStringLiteral("torch.cosmos"));
        if (cosmos >= 0)
            launcher.worldPlugin()->setCurrentIndex(cosmos);
        const int openai = launcher.judgePlugin()->findData(QStringLiteral("openai.chat_judge"));
        if (openai >= 0)
            launcher.judgePlugin()->setCurrentIndex(openai);
        fits(launcher, "New batch");
        ui::PluginManagerDialog plugins(catalog);
        fits(plugins, "Plugins");
        ui::ExportDialog exportDialog(12, QDir::tempPath());
        fits(exportDialog, "Export");
        ui::SettingsDialog settings;
        fits(settings, "Settings");
    }

    void pluginManagerListsEveryPluginWithItsReasonAndTestsOnce()
    {
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY(catalog.reload());
        ui::PluginManagerDialog dialog(catalog);
        QTableWidget *table = dialog.table();
        QVERIFY(table->rowCount() >= 12);
        auto row = [&](const QString &file) {
            for (int r = 0; r < table->rowCount(); ++r)
                if (table->item(r, 6)->text().contains(file) ||
                    table->item(r, 0)->text().contains(file))
                    return r;
            return -1;
        };
        const int wrongApi = row(QStringLiteral("wrong API version"));
        QVERIFY(wrongApi >= 0);
        QCOMPARE(table->item(wrongApi, 5)->text(), QStringLiteral("UNAVAILABLE"));
        const int unavailable = row(QStringLiteral("fixture.needs_weights"));
        QVERIFY(unavailable >= 0);
        QVERIFY(
            table->item(unavailable, 6)->text().contains(QStringLiteral("weights path not set")));
        const int good = row(QStringLiteral("synthetic.tabletop"));
        QCOMPARE(table->item(good, 5)->text(), QStringLiteral("available"));
        // A plugin that loads but needs settings is not called unavailable.
        QCOMPARE(table->item(unavailable, 5)->text(), QStringLiteral("needs settings"));

        dialog.selectPlugin(QStringLiteral("synthetic.tabletop"));
        QSignalSpy done(&catalog, &ui::PluginCatalog::testFinished);
        dialog.testButton()->click();
        QVERIFY(done.wait(30000));
        const QString report = dialog.report()->toPlainText();
        QVERIFY2(report.contains(QStringLiteral("one step ok")), qPrintable(report));
        QVERIFY(report.contains(QStringLiteral("MiB")));
        QVERIFY(report.contains(QStringLiteral("not evidence")));
    }

    void aBatchLaunchedFromTheGuiCanBeHalfCancelled()
    {
        // From the workstation alone: a new ledger, then a batch into it.
        const QString bundle = QString::fromStdString((m_dir / "batch.kosmos").string());
        ui::MainWindow window;
        window.setCliPath(QString::fromStdString(test::cliPath()));
        QVERIFY(window.createLedger(bundle));
        QVERIFY2(!window.createLedger(bundle), "an existing ledger is never overwritten");
        ui::RunController *controller = window.runController();
        QVERIFY2(controller->start(batchProtocol("half", 6), 1), qPrintable(controller->error()));
        QTRY_COMPARE_WITH_TIMEOUT(controller->progress().total, 6, 20000);
        for (int i = 3; i < 6; ++i)
            controller->cancelRun(controller->progress().runs[static_cast<std::size_t>(i)].runId);
        QTRY_VERIFY_WITH_TIMEOUT(!controller->active(), 60000);
        const BatchProgress &p = controller->progress();
        QCOMPARE(p.completed + p.cancelled, 6);
        QVERIFY2(p.cancelled >= 2, qPrintable(QString::number(p.cancelled)));
        QCOMPARE(p.completed, 6 - p.cancelled);
        QVERIFY(window.progressPanel()->statusText().contains(QStringLiteral("cancelled")));
        // The finished runs are in the runs view.
        QTRY_COMPARE_WITH_TIMEOUT(window.runsModel()->matchingCount(), 6, 5000);
        Ledger ledger = Ledger::open(bundle.toStdString(), {OpenMode::ReadOnly});
        QVERIFY(verifyLedger(ledger).clean());
    }

    // docs/scale-out.md: the launcher's Slurm target, against a single-node Slurm the test
    // starts itself; the progress dock follows the shard ledgers, then the merged runs are here.
    void aBatchLaunchedToSlurmRunsAsShardsAndIsMergedIntoTheOpenLedger()
    {
        test::TempDir cluster;
        const std::string slurmDir = (cluster / "slurm").string();
        const auto started = test::runProcess({KOSMOS_SLURM_SCRIPT, "start", slurmDir});
        QVERIFY2(started.exitCode == 0, started.output.c_str());
        qputenv("SLURM_CONF", QByteArray::fromStdString(slurmDir + "/slurm.conf"));
        struct Stop
        {
            std::string dir;
            ~Stop()
            {
                test::runProcess({KOSMOS_SLURM_SCRIPT, "stop", dir});
                qunsetenv("SLURM_CONF");
            }
        } stop{slurmDir};

        const QString bundle = QString::fromStdString((m_dir / "sharded.kosmos").string());
        ui::MainWindow window;
        window.setCliPath(QString::fromStdString(test::cliPath()));
        QVERIFY(window.createLedger(bundle));
        ui::RunController *controller = window.runController();
        ui::PluginCatalog catalog(QString::fromStdString(test::cliPath()));
        QVERIFY2(catalog.reload(), qPrintable(catalog.error()));
        ui::LauncherDialog dialog(catalog, *controller);
        dialog.setProtocol(batchProtocol("sharded", 6));
        QVERIFY2(ui::slurmUnavailableReason().isEmpty(), qPrintable(ui::slurmUnavailableReason()));
        QVERIFY(!dialog.shardsBox()->isEnabled());
        dialog.targetBox()->setCurrentIndex(dialog.targetBox()->findData(QStringLiteral("slurm")));
        QVERIFY(dialog.shardsBox()->isEnabled());
        dialog.shardsBox()->setValue(3);
        dialog.partitionEdit()->setText(QStringLiteral("debug"));
        dialog.timeLimitEdit()->setText(QStringLiteral("00:10:00"));
        // Episodes in lockstep reach every shard (the array script's run line).
        dialog.findChild<QSpinBox *>(QStringLiteral("batch"))->setValue(2);
        QVERIFY2(dialog.launch(), qPrintable(controller->error()));
        QVERIFY(controller->sharded());
        {
            std::ifstream script(ShardLayout::of(bundle.toStdString(), 3).arrayScript());
            const std::string text((std::istreambuf_iterator<char>(script)),
                                   std::istreambuf_iterator<char>());
            QVERIFY2(text.find("--batch 2\n") != std::string::npos, text.c_str());
        }
        QTRY_COMPARE_WITH_TIMEOUT(controller->progress().shards.size(), std::size_t{3}, 10000);
        QCOMPARE(controller->progress().total, 6);
        QTRY_VERIFY_WITH_TIMEOUT(
            window.progressPanel()->statusText().contains(QStringLiteral("Slurm: 3 shards")),
            10000);
        // The merge job has run: the runs are in the open ledger, followed there.
        QTRY_VERIFY_WITH_TIMEOUT(!controller->sharded(), 180000);
        QCOMPARE(controller->progress().completed, 6);
        QTRY_COMPARE_WITH_TIMEOUT(window.runsModel()->matchingCount(), 6, 10000);
        {
            Ledger ledger = Ledger::open(bundle.toStdString(), {OpenMode::ReadOnly});
            QVERIFY(verifyLedger(ledger).clean());
        }

        // Cancel from the progress dock: scancel of the array and the merge job.
        const QString second = QString::fromStdString((m_dir / "cancelled.kosmos").string());
        QVERIFY(window.createLedger(second));
        QVERIFY2(controller->startSharded(batchProtocol("cancelled", 80), 1, {2, {}, 0, {}}),
                 qPrintable(controller->error()));
        QTRY_VERIFY_WITH_TIMEOUT(controller->progress().finished() >= 1, 60000);
        QVERIFY(controller->cancelBatch() > 0);
        QVERIFY2(controller->error().isEmpty(), qPrintable(controller->error()));
        QTRY_VERIFY_WITH_TIMEOUT(runCommand({"squeue", "--noheader"}).out.empty(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!controller->sharded(), 20000);
        // What the shards finished before the cancel is merged here; the rest is not.
        QTRY_VERIFY_WITH_TIMEOUT(controller->progress().finished() >= 1, 30000);
        QVERIFY2(controller->progress().finished() < 80,
                 "the cancelled batch did not finish every run");
    }

    void aBatchLeftRunningIsPickedUpByTheNextWindow()
    {
        const QString bundle = newLedger("left.kosmos");
        {
            ui::MainWindow window;
            window.setCliPath(QString::fromStdString(test::cliPath()));
            QVERIFY(window.openLedger(bundle));
            // Two episodes in lockstep per worker (--batch 2): the same runs, two at a time.
            QVERIFY(window.runController()->start(batchProtocol("left", 200), 1, 2));
            QTRY_VERIFY_WITH_TIMEOUT(window.runController()->progress().running > 0, 20000);
            // Where the time goes, per worker (its two lanes are one worker), while it runs.
            QTRY_VERIFY_WITH_TIMEOUT(
                window.progressPanel()->throughputText().contains(QStringLiteral("steps/s")),
                30000);
            QVERIFY2(
                window.progressPanel()->throughputText().contains(QStringLiteral("world model")),
                qPrintable(window.progressPanel()->throughputText()));
            // The resource view samples the worker process (CPU, RSS) while it runs.
            QTRY_VERIFY_WITH_TIMEOUT(
                window.progressPanel()->resourcesText().contains(QStringLiteral("RSS")), 20000);
            // And the GPUs as NVML reports them (the fake library of initTestCase).
            QVERIFY2(window.progressPanel()->resourcesText().contains(
                         QStringLiteral("GPU 0 Fake GPU A: 60.0 of 80.0 GiB used, 87% busy")),
                     qPrintable(window.progressPanel()->resourcesText()));
            bool asked = false;
            window.setCloseQuestion([&] {
                asked = true;
                return ui::MainWindow::CloseChoice::LeaveRunning;
            });
            QVERIFY(window.close());
            QVERIFY(asked);
        }
        ui::MainWindow window; // a later launch
        window.setCliPath(QString::fromStdString(test::cliPath()));
        QVERIFY(window.openLedger(bundle));
        QVERIFY2(window.runController()->active(), "the batch is still running");
        // The Run workspace shows it.
        QCOMPARE(window.workspace(), ui::MainWindow::Workspace::Run);
        QVERIFY(window.progressPanel()->isVisibleTo(&window));
        // Closing this one cancels the runs instead.
        window.setCloseQuestion([] { return ui::MainWindow::CloseChoice::CancelRuns; });
        QVERIFY(window.close());
        QVERIFY2(window.runController()->error().isEmpty(),
                 qPrintable(window.runController()->error()));
        const QString batch = window.runController()->followed();
        ui::RunController follower(QString::fromStdString(test::cliPath()));
        follower.setLedger(bundle);
        follower.follow(batch); // the batch may be over already: follow it by its hash
        QTRY_VERIFY_WITH_TIMEOUT(!follower.active(), 60000);
        QVERIFY(follower.progress().cancelled > 0);
        QCOMPARE(follower.progress().finished(), 200);
    }

    void evaluationShowsCalibrationAuditAndRankingWithTheirN()
    {
        const QString bundle = newLedger("eval.kosmos");
        const auto dir = m_dir / "eval-files";
        std::filesystem::create_directories(dir);
        auto protocol = batchProtocol("eval", 3);
        protocol["policies"].push_back(
            {{"plugin", "synthetic.scripted_policy"}, {"settings", {{"skill", "confused"}}}});
        std::ofstream(dir / "p.json") << protocol.dump();
        std::ofstream(dir / "j.json") << nlohmann::json{{"plugin", "synthetic.frame_judge"},
                                                        {"settings", {{"format_noise", 0.6}}},
                                                        {"quorum", {{"samples", 3}, {"quorum", 2}}}}
                                             .dump();
        const std::string cli = test::cliPath();
        QCOMPARE(test::runProcess(
                     {cli, "run", (dir / "p.json").string(), "--ledger", bundle.toStdString()})
                     .exitCode,
                 0);
        QCOMPARE(test::runProcess({cli, "judge", "--all", "--ledger", bundle.toStdString(),
                                   "--judge", (dir / "j.json").string()})
                     .exitCode,
                 0);
        Ledger ledger = Ledger::open(bundle.toStdString(), {OpenMode::ReadOnly});
        ui::EvaluationView view;
        view.setLedger(&ledger);
        QVERIFY2(view.calibrationSummary()->text().isEmpty(), "nothing computed while hidden");
        view.show();
        // No human label: the reference labels, marked as not human.
        QCOMPARE(view.labelSource()->currentData().toString(),
                 QStringLiteral("synthetic_reference"));
        const QString summary = view.calibrationSummary()->text();
        QVERIFY2(summary.contains(QStringLiteral("not human labels")), qPrintable(summary));
        QVERIFY(summary.contains(QStringLiteral("6 labelled clips")));
        QVERIFY(summary.contains(QStringLiteral("not enough labels")));
        // Human labels: an honest empty state.
        view.labelSource()->setCurrentIndex(0);
        QVERIFY(view.calibrationSummary()->text().contains(QStringLiteral("0 decisive of the 20")));
        // The paired audit of the two configurations on the same 6 clips.
        QCOMPARE(view.auditA()->count(), 2);
        QCOMPARE(view.auditTable()->item(0, 1)->text(), QStringLiteral("6"));
        QVERIFY(view.auditTable()->item(1, 1)->text().endsWith(QStringLiteral("/18")));
        // Ranking: two policies with their n; the pair's order stated or indeterminate.
        QCOMPARE(view.ratesTable()->rowCount(), 2);
        QCOMPARE(view.ratesTable()->item(0, 2)->text(), QStringLiteral("3"));
        QVERIFY(view.ratesTable()->item(0, 1)->text().contains(QStringLiteral("95% CI")));
        QCOMPARE(view.pairsTable()->rowCount(), 1);
        QVERIFY2(view.pairsTable()->item(0, 1)->text() == QStringLiteral("indeterminate"),
                 "3 episodes each cannot separate anything");

        // Blind labeling, keyboard first: frames and the instruction only.
        Ledger writer = Ledger::open(bundle.toStdString());
        ui::LabelingDialog labeling(ledger, writer, {1, 2, 3}, QStringLiteral("ann-7"), 5);
        for (QLabel *label : labeling.findChildren<QLabel *>())
            for (const char *leak : {"scripted", "confused", "expert", "tabletop", "judge:"})
                QVERIFY2(!label->text().contains(QLatin1String(leak)), qPrintable(label->text()));
        QVERIFY(labeling.player()->frameCount() > 0);
        QCOMPARE(labeling.remaining(), 3);
        QTest::keyClicks(&labeling, QStringLiteral("n2ic"));
        QVERIFY(labeling.fieldsText().contains(QStringLiteral("not_met")));
        QTest::keyClick(&labeling, Qt::Key_Return);
        QCOMPARE(labeling.saved(), 1);
        QTest::keyClicks(&labeling, QStringLiteral("m3"));
        QTest::keyClick(&labeling, Qt::Key_Return);
        QCOMPARE(labeling.saved(), 1); // "met" needs progress 5: refused with the reason
        QTest::keyClicks(&labeling, QStringLiteral("5"));
        QTest::keyClick(&labeling, Qt::Key_Return);
        QCOMPARE(labeling.saved(), 2);
        QCOMPARE(labeling.remaining(), 1);
        QCOMPARE(static_cast<int>(writer.labels(labeling.currentRun()).size()), 1);
        view.setLedger(&ledger);
        view.labelSource()->setCurrentIndex(0);
        QVERIFY(view.calibrationSummary()->text().contains(QStringLiteral("2 labelled clips")));

        // A second annotator on the same two clips: their agreement, with its n.
        for (const std::int64_t run : {std::int64_t{1}, std::int64_t{2}}) {
            HumanLabelRecord label = writer.labels(run).back();
            label.annotatorId = "ann-8";
            writer.addHumanLabel(label);
        }
        view.setLedger(&ledger);
        QCOMPARE(view.annotatorA()->count(), 2);
        const QString agreement = view.agreementSummary()->text();
        QVERIFY2(agreement.contains(QStringLiteral("doubly labelled clips")) ||
                     agreement.contains(QStringLiteral("labelled by both")),
                 qPrintable(agreement));

        // Per policy and task with missing outcomes; reference rates from a CSV.
        QVERIFY(view.cellsTable()->rowCount() >= 2);
        QCOMPARE(view.cellsTable()->item(0, 3)->text(), QStringLiteral("0"));
        std::ofstream(dir / "bad.csv") << "policy,rate\nsynthetic.scripted_policy,1.7\n";
        QVERIFY(!view.loadReferenceRates(QString::fromStdString((dir / "bad.csv").string())));
        QVERIFY2(view.referenceSummary()->text().contains(QStringLiteral("bad.csv:2")),
                 qPrintable(view.referenceSummary()->text()));
        std::ofstream(dir / "real.csv") << "policy,rate\nsynthetic.scripted_policy,0.5\n";
        QVERIFY(view.loadReferenceRates(QString::fromStdString((dir / "real.csv").string())));
        QVERIFY2(view.referenceSummary()->text().contains(QStringLiteral("2 matched")),
                 qPrintable(view.referenceSummary()->text()));

        // The evaluation record with what the view shows.
        const QString html = QString::fromStdString((dir / "record.html").string());
        const QString pdf = QString::fromStdString((dir / "record.pdf").string());
        const QString error = view.exportReport(html, pdf);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QFile htmlFile(html);
        QVERIFY(htmlFile.open(QIODevice::ReadOnly));
        const QByteArray document = htmlFile.readAll();
        QVERIFY(document.contains("Paired judge audit"));
        QVERIFY(document.contains("Against reference success rates"));
        QVERIFY(document.contains("Agreement between annotators"));
        QVERIFY(QFileInfo(pdf).size() > 10000);
    }

    void aCrashingPluginFailsItsAttemptNotTheWorkstation()
    {
        const QString bundle = newLedger("crash.kosmos");
        ui::RunController controller(QString::fromStdString(test::cliPath()));
        controller.setLedger(bundle);
        QVERIFY(controller.start(batchProtocol("crash", 2, "fixture.crash", {{"crash_at_step", 4}}),
                                 1));
        QTRY_COMPARE_WITH_TIMEOUT(controller.progress().total, 2, 20000);
        QTRY_VERIFY_WITH_TIMEOUT(!controller.active(), 60000);
        QCOMPARE(controller.progress().failed, 2);
        Ledger ledger = Ledger::open(bundle.toStdString(), {OpenMode::ReadOnly});
        for (const auto &run : controller.progress().runs) {
            const auto attempts = ledger.attempts(run.runId);
            QVERIFY(attempts.size() == 1);
            QVERIFY(attempts[0].errorCode.value_or("") == "worker_crashed");
            QCOMPARE(attempts[0].exitSignal.value_or(0), 6); // SIGABRT
        }
        QVERIFY(verifyLedger(ledger).clean());

        // Run > Retry selected failed runs: one of the two is selected and gets a new attempt;
        // its failed attempt stays, the other run is left as it was.
        const qint64 retried = controller.progress().runs[0].runId;
        const qint64 left = controller.progress().runs[1].runId;
        QCOMPARE(controller.retryFailed({retried}, 1), 1);
        QVERIFY2(controller.error().isEmpty(), qPrintable(controller.error()));
        QTRY_VERIFY_WITH_TIMEOUT(
            Ledger::open(bundle.toStdString(), {OpenMode::ReadOnly}).attempts(retried).size() == 2,
            20000);
        QTRY_VERIFY_WITH_TIMEOUT(!controller.active(), 60000);
        Ledger after = Ledger::open(bundle.toStdString(), {OpenMode::ReadOnly});
        QVERIFY(after.attempts(retried)[0].errorCode.value_or("") == "worker_crashed");
        QCOMPARE(after.attempts(retried)[1].attemptNo, 2);
        QCOMPARE(after.attempts(left).size(), std::size_t{1});
        QCOMPARE(controller.retryFailed({left, 999}, 1), 1);
        QVERIFY(controller.error().contains(QStringLiteral("run 999 is missing")));
        QTRY_VERIFY_WITH_TIMEOUT(!controller.active(), 60000);
        QVERIFY(verifyLedger(after).clean());
    }
};

int main(int argc, char **argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("kosmos-workstation-tests"));
    TestRunGui test;
    return QTest::qExec(&test, argc, argv);
}

#include "tst_run_gui.moc"
