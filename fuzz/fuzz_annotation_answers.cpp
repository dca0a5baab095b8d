// An annotator's answers.json checked against a packet key (clips, fields, packet hash).
#include "FuzzSupport.h"
#include "evaluation/AnnotationPacket.h"
#include "util/BoundedJson.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const nlohmann::json key = {
        {"packet_sha256", std::string(64, 'a')},
        {"clips",
         {{"clip_001", {{"run_key", std::string(64, '1')}, {"split", "held_out"}}},
          {"clip_002", {{"run_key", std::string(64, '2')}, {"split", "development"}}},
          {"clip_003", {{"run_key", std::string(64, '3')}}}}}};
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        kosmos::json::Limits limits;
        limits.maxDepth = 16;
        limits.rejectDuplicateKeys = true;
        const auto answers =
            kosmos::json::parseBounded(kosmos::fuzz::text(data, size), "answers.json", limits);
        for (const auto &a : kosmos::checkAnswers(answers, key, "answers.json"))
            if (a.label.progress && (*a.label.progress < 0 || *a.label.progress > 5))
                __builtin_trap();
    });
    return 0;
}
