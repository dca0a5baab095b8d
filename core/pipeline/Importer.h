#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

namespace kosmos {

class Ledger;

struct ImportResult
{
    std::int64_t runId = 0;
    bool created = false;
    std::string state; // completed | failed | already_finished | interrupted
    std::string errorCode;
    std::string error;
    int frames = 0;
    int actions = 0;
};

// The saved-artifact path (docs/import.md): a directory with import.json, frames/ (PNG/JPEG)
// or a video (decoded with FFmpeg), actions (.csv/.json/.npy) and optionally
// judge_samples.json becomes a run whose attempt holds every input file as an artifact with
// provenance, the decoded frames, the parsed actions, a validation result and (if given) the
// recomputed judgment. A directory whose inputs disagree (10 frames, 12 actions) still becomes
// a run: its attempt fails with the reason code and keeps what was imported.
// Throws Error(InvalidInput) naming the file and field when the directory cannot become a run
// at all (no import.json, no frames, no actions; a secret in import.json; a manifest nested too
// deep); nothing is written then. Error(Busy) when another live process is importing the same
// folder. `stop` (Ctrl-C, SIGTERM) ends the attempt as interrupted between files and puts the run
// back in the queue, so the same import again finishes it.
ImportResult importDirectory(Ledger &ledger, const std::filesystem::path &directory,
                             const std::atomic<bool> *stop = nullptr);

} // namespace kosmos
