#pragma once

#include <filesystem>
#include <string_view>

namespace kosmos {

// Writes `bytes` to `path` so that a reader never sees a partial file and a failure is never
// silent: into a temporary file beside it (same folder), every write and the close checked,
// flushed to disk, then renamed over `path`. A `path` that exists and is not a regular file (a
// device such as /dev/stdout or /dev/full, a FIFO) is written in place, never replaced. Throws
// Error(Io) naming the file and the system's reason (a full disk: "No space left on device");
// on failure the temporary file is removed and `path` is left as it was.
void writeFileAtomically(const std::filesystem::path &path, std::string_view bytes);

// A folder that appears only when it is complete (an export, a packet): created empty as
// `<parent>/.kosmos-<purpose>-partial-<pid>`, written by the caller, then moved into place by
// publish() or publishInto(); otherwise it is removed, with everything in it, when the object
// goes: a failure or a cancel midway (a full disk) leaves no partial output behind. Throws
// Error(Io) naming the folder when it cannot be created or moved.
class StagingFolder
{
public:
    StagingFolder(const std::filesystem::path &parent, std::string_view purpose);
    ~StagingFolder();
    StagingFolder(const StagingFolder &) = delete;
    StagingFolder &operator=(const StagingFolder &) = delete;

    const std::filesystem::path &path() const { return m_path; }
    // The whole folder becomes `target` (an empty folder there is replaced).
    void publish(const std::filesystem::path &target);
    // One piece of it (a file or folder inside path()) moves into `folder`, replacing what has
    // its name there; returns where it went.
    std::filesystem::path publishInto(const std::filesystem::path &piece,
                                      const std::filesystem::path &folder);

private:
    std::filesystem::path m_path;
};

} // namespace kosmos
