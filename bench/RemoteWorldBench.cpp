// kosmos-bench-remote-world: what remote.world adds per step over calling env.step + env.render in
// the same Python process (docs/benchmarks.md, "Remote worlds"). Both sides run the same
// environment, the same seed and the same action (the middle of every bound), one action a step.
//   kosmos-bench-remote-world PYTHON ENV_ID MODULE [KWARGS_JSON] [STEPS] [ROUNDS]
//   e.g. .worlds/venv/bin/python gym_pusht/PushT-v0 gym_pusht '{"obs_type": "pixels_agent_pos"}'
#include "RemoteWorld.h"

#include "util/Error.h"

#include <QCoreApplication>
#include <QProcess>
#include <QProcessEnvironment>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

using namespace kosmos;

namespace {

double percentile(std::vector<double> v, double q)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[std::min(v.size() - 1, static_cast<std::size_t>(q * v.size()))];
}

// env.step + env.render in one Python process: each step's milliseconds, one per line.
std::vector<double> inProcess(const QString &python, const QString &env, const QString &module,
                              const QString &kwargs, int steps)
{
    const QString script = QStringLiteral(
        "import importlib, json, sys, time\n"
        "import gymnasium as gym, numpy as np\n"
        "importlib.import_module(sys.argv[2])\n"
        "e = gym.make(sys.argv[1], render_mode='rgb_array', **json.loads(sys.argv[3]))\n"
        "e.reset(seed=0); e.render()\n"
        "a = ((e.action_space.low + e.action_space.high) / 2).astype(e.action_space.dtype)\n"
        "for _ in range(int(sys.argv[4])):\n"
        "    t = time.perf_counter(); e.step(a); f = e.render()\n"
        "    print((time.perf_counter() - t) * 1000, flush=True)\n");
    QProcess p;
    p.start(python, {QStringLiteral("-W"), QStringLiteral("ignore"), QStringLiteral("-c"), script,
                     env, module, kwargs, QString::number(steps)});
    p.waitForFinished(-1);
    std::vector<double> ms;
    for (const QByteArray &line : p.readAllStandardOutput().split('\n'))
        if (!line.trimmed().isEmpty())
            ms.push_back(line.toDouble());
    if (static_cast<int>(ms.size()) != steps)
        throw Error(ErrorCode::Io,
                    "the in-process run failed: " + p.readAllStandardError().toStdString());
    return ms;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s PYTHON ENV_ID MODULE [KWARGS_JSON] [STEPS] [ROUNDS]\n",
                     argv[0]);
        return 2;
    }
    const QString python = QString::fromLocal8Bit(argv[1]);
    const QString env = QString::fromLocal8Bit(argv[2]);
    const QString module = QString::fromLocal8Bit(argv[3]);
    const QString kwargs = argc > 4 ? QString::fromLocal8Bit(argv[4]) : QStringLiteral("{}");
    const int steps = argc > 5 ? std::atoi(argv[5]) : 100;
    const int rounds = argc > 6 ? std::max(1, std::atoi(argv[6])) : 3;
    try {
        const std::vector<double> local = inProcess(python, env, module, kwargs, steps);

        QProcess server;
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("PYTHONPATH"),
                           QStringLiteral(KOSMOS_SOURCE_DIR "/python"));
        server.setProcessEnvironment(environment);
        server.start(python,
                     {QStringLiteral("-W"), QStringLiteral("ignore"), QStringLiteral("-m"),
                      QStringLiteral("kosmos_world"), QStringLiteral("--port"), QStringLiteral("0"),
                      QStringLiteral("gym"), env, QStringLiteral("--import"), module,
                      QStringLiteral("--kwargs"), kwargs});
        std::string url;
        while (url.empty() && server.waitForReadyRead(60000)) {
            const QString line = QString::fromUtf8(server.readLine());
            if (const int at = line.indexOf(QStringLiteral("ws://")); at >= 0)
                url = line.mid(at).trimmed().toStdString();
        }
        if (url.empty())
            throw Error(ErrorCode::Io,
                        "the server did not start: " + server.readAllStandardError().toStdString());
        // Frames through shared memory (the default on loopback) and inline in the message
        // (settings.shared_memory false), on the same server, one after the other. Besides the
        // side-by-side ratio, each step's added time is measured on that very step: the round
        // trip less the world's own call in the server (server_timing.world_ms), which the
        // machine's noise between separate runs does not blur.
        const auto remoteRun = [&](bool shared, const std::vector<double> &inProcessMs) {
            auto world = remote::createRemoteWorld(
                {{"url", url}, {"timeout_s", 120}, {"shared_memory", shared}});
            Action middle;
            for (const auto &d : world->actionContract().dimensions)
                middle.push_back((d.min + d.max) / 2);
            WorldStart start;
            start.seed = 0;
            world->reset(start);
            std::vector<double> ms, added;
            for (int i = 0; i < steps; ++i) {
                const auto t = std::chrono::steady_clock::now();
                world->step({middle});
                ms.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t)
                        .count());
                added.push_back(ms.back() - world->lastCallStats().value("server_world_ms", 0.0));
            }
            const FrameContract frames = world->frameContract();
            const double a = percentile(inProcessMs, 0.5), b = percentile(ms, 0.5);
            std::printf("| %s %dx%d, frames %s | %d | %.2f (%.2f) | %.2f (%.2f) | %.2fx | %.2f | "
                        "**%.2f** (%.2f) |\n",
                        qPrintable(env), frames.width, frames.height,
                        world->lastCallStats().value("frames_via", std::string("?")).c_str(), steps,
                        a, percentile(inProcessMs, 0.95), b, percentile(ms, 0.95),
                        a > 0 ? b / a : 0.0, b - a, percentile(added, 0.5),
                        percentile(added, 0.95));
            std::fflush(stdout);
            return percentile(added, 0.5);
        };
        std::printf("| environment, frame, transport | steps | in process, median (p95) ms | "
                    "remote.world, median (p95) ms | ratio | added, medians apart | added a "
                    "step, paired: median (p95) ms |\n|---|---|---|---|---|---|---|\n");
        { // a first connection, not reported: the server's first world warms up
            auto warm = remote::createRemoteWorld({{"url", url}, {"timeout_s", 120}});
            Action middle;
            for (const auto &d : warm->actionContract().dimensions)
                middle.push_back((d.min + d.max) / 2);
            warm->reset(WorldStart{});
            for (int i = 0; i < std::min(steps, 20); ++i)
                warm->step({middle});
        }
        for (int round = 0; round < rounds; ++round) {
            const std::vector<double> again =
                round == 0 ? local : inProcess(python, env, module, kwargs, steps);
            remoteRun(round % 2 == 0, again); // the order alternates
            remoteRun(round % 2 != 0, again);
        }
        server.kill();
        server.waitForFinished(5000);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
