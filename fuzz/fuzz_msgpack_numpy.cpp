// An openpi server's reply: msgpack with msgpack-numpy arrays (bin keys, dtype, shape, data).
#include "FuzzSupport.h"
#include "NumpyMsgpack.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        const auto value = kosmos::remote::unpackOpenPi(kosmos::fuzz::text(data, size));
        (void)kosmos::remote::packOpenPi(value); // what was accepted can be written back
    });
    return 0;
}
