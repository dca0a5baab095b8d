#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

// How a raw judge answer was written (domain.md section 4).
enum class FormatClass
{
    BareJson,
    FencedJson,
    Invalid,
    Refusal,
    RequestFailed
};
std::string formatClassName(FormatClass format);

// One judge answer after parsing and schema validation.
struct ParsedAnswer
{
    FormatClass format = FormatClass::Invalid;
    nlohmann::json value; // the judgment object; null unless schema-valid
    std::string error;    // why it is invalid
    bool decisive() const;
    bool schemaValid() const
    {
        return format == FormatClass::BareJson || format == FormatClass::FencedJson;
    }
};

// Classifies and validates a raw answer: bare JSON, JSON in exactly one fenced block, a
// refusal, or invalid (with the reason). nullopt raw text: the request failed.
ParsedAnswer parseJudgeAnswer(const std::optional<std::string> &raw);

// Every rule of the judgment schema, including the cross-field ones; empty when valid.
std::vector<std::string> judgmentSchemaErrors(const nlohmann::json &judgment);

// The frozen quorum settings; part of the judge's identity and so of the run key.
struct QuorumSettings
{
    int samples = 5;
    int quorum = 3;
    double temperature = 0.7;
    double topP = 1.0;
    int maxNewTokens = 512;
    std::vector<std::int64_t> seeds = {11, 23, 37, 51, 73}; // distinct, one per sample

    nlohmann::json toJson() const;
    // Throws Error(InvalidInput) naming the field.
    static QuorumSettings fromJson(const nlohmann::json &json, const std::string &where);
};

struct QuorumOutcome
{
    std::string outcome; // success | failure | unknown
    std::optional<std::string> unknownReason;
    std::optional<int> progress; // lower median of the winning samples
    int decisiveVotes = 0;
    int successVotes = 0;
    int failureVotes = 0;
};

// The quorum rule over the final answer of each sample (after its retry, if any).
QuorumOutcome computeQuorum(const std::vector<ParsedAnswer> &answers,
                            const QuorumSettings &settings);

// Exactly 16 strictly increasing frame indices from 0 to frameCount - 1 (first = start frame,
// last = final control tick). Throws Error(InvalidInput) when frameCount < 16.
std::vector<int> selectJudgeFrames(int frameCount);

// Where a judgment's evidence points, checked on import and by verify: frame_indices must be 16
// strictly increasing integers inside the rollout's [0, frameCount), and every answer's
// evidence_frame_indices must index those 16. nullopt: they do; else the problem, named.
std::optional<std::string> judgmentFramesProblem(const nlohmann::json &frameIndices,
                                                 int frameCount);
std::optional<std::string> evidenceFramesProblem(const nlohmann::json &parsedAnswer,
                                                 const nlohmann::json &frameIndices);

} // namespace kosmos
