// kosmos-bench-gui: frame + plot update time during playback (docs/benchmarks.md).
//   QT_QPA_PLATFORM=offscreen kosmos-bench-gui [WORKDIR]
// Builds a 1,000-step synthetic rollout (320x256 frames, 7 action tracks), opens it in the main
// window and times each step of playback: seek (decode when not decoded ahead), frame paint,
// trace-cursor layer replot, all painted.
#include "MainWindow.h"
#include "ledger/Ledger.h"
#include "pipeline/RolloutEngine.h"
#include "player/FramePlayer.h"
#include "player/TracesPlot.h"
#include "synthetic/ScriptedPolicy.h"
#include "synthetic/TabletopWorldModel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <qcustomplot.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

using namespace kosmos;

namespace {
class Factory : public ComponentFactory
{
public:
    std::string version(const std::string &) override { return "1.0.0"; }
    std::unique_ptr<Policy> createPolicy(const ComponentSpec &) override
    {
        return std::make_unique<synthetic::ScriptedPolicy>(synthetic::PolicySkill::byName("noisy"));
    }
    std::unique_ptr<WorldModel> createWorldModel(const ComponentSpec &) override
    {
        return std::make_unique<synthetic::TabletopWorldModel>();
    }
    std::unique_ptr<Judge> createJudge(const ComponentSpec &) override { return nullptr; }
};
} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
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
        Factory factory;
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
