// An evaluation protocol file, as `kosmos-cli run PROTOCOL` reads it.
#include "FuzzSupport.h"
#include "protocol/Protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        const kosmos::Protocol p =
            kosmos::Protocol::fromText(kosmos::fuzz::text(data, size), "fuzz.json");
        const auto runs = kosmos::expandRuns(p);
        if (runs.size() > kosmos::kMaxRunsPerProtocol)
            __builtin_trap();
    });
    return 0;
}
