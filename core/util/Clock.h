#pragma once

#include <chrono>
#include <cstdint>

namespace kosmos {

// Wall-clock time in milliseconds since the Unix epoch (UTC). Every *_ms timestamp in the
// ledger uses it.
inline std::int64_t nowMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Milliseconds elapsed on the monotonic clock since `start`: what the engine's timings measure.
inline double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

} // namespace kosmos
