// A judge model's raw answer (bare JSON, fenced, prose, refusals) through the schema and quorum.
#include "FuzzSupport.h"
#include "judge/JudgeSchema.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string raw = kosmos::fuzz::text(data, size);
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        const kosmos::ParsedAnswer answer = kosmos::parseJudgeAnswer(raw);
        if (answer.schemaValid()) {
            // A valid answer is decisive or not, and its integers are in range.
            const auto progress = answer.value["progress"];
            if (!progress.is_null() && (progress.get<int>() < 0 || progress.get<int>() > 5))
                __builtin_trap();
            (void)answer.decisive();
            (void)kosmos::evidenceFramesProblem(answer.value, nlohmann::json::array({0, 1}));
        }
        // How it was written and whether it is valid stay consistent (docs/judge.md rule 2):
        // a valid answer was written as JSON, and a bare_json verdict only for a bare form.
        using kosmos::AnswerForm;
        using kosmos::FormatClass;
        if (answer.schemaValid() && answer.form != AnswerForm::BareJson &&
            answer.form != AnswerForm::FencedJson && answer.form != AnswerForm::FencedJsonInProse)
            __builtin_trap();
        if ((answer.format == FormatClass::BareJson) !=
            (answer.schemaValid() && answer.form == AnswerForm::BareJson))
            __builtin_trap();
        if (answer.form == AnswerForm::NoAnswer)
            __builtin_trap(); // there was text
        // The legacy rule differs only by the byte order mark.
        if (raw.find("\xEF\xBB\xBF") == std::string::npos) {
            const kosmos::ParsedAnswer legacy = kosmos::parseJudgeAnswer(raw, 1);
            if (legacy.format != answer.format || legacy.form != answer.form)
                __builtin_trap();
        }
        kosmos::QuorumSettings settings;
        (void)kosmos::computeQuorum({answer, answer, answer, answer, answer}, settings);
    });
    return 0;
}
