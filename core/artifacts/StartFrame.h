#pragma once

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include <string>

namespace kosmos {

// The start frame a task names in its start_state ("frame": an image file, "frame_sha256": its
// SHA-256; both part of the frozen protocol, as `fidelity prepare` writes them), as RGB. For the
// learned world models that start from a frame (torch.*, remote.world). `who` names the model
// in errors. Throws Error(InvalidInput) when start_state names no frame or the file is not an
// image, Error(Corrupt) when its SHA-256 is not the protocol's.
cv::Mat startFrameFromState(const nlohmann::json &startState, const std::string &who);

} // namespace kosmos
