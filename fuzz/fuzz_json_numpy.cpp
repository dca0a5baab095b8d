// An OpenVLA REST server's reply: json_numpy arrays or lists of actions.
#include "FuzzSupport.h"
#include "JsonNumpy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    kosmos::fuzz::expectNamedErrorsOnly(
        [&] { (void)kosmos::remote::parseActReply(kosmos::fuzz::text(data, size)); });
    return 0;
}
