#include "physics/TabletopTask.h"

#include "util/Error.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <vector>

namespace kosmos::physics {

TabletopTask parseTask(const std::string &instruction)
{
    std::string lower = instruction;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::vector<std::string> words;
    std::istringstream in(lower);
    for (std::string w; in >> w;)
        words.push_back(w);
    auto fail = [&](const std::string &what) {
        return Error(ErrorCode::InvalidInput,
                     "physics.tabletop: the instruction \"" + instruction + "\" " + what +
                         " (expected e.g. \"put the red block in the green square\" or \"push the "
                         "blue block into the purple square\"; blocks red, blue, yellow; squares "
                         "green, purple)");
    };
    if (words.empty())
        throw fail("is empty");
    TabletopTask task;
    if (words.front() == "put" || words.front() == "place" || words.front() == "move")
        task.kind = TaskKind::PickPlace;
    else if (words.front() == "push")
        task.kind = TaskKind::Push;
    else
        throw fail("starts with neither put, place, move nor push");
    for (std::size_t i = 0; i + 1 < words.size(); ++i) {
        const std::string &noun = words[i + 1];
        const bool block = noun == "block" || noun == "cube";
        const bool region = noun == "square" || noun == "region" || noun == "square.";
        if (block && task.block.empty() &&
            std::find(kBlockNames.begin(), kBlockNames.end(), words[i]) != kBlockNames.end())
            task.block = words[i];
        if (region && task.region.empty() &&
            std::find(kRegionNames.begin(), kRegionNames.end(), words[i]) != kRegionNames.end())
            task.region = words[i];
    }
    if (task.block.empty())
        throw fail("names no block of this world");
    if (task.region.empty())
        throw fail("names no target square of this world");
    return task;
}

} // namespace kosmos::physics
