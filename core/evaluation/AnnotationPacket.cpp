#include "evaluation/AnnotationPacket.h"

#include "ledger/Ledger.h"
#include "queries/RolloutQuery.h"
#include "util/BoundedJson.h"
#include "util/CanonicalJson.h"
#include "util/Error.h"
#include "util/FileWrite.h"
#include "util/Sha256.h"

#include <nlohmann/json.hpp>

#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <random>
#include <set>

namespace kosmos {

namespace fs = std::filesystem;

namespace {

nlohmann::json readJsonFile(const fs::path &path, const char *what)
{
    if (!fs::exists(path))
        throw Error(ErrorCode::InvalidInput,
                    std::string(what) + " " + path.string() + " not found");
    json::Limits limits;
    limits.maxBytes = 64u << 20;
    limits.maxDepth = 16;
    limits.rejectDuplicateKeys = true;
    try {
        return json::parseFile(path, limits);
    } catch (const Error &e) {
        throw Error(ErrorCode::InvalidInput, std::string(what) + " " + e.what());
    }
}

// The ledger's secret for binding packet keys (created on first use, readable by its owner
// only). It never leaves the bundle: someone holding a key file cannot re-bind an edited one.
std::string packetSecret(const fs::path &bundle)
{
    const fs::path path = bundle / "packet-binding.secret";
    if (!fs::exists(path)) {
        std::array<unsigned char, 32> bytes{};
        if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1)
            throw Error(ErrorCode::Io,
                        "OpenSSL could not produce random bytes for " + path.string());
        const fs::path temp = path.string() + ".tmp";
        {
            std::ofstream out(temp, std::ios::binary | std::ios::trunc);
            out.write(reinterpret_cast<const char *>(bytes.data()),
                      static_cast<std::streamsize>(bytes.size()));
            if (!out)
                throw Error(ErrorCode::Io, "cannot write " + temp.string());
        }
        fs::permissions(temp, fs::perms::owner_read | fs::perms::owner_write);
        std::error_code ec;
        fs::create_hard_link(temp, path, ec); // first writer wins; a racing one reads it
        fs::remove(temp);
    }
    std::ifstream in(path, std::ios::binary);
    std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (secret.size() != 32)
        throw Error(ErrorCode::Corrupt, path.string() + " is not a 32-byte secret");
    return secret;
}

// HMAC-SHA256 over the packet's hash and the clip-to-run mapping of its key.
std::string keyBinding(const fs::path &bundle, const nlohmann::json &key)
{
    const std::string secret = packetSecret(bundle);
    const std::string message = canonicalJson(
        {{"packet_sha256", key.value("packet_sha256", std::string())}, {"clips", key["clips"]}});
    unsigned char mac[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (!HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
              reinterpret_cast<const unsigned char *>(message.data()), message.size(), mac,
              &length))
        throw Error(ErrorCode::Io, "OpenSSL HMAC failed");
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < length; ++i) {
        hex.push_back(kDigits[mac[i] >> 4]);
        hex.push_back(kDigits[mac[i] & 0x0f]);
    }
    return hex;
}

void writeFile(const fs::path &path, const std::string &text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close(); // a write error (a full disk) may show only when the buffer is flushed
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
    // Written into a staging folder beside the target and moved into place when complete, the
    // key last: a failure (a full disk) leaves neither a partial packet nor a key without one.
    StagingFolder stagingFolder(directory.parent_path(), "packet");
    const fs::path &staging = stagingFolder.path();
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
        fs::create_directories(staging / clip);
        nlohmann::json frames = nlohmann::json::array();
        for (std::size_t f = 0; f < rollout.frames.size(); ++f) {
            const auto bytes = ledger.artifacts().read(rollout.frames[f].sha256); // hash-checked
            char name[32];
            std::snprintf(name, sizeof name, "frame_%04zu.png", f);
            writeFile(staging / clip / name, std::string(bytes.begin(), bytes.end()));
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
    writeFile(staging / "packet.json", packetText);
    PacketExport out;
    out.directory = directory;
    out.packetSha256 = Sha256::hex(packetText);
    out.clips = index;
    answers["packet_sha256"] = out.packetSha256;
    writeFile(staging / "answers.json", answers.dump(2));
    key["packet_sha256"] = out.packetSha256;
    key["binding"] = keyBinding(ledger.bundle(), key);
    out.keyFile = fs::path(directory.string() + ".key.json");
    writeFileAtomically(out.keyFile, key.dump(2));
    try {
        stagingFolder.publish(directory);
    } catch (const Error &) {
        std::error_code ignored;
        fs::remove(out.keyFile, ignored);
        throw;
    }
    return out;
}

std::vector<AnsweredClip> checkAnswers(const nlohmann::json &answers, const nlohmann::json &key,
                                       const std::string &where)
{
    // Every access is type-checked: these files come from outside.
    auto string = [](const nlohmann::json &object, const char *field) -> std::string {
        if (!object.is_object() || !object.contains(field) || !object[field].is_string())
            return {};
        return object[field].get<std::string>();
    };
    if (!answers.is_object() || !key.is_object() || !key.contains("clips") ||
        !key["clips"].is_object())
        throw Error(ErrorCode::InvalidInput, where + ": not an answers file for a Kosmos packet");
    const std::string packet = string(key, "packet_sha256");
    if (packet.empty() || string(answers, "packet_sha256") != packet)
        throw Error(ErrorCode::InvalidInput,
                    where + ": packet_sha256 " +
                        (answers.contains("packet_sha256")
                             ? answers["packet_sha256"].dump().substr(0, 80)
                             : std::string("(none)")) +
                        " does not match the packet this key belongs to (" +
                        (packet.empty() ? std::string("(none)") : packet) + ")");
    const std::string annotator = string(answers, "annotator");
    if (annotator.empty())
        throw Error(ErrorCode::InvalidInput, where + ": annotator is empty (name who labelled)");
    if (annotator.size() > 256)
        throw Error(ErrorCode::InvalidInput, where + ": annotator is longer than 256 bytes");
    if (answers.contains("answers") && !answers["answers"].is_array())
        throw Error(ErrorCode::InvalidInput, where + ": answers must be a list");
    std::vector<AnsweredClip> out;
    std::set<std::string> seen;
    const auto &list = answers.contains("answers") ? answers["answers"] : nlohmann::json::array();
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto &a = list[i];
        const std::string at = where + ": answers[" + std::to_string(i) + "]";
        if (!a.is_object())
            throw Error(ErrorCode::InvalidInput, at + ": not an object");
        const std::string clip = string(a, "clip");
        if (!key["clips"].contains(clip) || !key["clips"][clip].is_object())
            throw Error(ErrorCode::InvalidInput,
                        at + ": clip '" + clip.substr(0, 80) + "' is not in this packet");
        if (!seen.insert(clip).second)
            throw Error(ErrorCode::InvalidInput, at + ": clip '" + clip + "' is answered twice");
        auto text = [&](const char *field,
                        const std::set<std::string> &allowed) -> std::optional<std::string> {
            if (!a.contains(field) || a[field].is_null())
                return std::nullopt;
            if (!a[field].is_string() || !allowed.count(a[field].get<std::string>()))
                throw Error(ErrorCode::InvalidInput, at + "." + field + ": " +
                                                         a[field].dump().substr(0, 80) +
                                                         " is not a valid value");
            return a[field].get<std::string>();
        };
        AnsweredClip answered;
        answered.clip = clip;
        answered.runKey = string(key["clips"][clip], "run_key");
        HumanLabelRecord &label = answered.label;
        label.annotatorId = annotator;
        label.source = "human";
        label.integrity = text("integrity", kIntegrity);
        label.collision = text("collision", kCollision);
        label.completion = text("completion_evidence", kCompletion);
        if (a.contains("progress") && !a["progress"].is_null()) {
            const auto &p = a["progress"];
            const bool inRange = (p.is_number_unsigned() && p.get<std::uint64_t>() <= 5) ||
                                 (p.is_number_integer() && !p.is_number_unsigned() &&
                                  p.get<std::int64_t>() >= 0 && p.get<std::int64_t>() <= 5);
            if (!inRange)
                throw Error(ErrorCode::InvalidInput,
                            at + ".progress: " + p.dump().substr(0, 80) + " is not 0-5");
            label.progress = static_cast<int>(p.get<std::int64_t>());
        }
        if (!label.integrity && !label.collision && !label.completion && !label.progress)
            continue; // not answered (yet): no label
        if (label.completion == "met" && label.progress && *label.progress != 5)
            throw Error(ErrorCode::InvalidInput, at + ": completion_evidence met needs progress 5");
        if (label.completion == "not_met" && label.progress && *label.progress == 5)
            throw Error(ErrorCode::InvalidInput,
                        at + ": completion_evidence not_met needs progress 0-4");
        const std::string split = string(key["clips"][clip], "split");
        label.split = split == "held_out" ? "held_out" : "development";
        label.notes = "packet " + packet;
        out.push_back(std::move(answered));
    }
    return out;
}

PacketImport importAnnotationAnswers(Ledger &ledger, const fs::path &answersPath,
                                     const fs::path &keyFile)
{
    const nlohmann::json answers = readJsonFile(answersPath, "answers");
    const nlohmann::json key = readJsonFile(keyFile, "packet key");
    const std::string where = answersPath.string();
    if (!key.is_object() || !key.contains("clips") || !key["clips"].is_object() ||
        !key.contains("binding") || !key["binding"].is_string())
        throw Error(ErrorCode::InvalidInput,
                    keyFile.string() + ": the key has no binding (made by an older Kosmos, or "
                                       "not a key): export the packet again");
    if (keyBinding(ledger.bundle(), key) != key["binding"].get<std::string>())
        throw Error(ErrorCode::InvalidInput,
                    keyFile.string() +
                        ": the key does not belong to this packet and ledger (its clip-to-run "
                        "mapping was changed, or it was exported from another ledger); nothing "
                        "was written");
    std::vector<AnsweredClip> answered = checkAnswers(answers, key, where);
    PacketImport result;
    result.annotator = answers["annotator"].get<std::string>();
    for (auto &a : answered) {
        const auto run = ledger.runByKeyPrefix(a.runKey);
        if (a.runKey.empty() || !run)
            throw Error(ErrorCode::InvalidInput, where + ": the run of clip '" + a.clip +
                                                     "' is not in this ledger (run key " +
                                                     a.runKey.substr(0, 16) + "...)");
        a.label.runId = run->runId;
    }
    std::vector<HumanLabelRecord> labels;
    labels.reserve(answered.size());
    for (const auto &a : answered)
        labels.push_back(a.label);
    try {
        ledger.addHumanLabelsOnce(labels); // checked and written in one transaction
    } catch (const Error &e) {
        if (e.code() != ErrorCode::InvalidInput)
            throw;
        throw Error(ErrorCode::InvalidInput, where + ": " + result.annotator +
                                                 "'s answers to this packet were already "
                                                 "imported: " +
                                                 e.what());
    }
    for (const auto &a : answered) {
        ++result.labels;
        result.heldOut += a.label.split == "held_out";
    }
    return result;
}

} // namespace kosmos
