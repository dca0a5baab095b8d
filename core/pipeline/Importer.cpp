#include "pipeline/Importer.h"

#include "ledger/AttemptScope.h"

#include "contracts/FrameContract.h"
#include "judge/JudgeSchema.h"
#include "ledger/Ledger.h"
#include "media/ActionFiles.h"
#include "media/VideoDecoder.h"
#include "protocol/Protocol.h"
#include "util/BoundedJson.h"
#include "util/CanonicalJson.h"
#include "util/Error.h"
#include "util/JsonFields.h"
#include "util/Secrets.h"
#include "util/Sha256.h"
#include "validation/RolloutValidator.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

namespace kosmos {

namespace fs = std::filesystem;

namespace {

std::vector<std::uint8_t> readBytes(const fs::path &p)
{
    std::ifstream in(p, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

std::string mediaTypeOf(const fs::path &p)
{
    std::string ext = p.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (ext == ".png")
        return "image/png";
    if (ext == ".jpg" || ext == ".jpeg")
        return "image/jpeg";
    if (ext == ".mp4" || ext == ".mov")
        return "video/mp4";
    if (ext == ".mkv")
        return "video/x-matroska";
    if (ext == ".webm")
        return "video/webm";
    if (ext == ".avi")
        return "video/x-msvideo";
    if (ext == ".csv")
        return "text/csv";
    if (ext == ".json")
        return "application/json";
    if (ext == ".npy")
        return "application/x-npy";
    return "application/octet-stream";
}

std::optional<ComponentIdentity> identityFrom(const nlohmann::json &manifest, const char *key,
                                              ComponentFamily family)
{
    if (!manifest.contains(key) || manifest[key].is_null())
        return std::nullopt;
    const std::string where = std::string("import.json.") + key;
    const auto &j = json::requireObject(manifest, key, "import.json");
    ComponentIdentity id;
    id.family = family;
    id.adapterId = json::requireString(j, "adapter_id", where);
    id.adapterVersion = json::requireString(j, "adapter_version", where);
    if (j.contains("config"))
        id.config = j["config"];
    if (auto w = json::optString(j, "weights_sha256", where))
        id.weightsSha256 = *w;
    return id;
}

struct Inputs
{
    nlohmann::json manifest;
    std::vector<fs::path> frameFiles;
    std::optional<fs::path> video;
    std::optional<fs::path> reference; // a real camera's recording of the same episode
    fs::path actions;
    std::optional<fs::path> judgeSamples;
    std::optional<fs::path> states; // recorded per-frame states (states.json)
};

// Whether `path` is a file to read, following symbolic links (the folder is the user's: a link to
// a recording elsewhere is read as that recording). A link that cannot be followed (dangling, a
// loop) or a path that cannot be examined is named, never an exception of the file system.
bool isInputFile(const fs::path &path)
{
    std::error_code ec;
    const fs::file_status linkStatus = fs::symlink_status(path, ec);
    if (ec || !fs::exists(linkStatus))
        return false;
    const fs::file_status status = fs::status(path, ec);
    if (ec)
        throw Error(ErrorCode::InvalidInput,
                    path.string() + ": cannot be followed (" + ec.message() +
                        (fs::is_symlink(linkStatus) ? "; a symbolic link that is dangling or "
                                                      "points back at itself)"
                                                    : ")"));
    return fs::is_regular_file(status);
}

// The file a (possibly linked) input names, for reading and hashing.
fs::path inputTarget(const fs::path &path)
{
    std::error_code ec;
    fs::path target = fs::canonical(path, ec);
    if (ec)
        throw Error(ErrorCode::InvalidInput,
                    path.string() + ": cannot be followed (" + ec.message() + ")");
    return target;
}

// Frames per second an import may declare: far above any camera's, far below what would make
// every timestamp the same number.
constexpr double kMaxImportFps = 1000;

Inputs locate(const fs::path &dir)
{
    Inputs in;
    const fs::path manifestPath = dir / "import.json";
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir, ec)) && !fs::is_directory(fs::status(dir, ec)))
        throw Error(ErrorCode::InvalidInput, "import " + dir.string() + ": not a folder" +
                                                 (ec ? " (" + ec.message() + ")" : std::string()));
    if (!isInputFile(manifestPath))
        throw Error(ErrorCode::InvalidInput,
                    "import " + dir.string() + ": missing import.json (see docs/import.md)");
    // The manifest is frozen into the import's protocol: the limits of a protocol, and never a
    // secret (its records are immutable).
    json::Limits limits;
    limits.maxDepth = kMaxProtocolDepth;
    limits.maxBytes = kMaxProtocolBytes;
    limits.rejectDuplicateKeys = true;
    in.manifest = json::parseFile(manifestPath, limits);
    if (!in.manifest.is_object())
        json::fail(manifestPath.string(), "expected a JSON object");
    refuseSecrets(in.manifest, "import.json");
    json::requireString(in.manifest, "task", "import.json");
    json::requireString(in.manifest, "instruction", "import.json");
    const double fps = json::requireNumber(in.manifest, "fps", "import.json");
    if (!(fps > 0 && fps <= kMaxImportFps))
        json::fail("import.json.fps", "must be above 0 and at most " +
                                          std::to_string(static_cast<int>(kMaxImportFps)) +
                                          " frames per second, not " + in.manifest["fps"].dump());
    if (fs::is_directory(dir / "frames", ec)) {
        for (const auto &e : fs::directory_iterator(dir / "frames", ec)) {
            const std::string type = mediaTypeOf(e.path());
            if ((type == "image/png" || type == "image/jpeg") && isInputFile(e.path()))
                in.frameFiles.push_back(e.path());
        }
        if (ec)
            throw Error(ErrorCode::InvalidInput,
                        (dir / "frames").string() + ": cannot be read (" + ec.message() + ")");
        std::sort(in.frameFiles.begin(), in.frameFiles.end());
    }
    for (const char *name : {"video.mp4", "video.mkv", "video.webm", "video.avi", "video.mov"}) {
        if (isInputFile(dir / name)) {
            if (in.video)
                throw Error(ErrorCode::InvalidInput,
                            "import " + dir.string() + ": more than one video.* file");
            in.video = dir / name;
        }
    }
    for (const char *name :
         {"reference.mp4", "reference.mkv", "reference.webm", "reference.avi", "reference.mov"}) {
        if (isInputFile(dir / name)) {
            if (in.reference)
                throw Error(ErrorCode::InvalidInput,
                            "import " + dir.string() + ": more than one reference.* file");
            in.reference = dir / name;
        }
    }
    if (in.frameFiles.empty() && !in.video)
        throw Error(ErrorCode::InvalidInput,
                    "import " + dir.string() +
                        ": no frames (need frames/*.png|*.jpg or a video.mp4/.mkv/.webm/.avi)");
    if (!in.frameFiles.empty() && in.video)
        throw Error(ErrorCode::InvalidInput,
                    "import " + dir.string() + ": both frames/ and a video; keep one");
    int found = 0;
    for (const char *name : {"actions.csv", "actions.json", "actions.npy"}) {
        if (isInputFile(dir / name)) {
            in.actions = dir / name;
            ++found;
        }
    }
    if (found == 0)
        throw Error(ErrorCode::InvalidInput,
                    "import " + dir.string() + ": no actions.csv, actions.json or actions.npy");
    if (found > 1)
        throw Error(ErrorCode::InvalidInput,
                    "import " + dir.string() + ": more than one actions.* file");
    if (isInputFile(dir / "judge_samples.json"))
        in.judgeSamples = dir / "judge_samples.json";
    if (isInputFile(dir / "states.json"))
        in.states = dir / "states.json";
    return in;
}

struct ImportFailure
{
    std::string code;
    std::string message;
};

// A judgment saved beside the rollout (judge_samples.json): every raw sample re-parsed and the
// quorum recomputed here, never taken from the file. Throws ImportFailure naming what was wrong.
JudgmentRecord importedJudgment(const fs::path &path, int frameCount)
{
    nlohmann::json doc;
    try {
        json::Limits limits;
        limits.maxBytes = 16u << 20;
        limits.maxDepth = 16;
        limits.rejectDuplicateKeys = true;
        doc = json::parseFile(path, limits);
    } catch (const Error &e) {
        throw ImportFailure{"judge_samples_unreadable", e.what()};
    }
    const std::string where = "judge_samples.json";
    const QuorumSettings settings = QuorumSettings::fromJson(
        doc.value("settings", nlohmann::json::object()), where + ".settings");
    JudgmentRecord record;
    record.settings = settings.toJson();
    record.frameIndices = doc.contains("frame_indices")
                              ? doc["frame_indices"]
                              : nlohmann::json(selectJudgeFrames(frameCount));
    if (const auto problem = judgmentFramesProblem(record.frameIndices, frameCount))
        throw ImportFailure{"judge_evidence_out_of_range", where + ": " + *problem};
    std::map<int, ParsedAnswer> finals;
    for (const auto &s : json::requireArray(doc, "samples", where)) {
        JudgeSampleRecord sample;
        sample.sampleIndex =
            static_cast<int>(json::requireInt(s, "sample_index", where + ".samples", 0, 63));
        sample.tryIndex =
            static_cast<int>(json::optInt(s, "try_index", where + ".samples", 0, 1).value_or(0));
        sample.seed = json::optInt(s, "seed", where + ".samples", INT64_MIN, INT64_MAX);
        if (s.contains("raw_text") && s["raw_text"].is_string()) {
            const ScreenedAnswer screened = screenJudgeAnswer(s["raw_text"].get<std::string>());
            sample.rawText = screened.rawText;
            if (screened.changed)
                record.screenedSamples.push_back("sample " + std::to_string(sample.sampleIndex) +
                                                 " try " + std::to_string(sample.tryIndex));
        }
        const ParsedAnswer parsed = parseJudgeAnswer(sample.rawText);
        sample.formatClass = formatClassName(parsed.format);
        sample.answerForm = answerFormName(parsed.form);
        if (!parsed.error.empty())
            sample.parseError = parsed.error;
        sample.parsed = parsed.value;
        if (const auto problem = evidenceFramesProblem(parsed.value, record.frameIndices))
            throw ImportFailure{"judge_evidence_out_of_range",
                                where + ".samples[" + std::to_string(record.samples.size()) +
                                    "]: " + *problem};
        sample.generatedTokens =
            json::optInt(s, "generated_tokens", where + ".samples", 0, INT64_MAX);
        sample.decodeMs = json::optInt(s, "decode_ms", where + ".samples", 0, INT64_MAX);
        record.samples.push_back(sample);
        finals[sample.sampleIndex] = parsed; // the retry, when present, comes last
    }
    std::vector<ParsedAnswer> answers;
    int expectedIndex = 0;
    for (const auto &[index, answer] : finals) {
        if (index != expectedIndex++)
            throw ImportFailure{"judge_samples_incomplete",
                                "sample indices must be 0.." +
                                    std::to_string(settings.samples - 1)};
        answers.push_back(answer);
    }
    if (static_cast<int>(answers.size()) != settings.samples)
        throw ImportFailure{"judge_samples_incomplete", std::to_string(answers.size()) +
                                                            " samples; the settings freeze " +
                                                            std::to_string(settings.samples)};
    const QuorumOutcome q = computeQuorum(answers, settings);
    record.outcome = q.outcome;
    record.unknownReason = q.unknownReason;
    record.progress = q.progress;
    record.decisiveVotes = q.decisiveVotes;
    return record;
}

// Ctrl-C or SIGTERM during an import.
struct ImportInterrupted
{
};

// What an import writes while it holds the run's lease.
struct ImportWriter
{
    Ledger &ledger;
    const Lease &lease;
    const std::atomic<bool> *stop = nullptr;
    std::int64_t manifestId = 0;

    std::int64_t put(std::string_view kind, const std::string &name,
                     std::span<const std::uint8_t> bytes, std::string_view mediaType) const
    {
        if (stop && *stop) // between files: what was stored so far stays with the attempt
            throw ImportInterrupted{};
        return ledger.putArtifact(lease, kind, name, bytes, mediaType);
    }
    std::int64_t putText(std::string_view kind, const std::string &name,
                         const std::string &text) const
    {
        return put(kind, name,
                   std::span(reinterpret_cast<const std::uint8_t *>(text.data()), text.size()),
                   "application/json");
    }
    void importedWith(std::int64_t id) const
    {
        ledger.addProvenance(lease, manifestId, id, "imported_with");
    }
};

struct ImportedFrames
{
    std::vector<cv::Mat> frames; // RGB
    std::vector<double> timestamps;
};

// Frame files stored as given, each decoded once for validation.
ImportedFrames storeFrameFiles(const ImportWriter &w, const std::vector<fs::path> &files,
                               double fps)
{
    ImportedFrames out;
    for (std::size_t i = 0; i < files.size(); ++i) {
        const auto bytes = readBytes(files[i]);
        std::int64_t id = 0;
        try {
            id = w.put("frame", files[i].filename().string(), bytes, mediaTypeOf(files[i]));
        } catch (const Error &e) {
            if (e.code() == ErrorCode::LeaseLost)
                throw;
            throw ImportFailure{"frame_undecodable", files[i].string() + ": " + e.what()};
        }
        w.importedWith(id);
        cv::Mat bgr = cv::imdecode(bytes, cv::IMREAD_COLOR);
        cv::Mat rgb;
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        out.frames.push_back(rgb);
        out.timestamps.push_back(static_cast<double>(i) / fps);
    }
    return out;
}

// A video stored as given and decoded by FFmpeg into PNG frames, each derived from the video.
ImportedFrames storeVideoFrames(const ImportWriter &w, const fs::path &videoPath)
{
    const auto videoBytes = readBytes(videoPath);
    const std::int64_t videoId =
        w.put("video", videoPath.filename().string(), videoBytes, mediaTypeOf(videoPath));
    w.importedWith(videoId);
    DecodedVideo video;
    try {
        video = decodeVideo(videoPath);
    } catch (const Error &e) {
        throw ImportFailure{"frame_undecodable", e.what()};
    }
    for (std::size_t i = 0; i < video.frames.size(); ++i) {
        cv::Mat bgr;
        cv::cvtColor(video.frames[i], bgr, cv::COLOR_RGB2BGR);
        std::vector<std::uint8_t> png;
        cv::imencode(".png", bgr, png);
        char name[32];
        std::snprintf(name, sizeof name, "frame_%05zu.png", i);
        const std::int64_t id = w.put("frame", name, png, "image/png");
        w.ledger.addProvenance(
            w.lease, videoId, id, "decoded_from",
            {{"frame_index", i}, {"pts_s", video.timestamps[i]}, {"codec", video.codec}});
    }
    return {std::move(video.frames), std::move(video.timestamps)};
}

// The reference recording: kept as given (played by the workstation beside the frames), after
// checking that FFmpeg can decode it.
void storeReference(const ImportWriter &w, const fs::path &reference)
{
    try {
        decodeVideo(reference);
    } catch (const Error &e) {
        throw ImportFailure{"reference_undecodable", e.what()};
    }
    const auto bytes = readBytes(reference);
    w.importedWith(
        w.put("reference_video", reference.filename().string(), bytes, mediaTypeOf(reference)));
}

// The actions file as given, and the parsed table derived from it.
ActionTable storeActions(const ImportWriter &w, const fs::path &path, double fps)
{
    const auto actionBytes = readBytes(path);
    const std::int64_t sourceId =
        w.put("actions_source", path.filename().string(), actionBytes, mediaTypeOf(path));
    w.importedWith(sourceId);
    ActionTable table;
    try {
        table = readActions(path);
    } catch (const Error &e) {
        throw ImportFailure{"actions_unreadable", e.what()};
    }
    const nlohmann::json actionsDoc = {{"policy_actions", table.rows},
                                       {"world_actions", table.rows},
                                       {"column_names", table.columnNames},
                                       {"control_rate_hz", fps}};
    const std::int64_t actionsId = w.putText("actions", "actions.json", actionsDoc.dump());
    w.ledger.addProvenance(w.lease, sourceId, actionsId, "parsed_from");
    return table;
}

// Recorded states (states.json: {"tracks": [{"name", "names", "values": one row a frame}]}), as
// given and checked into the states artifact (kosmos.states/1) the traces read.
void storeStates(const ImportWriter &w, const fs::path &path, std::size_t frames)
{
    const std::string where = path.filename().string();
    const auto bytes = readBytes(path);
    const std::int64_t sourceId =
        w.put("states_source", path.filename().string(), bytes, "application/json");
    w.importedWith(sourceId);
    nlohmann::json tracks = nlohmann::json::array();
    try {
        const nlohmann::json doc = json::parseBounded(
            std::string_view(reinterpret_cast<const char *>(bytes.data()), bytes.size()), where,
            {16, 256u << 20, true});
        const nlohmann::json &list = json::requireArray(doc, "tracks", where);
        if (list.empty() || list.size() > 16)
            json::fail(where + ".tracks", "must hold 1 to 16 tracks");
        for (std::size_t t = 0; t < list.size(); ++t) {
            const std::string at = where + ".tracks[" + std::to_string(t) + "]";
            const std::string name = json::requireString(list[t], "name", at);
            const nlohmann::json &names = json::requireArray(list[t], "names", at);
            const nlohmann::json &values = json::requireArray(list[t], "values", at);
            if (names.empty() || names.size() > 256)
                json::fail(at + ".names", "must name 1 to 256 values");
            for (const auto &n : names)
                if (!n.is_string())
                    json::fail(at + ".names", "must be texts");
            if (values.size() != frames)
                json::fail(at + ".values", "has " + std::to_string(values.size()) + " rows for " +
                                               std::to_string(frames) + " frames");
            for (std::size_t r = 0; r < values.size(); ++r) {
                if (!values[r].is_array() || values[r].size() != names.size())
                    json::fail(at + ".values[" + std::to_string(r) + "]",
                               "must hold " + std::to_string(names.size()) + " numbers");
                for (const auto &v : values[r])
                    if (!v.is_number() || !std::isfinite(v.get<double>()))
                        json::fail(at + ".values[" + std::to_string(r) + "]",
                                   "holds a value that is not a finite number");
            }
            tracks.push_back({{"name", name}, {"names", names}, {"values", values}});
        }
    } catch (const Error &e) {
        throw ImportFailure{"states_unreadable", e.what()};
    }
    const std::int64_t statesId =
        w.putText("states", "states.json",
                  nlohmann::json{{"schema", "kosmos.states/1"}, {"tracks", tracks}}.dump());
    w.ledger.addProvenance(w.lease, sourceId, statesId, "parsed_from");
}

// Contracts: as declared, else inferred (and recorded as inferred).
std::pair<ActionContract, FrameContract> importedContracts(const nlohmann::json &m, int dimension,
                                                           const cv::Mat &firstFrame, double fps)
{
    ActionContract actionContract;
    if (m.contains("action_contract")) {
        actionContract =
            ActionContract::fromJson(m["action_contract"], "import.json.action_contract");
    } else if (dimension == 7) {
        actionContract = ActionContract::bridgeEndEffector();
    } else {
        for (int i = 0; i < dimension; ++i)
            actionContract.dimensions.push_back({"a" + std::to_string(i), "1", -1e9, 1e9});
    }
    actionContract.controlRateHz = fps;
    FrameContract frameContract;
    if (m.contains("frame_contract")) {
        frameContract = FrameContract::fromJson(m["frame_contract"], "import.json.frame_contract");
    } else {
        frameContract.width = firstFrame.cols;
        frameContract.height = firstFrame.rows;
        frameContract.fps = fps;
    }
    return {actionContract, frameContract};
}

// The import's run, frozen under a protocol made of the manifest and every input file's hash.
RunSpec importSpec(Ledger &ledger, const fs::path &dir, const Inputs &in, nlohmann::json &files)
{
    const auto &m = in.manifest;
    files = nlohmann::json::object();
    std::vector<fs::path> all = in.frameFiles;
    if (in.video)
        all.push_back(*in.video);
    if (in.reference)
        all.push_back(*in.reference);
    all.push_back(in.actions);
    if (in.judgeSamples)
        all.push_back(*in.judgeSamples);
    if (in.states)
        all.push_back(*in.states);
    for (const auto &p : all)
        files[fs::relative(p, dir).string()] = Sha256::fileHex(inputTarget(p));
    const nlohmann::json protocol = {{"kosmos_import", 1},
                                     {"name", "import:" + dir.filename().string()},
                                     {"manifest", m},
                                     {"inputs", files}};
    RunSpec spec;
    spec.episodeIndex =
        json::optInt(m, "episode", "import.json", 0, std::int64_t{1} << 40).value_or(0);
    spec.policy = identityFrom(m, "policy", ComponentFamily::Policy);
    spec.worldModel = identityFrom(m, "world_model", ComponentFamily::WorldModel);
    spec.seeds = nlohmann::json::object();
    spec.task = m["task"].get<std::string>();
    spec.instruction = m["instruction"].get<std::string>();
    canonicalJson(protocol); // refuse NaN etc. before writing anything
    spec.protocolSha256 = ledger.freezeProtocol("import:" + dir.filename().string(), protocol);
    return spec;
}

// Everything an import stores under its lease; throws ImportFailure for a recorded failure.
void importAttempt(const ImportWriter &w, const fs::path &dir, const Inputs &in,
                   const nlohmann::json &files, ImportResult &result)
{
    const auto &m = in.manifest;
    w.ledger.appendEvent(w.lease, "imported",
                         {{"source_directory", dir.string()}, {"inputs", files}});
    const double fps = m["fps"].get<double>();
    ImportedFrames imported = in.frameFiles.empty() ? storeVideoFrames(w, *in.video)
                                                    : storeFrameFiles(w, in.frameFiles, fps);
    result.frames = static_cast<int>(imported.frames.size());
    if (in.reference)
        storeReference(w, *in.reference);
    const ActionTable table = storeActions(w, in.actions, fps);
    result.actions = static_cast<int>(table.rows.size());

    const auto [actionContract, frameContract] =
        importedContracts(m, static_cast<int>(table.rows[0].size()), imported.frames[0], fps);
    const nlohmann::json contracts = {{"action_contract", actionContract.toJson()},
                                      {"frame_contract", frameContract.toJson()},
                                      {"inferred", !m.contains("action_contract")},
                                      {"feedback_mode", "unknown (imported)"}};
    w.putText("contracts", "contracts.json", contracts.dump(2));

    const int expected = frameContract.expectedFrameCount(static_cast<int>(table.rows.size()));
    if (static_cast<int>(imported.frames.size()) != expected)
        throw ImportFailure{std::string(reasonName(Reason::FrameCountMismatch)),
                            std::to_string(imported.frames.size()) + " frames and " +
                                std::to_string(table.rows.size()) +
                                " actions: " + std::to_string(table.rows.size()) +
                                " actions need " + std::to_string(expected) + " frames"};
    const ContractCheck dimensionCheck = actionContract.checkChunk(table.rows, false);
    if (dimensionCheck.has(Reason::ActionDimensionMismatch))
        throw ImportFailure{std::string(reasonName(Reason::ActionDimensionMismatch)),
                            dimensionCheck.summary()};
    if (in.states)
        storeStates(w, *in.states, imported.frames.size());

    RolloutEvidence evidence{imported.frames, imported.timestamps, 0,
                             table.rows,      actionContract,      frameContract};
    w.ledger.recordValidation(w.lease, validateRollout(evidence).toRecord());
    if (in.judgeSamples)
        w.ledger.recordJudgment(
            w.lease, importedJudgment(*in.judgeSamples, static_cast<int>(imported.frames.size())));
}

} // namespace

ImportResult importDirectory(Ledger &ledger, const fs::path &directory,
                             const std::atomic<bool> *stop)
{
    const fs::path dir = fs::absolute(directory).lexically_normal();
    const Inputs in = locate(dir);
    nlohmann::json files;
    const RunSpec spec = importSpec(ledger, dir, in, files);

    ImportResult result;
    const SubmitResult submitted = ledger.submitRun(spec);
    result.runId = submitted.runId;
    result.created = submitted.created;
    if (ledger.run(submitted.runId)->finishedAtMs) {
        result.state = "already_finished";
        return result;
    }
    // Renewed in the background however long the import takes; a dead importer's lease is
    // taken over at once by the next import of the same folder (see Ledger::claim).
    constexpr std::int64_t kImportLeaseMs = std::int64_t{60} * 1000;
    const auto scope = AttemptScope::claim(
        ledger, {"kosmos-import", kImportLeaseMs, kImportLeaseMs / 6}, submitted.runId);
    if (!scope)
        throw Error(ErrorCode::Busy, "run " + std::to_string(submitted.runId) +
                                         " is being imported by another live process right now; "
                                         "run the same import again when it has ended");
    const std::string where = "run " + std::to_string(result.runId) + ", import " + dir.string();
    try {
        ImportWriter writer{ledger, scope->lease(), stop};
        writer.manifestId = ledger.putArtifact(scope->lease(), "import_manifest", "import.json",
                                               readBytes(dir / "import.json"), "application/json");
        importAttempt(writer, dir, in, files, result);
        result.state = attemptResultName(scope->complete());
    } catch (const ImportInterrupted &) {
        result.state = attemptResultName(
            scope->interrupt(where + ": the import was stopped (Ctrl-C or SIGTERM); the run is "
                                     "back in the queue and the same import again finishes it"));
        result.errorCode = "interrupted";
        result.error = "stopped by a signal";
    } catch (const ImportFailure &f) {
        result.state = attemptResultName(scope->fail(f.code, where + ": " + f.message));
        result.errorCode = f.code;
        result.error = f.message;
    } catch (const Error &e) {
        if (e.code() == ErrorCode::LeaseLost)
            throw;
        result.state = attemptResultName(
            scope->fail(std::string(errorCodeName(e.code())), where + ": " + e.what()));
        result.errorCode = errorCodeName(e.code());
        result.error = e.what();
    }
    if (result.state == "lease_lost")
        throw Error(ErrorCode::LeaseLost,
                    "run " + std::to_string(result.runId) + ": the lease was lost while importing");
    return result;
}

} // namespace kosmos
