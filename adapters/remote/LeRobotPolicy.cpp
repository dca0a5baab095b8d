#include "LeRobotPolicy.h"

#include "HttpPost.h"
#include "LeRobotWire.h"
#include "OpenPiClient.h"
#include "util/BoundedJson.h"
#include "util/Clock.h"
#include "util/Error.h"
#include "util/InstallPaths.h"
#include "util/Sha256.h"
#include "util/Subprocess.h"

#include <QUrl>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <thread>

namespace fs = std::filesystem;

namespace kosmos::remote {

namespace {

[[noreturn]] void bad(const std::string &what, ErrorCode code = ErrorCode::InvalidInput)
{
    throw Error(code, "remote.lerobot: " + what);
}

struct Settings
{
    fs::path checkpoint; // absolute; empty with url
    QString url;         // a bridge started by hand
    std::string python;
    std::string device = "cpu";
    fs::path record;
    double margin = 0.1;
    bool clip = false;
    nlohmann::json bounds;
    double rateHz = 10.0;
    int startTimeoutMs = 300000;
    int timeoutMs = 60000;
    int connectTimeoutMs = 10000;
};

std::string envOr(const char *name, const std::string &otherwise)
{
    const char *v = std::getenv(name);
    return v && *v ? std::string(v) : otherwise;
}

Settings settingsOf(const nlohmann::json &s)
{
    if (!s.is_object())
        bad("settings must be an object");
    Settings o;
    const std::string checkpoint = s.value("checkpoint", std::string());
    o.url = QString::fromStdString(s.value("url", std::string()));
    if (checkpoint.empty() == o.url.isEmpty())
        bad(checkpoint.empty()
                ? "settings.checkpoint: choose a LeRobot checkpoint folder (config.json and "
                  "model.safetensors, as LeRobot's save_pretrained writes them), or give "
                  "settings.url of a bridge started by hand"
                : "settings.checkpoint and settings.url: one or the other (a folder the "
                  "adapter serves itself, or a bridge already running)");
    if (!checkpoint.empty()) {
        std::error_code ec;
        o.checkpoint = fs::weakly_canonical(fs::absolute(checkpoint), ec);
        if (ec || !fs::is_directory(o.checkpoint))
            bad("settings.checkpoint: " + checkpoint + " is not a folder", ErrorCode::NotFound);
        if (!fs::is_regular_file(o.checkpoint / "config.json"))
            bad("settings.checkpoint: " + o.checkpoint.string() +
                    " has no config.json (a LeRobot checkpoint folder holds config.json, "
                    "model.safetensors and the processors, as save_pretrained writes them; a "
                    "training run's is checkpoints/NNN/pretrained_model)",
                ErrorCode::NotFound);
    }
    o.python = s.value("python", std::string());
    if (o.python.empty())
        o.python = envOr("KOSMOS_LEROBOT_PYTHON", envOr("KOSMOS_PYTHON", "python3"));
    o.device = s.value("device", std::string("cpu"));
    o.record = s.value("record", std::string());
    o.margin = s.value("bounds_margin", 0.1);
    o.clip = s.value("clip_to_range", false);
    o.bounds = s.value("action_bounds", nlohmann::json());
    o.rateHz = s.value("control_rate_hz", 10.0);
    o.startTimeoutMs = static_cast<int>(s.value("start_timeout_s", 300.0) * 1000);
    o.timeoutMs = static_cast<int>(s.value("timeout_s", 60.0) * 1000);
    o.connectTimeoutMs = static_cast<int>(s.value("connect_timeout_s", 10.0) * 1000);
    if (!(o.margin >= 0) || !(o.rateHz > 0))
        bad("settings.bounds_margin must be >= 0 and control_rate_hz > 0");
    return o;
}

fs::path bridgeScript()
{
    return installedDataDirectory() / "python" / "kosmos_serve" / "lerobot_policy.py";
}

// ---- the interpreter and the checkpoint, read here -------------------------------------------

// The versions of what the bridge needs, as the interpreter's package metadata says (no import:
// about 50 ms). Cached per interpreter.
nlohmann::json interpreterVersions(const std::string &python)
{
    static std::mutex mutex;
    static std::map<std::string, nlohmann::json> cache;
    const std::lock_guard lock(mutex);
    if (const auto it = cache.find(python); it != cache.end())
        return it->second;
    const CommandResult r = runCommand(
        {python, "-c",
         "import importlib.metadata as m, json, sys\n"
         "def v(n):\n"
         "    try:\n"
         "        return m.version(n)\n"
         "    except Exception:\n"
         "        return None\n"
         "print(json.dumps({n: v(n) for n in ('lerobot', 'torch', 'numpy', 'websockets', "
         "'msgpack')} | {'python': sys.version.split()[0]}))"},
        30000);
    if (!r.ok())
        bad("settings.python: " + python + " could not be run (" + r.said() +
                "); set it to the interpreter of the venv where LeRobot is installed "
                "(docs/remote-policies.md)",
            ErrorCode::Unavailable);
    nlohmann::json versions;
    try {
        versions = json::parseBounded(r.out, python + "'s package versions");
    } catch (const Error &) {
    }
    if (!versions.is_object())
        bad("settings.python: " + python + " said " + r.out.substr(0, 200), ErrorCode::Unavailable);
    cache[python] = versions;
    return versions;
}

void requirePackages(const std::string &python, const nlohmann::json &versions)
{
    std::string missing;
    for (const char *name : {"lerobot", "torch", "numpy", "websockets", "msgpack"})
        if (!versions.contains(name) || versions[name].is_null())
            missing += std::string(missing.empty() ? "" : ", ") + name;
    if (!missing.empty())
        bad(python + " lacks " + missing +
                ": set settings.python to the venv where LeRobot is installed (docs/"
                "remote-policies.md; tools/lerobot/make-fixtures.sh makes .lerobot/venv)",
            ErrorCode::Unavailable);
}

// SHA-256 of every file at the top of the checkpoint folder, as the bridge reports them; cached
// by path, size and modification time (a pi0 checkpoint is several GB, hashed once per process).
nlohmann::json checkpointDigests(const fs::path &folder)
{
    nlohmann::json files = nlohmann::json::object();
    for (const auto &entry : fs::directory_iterator(folder)) {
        if (entry.is_regular_file())
            files[entry.path().filename().string()] = Sha256::cachedFileHex(entry.path());
    }
    return files;
}

std::string checkpointType(const fs::path &folder)
{
    const nlohmann::json config = json::parseFile(folder / "config.json"); // size checked first
    if (!config.is_object() || !config.contains("type") || !config["type"].is_string())
        bad((folder / "config.json").string() +
            ": no \"type\" (act, diffusion, ...): not a LeRobot policy configuration");
    return config["type"].get<std::string>();
}

// ---- the bridge process ------------------------------------------------------------------------

class BridgeProcess
{
public:
    explicit BridgeProcess(const Settings &s)
    {
        const fs::path script = bridgeScript();
        if (!fs::is_regular_file(script))
            bad("the bridge is not at " + script.string() +
                    " (the kosmos package installs it in /usr/share/kosmos/python)",
                ErrorCode::Unavailable);
        static std::atomic<int> started{0};
        char log[] = "/tmp/kosmos-lerobot-bridge-XXXXXX";
        const int fd = ::mkstemp(log);
        if (fd < 0)
            bad("cannot make the bridge's log file in /tmp", ErrorCode::Io);
        ::close(fd);
        m_log = log;
        std::vector<std::string> argv = {s.python,
                                         script.string(),
                                         s.checkpoint.string(),
                                         "--host",
                                         "127.0.0.1",
                                         "--port",
                                         "0",
                                         "--device",
                                         s.device,
                                         "--parent-pid",
                                         std::to_string(::getpid())};
        if (!s.record.empty()) {
            const fs::path folder = s.record / ("bridge-" + std::to_string(::getpid()) + "-" +
                                                std::to_string(started++));
            argv.insert(argv.end(), {"--record", folder.string()});
        }
        m_pid = m_ranAs = startCommand(argv, m_log.string());
        try {
            waitUntilReady(s);
        } catch (...) {
            stop();
            throw;
        }
    }
    ~BridgeProcess() { stop(); }
    BridgeProcess(const BridgeProcess &) = delete;
    BridgeProcess &operator=(const BridgeProcess &) = delete;

    const QString &url() const { return m_url; }
    // The process it ran as (kept after it ended, for messages).
    pid_t pid() const { return m_ranAs; }
    bool alive()
    {
        if (m_pid <= 0)
            return false;
        int status = 0;
        const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
        if (r == 0)
            return true;
        m_exit = r == m_pid ? (WIFEXITED(status)
                                   ? "exited with code " + std::to_string(WEXITSTATUS(status))
                                   : "was killed by signal " + std::to_string(WTERMSIG(status)))
                            : "is gone";
        m_pid = 0;
        return false;
    }
    // How it ended and the last lines it wrote (its traceback, LeRobot's complaints).
    std::string obituary() const { return m_exit + "; its last output:\n" + tail(); }

private:
    // At most `limit` bytes of the log, from its start or from its end: a bridge that ran for
    // hours may have written a lot (LeRobot's warnings).
    std::string logText(std::size_t limit, bool fromEnd) const
    {
        std::ifstream in(m_log, std::ios::binary | std::ios::ate);
        const auto size = static_cast<std::size_t>(std::max<std::streamoff>(in.tellg(), 0));
        const std::size_t take = std::min(size, limit);
        in.seekg(static_cast<std::streamoff>(fromEnd ? size - take : 0));
        std::string text(take, '\0');
        in.read(text.data(), static_cast<std::streamsize>(take));
        text.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
        return fromEnd && take < size ? "..." + text : text;
    }
    std::string tail() const { return logText(4000, true); }

    void waitUntilReady(const Settings &s)
    {
        const std::regex listening(R"(listening on ws://127\.0\.0\.1:(\d+))");
        const auto started = std::chrono::steady_clock::now();
        while (true) {
            std::smatch match;
            const std::string text = logText(1 << 20, false); // the line comes early
            if (std::regex_search(text, match, listening)) {
                m_url = QStringLiteral("ws://127.0.0.1:") + QString::fromStdString(match[1]);
                break;
            }
            if (!alive())
                bad("the LeRobot bridge (" + s.python + ", " + s.checkpoint.string() + ") " +
                        obituary(),
                    ErrorCode::Unavailable);
            if (msSince(started) > s.startTimeoutMs)
                bad("the LeRobot bridge did not listen within settings.start_timeout_s (" +
                        std::to_string(s.startTimeoutMs / 1000) + " s); its output:\n" + tail(),
                    ErrorCode::RemoteTimeout);
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        const QUrl health = healthzUrl(m_url);
        const auto [status, error] = httpGet(health, s.connectTimeoutMs);
        if (status != 200)
            bad("the LeRobot bridge's health check failed: GET " + health.toString().toStdString() +
                    ": " + (status ? "HTTP " + std::to_string(status) : error),
                ErrorCode::RemoteUnreachable);
    }

    void stop()
    {
        if (alive()) {
            ::kill(m_pid, SIGTERM);
            for (int i = 0; i < 100 && alive(); ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            if (alive()) {
                ::kill(m_pid, SIGKILL);
                waitCommand(m_pid);
                m_pid = 0;
            }
        }
        std::error_code ec;
        if (!m_log.empty())
            fs::remove(m_log, ec);
    }

    pid_t m_pid = 0;   // 0 once it has ended and been reaped
    pid_t m_ranAs = 0; // its pid, kept
    fs::path m_log;
    QString m_url;
    std::string m_exit;
};

// Idle bridges, kept for the next run of the same checkpoint in this process; stopped when the
// process ends.
class BridgePool
{
public:
    static BridgePool &instance()
    {
        static BridgePool pool;
        return pool;
    }
    std::unique_ptr<BridgeProcess> take(const Settings &s)
    {
        const std::string key = keyOf(s);
        {
            const std::lock_guard lock(m_mutex);
            for (auto it = m_idle.begin(); it != m_idle.end(); ++it)
                if (it->first == key && it->second->alive()) {
                    auto bridge = std::move(it->second);
                    m_idle.erase(it);
                    return bridge;
                }
        }
        return std::make_unique<BridgeProcess>(s); // started outside the lock: seconds
    }
    void giveBack(const Settings &s, std::unique_ptr<BridgeProcess> bridge)
    {
        if (!bridge || !bridge->alive())
            return;
        const std::lock_guard lock(m_mutex);
        m_idle.emplace_back(keyOf(s), std::move(bridge));
    }

private:
    static std::string keyOf(const Settings &s)
    {
        return s.python + '\n' + s.checkpoint.string() + '\n' + s.device + '\n' + s.record.string();
    }
    std::mutex m_mutex;
    std::vector<std::pair<std::string, std::unique_ptr<BridgeProcess>>> m_idle;
};

// The bridge's messages are its metadata (the checkpoint's file digests, its features) and one
// action a reply: 16 MiB is far beyond either.
constexpr qint64 kMaxBridgeMessageBytes = 16 << 20;

// ---- the policy --------------------------------------------------------------------------------

class LeRobotPolicy final : public Policy
{
public:
    explicit LeRobotPolicy(const nlohmann::json &settings) : m_settings(settingsOf(settings))
    {
        m_client.setName("LeRobot bridge");
        m_client.setMaxMessageBytes(kMaxBridgeMessageBytes);
        if (m_settings.url.isEmpty()) {
            requirePackages(m_settings.python, interpreterVersions(m_settings.python));
            m_digests = checkpointDigests(m_settings.checkpoint);
            m_bridge = BridgePool::instance().take(m_settings);
        }
        connect();
        // Clipped actions stay inside the range itself: no margin.
        m_contract = leRobotContract(m_described, m_settings.clip ? 0.0 : m_settings.margin,
                                     m_settings.bounds, m_settings.rateHz);
    }
    ~LeRobotPolicy() override
    {
        const bool clean = m_client.connected();
        m_client.close();
        if (clean) // a bridge whose connection broke is not lent again
            BridgePool::instance().giveBack(m_settings, std::move(m_bridge));
    }
    LeRobotPolicy(const LeRobotPolicy &) = delete;
    LeRobotPolicy &operator=(const LeRobotPolicy &) = delete;

    ActionContract actionContract() const override { return m_contract; }

    void reset(std::uint64_t seed, const std::string &instruction) override
    {
        if (!m_client.connected())
            connect();
        const MsgValue reply =
            unpackOpenPi(call(packLeRobotReset(seed, instruction), {}), "reset reply");
        const MsgValue *ok = reply.kind == MsgValue::Kind::Map ? reply.find("ok") : nullptr;
        if (!ok || ok->kind != MsgValue::Kind::Bool || !ok->b)
            bad("reset reply: expected {\"ok\": true}");
        m_reported = false;
    }

    ActionChunk act(const Observation &observation) override
    {
        const std::string request = packLeRobotAct(m_described, observation);
        const auto t = std::chrono::steady_clock::now();
        const std::string bytes = call(request, observation.cancelled);
        m_stats = {{"round_trip_ms", std::round(msSince(t) * 1000) / 1000},
                   {"request_bytes", request.size()},
                   {"reply_bytes", bytes.size()}};
        LeRobotReply reply = parseLeRobotReply(bytes, m_described);
        if (reply.inferMs)
            m_stats["server_infer_ms"] = *reply.inferMs;
        if (!m_reported) { // once per episode: who answered
            m_stats["bridge"] = {
                {"versions", m_described.metadata.value("versions", nlohmann::json())},
                {"device", m_described.metadata.value("device", nlohmann::json())},
                {"pid", m_bridge ? m_bridge->pid() : 0}};
            m_reported = true;
        }
        Action &action = reply.action;
        if (m_settings.clip) {
            const Action raw = action;
            for (std::size_t i = 0; i < action.size(); ++i)
                action[i] = std::clamp(action[i], m_contract.dimensions[i].min,
                                       m_contract.dimensions[i].max);
            if (action != raw) // what the policy said, beside what was executed
                m_stats["clipped_from"] = raw;
        }
        return {action};
    }

    nlohmann::json lastCallStats() const override { return m_stats; }

private:
    QString url() const { return m_bridge ? m_bridge->url() : m_settings.url; }

    void connect()
    {
        m_client.connect(url(), QString(), m_settings.connectTimeoutMs);
        m_described = describeLeRobotPolicy(m_client.metadata());
        if (!m_bridge)
            return;
        // The folder the run key names is the one the bridge loaded: a checkpoint overwritten
        // since the batch was submitted is refused.
        const nlohmann::json served = m_described.metadata.value("files_sha256", nlohmann::json());
        if (served != m_digests)
            bad("the bridge loaded files other than those this run's identity names (was " +
                m_settings.checkpoint.string() + " changed?): bridge " + served.dump() + ", here " +
                m_digests.dump());
    }

    std::string call(const std::string &request, const std::function<bool()> &cancelled)
    {
        try {
            return m_client.request(request, m_settings.timeoutMs, cancelled);
        } catch (const Error &e) {
            if (m_bridge && !m_bridge->alive())
                bad("the LeRobot bridge (pid " + std::to_string(m_bridge->pid()) + ") " +
                        m_bridge->obituary(),
                    ErrorCode::RemoteDisconnected);
            throw;
        }
    }

    Settings m_settings;
    std::unique_ptr<BridgeProcess> m_bridge; // null with settings.url
    OpenPiClient m_client;
    LeRobotDescription m_described;
    ActionContract m_contract;
    nlohmann::json m_digests;
    nlohmann::json m_stats;
    bool m_reported = false;
};

} // namespace

Availability leRobotAvailability(const nlohmann::json &settings)
{
    try {
        const Settings s = settingsOf(settings);
        if (!s.url.isEmpty()) {
            const QUrl health = healthzUrl(s.url);
            const auto [status, error] = httpGet(health, s.connectTimeoutMs);
            if (status != 200)
                return Availability::no(
                    "unreachable: " + s.url.toStdString() + ": " +
                    (status ? "HTTP " + std::to_string(status) : error) +
                    " (start one: python -m kosmos_serve.lerobot_policy CHECKPOINT --port N)");
            OpenPiClient client;
            client.setMaxMessageBytes(kMaxBridgeMessageBytes);
            client.connect(s.url, QString(), s.connectTimeoutMs);
            describeLeRobotPolicy(client.metadata());
            return Availability::yes();
        }
        if (!fs::is_regular_file(bridgeScript()))
            return Availability::no("the bridge is not at " + bridgeScript().string());
        checkpointType(s.checkpoint);
        requirePackages(s.python, interpreterVersions(s.python));
        return Availability::yes();
    } catch (const Error &e) {
        return Availability::no(e.what());
    }
}

nlohmann::json leRobotIdentity(const nlohmann::json &settings)
{
    const Settings s = settingsOf(settings);
    if (!s.url.isEmpty()) {
        OpenPiClient client;
        client.setMaxMessageBytes(kMaxBridgeMessageBytes);
        client.connect(s.url, QString(), s.connectTimeoutMs);
        const LeRobotDescription d = describeLeRobotPolicy(client.metadata());
        return {{"details",
                 {{"server_metadata", d.metadata},
                  {"provenance_note", "reported by a bridge started by hand, not verified here"}}}};
    }
    return {{"details",
             {{"checkpoint", s.checkpoint.string()},
              {"policy_type", checkpointType(s.checkpoint)},
              {"files_sha256", checkpointDigests(s.checkpoint)},
              {"python", s.python},
              {"versions", interpreterVersions(s.python)},
              {"provenance_note", "files hashed here; the bridge must report the same digests "
                                  "before a run starts"}}}};
}

std::unique_ptr<Policy> createLeRobotPolicy(const nlohmann::json &settings)
{
    return std::make_unique<LeRobotPolicy>(settings);
}

} // namespace kosmos::remote
