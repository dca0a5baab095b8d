// An open-loop replay by seed (kosmos.replay_by_seed/1, written by kosmos-cli fidelity prepare
// and read by replay.actions): the file's text, the policy built from it, reset with the seeds
// of its own episodes and others, then asked for actions at a few steps. A chunk is always the
// contract's length, of the contract's width, finite.
#include "FuzzSupport.h"
#include "replay/ReplayPolicy.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    static const std::filesystem::path file =
        std::filesystem::temp_directory_path() /
        ("kosmos-fuzz-replay-" + std::to_string(::getpid()) + ".json");
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char *>(data), static_cast<std::streamsize>(size));
    }
    // The seeds to try: those the file names (where it parses), and one it does not.
    std::vector<std::uint64_t> seeds = {0, 7};
    const nlohmann::json doc = nlohmann::json::parse(data, data + size, nullptr, false);
    if (doc.is_object() && doc.contains("episodes") && doc["episodes"].is_array())
        for (const auto &e : doc["episodes"])
            if (e.is_object() && e.contains("policy_seed") && e["policy_seed"].is_string())
                try {
                    seeds.push_back(std::stoull(e["policy_seed"].get<std::string>()));
                } catch (const std::exception &) {
                }
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        kosmos::replay::SeededReplayPolicy policy(file, "r");
        const kosmos::ActionContract contract = policy.actionContract();
        for (const std::uint64_t seed : seeds) {
            kosmos::fuzz::expectNamedErrorsOnly([&] {
                policy.reset(seed, "i");
                for (const int step : {0, 1, 3, 50}) {
                    kosmos::Observation obs;
                    obs.step = step;
                    const kosmos::ActionChunk chunk = policy.act(obs);
                    if (static_cast<int>(chunk.size()) != std::max(1, contract.chunkLength))
                        __builtin_trap(); // a chunk of the contract's length
                    for (const auto &a : chunk) {
                        if (static_cast<int>(a.size()) != contract.dimension())
                            __builtin_trap(); // of the contract's width
                        for (const double v : a)
                            if (!std::isfinite(v))
                                __builtin_trap(); // finite values only
                    }
                }
            });
        }
    });
    return 0;
}
