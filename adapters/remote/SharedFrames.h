#pragma once

// A POSIX shared-memory segment remote.world offers a server on the same machine for its frames
// (docs/remote-worlds.md "Frames through shared memory"): made here (shm_open, O_EXCL, mode
// 0600) under a fresh name kosmos-world-PID-N-RANDOM, sized, mapped, a random token written at
// its start for the server to check, and unlinked when the object goes. One per connection, so a
// late write by a server still busy with a call the client gave up on lands in a segment no one
// reads any more. Segments of a client that was killed are removed by the next one to start.

#include "RemoteWorldWire.h"

#include <cstddef>
#include <string>

namespace kosmos::remote {

class SharedFrames
{
public:
    // Throws Error(Io) naming what failed (shm_open, reserving the pages: a full /dev/shm, mmap).
    explicit SharedFrames(std::size_t size);
    ~SharedFrames();
    SharedFrames(const SharedFrames &) = delete;
    SharedFrames &operator=(const SharedFrames &) = delete;

    const std::string &name() const { return m_name; }
    std::size_t size() const { return m_size; }
    // The bytes the server must find at the start of the segment.
    const std::string &token() const { return m_token; }
    SharedBytes bytes() const { return {static_cast<const unsigned char *>(m_data), m_size}; }

private:
    std::string m_name;
    std::string m_token;
    std::size_t m_size = 0;
    void *m_data = nullptr;
};

} // namespace kosmos::remote
