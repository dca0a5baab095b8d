// What a LeRobot dataset's metadata says before anything else of it is read: meta/info.json
// (core/dataset/LeRobotInfo.h), its path templates, and v2.1's episodes.jsonl and tasks.jsonl.
#include "FuzzSupport.h"
#include "dataset/LeRobotInfo.h"

#include <filesystem>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string input = kosmos::fuzz::text(data, size);
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        const kosmos::LeRobotInfo info = kosmos::parseLeRobotInfo(input, "info.json");
        if (info.fps <= 0 || info.totalFrames < 0 || info.chunksSize < 1)
            __builtin_trap();
        // Every path the templates can make stays inside the dataset.
        const std::string path =
            kosmos::formatLeRobotPath(info.dataPath,
                                      {{"chunk_index", std::int64_t{7}},
                                       {"file_index", std::int64_t{99}},
                                       {"episode_chunk", std::int64_t{0}},
                                       {"episode_index", std::int64_t{123456}}},
                                      "data_path");
        for (const auto &part : std::filesystem::path(path))
            if (part == "..")
                __builtin_trap();
    });
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        for (const auto &e : kosmos::parseLeRobotEpisodesJsonl(input, "episodes.jsonl", 1000))
            if (e.index < 0 || e.length < 0 || e.length > 1000)
                __builtin_trap();
    });
    kosmos::fuzz::expectNamedErrorsOnly(
        [&] { kosmos::parseLeRobotTasksJsonl(input, "tasks.jsonl"); });
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        kosmos::formatLeRobotPath(input,
                                  {{"chunk_index", std::int64_t{3}},
                                   {"video_key", std::string("observation.images.top")}},
                                  "pattern");
    });
    return 0;
}
