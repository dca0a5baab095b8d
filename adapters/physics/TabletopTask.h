#pragma once

// The physics tabletop's tasks, read from the instruction both the world and its scripted
// policies are given: "put the red block in the green square" (pick and place) and "push the red
// block into the green square" (push). Blocks: red, blue, yellow. Target squares: green, purple.

#include <array>
#include <string>
#include <string_view>

namespace kosmos::physics {

enum class TaskKind
{
    PickPlace,
    Push
};

struct TabletopTask
{
    TaskKind kind = TaskKind::PickPlace;
    std::string block;  // red | blue | yellow
    std::string region; // green | purple
};

inline constexpr std::array<std::string_view, 3> kBlockNames = {"red", "blue", "yellow"};
inline constexpr std::array<std::string_view, 2> kRegionNames = {"green", "purple"};

// Throws Error(InvalidInput) naming the instruction and what it lacks.
TabletopTask parseTask(const std::string &instruction);

} // namespace kosmos::physics
