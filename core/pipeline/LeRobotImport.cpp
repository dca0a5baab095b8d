#include "pipeline/LeRobotImport.h"

#include "contracts/ActionContract.h"
#include "dataset/LeRobotDataset.h"
#include "ledger/Ledger.h"
#include "media/LeRobotFrames.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

namespace kosmos {

namespace fs = std::filesystem;

std::vector<std::int64_t> parseEpisodeList(const std::string &text)
{
    std::set<std::int64_t> out;
    auto number = [&](const std::string &part, const std::string &s) {
        if (s.empty() || s.size() > 12 ||
            !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
            throw Error(ErrorCode::InvalidInput,
                        "--episodes: '" + part + "' is not an episode index or a range A-B");
        return std::stoll(s);
    };
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, end - start);
        const std::size_t dash = part.find('-');
        if (dash == std::string::npos) {
            out.insert(number(part, part));
        } else {
            const std::int64_t a = number(part, part.substr(0, dash));
            const std::int64_t b = number(part, part.substr(dash + 1));
            if (b < a || b - a > 10'000'000)
                throw Error(ErrorCode::InvalidInput,
                            "--episodes: '" + part + "' is not a range from low to high");
            for (std::int64_t i = a; i <= b; ++i)
                out.insert(i);
        }
        start = end + 1;
    }
    return {out.begin(), out.end()};
}

namespace {

// A folder in the system's temporary folder, removed with everything in it when it goes.
class ScratchDir
{
public:
    ScratchDir()
    {
        std::string pattern = (fs::temp_directory_path() / "kosmos-lerobot-XXXXXX").string();
        if (!::mkdtemp(pattern.data()))
            throw Error(ErrorCode::Io, "cannot create a temporary folder in " +
                                           fs::temp_directory_path().string());
        m_path = pattern;
    }
    ~ScratchDir()
    {
        std::error_code ec;
        fs::remove_all(m_path, ec);
    }
    ScratchDir(const ScratchDir &) = delete;
    ScratchDir &operator=(const ScratchDir &) = delete;
    const fs::path &path() const { return m_path; }

private:
    fs::path m_path;
};

// A file's SHA-256, once per import: a v3.0 data or video file holds many episodes.
using HashCache = std::map<fs::path, std::string>;

// Every dataset file this episode's import read, by its path in the dataset, with its SHA-256.
nlohmann::json filesRead(const LeRobotDataset &d, const LeRobotEpisode &e,
                         const std::string &camera, HashCache &hashes)
{
    std::set<fs::path> files = {d.root() / "meta/info.json", e.dataFile};
    if (d.info().isV3()) {
        files.insert(d.root() / "meta/tasks.parquet");
        std::error_code ec;
        for (const auto &entry : fs::recursive_directory_iterator(d.root() / "meta/episodes", ec))
            if (entry.path().extension() == ".parquet")
                files.insert(entry.path());
    } else {
        files.insert(d.root() / "meta/tasks.jsonl");
        files.insert(d.root() / "meta/episodes.jsonl");
    }
    files.insert(e.videos.at(camera).file);
    nlohmann::json out = nlohmann::json::object();
    for (const fs::path &f : files) {
        auto cached = hashes.find(f);
        if (cached == hashes.end())
            cached = hashes.emplace(f, Sha256::fileHex(f)).first;
        out[f.lexically_relative(d.root()).string()] = cached->second;
    }
    return out;
}

nlohmann::json actionContract(const LeRobotTrace &action, double fps)
{
    ActionContract c;
    for (int j = 0; j < action.width; ++j)
        c.dimensions.push_back({j < static_cast<int>(action.names.size())
                                    ? action.names[static_cast<std::size_t>(j)]
                                    : "action_" + std::to_string(j),
                                "1", -1e9, 1e9});
    c.controlRateHz = fps;
    return c.toJson();
}

// The import folder of one episode (docs/import.md's layout); returns its manifest.
nlohmann::json writeEpisode(const fs::path &dir, const LeRobotDataset &d, const LeRobotEpisode &e,
                            const LeRobotEpisodeData &data, const LeRobotFrames &frames,
                            const std::string &camera, HashCache &hashes)
{
    fs::create_directories(dir / "frames");
    for (std::size_t k = 0; k < frames.frames.size(); ++k) {
        cv::Mat bgr;
        cv::cvtColor(frames.frames[k], bgr, cv::COLOR_RGB2BGR);
        char name[32];
        std::snprintf(name, sizeof name, "%06zu.png", k);
        if (!cv::imwrite((dir / "frames" / name).string(), bgr))
            throw Error(ErrorCode::Io, "cannot write " + (dir / "frames" / name).string());
    }
    const LeRobotTrace &action = *data.trace("action");
    nlohmann::json rows = nlohmann::json::array();
    for (std::int64_t r = 0; r + 1 < data.length(); ++r) {
        nlohmann::json row = nlohmann::json::array();
        for (int j = 0; j < action.width; ++j)
            row.push_back(action.at(r, j));
        rows.push_back(std::move(row));
    }
    nlohmann::json lastAction = nlohmann::json::array();
    for (int j = 0; j < action.width; ++j)
        lastAction.push_back(action.at(data.length() - 1, j));
    const nlohmann::json contract = actionContract(action, d.info().fps);
    nlohmann::json names = nlohmann::json::array();
    for (const auto &dim : contract["dimensions"])
        names.push_back(dim["name"]);
    std::ofstream(dir / "actions.json")
        << nlohmann::json{{"actions", rows}, {"names", names}}.dump();
    // The recorded observations that are numbers (observation.state, ...): one row a frame.
    nlohmann::json tracks = nlohmann::json::array();
    for (const LeRobotTrace &t : data.traces) {
        if (t.key.rfind("observation.", 0) != 0)
            continue;
        nlohmann::json valueNames = nlohmann::json::array();
        for (int j = 0; j < t.width; ++j)
            valueNames.push_back(t.valueName(j));
        nlohmann::json values = nlohmann::json::array();
        for (std::int64_t r = 0; r < data.length(); ++r) {
            nlohmann::json row = nlohmann::json::array();
            for (int j = 0; j < t.width; ++j)
                row.push_back(t.at(r, j));
            values.push_back(std::move(row));
        }
        tracks.push_back({{"name", t.key}, {"names", valueNames}, {"values", values}});
    }
    if (!tracks.empty())
        std::ofstream(dir / "states.json") << nlohmann::json{{"tracks", tracks}}.dump();

    const std::string &taskText = d.task(data.taskIndex.front());
    const LeRobotInfo &info = d.info();
    const std::string source =
        "recorded, not generated: LeRobot dataset " + d.root().string() + " (codebase " +
        info.codebaseVersion + ", robot " + info.robotType.value_or("not stated") + "), episode " +
        std::to_string(e.index) + ", frames [" + std::to_string(e.fromIndex) + ", " +
        std::to_string(e.toIndex) + ") of camera " + camera;
    nlohmann::json manifest = {
        {"task", "lerobot:" + d.root().filename().string() + ":task-" +
                     std::to_string(data.taskIndex.front())},
        {"instruction", taskText},
        {"fps", info.fps},
        {"episode", e.index},
        {"source", source},
        {"action_contract", contract},
        {"lerobot",
         {{"recorded", true},
          {"dataset", d.root().string()},
          {"codebase_version", info.codebaseVersion},
          {"robot_type", info.robotType ? nlohmann::json(*info.robotType) : nlohmann::json()},
          {"episode_index", e.index},
          {"frame_range", {e.fromIndex, e.toIndex}},
          {"camera", camera},
          {"video_decoder", frames.codec},
          {"video_time", {frames.videoTime.front(), frames.videoTime.back()}},
          {"tasks", e.tasks},
          {"files_sha256", filesRead(d, e, camera, hashes)},
          {"last_action_without_result", lastAction}}}};
    std::ofstream(dir / "import.json") << manifest.dump(2);
    return manifest;
}

// next.success, when the dataset records it: met when any row says so.
std::optional<std::string> successOf(const LeRobotEpisodeData &data)
{
    const LeRobotTrace *success = data.trace("next.success");
    if (!success)
        return std::nullopt;
    const bool met = std::any_of(success->values.begin(), success->values.end(),
                                 [](double v) { return v != 0; });
    return met ? "met" : "not_met";
}

} // namespace

std::vector<LeRobotImportResult> importLeRobot(Ledger &ledger, const fs::path &dataset,
                                               const LeRobotImportOptions &options,
                                               const std::atomic<bool> *stop,
                                               const std::function<void(int, int)> &progress)
{
    const LeRobotDataset d = LeRobotDataset::open(dataset);
    const std::vector<std::string> cameras = d.info().cameras();
    if (cameras.empty())
        throw Error(ErrorCode::InvalidInput,
                    d.root().string() + " has no video camera to import frames from");
    const std::string camera = options.camera.empty() ? cameras.front() : options.camera;
    if (std::find(cameras.begin(), cameras.end(), camera) == cameras.end())
        throw Error(ErrorCode::NotFound, d.root().string() + " has no camera '" + camera + "'");
    std::vector<std::int64_t> episodes;
    if (options.episodes) {
        episodes = *options.episodes;
        for (const std::int64_t e : episodes)
            d.episode(e); // NotFound before anything is written
    } else {
        for (const LeRobotEpisode &e : d.episodes())
            episodes.push_back(e.index);
    }
    if (!d.info().feature("action"))
        throw Error(ErrorCode::InvalidInput,
                    d.root().string() + "/meta/info.json: no 'action' feature to import");

    std::vector<LeRobotImportResult> out;
    HashCache hashes;
    int done = 0;
    for (const std::int64_t index : episodes) {
        if (stop && stop->load())
            break;
        const LeRobotEpisode &e = d.episode(index);
        const LeRobotEpisodeData data = d.readEpisode(index);
        if (data.length() < 2)
            throw Error(ErrorCode::InvalidInput,
                        d.root().string() + ": episode " + std::to_string(index) + " has " +
                            std::to_string(data.length()) +
                            " frame(s); a run needs a start frame and at least one action");
        const LeRobotFrames frames = decodeLeRobotFrames(d, data, camera);
        ScratchDir scratch;
        char name[64];
        std::snprintf(name, sizeof name, "episode-%06lld", static_cast<long long>(index));
        const fs::path dir = scratch.path() / ("lerobot-" + d.root().filename().string() + "-" +
                                               name + "-" + camera);
        writeEpisode(dir, d, e, data, frames, camera, hashes);
        LeRobotImportResult result;
        result.episode = index;
        result.run = importDirectory(ledger, dir, stop);
        if (const auto success = successOf(data);
            success && result.run.runId > 0 &&
            (result.run.state == "completed" || result.run.state == "already_finished")) {
            HumanLabelRecord label;
            label.runId = result.run.runId;
            label.annotatorId = "lerobot:next.success";
            label.source = "imported_reference";
            label.completion = *success;
            label.notes = "from the dataset's next.success (" + d.root().string() + ", episode " +
                          std::to_string(index) + ")";
            const auto existing = ledger.labels(result.run.runId);
            const bool has = std::any_of(existing.begin(), existing.end(), [&](const auto &l) {
                return l.source == label.source && l.annotatorId == label.annotatorId;
            });
            if (!has) {
                ledger.addHumanLabel(label);
                result.label = *success;
            }
        }
        out.push_back(std::move(result));
        if (progress)
            progress(++done, static_cast<int>(episodes.size()));
    }
    return out;
}

} // namespace kosmos
