// A stored judge request document (kosmos.judge_request/1, `kosmos-cli judge-request` and
// `verify`): parsed bounded as the ledger reads it, then rebuilt against a store that holds one
// frame, so references to it, to absent frames and to non-hashes are all reached.
#include "FuzzSupport.h"
#include "artifacts/ArtifactStore.h"
#include "judge/JudgeRequestRecord.h"
#include "util/BoundedJson.h"

#include <filesystem>
#include <memory>
#include <unistd.h>

namespace {

const kosmos::ArtifactStore &store()
{
    static const auto instance = [] {
        const auto dir = std::filesystem::temp_directory_path() /
                         ("kosmos-fuzz-judge-request-" + std::to_string(::getpid()));
        std::filesystem::remove_all(dir);
        kosmos::ArtifactStore::initialize(dir);
        auto s = std::make_unique<kosmos::ArtifactStore>(dir);
        // The hash the seeds in fuzz/corpus/judge_request/ refer to: SHA-256 of "frame".
        s->putBytes(std::string_view("frame"), "application/octet-stream");
        return s;
    }();
    return *instance;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        kosmos::json::Limits limits; // as verify and judge-request read it
        limits.maxBytes = 16u << 20;
        limits.maxDepth = 32;
        const auto doc =
            kosmos::json::parseBounded(kosmos::fuzz::text(data, size), "request.json", limits);
        (void)kosmos::rebuildJudgeWireBody(doc, store());
    });
    return 0;
}
