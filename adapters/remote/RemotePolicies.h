#pragma once

// Policies served over the network: openpi's websocket server (pi0, pi0.5 ...) and OpenVLA's
// REST server (OpenVLA, MiniVLA, OpenVLA-OFT). docs/remote-policies.md tells how to start them.

#include "JsonNumpy.h"
#include "NumpyMsgpack.h"
#include "components/Components.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace kosmos::remote {

// ---- openpi ------------------------------------------------------------------------------------

// Which observation keys the server's policy config expects (openpi's examples): LIBERO
// ("observation/image", "observation/wrist_image" 224x224x3 uint8, "observation/state" 8 float32,
// "prompt"), DROID ("observation/exterior_image_1_left", "observation/wrist_image_left",
// "observation/joint_position" 7, "observation/gripper_position" 1, "prompt"), ALOHA ("state"
// 14, "images": {"cam_high": 3x224x224 uint8}, "prompt"), or a custom key map.
struct ObservationLayout
{
    std::string name = "libero";
    nlohmann::json custom; // for "custom": {"image": key, "wrist_image"?: key, "state"?: key,
                           //  "state_dim"?: n, "prompt"?: key, "chw"?: bool}
    int imageSize = 224;
};
ObservationLayout layoutFromSettings(const nlohmann::json &settings);
// The observation the server receives: images from the frame (resized, the wrist image is the
// same frame: the worlds here have one camera), state from the world's proprio padded with
// zeros, the instruction as the prompt.
MsgValue buildObservation(const ObservationLayout &layout, const Observation &observation);

Availability openPiAvailability(const nlohmann::json &settings);
nlohmann::json openPiIdentity(const nlohmann::json &settings);
std::unique_ptr<Policy> createOpenPiPolicy(const nlohmann::json &settings);

// ---- OpenVLA REST ------------------------------------------------------------------------------

// json_numpy, as OpenVLA's deploy.py uses it: {"__numpy__": base64 of the raw C-order bytes,
// "dtype": "|u1", "shape": [H, W, 3]}.
nlohmann::json jsonNumpyImage(const cv::Mat &rgb);
// parseActReply (the reply's json_numpy arrays) lives in JsonNumpy.h, free of Qt.

Availability openVlaRestAvailability(const nlohmann::json &settings);
std::unique_ptr<Policy> createOpenVlaRestPolicy(const nlohmann::json &settings);

} // namespace kosmos::remote
