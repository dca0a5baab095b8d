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

// How a raw answer was written, whatever its content: recorded beside the format class, which
// says whether it was valid (so schema-invalid bare JSON is `bare_json` here and `invalid`
// there). docs/judge.md "How an answer is read" states the rule.
enum class AnswerForm
{
    BareJson,          // the whole answer is one {...}
    FencedJson,        // the whole answer is exactly one fenced block holding {...}
    FencedJsonInProse, // exactly one fenced block holding {...}, with other text around it
    Other,             // anything else: prose, several fenced blocks, empty
    NoAnswer           // the request failed
};
std::string answerFormName(AnswerForm form);

// The reading rule an answer was classified under. Rule 2 (current) ignores one leading byte
// order mark (U+FEFF) in every form; rule 1 (ledgers before schema version 3) ignored it only
// before a fenced block. Re-checking a stored answer uses the rule it was written under.
inline constexpr int kAnswerRule = 2;

// One judge answer after parsing and schema validation.
struct ParsedAnswer
{
    FormatClass format = FormatClass::Invalid;
    AnswerForm form = AnswerForm::Other;
    nlohmann::json value; // the judgment object; null unless schema-valid
    std::string error;    // why it is invalid
    bool decisive() const;
    bool schemaValid() const
    {
        return format == FormatClass::BareJson || format == FormatClass::FencedJson;
    }
};

// Classifies and validates a raw answer: bare JSON, JSON in exactly one fenced block, a
// refusal, or invalid (with the reason), and records how it was written. nullopt raw text: the
// request failed. `rule`: kAnswerRule, or 1 for answers stored before schema version 3.
ParsedAnswer parseJudgeAnswer(const std::optional<std::string> &raw, int rule = kAnswerRule);

// A judge's raw answer as the ledger stores it, screened *before* it is parsed: the ledger's one
// text filter (util/TextRules.h ledgerText: credentials redacted, bytes that are not UTF-8
// replaced), so that the stored text, its parse, the quorum and `kosmos-cli verify` all read the
// same text. `changed`: something was replaced (recorded with the judgment).
struct ScreenedAnswer
{
    std::optional<std::string> rawText;
    bool changed = false;
};
ScreenedAnswer screenJudgeAnswer(const std::optional<std::string> &raw);

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
