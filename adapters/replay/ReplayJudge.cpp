#include "replay/ReplayJudge.h"

#include "artifacts/PixelDigest.h"
#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/JsonFields.h"
#include "util/Sha256.h"
#include "util/TextRules.h"

namespace kosmos::replay {

std::string judgeInputDigest(const JudgeRequest &request)
{
    Sha256 hash;
    hash.update("kosmos-judge-input-v1\n");
    for (const auto &f : request.frames) {
        cv::Mat frame = f.isContinuous() ? f : f.clone();
        hash.update(pixelDigestOfRaw(std::span(frame.data, frame.total() * frame.elemSize()),
                                     frame.cols, frame.rows, frame.channels())
                        .sha256);
    }
    hash.update(request.instruction);
    return hash.finalHex();
}

ReplayJudge::ReplayJudge(const std::string &file) : m_file(file)
{
    json::Limits limits; // a saved judge's answers: text, numbers, a few levels
    limits.maxBytes = 256u << 20;
    limits.maxDepth = 16;
    limits.rejectDuplicateKeys = true;
    nlohmann::json doc;
    try {
        doc = json::parseFile(file, limits);
    } catch (const Error &e) {
        throw Error(ErrorCode::InvalidInput,
                    std::string("replay file ") + validUtf8(e.what()) +
                        " (a replay file is {\"answers\": [...]} of saved raw judge samples)");
    }
    const auto &answers = json::requireArray(doc, "answers", file);
    for (std::size_t i = 0; i < answers.size(); ++i) {
        const std::string where = file + ".answers[" + std::to_string(i) + "]";
        const auto &a = answers[i];
        JudgeAnswer answer;
        if (a.contains("raw_text") && a["raw_text"].is_string())
            answer.rawText = a["raw_text"].get<std::string>();
        else
            answer.error = "the saved sample has no raw text";
        answer.generatedTokens = json::optInt(a, "generated_tokens", where, 0, INT64_MAX);
        answer.decodeMs = json::optInt(a, "decode_ms", where, 0, INT64_MAX);
        const auto key = std::make_tuple(
            json::requireString(a, "input_sha256", where),
            static_cast<int>(json::requireInt(a, "sample_index", where, 0, 63)),
            static_cast<int>(json::optInt(a, "try_index", where, 0, 1).value_or(0)));
        if (!m_answers.emplace(key, answer).second)
            json::fail(where, "duplicate answer for the same input, sample and try");
    }
}

JudgeAnswer ReplayJudge::sample(const JudgeRequest &request)
{
    const auto it =
        m_answers.find({judgeInputDigest(request), request.sampleIndex, request.tryIndex});
    if (it != m_answers.end())
        return it->second;
    JudgeAnswer missing;
    missing.error = "no saved answer in " + m_file + " for this input (sample " +
                    std::to_string(request.sampleIndex) + ", try " +
                    std::to_string(request.tryIndex) + ")";
    return missing;
}

} // namespace kosmos::replay
