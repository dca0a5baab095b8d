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
        kosmos::QuorumSettings settings;
        (void)kosmos::computeQuorum({answer, answer, answer, answer, answer}, settings);
    });
    return 0;
}
