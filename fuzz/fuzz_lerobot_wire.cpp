// remote.lerobot's messages from a LeRobot policy bridge (adapters/remote/LeRobotWire.h): the
// metadata (then the action contract it gives), or an act reply checked against a fixed policy
// (one 96x96 camera, a 2-D state, 2-D actions). The first byte picks which; the rest is the
// message.
#include "FuzzSupport.h"
#include "LeRobotWire.h"

namespace {

const kosmos::remote::LeRobotDescription &policy()
{
    static const kosmos::remote::LeRobotDescription d = [] {
        kosmos::remote::LeRobotDescription p;
        p.policyType = "act";
        p.inputs = {{"observation.image", "VISUAL", {3, 96, 96}},
                    {"observation.state", "STATE", {2}}};
        p.actionDim = 2;
        p.actionNames = {"action_0", "action_1"};
        p.actionMin = {0, 0};
        p.actionMax = {512, 512};
        return p;
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
            (void)kosmos::remote::leRobotContract(kosmos::remote::describeLeRobotPolicy(message),
                                                  0.1, nullptr, 10.0);
        else
            (void)kosmos::remote::parseLeRobotActions(message, policy());
    });
    return 0;
}
