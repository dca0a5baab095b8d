#pragma once

// LeRobot episodes into a ledger as recorded runs (`kosmos-cli import --lerobot`, docs/import.md
// "LeRobot datasets"): each episode goes through the same import as a saved rollout
// (pipeline/Importer.h: artifacts, provenance, validation, idempotent), from a folder this writes:
// its camera's frames decoded with FFmpeg (media/LeRobotFrames.h), its actions with their names
// from info.json, its numeric observations (observation.state ...) as recorded states, one row a
// frame (states.json), and a manifest that says the run is *recorded* (never generated: no world
// model) and names the dataset, its codebase version and robot, the episode and its frame range,
// and the SHA-256 of every dataset file read. A success field (next.success) becomes a reference
// label (source imported_reference) that names the field it came from.
//
// Frames and actions: LeRobot records, per row, the observation before the row's action. The run
// holds the episode's N frames and the N-1 actions between them (frame k+1 followed action k);
// the last action, whose result was not recorded, is kept exactly in the manifest.

#include "pipeline/Importer.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

// "0-9,17" -> 0..9, 17 (sorted, each once). Throws Error(InvalidInput) naming the part.
std::vector<std::int64_t> parseEpisodeList(const std::string &text);

struct LeRobotImportOptions
{
    std::optional<std::vector<std::int64_t>> episodes; // none: every episode
    std::string camera;                                // empty: the first camera
};

struct LeRobotImportResult
{
    std::int64_t episode = 0;
    ImportResult run;
    std::optional<std::string> label; // "met" / "not_met" from next.success, when recorded now
};

// Imports the chosen episodes in order; `progress(done, total)` after each. A stop request ends
// between episodes (the one being imported is handled as importDirectory handles it). Throws
// Error for a dataset that cannot be read, an episode or camera it does not have; nothing of a
// later episode is written once one throws.
std::vector<LeRobotImportResult> importLeRobot(Ledger &ledger, const std::filesystem::path &dataset,
                                               const LeRobotImportOptions &options,
                                               const std::atomic<bool> *stop = nullptr,
                                               const std::function<void(int, int)> &progress = {});

} // namespace kosmos
