// kosmos-bench-gui: the workstation's interactive costs (docs/benchmarks.md).
//   QT_QPA_PLATFORM=offscreen kosmos-bench-gui [WORKDIR]        playback of a 1,000-step rollout
//   QT_QPA_PLATFORM=offscreen kosmos-bench-gui --traces          traces: cursor step and hover
//                                                                read-out at 7 x 1,000 and
//                                                                7 x 100,000 points
//   QT_QPA_PLATFORM=offscreen kosmos-bench-gui --scroll LEDGER   open a large ledger to a painted
//                                                                window, then scroll all its runs
//   QT_QPA_PLATFORM=offscreen kosmos-bench-gui --dataset DIR     open a LeRobot dataset to its
//                                                                first frame painted, then switch
//                                                                episodes (each to its first frame)
// Playback builds a 1,000-step synthetic rollout (320x256 frames, 7 action tracks) once, opens it
// in the main window and times each step: seek (decode when not decoded ahead), frame paint,
// trace-cursor layer replot, all painted.
#include "MainWindow.h"
#include "SyntheticFactory.h"
#include "dataset/LeRobotDataset.h"
#include "ledger/Ledger.h"
#include "pipeline/RolloutEngine.h"
#include "player/FramePlayer.h"
#include "player/TracesPlot.h"

#include "models/RunsModel.h"
#include "util/ProcessStats.h"
#include "views/RunsView.h"
#include "workspaces/DatasetWorkspace.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QScrollBar>
#include <QTableView>
#include <qcustomplot.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

using namespace kosmos;

namespace {

double percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(q * v.size()))];
}

double rssMiB()
{
    const auto sample = sampleProcess(static_cast<int>(::getpid()));
    return sample ? static_cast<double>(sample->rssBytes) / (1024.0 * 1024.0) : 0;
}

// The traces alone (no frames): a rollout of `steps` actions of 7 dimensions.
void benchTraces(QApplication &app, int steps)
{
    RolloutView rollout;
    rollout.controlRateHz = 5;
    for (int d = 0; d < 7; ++d)
        rollout.dimensionNames.push_back("d" + std::to_string(d) + " [m]");
    rollout.gripperIndex = 6;
    for (int t = 0; t < steps; ++t) {
        std::vector<double> a(7);
        for (int d = 0; d < 7; ++d)
            a[static_cast<std::size_t>(d)] = std::sin(0.01 * t * (d + 1));
        rollout.actions.push_back(std::move(a));
    }
    ui::TracesPlot traces;
    traces.resize(1000, 420);
    traces.show();
    QElapsedTimer timer;
    timer.start();
    traces.setRollout(rollout);
    app.processEvents();
    const double loadMs = timer.nsecsElapsed() / 1e6;
    std::vector<double> cursor, hover;
    QCPAxisRect *rect = traces.plot()->axisRect(0);
    for (int i = 0; i < 500; ++i) {
        const int frame = static_cast<int>((static_cast<long>(i) * steps) / 500);
        timer.start();
        traces.setCursor(frame); // replots the cursor layer
        app.processEvents();
        cursor.push_back(timer.nsecsElapsed() / 1e6);
        const QPointF at(rect->axis(QCPAxis::atBottom)->coordToPixel(frame + 0.5),
                         rect->rect().center().y());
        // The whole hover path: the mouse move event, the read-out, its label and tooltip.
        QMouseEvent move(QEvent::MouseMove, at, traces.plot()->mapToGlobal(at), Qt::NoButton,
                         Qt::NoButton, Qt::NoModifier);
        timer.start();
        QApplication::sendEvent(traces.plot(), &move);
        app.processEvents();
        hover.push_back(timer.nsecsElapsed() / 1e6);
        if (traces.readOut().isEmpty())
            std::fprintf(stderr, "no read-out at frame %d\n", frame);
    }
    std::printf("| traces 7 x %d steps | load + first paint %.1f ms | cursor step p50 %.2f ms, "
                "p95 %.2f ms | hover read-out p50 %.3f ms, p95 %.3f ms |\n",
                steps, loadMs, percentile(cursor, 0.5), percentile(cursor, 0.95),
                percentile(hover, 0.5), percentile(hover, 0.95));
}

// Opens a large ledger to a painted window, then scrolls the runs table to its end (the model
// fetches 256 rows at a time), and reports the time and the resident memory.
int benchScroll(QApplication &app, const QString &ledger)
{
    const double before = rssMiB();
    QElapsedTimer timer;
    timer.start();
    ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    if (!window.openLedger(ledger)) {
        std::fprintf(stderr, "cannot open %s: %s\n", qPrintable(ledger),
                     qPrintable(window.lastError()));
        return 1;
    }
    app.processEvents();
    window.repaint();
    const double openMs = timer.nsecsElapsed() / 1e6;
    const double afterOpen = rssMiB();
    QTableView *table = window.runsView()->table();
    timer.start();
    while (window.runsModel()->canFetchMore()) {
        table->verticalScrollBar()->setValue(table->verticalScrollBar()->maximum());
        app.processEvents(); // the view fetches the next page when scrolled to its end
        if (window.runsModel()->canFetchMore())
            window.runsModel()->fetchMore();
    }
    table->scrollToBottom();
    app.processEvents();
    const double scrollMs = timer.nsecsElapsed() / 1e6;
    const int rows = window.runsModel()->rowCount();
    std::printf("| %d runs | open to a painted window %.0f ms (RSS %.0f MiB, +%.0f) | scroll all "
                "runs: %d pages of %d in %.1f s | RSS after %.0f MiB |\n",
                rows, openMs, afterOpen, afterOpen - before,
                (rows + ui::RunsModel::kPageSize - 1) / ui::RunsModel::kPageSize,
                ui::RunsModel::kPageSize, scrollMs / 1000, rssMiB());
    return 0;
}

// Opens a LeRobot dataset in a 1280x720 main window to its first episode's first frame painted,
// then switches to 50 episodes spread over the dataset, each to its first frame painted.
int benchDataset(QApplication &app, const QString &folder)
{
    const double before = rssMiB();
    QElapsedTimer timer;
    timer.start();
    ui::MainWindow window;
    window.resize(1280, 720);
    window.show();
    app.processEvents();
    const double windowMs = timer.nsecsElapsed() / 1e6;
    timer.start();
    if (!window.openDataset(folder)) {
        std::fprintf(stderr, "cannot open %s: %s\n", qPrintable(folder),
                     qPrintable(window.lastError()));
        return 1;
    }
    ui::DatasetWorkspace *d = window.datasetWorkspace();
    const auto painted = [&] {
        while (d->player()->view()->image().isNull())
            app.processEvents(QEventLoop::AllEvents, 5);
        d->player()->repaint(); // the frame view with it
    };
    painted();
    const double openMs = timer.nsecsElapsed() / 1e6;
    const auto &episodes = d->dataset()->episodes();
    std::vector<double> switches;
    const std::size_t step = std::max<std::size_t>(1, episodes.size() / 50);
    for (std::size_t i = step; i < episodes.size() && switches.size() < 50; i += step) {
        timer.start();
        if (!d->showEpisode(episodes[i].index)) {
            std::fprintf(stderr, "episode %lld: %s\n", static_cast<long long>(episodes[i].index),
                         qPrintable(d->lastError()));
            return 1;
        }
        painted();
        switches.push_back(timer.nsecsElapsed() / 1e6);
    }
    std::printf("| %zu episodes, %lld frames | window %.0f ms; open to the first frame painted "
                "%.0f ms | switch episode (to its first frame painted) median %.1f ms, p95 %.1f "
                "ms, max %.1f ms over %zu | RSS %.0f MiB (+%.0f) |\n",
                episodes.size(), static_cast<long long>(d->dataset()->info().totalFrames), windowMs,
                openMs, percentile(switches, 0.5), percentile(switches, 0.95),
                *std::max_element(switches.begin(), switches.end()), switches.size(), rssMiB(),
                rssMiB() - before);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc > 1 && std::string(argv[1]) == "--traces") {
        benchTraces(app, 1000);
        benchTraces(app, 100000);
        return 0;
    }
    if (argc > 2 && std::string(argv[1]) == "--dataset")
        return benchDataset(app, QString::fromLocal8Bit(argv[2]));
    if (argc > 2 && std::string(argv[1]) == "--scroll")
        return benchScroll(app, QString::fromLocal8Bit(argv[2]));
    const std::filesystem::path dir = argc > 1 ? argv[1] : "bench-data";
    const auto bundle = dir / "gui-bench.kosmos";
    if (!std::filesystem::exists(bundle / "ledger.sqlite")) {
        std::filesystem::create_directories(dir);
        Ledger::create(bundle);
        const Protocol protocol = Protocol::fromJson(
            {{"kosmos_protocol", 1},
             {"name", "gui-bench"},
             {"seed", 1},
             {"horizon", 1000},
             {"episodes_per_task", 1},
             {"tasks", {{{"id", "t"}, {"instruction", "put the red block in the green square"}}}},
             {"policies", {{{"plugin", "p"}}}},
             {"world_model", {{"plugin", "w"}}}});
        bench::SyntheticFactory factory("noisy");
        RolloutEngine engine(bundle, factory);
        std::atomic<bool> stop{false};
        engine.run(protocol, engine.submit(protocol), stop);
    }
    ui::MainWindow window;
    window.resize(1400, 860);
    window.show();
    window.openLedger(QString::fromStdString(bundle.string()));
    window.selectRun(1);
    app.processEvents();
    auto *player = window.player();
    std::vector<double> ms;
    QElapsedTimer timer;
    for (int f = 1; f < player->frameCount(); ++f) {
        timer.start();
        player->seek(f);     // the cursor layer replots through positionChanged
        app.processEvents(); // paints the frame view and the plot
        ms.push_back(timer.nsecsElapsed() / 1e6);
    }
    std::sort(ms.begin(), ms.end());
    std::printf("| %d frames of %dx%d, %d tracks x %d steps | median %.2f ms | p95 %.2f ms | max "
                "%.2f ms |\n",
                player->frameCount(), 320, 256, window.traces()->trackCount(),
                player->frameCount() - 1, ms[ms.size() / 2], ms[ms.size() * 95 / 100], ms.back());
    return 0;
}
