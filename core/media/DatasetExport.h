#pragma once

// Demonstrations out of a ledger (docs/datasets.md): for each chosen run, its frames (the stored
// PNG objects, byte for byte), its actions, the world's per-step state when it has one (the
// physics world's object poses), its instruction and its success with where that success comes
// from. What [learned-models] trains policies and world models on.

#include <cstdint>
#include <filesystem>
#include <string>

namespace kosmos {

class Ledger;

struct DatasetFilter
{
    std::string protocol; // a protocol's SHA-256 or a prefix of it; empty: every protocol
    std::string policy;   // text the policy's "adapter settings" contains; empty: every policy
    std::string outcome = "any"; // met | not_met | any: by the run's reference label
};

struct DatasetExportResult
{
    int episodes = 0;
    int frames = 0;
    int withoutLabel = 0; // chosen runs with no reference label (success null)
    std::filesystem::path directory;
};

// Completed runs that match (re-judgings are not new rollouts), oldest first. `directory` must
// not exist or be empty; everything is written to a staging folder beside it and moved into
// place when complete, so a failure leaves nothing behind. Throws Error(InvalidInput) for a bad
// filter or when no run matches, Error(Io) when a file cannot be written.
DatasetExportResult exportDataset(Ledger &ledger, const DatasetFilter &filter,
                                  const std::filesystem::path &directory);

// The same runs as a LeRobot v3.0 dataset (media/LeRobotWriter.h) that LeRobot's LeRobotDataset
// loads: one row per frame, observation.image (the frames, H.264, or lossless), action (the
// run's actions as float64; the last frame, which no action follows, repeats the last action and
// is marked next.done), observation.state (the world's proprioception, what the policy was given,
// where every run recorded it at every frame with the same width), observation.environment_state
// (the world's per-step state, every tracked value: a simulator's privileged truth, where every
// run has the same), next.success (the run's success on its last row), the instruction as the
// task; the run key and where success comes from as episode columns (kosmos/run_key,
// kosmos/success_source). Every run must have the same action names and frame size
// (Error(InvalidInput) naming the run that differs: narrow the filter). Written to a staging
// folder and moved into place when complete.
struct LeRobotExportResult
{
    int episodes = 0;
    std::int64_t frames = 0;
    int withoutLabel = 0;
    bool states = false;  // observation.environment_state written
    bool proprio = false; // observation.state written
    std::string videoCodec;
    std::filesystem::path directory;
};
LeRobotExportResult exportLeRobotDataset(Ledger &ledger, const DatasetFilter &filter,
                                         const std::filesystem::path &directory, bool lossless);

} // namespace kosmos
