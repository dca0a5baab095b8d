// remote.world against the reference server (python/kosmos_world), started on 127.0.0.1 by each
// test with a toy world (tests/remote/worlds.py) whose frames the test recomputes on its own:
// contracts from the metadata, frames byte for byte, a simulator's success as a physics label,
// the state per step, and what a failing server does (a traceback, a timeout, a process that
// dies), then a protocol end to end through kosmos-cli. Needs Debian's python3-websockets,
// python3-msgpack and python3-numpy (packaging/debian-build-deps.txt).
#include "RemoteWorld.h"
#include "TestSupport.h"
#include "ledger/Ledger.h"
#include "run/RunController.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <QCoreApplication>
#include <QEventLoop>
#include <QProcess>
#include <QProcessEnvironment>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <memory>
#include <thread>

using namespace kosmos;
namespace fs = std::filesystem;

namespace {

// The reference server with a ShiftWorld(**args) on a free port, stopped with the object.
class WorldServer
{
public:
    // `shmDir`: where the server looks for shared memory (another folder plays a server on
    // another machine, reached through a tunnel).
    explicit WorldServer(const nlohmann::json &args, const char *ping = "20",
                         const QString &shmDir = {})
        : WorldServer(QStringLiteral("/usr/bin/python3"),
                      {QStringLiteral("-m"), QStringLiteral("kosmos_world"),
                       QStringLiteral("--port"), QStringLiteral("0"), QStringLiteral("model"),
                       QStringLiteral("worlds:ShiftWorld"), QStringLiteral("--args"),
                       QString::fromStdString(args.dump())},
                      ping, shmDir)
    {
    }
    // Any program that starts the server (kosmos-cli serve-world).
    WorldServer(const QString &program, const QStringList &arguments, const char *ping = "20",
                const QString &shmDir = {})
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        if (!shmDir.isEmpty())
            env.insert(QStringLiteral("KOSMOS_WORLD_SHM_DIR"), shmDir);
        env.insert(QStringLiteral("PYTHONPATH"),
                   QStringLiteral(KOSMOS_SOURCE_DIR "/python:" KOSMOS_SOURCE_DIR "/tests/remote"));
        env.insert(QStringLiteral("KOSMOS_WORLD_PING_S"), QString::fromLatin1(ping));
        m_process.setProcessEnvironment(env);
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(program, arguments);
        if (!m_process.waitForStarted(10000))
            throw Error(ErrorCode::Io, "cannot start " + program.toStdString());
        // The first line names the address.
        while (m_url.empty() && m_process.waitForReadyRead(15000)) {
            const QString line = QString::fromUtf8(m_process.readLine()).trimmed();
            const int at = line.indexOf(QStringLiteral("ws://"));
            if (at >= 0)
                m_url = line.mid(at).toStdString();
        }
        if (m_url.empty())
            throw Error(ErrorCode::Io, "the world server did not start: " +
                                           m_process.readAllStandardError().toStdString() +
                                           " (install python3-websockets python3-msgpack "
                                           "python3-numpy: scripts/setup-debian.sh)");
    }
    ~WorldServer()
    {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
    const std::string &url() const { return m_url; }
    bool running() const { return m_process.state() == QProcess::Running; }

private:
    QProcess m_process;
    std::string m_url;
};

// ShiftWorld's own frames, recomputed here.
cv::Mat startImage(int width, int height, std::uint64_t seed)
{
    cv::Mat m(height, width, CV_8UC3);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            for (int c = 0; c < 3; ++c)
                m.at<cv::Vec3b>(y, x)[c] = static_cast<unsigned char>(
                    (3 * x + 5 * y + 40 * c + static_cast<int>(seed % 256)) % 256);
    return m;
}

cv::Mat roll(const cv::Mat &m, int dy, int dx)
{
    cv::Mat out(m.size(), m.type());
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x)
            out.at<cv::Vec3b>(((y + dy) % m.rows + m.rows) % m.rows,
                              ((x + dx) % m.cols + m.cols) % m.cols) = m.at<cv::Vec3b>(y, x);
    return out;
}

Action move(double dx, double dy)
{
    return {dx, dy, 0, 0, 0, 0, 1};
}

double diff(const cv::Mat &a, const cv::Mat &b)
{
    return cv::norm(a, b, cv::NORM_INF);
}

} // namespace

TEST(RemoteWorld, ContractsFramesSuccessAndStateComeFromTheServer)
{
    WorldServer server(nlohmann::json{{"success_after", 3}, {"chunk_lengths", {1, 2}}});
    const nlohmann::json settings = {{"url", server.url()}, {"timeout_s", 10}};
    EXPECT_TRUE(remote::remoteWorldAvailability(settings).available)
        << remote::remoteWorldAvailability(settings).reason;
    auto world = remote::createRemoteWorld(settings);
    const ActionContract a = world->actionContract();
    ASSERT_EQ(a.dimension(), 7);
    EXPECT_EQ(a.dimensions[0].name, "dx");
    EXPECT_EQ(a.dimensions[0].max, 0.05);
    EXPECT_EQ(a.dimensions[6].unit, "1");
    EXPECT_EQ(a.controlRateHz, 5.0);
    EXPECT_EQ(a.chunkLength, 1);
    const FrameContract f = world->frameContract();
    EXPECT_EQ(f.width, 64);
    EXPECT_EQ(f.height, 48);
    EXPECT_EQ(f.certifiedChunkLengths, (std::vector<int>{1, 2}));

    WorldStart start;
    start.seed = 17;
    const auto first = world->reset(start);
    ASSERT_EQ(first.size(), 1u);
    cv::Mat expected = startImage(64, 48, 17);
    EXPECT_EQ(diff(first[0], expected), 0.0);
    EXPECT_FALSE(world->groundTruth()->success);
    const auto frames = world->step({move(0.02, 0.01), move(-0.01, 0.03)});
    ASSERT_EQ(frames.size(), 2u);
    expected = roll(expected, 1, 2); // rows +round(100 * 0.01), columns +round(100 * 0.02)
    EXPECT_EQ(diff(frames[0], expected), 0.0);
    expected = roll(expected, 3, -1);
    EXPECT_EQ(diff(frames[1], expected), 0.0);
    const auto more = world->step({move(0.05, -0.04)});
    EXPECT_EQ(diff(more[0], roll(expected, -4, 5)), 0.0);
    const std::optional<GroundTruth> truth = world->groundTruth();
    ASSERT_TRUE(truth);
    EXPECT_TRUE(truth->success) << "three steps ran";
    EXPECT_EQ(truth->source, "physics");
    EXPECT_EQ(truth->details["env_id"], "kosmos-test/ShiftWorld-v0");
    EXPECT_EQ(truth->details["reported_by_server"], true);
    EXPECT_EQ(world->state()["steps"], 3);
    EXPECT_TRUE(world->lastCallStats().contains("server_call_ms"));
    EXPECT_TRUE(world->lastCallStats().contains("server_world_ms"));
    EXPECT_EQ(world->lastCallStats()["frames_via"], "shared_memory") << "a server on loopback";
    // The identity carries what the server reports, marked as not verified.
    const nlohmann::json identity = remote::remoteWorldIdentity(settings);
    EXPECT_EQ(identity["details"]["server_metadata"]["provenance"]["model"], "shift-world");
    EXPECT_NE(identity["details"]["provenance_note"].get<std::string>().find("not verified"),
              std::string::npos);
}

// Frames through shared memory and inline are the same frames; a chunk larger than the segment
// gets a larger one; a server that cannot see the client's segment (another machine behind a
// tunnel to loopback) declines, and the frames come inline with the reason recorded.
TEST(RemoteWorld, FramesThroughSharedMemoryEqualFramesInlineAndAServerElsewhereDeclines)
{
    // A segment left by a client that was killed (its PID has ended) goes when the first
    // segment of this process is made.
    QProcess ended;
    ended.start(QStringLiteral("/bin/sleep"), {QStringLiteral("30")});
    ASSERT_TRUE(ended.waitForStarted(5000));
    const qint64 deadPid = ended.processId();
    ended.kill();
    ASSERT_TRUE(ended.waitForFinished(5000));
    const fs::path orphan =
        fs::path("/dev/shm") / ("kosmos-world-" + std::to_string(deadPid) + "-1-dead");
    std::ofstream(orphan) << "left behind";
    ASSERT_TRUE(fs::exists(orphan));
    test::TempDir elsewhere;
    WorldServer server(nlohmann::json{{"width", 96}, {"height", 80}});
    WorldServer remoteServer(nlohmann::json{{"width", 96}, {"height", 80}}, "20",
                             QString::fromStdString(elsewhere.path().string()));
    std::vector<cv::Mat> expected = {startImage(96, 80, 5)};
    std::vector<Action> chunk;
    for (int i = 0; i < 9; ++i) { // 9 frames: more than the first segment's 4
        chunk.push_back(move(0.01 * (i % 3), -0.02 + 0.01 * (i % 2)));
        expected.push_back(roll(expected.back(), static_cast<int>(std::round(100 * chunk[i][1])),
                                static_cast<int>(std::round(100 * chunk[i][0]))));
    }
    const auto episode = [&](const nlohmann::json &settings, const char *via) -> nlohmann::json {
        auto world = remote::createRemoteWorld(settings);
        WorldStart start;
        start.seed = 5;
        const auto first = world->reset(start);
        EXPECT_EQ(first.size(), 1u);
        EXPECT_EQ(diff(first.at(0), expected[0]), 0.0);
        const nlohmann::json resetStats = world->lastCallStats();
        EXPECT_EQ(resetStats["frames_via"], via) << resetStats.dump();
        const auto one = world->step({chunk[0]});
        EXPECT_EQ(diff(one[0], expected[1]), 0.0) << via;
        EXPECT_EQ(world->lastCallStats().value("shared_memory_not_used", std::string()),
                  resetStats.value("shared_memory_not_used", std::string()))
            << "the first step says why too (its stats are in the run's events)";
        const auto many = world->step(std::vector<Action>(chunk.begin() + 1, chunk.end()));
        EXPECT_EQ(many.size(), 8u);
        for (std::size_t i = 0; i < many.size() && i + 2 < expected.size(); ++i)
            EXPECT_EQ(diff(many[i], expected[i + 2]), 0.0) << via << ", frame " << i + 2;
        EXPECT_EQ(world->lastCallStats()["frames_via"], via) << world->lastCallStats().dump();
        EXPECT_FALSE(world->lastCallStats().contains("shared_memory_not_used")) << "said once";
        return resetStats;
    };
    episode({{"url", server.url()}}, "shared_memory");
    EXPECT_FALSE(fs::exists(orphan));
    const auto off = episode({{"url", server.url()}, {"shared_memory", false}}, "inline");
    EXPECT_EQ(off["shared_memory_not_used"], "settings.shared_memory is false");
    const auto declined = episode({{"url", remoteServer.url()}}, "inline");
    const std::string why = declined.value("shared_memory_not_used", std::string());
    EXPECT_NE(why.find("the server declined"), std::string::npos) << why;
    EXPECT_NE(why.find("No such file"), std::string::npos) << why;
    EXPECT_THROW(remote::createRemoteWorld({{"url", server.url()}, {"shared_memory", "yes"}}),
                 Error);
    // Every segment this process made is gone with its world.
    for (const auto &entry : fs::directory_iterator("/dev/shm"))
        EXPECT_EQ(
            entry.path().filename().string().rfind(
                "kosmos-world-" + std::to_string(QCoreApplication::applicationPid()) + "-", 0),
            std::string::npos)
            << entry.path();
}

TEST(RemoteWorld, ALearnedModelStartsFromTheFrameItIsGiven)
{
    WorldServer server(nlohmann::json{{"kind", "learned_model"}});
    auto world = remote::createRemoteWorld({{"url", server.url()}});
    WorldStart start;
    start.seed = 5;
    start.startFrame = startImage(128, 96, 99); // twice the model's size: area-resized
    const auto first = world->reset(start);
    cv::Mat resized;
    cv::resize(start.startFrame, resized, cv::Size(64, 48), 0, 0, cv::INTER_AREA);
    EXPECT_EQ(diff(first[0], resized), 0.0);
    const auto next = world->step({move(0.03, 0.02)});
    EXPECT_EQ(diff(next[0], roll(resized, 2, 3)), 0.0);
    EXPECT_FALSE(world->groundTruth()) << "a learned model has no ground truth";

    // The frame a task's start_state names (as `fidelity prepare` writes it), checked by its
    // SHA-256 before anything is sent.
    test::TempDir dir;
    cv::Mat bgr;
    cv::cvtColor(resized, bgr, cv::COLOR_RGB2BGR);
    std::vector<unsigned char> png;
    ASSERT_TRUE(cv::imencode(".png", bgr, png));
    std::ofstream(dir / "start.png", std::ios::binary)
        .write(reinterpret_cast<const char *>(png.data()),
               static_cast<std::streamsize>(png.size()));
    WorldStart named;
    named.startState = {{"frame", (dir / "start.png").string()},
                        {"frame_sha256", Sha256::hex(std::span<const std::uint8_t>(png))}};
    EXPECT_EQ(diff(world->reset(named)[0], resized), 0.0);
    named.startState["frame_sha256"] = std::string(64, '0');
    try {
        world->reset(named);
        ADD_FAILURE() << "a start frame whose SHA-256 is not the protocol's was used";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::Corrupt);
        EXPECT_NE(std::string(e.what()).find("SHA-256 mismatch"), std::string::npos) << e.what();
    }
}

TEST(RemoteWorld, AServerErrorATimeoutAndADeadServerAreNamedAndTheNextEpisodeReconnects)
{
    {
        WorldServer server(nlohmann::json{{"raise_at", 2}});
        auto world = remote::createRemoteWorld({{"url", server.url()}});
        world->reset({});
        world->step({move(0, 0)});
        try {
            world->step({move(0, 0)});
            ADD_FAILURE() << "the server's error was not reported";
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find("RuntimeError: boom at step 2"), std::string::npos)
                << e.what();
        }
        EXPECT_EQ(world->reset({}).size(), 1u) << "a new connection for the next episode";
    }
    {
        WorldServer server(nlohmann::json{{"sleep_s", 2.0}});
        auto world = remote::createRemoteWorld({{"url", server.url()}, {"timeout_s", 0.5}});
        world->reset({});
        try {
            world->step({move(0, 0)});
            ADD_FAILURE() << "no timeout";
        } catch (const Error &e) {
            EXPECT_EQ(std::string(errorCodeName(e.code())), "remote_timeout") << e.what();
        }
        // The next episode connects again with a segment of its own (the server may still
        // write the abandoned step's frames into the old one).
        const auto again = world->reset({});
        ASSERT_EQ(again.size(), 1u);
        EXPECT_EQ(diff(again[0], startImage(64, 48, 0)), 0.0);
        EXPECT_EQ(world->lastCallStats()["frames_via"], "shared_memory");
    }
    {
        WorldServer server(nlohmann::json{{"die_at", 1}});
        auto world = remote::createRemoteWorld({{"url", server.url()}, {"timeout_s", 10}});
        world->reset({});
        EXPECT_THROW(world->step({move(0, 0)}), Error);
    }
    {
        WorldServer server(nlohmann::json{{"wrong_size_at", 1}});
        auto world = remote::createRemoteWorld({{"url", server.url()}});
        world->reset({});
        try {
            world->step({move(0, 0)});
            ADD_FAILURE() << "frames of the wrong size were taken";
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find("expected uint8 [N, 48, 64, 3]"),
                      std::string::npos)
                << e.what();
        }
    }
    // Nothing listening: said, with how to start a server.
    const auto none = remote::remoteWorldAvailability({{"url", "ws://127.0.0.1:9"}});
    EXPECT_FALSE(none.available);
    EXPECT_NE(none.reason.find("python -m kosmos_world"), std::string::npos) << none.reason;
    EXPECT_THROW(remote::createRemoteWorld({{"url", "ws://127.0.0.1:9"}, {"bogus", 1}}), Error);
}

TEST(RemoteWorld, ALongStepKeepsItsConnection)
{
    // Pings every 0.3 s while a step takes 2 s: the client's socket thread answers them, so the
    // server does not drop it (a 45 s diffusion step keeps its run the same way).
    WorldServer server(nlohmann::json{{"sleep_s", 2.0}}, "0.3");
    auto world = remote::createRemoteWorld({{"url", server.url()}, {"timeout_s", 10}});
    world->reset({});
    EXPECT_EQ(world->step({move(0, 0)}).size(), 1u);
    EXPECT_EQ(world->step({move(0, 0)}).size(), 1u);
}

TEST(RemoteWorld, AProtocolRunsThroughKosmosCliWithTheSimulatorsSuccessAsPhysicsLabels)
{
    WorldServer server(nlohmann::json{{"success_after", 8}, {"width", 96}, {"height", 80}});
    test::TempDir dir;
    const auto bundle = (dir / "w.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const nlohmann::json protocol = {
        {"kosmos_protocol", 1},
        {"name", "remote-world"},
        {"seed", 3},
        {"horizon", 10},
        {"episodes_per_task", 2},
        {"tasks", {{{"id", "red"}, {"instruction", "put the red block in the green square"}}}},
        {"policies",
         {{{"plugin", "synthetic.scripted_policy"}, {"settings", {{"skill", "expert"}}}}}},
        {"world_model", {{"plugin", "remote.world"}, {"settings", {{"url", server.url()}}}}}};
    std::ofstream(dir / "p.json") << protocol.dump();
    const auto r = test::runProcessWithStderr(
        {test::cliPath(), "run", (dir / "p.json").string(), "--ledger", bundle});
    ASSERT_EQ(r.exitCode, 0) << r.output;
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_EQ(ledger.info().labelsBySource.at("physics"), 2);
    const auto labels = ledger.labels(1);
    ASSERT_EQ(labels.size(), 1u);
    EXPECT_EQ(labels[0].completion, "met") << "ten steps ran, success after eight";
    const auto verify = test::runProcess({test::cliPath(), "verify", bundle});
    EXPECT_EQ(verify.exitCode, 0) << verify.output;
    const auto report = test::runProcess({test::cliPath(), "report", bundle, "--json"});
    EXPECT_NE(report.output.find("not verified"), std::string::npos) << report.output;
}

// A cancelled run abandons the world's call within the polling interval (50 ms), not after the
// server's 30 s step or the 120 s timeout: directly, then through kosmos-cli run with the cancel
// requested from another ledger connection (the workstation's Cancel), where the run ends
// cancelled, not failed.
TEST(RemoteWorld, ACancelledRunAbandonsTheWorldsCallMidStep)
{
    WorldServer server(nlohmann::json{{"sleep_s", 30.0}});
    {
        auto world = remote::createRemoteWorld({{"url", server.url()}, {"timeout_s", 120}});
        auto flag = std::make_shared<std::atomic<bool>>(false);
        WorldStart start;
        start.cancelled = [flag] { return flag->load(); };
        ASSERT_EQ(world->reset(start).size(), 1u);
        std::thread canceller([flag] {
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            *flag = true;
        });
        const auto t = std::chrono::steady_clock::now();
        try {
            world->step({move(0, 0)});
            ADD_FAILURE() << "the step was not abandoned";
        } catch (const Error &e) {
            EXPECT_NE(std::string(e.what()).find("cancelled"), std::string::npos) << e.what();
        }
        canceller.join();
        EXPECT_LT(std::chrono::steady_clock::now() - t, std::chrono::seconds(3));
        WorldStart next; // the next episode: a connection of its own
        next.seed = 2;
        const auto again = world->reset(next);
        ASSERT_EQ(again.size(), 1u);
        EXPECT_EQ(diff(again[0], startImage(64, 48, 2)), 0.0);
    }
    test::TempDir dir;
    const auto bundle = (dir / "c.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const nlohmann::json protocol = {
        {"kosmos_protocol", 1},
        {"name", "remote-world-cancel"},
        {"seed", 3},
        {"horizon", 20},
        {"episodes_per_task", 1},
        {"tasks", {{{"id", "red"}, {"instruction", "put the red block in the green square"}}}},
        {"policies",
         {{{"plugin", "synthetic.scripted_policy"}, {"settings", {{"skill", "expert"}}}}}},
        {"world_model",
         {{"plugin", "remote.world"}, {"settings", {{"url", server.url()}, {"timeout_s", 120}}}}}};
    std::ofstream(dir / "p.json") << protocol.dump();
    QProcess run;
    run.start(QString::fromStdString(test::cliPath()),
              {QStringLiteral("run"), QString::fromStdString((dir / "p.json").string()),
               QStringLiteral("--ledger"), QString::fromStdString(bundle)});
    ASSERT_TRUE(run.waitForStarted(10000));
    Ledger ledger = Ledger::open(bundle);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline &&
           (!ledger.run(1) || ledger.run(1)->status != "running"))
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(ledger.run(1)->status, "running");
    std::this_thread::sleep_for(std::chrono::milliseconds(1000)); // inside the 30 s step
    const auto t = std::chrono::steady_clock::now();
    ASSERT_TRUE(ledger.requestCancel(1, "user pressed cancel"));
    ASSERT_TRUE(run.waitForFinished(20000)) << "kosmos-cli still waits on the world";
    EXPECT_LT(std::chrono::steady_clock::now() - t, std::chrono::seconds(10));
    EXPECT_EQ(ledger.run(1)->status, "cancelled")
        << run.readAllStandardOutput().toStdString() << run.readAllStandardError().toStdString();
}

// What Run > New batch does with a remote world: a detached `kosmos-cli run --isolate` followed
// through the ledger by the workstation's run controller; the simulator's success arrives as
// physics labels.
TEST(RemoteWorld, TheWorkstationRunsItThroughItsRunController)
{
    WorldServer server(nlohmann::json{{"success_after", 4}});
    test::TempDir dir;
    const auto bundle = (dir / "gui.kosmos").string();
    ASSERT_EQ(test::runProcess({test::cliPath(), "init", bundle}).exitCode, 0);
    const nlohmann::json protocol = {
        {"kosmos_protocol", 1},
        {"name", "remote-world-gui"},
        {"seed", 4},
        {"horizon", 6},
        {"episodes_per_task", 2},
        {"tasks", {{{"id", "red"}, {"instruction", "put the red block in the green square"}}}},
        {"policies",
         {{{"plugin", "synthetic.scripted_policy"}, {"settings", {{"skill", "expert"}}}}}},
        {"world_model", {{"plugin", "remote.world"}, {"settings", {{"url", server.url()}}}}}};
    ui::RunController controller(QString::fromStdString(test::cliPath()));
    controller.setLedger(QString::fromStdString(bundle));
    ASSERT_TRUE(controller.start(protocol, 1));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while ((controller.progress().total == 0 || controller.active()) &&
           std::chrono::steady_clock::now() < deadline) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_FALSE(controller.active());
    EXPECT_EQ(controller.progress().total, 2);
    EXPECT_EQ(controller.progress().completed, 2);
    Ledger ledger = Ledger::open(bundle, {OpenMode::ReadOnly});
    EXPECT_EQ(ledger.info().labelsBySource.at("physics"), 2);
}

// kosmos-cli serve-world starts the reference server in its place (the package from the build
// tree's share/kosmos/python, as from an install), for a model here; what is wrong on its
// command line is named before Python starts.
TEST(RemoteWorld, KosmosCliServeWorldStartsTheServerAndNamesWhatIsWrong)
{
    WorldServer server(QString::fromStdString(test::cliPath()),
                       {QStringLiteral("serve-world"), QStringLiteral("--model"),
                        QStringLiteral("worlds:ShiftWorld"), QStringLiteral("--args"),
                        QStringLiteral(R"({"success_after": 2})"), QStringLiteral("--port"),
                        QStringLiteral("0"), QStringLiteral("--python"),
                        QStringLiteral("/usr/bin/python3")});
    auto world = remote::createRemoteWorld({{"url", server.url()}, {"timeout_s", 10}});
    EXPECT_EQ(world->actionContract().dimension(), 7);
    const auto bad = [](const std::vector<std::string> &args) {
        std::vector<std::string> all = {test::cliPath(), "serve-world"};
        all.insert(all.end(), args.begin(), args.end());
        return test::runProcessWithStderr(all);
    };
    auto r = bad({"gym_pusht/PushT-v0", "--kwargs", "{\"obs_type\": "});
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_NE(r.output.find("--kwargs"), std::string::npos) << r.output;
    r = bad({"gym_pusht/PushT-v0", "--kwargs", "[1]"});
    EXPECT_NE(r.output.find("--kwargs: expected a JSON object"), std::string::npos) << r.output;
    r = bad({"gym_pusht/PushT-v0", "--python", "/no/such/python"});
    EXPECT_NE(r.output.find("--python /no/such/python: no executable there"), std::string::npos)
        << r.output;
    r = bad({"--model", "no_colon"});
    EXPECT_NE(r.output.find("expected MODULE:FACTORY"), std::string::npos) << r.output;
    r = bad({"gym_pusht/PushT-v0", "--model", "a:b"});
    EXPECT_EQ(r.exitCode, 2) << "an environment or a model, not both";
    r = bad({"gym_pusht/PushT-v0", "--shared"});
    EXPECT_NE(r.output.find("--shared and --args are for --model"), std::string::npos) << r.output;
}

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
