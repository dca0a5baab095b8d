#pragma once

// remote.world's messages (docs/remote-worlds.md), apart from the socket so they can be fuzzed:
// the server's metadata, checked into the contracts it declares, and a reset or step reply,
// checked against them. Every problem throws Error(InvalidInput) "remote.world: ..." naming the
// field.

#include "NumpyMsgpack.h"
#include "components/Components.h"

#include <nlohmann/json.hpp>
#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kosmos::remote {

struct WorldDescription
{
    std::string kind; // simulator | learned_model
    std::string name;
    ActionContract action;
    FrameContract frame;
    nlohmann::json metadata; // as the server sent it
};

struct WorldReply
{
    std::vector<cv::Mat> frames; // RGB, the declared size
    std::optional<bool> success;
    nlohmann::json reward, done, state;
    std::vector<double> proprio;
    std::optional<double> serverCallMs;  // the request in the server, arrival to reply
    std::optional<double> serverWorldMs; // the world's own call in it
    bool framesShared = false;           // read out of the shared segment, not the message
};

// The client's shared-memory segment as mapped here (SharedFrames.h), where a reply's
// "frames_shared" points (docs/remote-worlds.md "Frames through shared memory").
struct SharedBytes
{
    const unsigned char *data = nullptr;
    std::size_t size = 0;
};

WorldDescription describeWorld(const std::string &metadataBytes);
// `count`: the frames a step must return (one per action); none for a reset. `shared`: the
// segment offered to the server, if any (a reply that points into shared memory without one is
// refused).
WorldReply parseWorldReply(const std::string &reply, const WorldDescription &described,
                           std::optional<std::size_t> count, const std::string &what,
                           const SharedBytes *shared = nullptr);
// msgpack <-> JSON (arrays of up to 4096 values and 1-D become lists; larger ones are named by
// dtype and shape).
nlohmann::json worldJson(const MsgValue &value);
MsgValue worldMsg(const nlohmann::json &value);
// A seed as a msgpack integer (never a double, which rounds above 2^53).
MsgValue seedValue(std::uint64_t seed);

} // namespace kosmos::remote
