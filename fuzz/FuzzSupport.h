#pragma once

// Shared by the fuzz targets: an input is text; kosmos::Error is the expected answer to bad
// input, anything else escaping (a nlohmann exception, std::out_of_range, a crash) is a finding.
#include "util/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace kosmos::fuzz {

inline std::string text(const std::uint8_t *data, std::size_t size)
{
    return std::string(reinterpret_cast<const char *>(data), size);
}

template<typename F>
void expectNamedErrorsOnly(F &&f)
{
    try {
        f();
    } catch (const kosmos::Error &) {
        // bad input, named: the expected outcome
    }
}

} // namespace kosmos::fuzz
