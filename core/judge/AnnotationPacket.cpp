#include "judge/AnnotationPacket.h"

#include "ledger/Ledger.h"
#include "pipeline/RolloutQuery.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>

namespace kosmos {

namespace fs = std::filesystem;

namespace {

nlohmann::json readJsonFile(const fs::path &path, const char *what)
{
    std::ifstream in(path);
    if (!in)
        throw Error(ErrorCode::NotFound, std::string(what) + " " + path.string() + " not found");
    try {
        return nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception &e) {
        throw Error(ErrorCode::InvalidInput, std::string(what) + " " + path.string() +
                                                 ": not valid JSON (" + e.what() + ")");
    }
}

void writeFile(const fs::path &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out)
        throw Error(ErrorCode::Io, "cannot write " + path.string());
}

const std::set<std::string> kIntegrity = {"intact", "artifact", "uncertain"};
const std::set<std::string> kCollision = {"none_visible", "visible", "uncertain"};
const std::set<std::string> kCompletion = {"met", "not_met", "uncertain"};

} // namespace

std::string splitOfLineage(const std::string &lineage, double heldOutFraction,
                           const std::string &salt)
{
    const std::string digest = Sha256::hex(salt + "\n" + lineage);
    const double share =
        static_cast<double>(std::stoull(digest.substr(0, 12), nullptr, 16)) / 281474976710656.0;
    return share < heldOutFraction ? "held_out" : "development";
}

std::string lineageOfRun(Ledger &ledger, std::int64_t runId)
{
    const auto run = ledger.run(runId);
    if (!run)
        throw Error(ErrorCode::NotFound, "run " + std::to_string(runId) + " does not exist");
    return run->task.value_or("") + "#" + std::to_string(run->episodeIndex);
}

PacketExport exportAnnotationPacket(Ledger &ledger, const std::vector<std::int64_t> &runIds,
                                    const fs::path &directory, std::uint64_t seed)
{
    if (runIds.empty())
        throw Error(ErrorCode::InvalidInput, "an annotation packet needs at least one run");
    if (fs::exists(directory) && !fs::is_empty(directory))
        throw Error(ErrorCode::InvalidInput,
                    directory.string() + " exists and is not empty; choose a new folder");
    std::vector<std::int64_t> order = runIds;
    std::mt19937_64 rng(seed);
    std::shuffle(order.begin(), order.end(), rng); // clip order says nothing about run order
    fs::create_directories(directory);
    nlohmann::json packet = {
        {"kosmos_annotation_packet", 1},
        {"instructions",
         "For each clip, watch the frames and answer in answers.json with the same fields the "
         "judge answers: integrity (intact | artifact | uncertain), collision (none_visible | "
         "visible | uncertain), progress (0-5), completion_evidence (met | not_met | "
         "uncertain). Judge only what the frames show."},
        {"clips", nlohmann::json::array()}};
    nlohmann::json key = {{"clips", nlohmann::json::object()}};
    nlohmann::json answers = {{"annotator", ""}, {"answers", nlohmann::json::array()}};
    int index = 0;
    for (std::int64_t runId : order) {
        const auto run = ledger.run(runId);
        if (!run)
            throw Error(ErrorCode::NotFound, "run " + std::to_string(runId) + " does not exist");
        const RolloutView rollout = loadRollout(ledger, runId);
        if (rollout.frames.empty())
            throw Error(ErrorCode::InvalidInput,
                        "run " + std::to_string(runId) + " has no frames to label");
        char clip[16];
        std::snprintf(clip, sizeof clip, "clip_%03d", ++index);
        fs::create_directories(directory / clip);
        nlohmann::json frames = nlohmann::json::array();
        for (std::size_t f = 0; f < rollout.frames.size(); ++f) {
            const auto bytes = ledger.artifacts().read(rollout.frames[f].sha256); // hash-checked
            char name[32];
            std::snprintf(name, sizeof name, "frame_%04zu.png", f);
            writeFile(directory / clip / name, std::string(bytes.begin(), bytes.end()));
            frames.push_back(
                {{"file", std::string(clip) + "/" + name}, {"sha256", rollout.frames[f].sha256}});
        }
        packet["clips"].push_back(
            {{"clip", clip}, {"instruction", run->instruction.value_or("")}, {"frames", frames}});
        key["clips"][clip] = {{"run_key", run->runKey},
                              {"split", splitOfLineage(lineageOfRun(ledger, runId))}};
        answers["answers"].push_back({{"clip", clip},
                                      {"integrity", nullptr},
                                      {"collision", nullptr},
                                      {"progress", nullptr},
                                      {"completion_evidence", nullptr}});
    }
    const std::string packetText = packet.dump(2);
    writeFile(directory / "packet.json", packetText);
    PacketExport out;
    out.directory = directory;
    out.packetSha256 = Sha256::hex(packetText);
    out.clips = index;
    answers["packet_sha256"] = out.packetSha256;
    writeFile(directory / "answers.json", answers.dump(2));
    key["packet_sha256"] = out.packetSha256;
    out.keyFile = fs::path(directory.string() + ".key.json");
    writeFile(out.keyFile, key.dump(2));
    return out;
}

PacketImport importAnnotationAnswers(Ledger &ledger, const fs::path &answersPath,
                                     const fs::path &keyFile)
{
    const nlohmann::json answers = readJsonFile(answersPath, "answers");
    const nlohmann::json key = readJsonFile(keyFile, "packet key");
    const std::string where = answersPath.string();
    if (!answers.is_object() || !key.is_object() || !key.contains("clips"))
        throw Error(ErrorCode::InvalidInput, where + ": not an answers file for a Kosmos packet");
    if (answers.value("packet_sha256", std::string()) != key.value("packet_sha256", std::string()))
        throw Error(ErrorCode::InvalidInput,
                    where + ": packet_sha256 " +
                        answers.value("packet_sha256", std::string("(none)")) +
                        " does not match the packet this key belongs to (" +
                        key.value("packet_sha256", std::string("(none)")) + ")");
    PacketImport result;
    result.annotator = answers.value("annotator", std::string());
    if (result.annotator.empty())
        throw Error(ErrorCode::InvalidInput, where + ": annotator is empty (name who labelled)");
    std::vector<HumanLabelRecord> labels;
    std::set<std::string> seen;
    const auto &list = answers.value("answers", nlohmann::json::array());
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto &a = list[i];
        const std::string at = where + ": answers[" + std::to_string(i) + "]";
        const std::string clip = a.value("clip", std::string());
        if (!key["clips"].contains(clip))
            throw Error(ErrorCode::InvalidInput,
                        at + ": clip '" + clip + "' is not in this packet");
        if (!seen.insert(clip).second)
            throw Error(ErrorCode::InvalidInput, at + ": clip '" + clip + "' is answered twice");
        auto text = [&](const char *field,
                        const std::set<std::string> &allowed) -> std::optional<std::string> {
            if (!a.contains(field) || a[field].is_null())
                return std::nullopt;
            if (!a[field].is_string() || !allowed.count(a[field].get<std::string>()))
                throw Error(ErrorCode::InvalidInput,
                            at + "." + field + ": " + a[field].dump() + " is not a valid value");
            return a[field].get<std::string>();
        };
        HumanLabelRecord label;
        label.annotatorId = result.annotator;
        label.source = "human";
        label.integrity = text("integrity", kIntegrity);
        label.collision = text("collision", kCollision);
        label.completion = text("completion_evidence", kCompletion);
        if (a.contains("progress") && !a["progress"].is_null()) {
            if (!a["progress"].is_number_integer() || a["progress"].get<int>() < 0 ||
                a["progress"].get<int>() > 5)
                throw Error(ErrorCode::InvalidInput,
                            at + ".progress: " + a["progress"].dump() + " is not 0-5");
            label.progress = a["progress"].get<int>();
        }
        if (!label.integrity && !label.collision && !label.completion && !label.progress)
            continue; // not answered (yet): no label
        if (label.completion == "met" && label.progress && *label.progress != 5)
            throw Error(ErrorCode::InvalidInput, at + ": completion_evidence met needs progress 5");
        if (label.completion == "not_met" && label.progress && *label.progress == 5)
            throw Error(ErrorCode::InvalidInput,
                        at + ": completion_evidence not_met needs progress 0-4");
        const auto runKey = key["clips"][clip].value("run_key", std::string());
        const auto run = ledger.runByKeyPrefix(runKey);
        if (!run)
            throw Error(ErrorCode::NotFound, at + ": the run of clip '" + clip +
                                                 "' is not in this ledger (run key " +
                                                 runKey.substr(0, 16) + "...)");
        label.runId = run->runId;
        label.split = key["clips"][clip].value("split", std::string("development"));
        labels.push_back(label);
    }
    for (const auto &label : labels) {
        ledger.addHumanLabel(label);
        ++result.labels;
        result.heldOut += label.split == "held_out";
    }
    return result;
}

} // namespace kosmos
