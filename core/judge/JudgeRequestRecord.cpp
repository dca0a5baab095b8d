#include "judge/JudgeRequestRecord.h"

#include "artifacts/ArtifactStore.h"
#include "artifacts/ImageCodecs.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <openssl/evp.h>

#include <map>

namespace kosmos {

namespace {

constexpr std::string_view kPngDataUrl = "data:image/png;base64,";
// A judge request is a few MiB (16 PNG frames as data URLs); a stored template that would
// rebuild to more is refused rather than grown without bound.
constexpr std::size_t kMaxRebuiltBody = std::size_t{128} << 20;

// Standard base64 with padding, no line breaks (what a data URL holds).
std::string base64(std::span<const std::uint8_t> bytes)
{
    // EVP_EncodeBlock writes a terminating NUL after the 4 * ceil(n / 3) characters.
    std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char *>(out.data()), bytes.data(),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

} // namespace

JudgeFrameRefs judgeFrameRefs(const std::vector<std::vector<std::uint8_t>> &framePngs)
{
    JudgeFrameRefs refs;
    for (const auto &png : framePngs) {
        refs.sha256.push_back(Sha256::hex(png));
        refs.dataUrls.push_back(std::string(kPngDataUrl) + base64(png));
    }
    return refs;
}

nlohmann::json makeJudgeRequestRecord(const JudgeRequest &request, const JudgeFrameRefs &frames,
                                      const JudgeAnswer &answer)
{
    nlohmann::json doc = {{"schema", kJudgeRequestSchema},
                          {"prompt", request.prompt},
                          {"prompt_sha256", Sha256::hex(request.prompt)},
                          {"task_id", request.taskId},
                          {"frame_indices", request.frameIndices},
                          {"frames_png_sha256", frames.sha256},
                          {"sample_index", request.sampleIndex},
                          {"sample_count", request.sampleCount},
                          {"try_index", request.tryIndex},
                          {"seed", request.seed},
                          {"temperature", request.temperature},
                          {"top_p", request.topP},
                          {"max_new_tokens", request.maxNewTokens},
                          {"wire", nullptr}};
    if (answer.wireBody.empty())
        return doc;
    // The body as sent, with each image's data URL replaced by a reference to its PNG: text in,
    // text out, so rebuilding it is exact whatever the serialiser did.
    std::string body = answer.wireBody;
    for (std::size_t i = 0; i < frames.dataUrls.size() && i < frames.sha256.size(); ++i) {
        const std::string &url = frames.dataUrls[i];
        const std::string ref = kArtifactRefPrefix + frames.sha256[i];
        for (auto at = body.find(url); at != std::string::npos;
             at = body.find(url, at + ref.size()))
            body.replace(at, url.size(), ref);
    }
    nlohmann::json wire = {{"method", "POST"},
                           {"url", answer.wireUrl},
                           {"body_sha256", Sha256::hex(answer.wireBody)},
                           {"body_bytes", answer.wireBody.size()},
                           {"body_template", std::move(body)}};
    doc["wire"] = std::move(wire);
    return doc;
}

std::string rebuildJudgeWireBody(const nlohmann::json &record, const ArtifactStore &store)
{
    const auto schema = record.is_object() ? record.find("schema") : record.end();
    if (!record.is_object() || schema == record.end() || !schema->is_string() ||
        *schema != kJudgeRequestSchema)
        throw Error(ErrorCode::InvalidInput,
                    std::string("not a ") + kJudgeRequestSchema + " document");
    const auto wire = record.find("wire");
    if (wire == record.end() || !wire->is_object())
        throw Error(
            ErrorCode::NotFound,
            "this judge call sent no wire request (an in-process judge): nothing to replay");
    const auto templ = wire->find("body_template");
    if (templ == wire->end() || !templ->is_string())
        throw Error(ErrorCode::InvalidInput, "the request's wire.body_template is not a string");
    const std::string &text = templ->get_ref<const std::string &>();
    const auto bodySha = wire->find("body_sha256");
    if (bodySha == wire->end() || !bodySha->is_string() ||
        !Sha256::isValidHex(bodySha->get_ref<const std::string &>()))
        throw Error(ErrorCode::InvalidInput,
                    "the request's wire.body_sha256 is not a SHA-256 in hex");
    std::string bytes;
    bytes.reserve(text.size());              // never a size taken from the document
    std::map<std::string, std::string> urls; // sha -> data URL
    const std::string prefix = kArtifactRefPrefix;
    std::size_t from = 0;
    for (auto at = text.find(prefix); at != std::string::npos; at = text.find(prefix, from)) {
        const std::string sha = text.substr(at + prefix.size(), 64);
        bytes.append(text, from, at - from);
        from = at + prefix.size() + sha.size();
        if (!Sha256::isValidHex(sha)) { // not a reference after all: keep it as it is
            bytes.append(text, at, from - at);
            continue;
        }
        auto it = urls.find(sha);
        if (it == urls.end()) {
            if (!store.contains(sha))
                throw Error(ErrorCode::NotFound, "the frame " + sha +
                                                     " this request showed is not in the store " +
                                                     store.directory().string());
            it = urls.emplace(sha, std::string(kPngDataUrl) + base64(store.read(sha))).first;
        }
        bytes += it->second;
        if (bytes.size() > kMaxRebuiltBody)
            throw Error(ErrorCode::InvalidInput,
                        "the request rebuilds to more than " +
                            std::to_string(kMaxRebuiltBody >> 20) +
                            " MiB (its template repeats a frame reference too often)");
    }
    bytes.append(text, from, std::string::npos);
    const std::string &expected = bodySha->get_ref<const std::string &>();
    const std::string actual = Sha256::hex(bytes);
    if (actual != expected)
        throw Error(ErrorCode::Corrupt, "the rebuilt request body hashes to " + actual +
                                            ", but the body sent hashed to " + expected);
    return bytes;
}

} // namespace kosmos
