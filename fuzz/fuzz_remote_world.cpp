// remote.world's messages from a server (adapters/remote/RemoteWorldWire.h): the metadata, and a
// reset or step reply checked against a fixed world (64x48 frames, 7-D actions), with a
// shared-memory segment of three frames offered or not (a reply may point into it). The first
// byte picks which; the rest is the message.
#include "FuzzSupport.h"
#include "RemoteWorldWire.h"

#include <vector>

namespace {

const kosmos::remote::WorldDescription &world()
{
    static const kosmos::remote::WorldDescription d = [] {
        using kosmos::remote::MsgValue;
        std::vector<MsgValue> names, lo, hi;
        for (int i = 0; i < 7; ++i) {
            names.push_back(MsgValue::str("a" + std::to_string(i)));
            lo.push_back(MsgValue::number(-1));
            hi.push_back(MsgValue::number(1));
        }
        MsgValue n, l, h;
        n.kind = l.kind = h.kind = MsgValue::Kind::Array;
        n.items = names;
        l.items = lo;
        h.items = hi;
        const MsgValue meta =
            MsgValue::object({{"kosmos_world", MsgValue::number(1)},
                              {"kind", MsgValue::str("simulator")},
                              {"name", MsgValue::str("fuzz")},
                              {"action", MsgValue::object({{"names", n}, {"min", l}, {"max", h}})},
                              {"frame", MsgValue::object({{"width", MsgValue::number(64)},
                                                          {"height", MsgValue::number(48)}})},
                              {"control_rate_hz", MsgValue::number(5)}});
        return kosmos::remote::describeWorld(kosmos::remote::packOpenPi(meta));
    }();
    return d;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    if (size == 0)
        return 0;
    const std::string message = kosmos::fuzz::text(data + 1, size - 1);
    kosmos::fuzz::expectNamedErrorsOnly([&] {
        if (data[0] % 2 == 0)
            (void)kosmos::remote::describeWorld(message);
        else {
            static std::vector<unsigned char> segment(3 * 64 * 48 * 3 + 5, 7);
            const kosmos::remote::SharedBytes shared{segment.data(), segment.size()};
            (void)kosmos::remote::parseWorldReply(message, world(),
                                                  data[0] % 4 == 1 ? std::optional<std::size_t>()
                                                                   : std::optional<std::size_t>(2),
                                                  "step", data[0] % 8 < 4 ? &shared : nullptr);
        }
    });
    return 0;
}
