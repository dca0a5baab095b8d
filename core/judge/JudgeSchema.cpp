#include "judge/JudgeSchema.h"

#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/JsonFields.h"
#include "util/TextRules.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kosmos {

std::string formatClassName(FormatClass format)
{
    switch (format) {
    case FormatClass::BareJson:
        return "bare_json";
    case FormatClass::FencedJson:
        return "fenced_json";
    case FormatClass::Invalid:
        return "invalid";
    case FormatClass::Refusal:
        return "refusal";
    case FormatClass::RequestFailed:
        return "request_failed";
    }
    return "invalid";
}

std::string answerFormName(AnswerForm form)
{
    switch (form) {
    case AnswerForm::BareJson:
        return "bare_json";
    case AnswerForm::FencedJson:
        return "fenced_json";
    case AnswerForm::FencedJsonInProse:
        return "fenced_json_in_prose";
    case AnswerForm::Other:
        return "other";
    case AnswerForm::NoAnswer:
        return "no_answer";
    }
    return "other";
}

bool ParsedAnswer::decisive() const
{
    if (!schemaValid())
        return false;
    const std::string completion = value.value("completion_evidence", "");
    return value.value("integrity", "") == "intact" && value["progress"].is_number_integer() &&
           (completion == "met" || completion == "not_met");
}

namespace {

// An integer field's value when it is an integer in [min, max]; nullopt otherwise. Checked on
// the 64-bit value before any narrowing: 4294967301 is not 5.
std::optional<std::int64_t> intIn(const nlohmann::json &v, std::int64_t min, std::int64_t max)
{
    if (!v.is_number_integer())
        return std::nullopt;
    std::int64_t value = 0;
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        if (u > static_cast<std::uint64_t>(max))
            return std::nullopt;
        value = static_cast<std::int64_t>(u);
    } else {
        value = v.get<std::int64_t>();
    }
    if (value < min || value > max)
        return std::nullopt;
    return value;
}

// Unicode code points in UTF-8 text (what "characters" means to the person reading them).
std::size_t codePoints(const std::string &utf8)
{
    std::size_t n = 0;
    for (const unsigned char c : utf8)
        n += (c & 0xC0) != 0x80;
    return n;
}

} // namespace

std::vector<std::string> judgmentSchemaErrors(const nlohmann::json &j)
{
    std::vector<std::string> errors;
    if (!j.is_object())
        return {"the answer is not a JSON object"};
    static const std::set<std::string> kKeys = {"integrity",
                                                "collision",
                                                "progress",
                                                "completion_evidence",
                                                "evidence_frame_indices",
                                                "observable_reasons"};
    for (const auto &[key, value] : j.items()) {
        if (!kKeys.count(key))
            errors.push_back("unexpected field '" + key + "'");
    }
    for (const auto &key : kKeys) {
        if (!j.contains(key))
            errors.push_back("missing field '" + key + "'");
    }
    if (!errors.empty())
        return errors;
    auto oneOf = [&](const char *key, std::initializer_list<const char *> allowed) {
        const auto &v = j[key];
        if (v.is_string()) {
            for (const char *a : allowed) {
                if (v.get<std::string>() == a)
                    return;
            }
        }
        errors.push_back(std::string(key) + " must be one of the allowed values, got " + v.dump());
    };
    oneOf("integrity", {"intact", "artifact", "uncertain"});
    oneOf("collision", {"none_visible", "visible", "uncertain"});
    oneOf("completion_evidence", {"met", "not_met", "uncertain"});
    const auto &progressField = j["progress"];
    const std::optional<std::int64_t> progress = intIn(progressField, 0, 5);
    if (!progressField.is_null() && !progress)
        errors.push_back("progress must be an integer 0-5 or null, got " + progressField.dump());
    const std::string completion =
        j["completion_evidence"].is_string() ? j["completion_evidence"].get<std::string>() : "";
    if (completion == "met" && progress != 5)
        errors.push_back("completion_evidence 'met' requires progress 5");
    if (completion == "not_met" && !(progress && *progress <= 4))
        errors.push_back("completion_evidence 'not_met' requires progress 0-4");
    const auto &indices = j["evidence_frame_indices"];
    if (!indices.is_array() || indices.empty())
        errors.push_back("evidence_frame_indices must be a non-empty list");
    else {
        for (const auto &i : indices) {
            if (!intIn(i, 0, 15)) {
                errors.push_back("evidence_frame_indices must hold integers 0-15, got " + i.dump());
                break;
            }
        }
    }
    const auto &reasons = j["observable_reasons"];
    if (!reasons.is_string())
        errors.push_back("observable_reasons must be a string");
    else if (const std::size_t n = codePoints(reasons.get<std::string>()); n > 1200)
        errors.push_back("observable_reasons is longer than 1,200 characters (" +
                         std::to_string(n) + ")");
    return errors;
}

namespace {

std::string trim(const std::string &s)
{
    const auto begin = s.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos)
        return {};
    const auto end = s.find_last_not_of(" \t\r\n");
    return s.substr(begin, end - begin + 1);
}

bool looksLikeRefusal(const std::string &text)
{
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    for (const char *phrase : {"i cannot", "i can't", "i can not", "i am unable", "i'm unable",
                               "i won't", "i will not", "as an ai"}) {
        if (lower.find(phrase) != std::string::npos)
            return true;
    }
    return false;
}

ParsedAnswer classify(const std::string &json, FormatClass format)
{
    ParsedAnswer answer;
    nlohmann::json value;
    try {
        // A duplicate key is schema-invalid: nlohmann would keep the last one silently
        // ("not_met" then "met" read as a success).
        json::Limits limits;
        limits.maxDepth = 16;
        limits.maxBytes = 1u << 20;
        limits.rejectDuplicateKeys = true;
        value = json::parseBounded(json, "the answer", limits);
    } catch (const Error &e) {
        answer.format = FormatClass::Invalid;
        answer.error = e.what();
        return answer;
    }
    const auto errors = judgmentSchemaErrors(value);
    if (!errors.empty()) {
        answer.format = FormatClass::Invalid;
        for (const auto &e : errors)
            answer.error += (answer.error.empty() ? "" : "; ") + e;
        return answer;
    }
    answer.format = format;
    answer.value = std::move(value);
    return answer;
}

} // namespace

ScreenedAnswer screenJudgeAnswer(const std::optional<std::string> &raw)
{
    if (!raw)
        return {};
    std::string text = ledgerText(*raw);
    const bool changed = text != *raw;
    return {std::move(text), changed};
}

ParsedAnswer parseJudgeAnswer(const std::optional<std::string> &raw, int rule)
{
    if (!raw) {
        ParsedAnswer failed{FormatClass::RequestFailed, AnswerForm::NoAnswer, nullptr,
                            "no answer (the request failed)"};
        return failed;
    }
    std::string text = trim(*raw);
    // Rule 2: one byte order mark is not part of any answer, whatever follows it. (Rule 1 let
    // it through, which made bare JSON after a BOM invalid but a fenced block after one valid.)
    static constexpr std::string_view kBom = "\xEF\xBB\xBF";
    if (rule >= 2 && text.compare(0, kBom.size(), kBom) == 0)
        text = trim(text.substr(kBom.size()));
    auto result = [](FormatClass format, AnswerForm form, std::string error) {
        ParsedAnswer answer;
        answer.format = format;
        answer.form = form;
        answer.error = std::move(error);
        return answer;
    };
    if (text.empty())
        return result(FormatClass::Invalid, AnswerForm::Other, "empty answer");
    if (text.front() == '{' && text.back() == '}') {
        ParsedAnswer answer = classify(text, FormatClass::BareJson);
        answer.form = AnswerForm::BareJson;
        return answer;
    }

    // JSON in exactly one fenced block (```json ... ``` or ``` ... ```). Text around the one
    // block is allowed (the block is the answer) and recorded as fenced_json_in_prose.
    struct Block
    {
        std::size_t open;
        std::size_t end; // one past the closing fence
        std::string inner;
    };
    std::vector<Block> blocks;
    std::size_t pos = 0;
    while ((pos = text.find("```", pos)) != std::string::npos) {
        const std::size_t lineEnd = text.find('\n', pos);
        const std::size_t close =
            lineEnd == std::string::npos ? std::string::npos : text.find("```", lineEnd);
        if (close == std::string::npos)
            break;
        blocks.push_back({pos, close + 3, text.substr(lineEnd + 1, close - lineEnd - 1)});
        pos = close + 3;
    }
    if (blocks.size() == 1) {
        const std::string inner = trim(blocks[0].inner);
        if (!inner.empty() && inner.front() == '{') {
            ParsedAnswer answer = classify(inner, FormatClass::FencedJson);
            answer.form = blocks[0].open == 0 && blocks[0].end == text.size()
                              ? AnswerForm::FencedJson
                              : AnswerForm::FencedJsonInProse;
            return answer;
        }
    }
    if (blocks.size() > 1)
        return result(FormatClass::Invalid, AnswerForm::Other,
                      std::to_string(blocks.size()) + " fenced blocks (exactly one is allowed)");
    if (looksLikeRefusal(text))
        return result(FormatClass::Refusal, AnswerForm::Other, "the judge declined to answer");
    return result(FormatClass::Invalid, AnswerForm::Other,
                  "neither bare JSON nor one fenced JSON block");
}

nlohmann::json QuorumSettings::toJson() const
{
    return {{"samples", samples},
            {"quorum", quorum},
            {"temperature", temperature},
            {"top_p", topP},
            {"max_new_tokens", maxNewTokens},
            {"seeds", seeds}};
}

QuorumSettings QuorumSettings::fromJson(const nlohmann::json &j, const std::string &where)
{
    QuorumSettings s;
    if (auto v = json::optInt(j, "samples", where, 1, 64))
        s.samples = static_cast<int>(*v);
    if (auto v = json::optInt(j, "quorum", where, 1, 64))
        s.quorum = static_cast<int>(*v);
    if (s.quorum > s.samples)
        json::fail(where + ".quorum", "cannot exceed samples (" + std::to_string(s.samples) + ")");
    if (auto v = json::optNumber(j, "temperature", where))
        s.temperature = *v;
    if (auto v = json::optNumber(j, "top_p", where))
        s.topP = *v;
    if (auto v = json::optInt(j, "max_new_tokens", where, 1, 32768))
        s.maxNewTokens = static_cast<int>(*v);
    if (j.contains("seeds")) {
        s.seeds.clear();
        for (const auto &seed : json::requireArray(j, "seeds", where)) {
            if (!seed.is_number_integer())
                json::fail(where + ".seeds", "expected integers");
            s.seeds.push_back(seed.get<std::int64_t>());
        }
    } else {
        s.seeds.clear();
        for (int i = 0; i < s.samples; ++i)
            s.seeds.push_back(1000003LL * (i + 1) + 17);
    }
    if (static_cast<int>(s.seeds.size()) != s.samples)
        json::fail(where + ".seeds",
                   "needs exactly one seed per sample (" + std::to_string(s.samples) + ")");
    std::set<std::int64_t> distinct(s.seeds.begin(), s.seeds.end());
    if (distinct.size() != s.seeds.size())
        json::fail(where + ".seeds", "seeds must be distinct");
    return s;
}

QuorumOutcome computeQuorum(const std::vector<ParsedAnswer> &answers,
                            const QuorumSettings &settings)
{
    QuorumOutcome out;
    std::vector<int> successProgress;
    std::vector<int> failureProgress;
    int parsed = 0;
    int refusals = 0;
    for (const auto &a : answers) {
        parsed += a.schemaValid();
        refusals += a.format == FormatClass::Refusal;
        if (!a.decisive())
            continue;
        ++out.decisiveVotes;
        const int progress = a.value["progress"].get<int>();
        if (a.value["completion_evidence"] == "met")
            successProgress.push_back(progress);
        else
            failureProgress.push_back(progress);
    }
    out.successVotes = static_cast<int>(successProgress.size());
    out.failureVotes = static_cast<int>(failureProgress.size());
    auto lowerMedian = [](std::vector<int> v) {
        std::sort(v.begin(), v.end());
        return v[(v.size() - 1) / 2];
    };
    if (static_cast<int>(answers.size()) == settings.samples) {
        if (out.successVotes >= settings.quorum) {
            out.outcome = "success";
            out.progress = lowerMedian(successProgress);
            return out;
        }
        if (out.failureVotes >= settings.quorum) {
            out.outcome = "failure";
            out.progress = lowerMedian(failureProgress);
            return out;
        }
    }
    out.outcome = "unknown";
    if (static_cast<int>(answers.size()) != settings.samples)
        out.unknownReason = "judge_sample_count_mismatch"; // not the frozen number of samples
    else if (parsed == 0)
        out.unknownReason = refusals > 0 ? "judge_refusal" : "judge_sample_failure";
    else if (out.decisiveVotes == 0)
        out.unknownReason = "judge_uncertain";
    else if (out.successVotes > 0 && out.failureVotes > 0)
        out.unknownReason = "judge_disagreement";
    else
        out.unknownReason = "judge_insufficient_quorum";
    return out;
}

std::vector<int> selectJudgeFrames(int frameCount)
{
    if (frameCount < 16)
        throw Error(ErrorCode::InvalidInput,
                    "the judge needs at least 16 frames, the rollout has " +
                        std::to_string(frameCount));
    std::vector<int> out;
    out.reserve(16);
    for (int i = 0; i < 16; ++i)
        out.push_back(static_cast<int>(std::lround(i * (frameCount - 1) / 15.0)));
    return out;
}

std::optional<std::string> judgmentFramesProblem(const nlohmann::json &frameIndices, int frameCount)
{
    if (!frameIndices.is_array() || frameIndices.size() != 16)
        return "frame_indices must be 16 frame indices, got " + frameIndices.dump().substr(0, 200);
    std::int64_t previous = -1;
    for (const auto &index : frameIndices) {
        const auto value = intIn(index, 0, std::int64_t{frameCount} - 1);
        if (!value)
            return "frame_indices holds " + index.dump() + ", outside the rollout's " +
                   std::to_string(frameCount) + " frames (0-" + std::to_string(frameCount - 1) +
                   ")";
        if (*value <= previous)
            return "frame_indices must increase strictly, got " + frameIndices.dump();
        previous = *value;
    }
    return std::nullopt;
}

std::optional<std::string> evidenceFramesProblem(const nlohmann::json &parsedAnswer,
                                                 const nlohmann::json &frameIndices)
{
    if (!parsedAnswer.is_object() || !parsedAnswer.contains("evidence_frame_indices"))
        return std::nullopt; // not schema-valid: its evidence counts for nothing anyway
    const std::int64_t selected =
        frameIndices.is_array() ? static_cast<std::int64_t>(frameIndices.size()) : 0;
    for (const auto &index : parsedAnswer["evidence_frame_indices"])
        if (!intIn(index, 0, selected - 1))
            return "evidence_frame_indices holds " + index.dump() + ", but the judge was shown " +
                   std::to_string(selected) + " frames";
    return std::nullopt;
}

} // namespace kosmos
