#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

// Where a protocol's components run: the one rule behind `kosmos-cli run --device` and the
// launcher's Device box. A component whose plugin declares a runtime (the torch.* plugins'
// metadata: {"libtorch": ..., "cuda": bool}) gets settings.device; the others (synthetic,
// physics, remote clients) are left as they are and run where they always run.
struct DevicePlacement
{
    nlohmann::json document;         // the protocol with settings.device set where it applies
    std::vector<std::string> placed; // "policies[0] torch.generic_policy", ...
    std::vector<std::string> left;   // "world_model physics.tabletop (no device setting)", ...
};

// What a plugin's runtime says about devices: nullopt when it declares none (no device
// setting), false for a CPU-only runtime, true when it can use CUDA.
using CudaCapability = std::function<std::optional<bool>(const std::string &pluginId)>;

// The same read from a plugin's metadata "runtime" member (`kosmos-cli plugins --json`'s
// "runtime"): nullopt when it is not an object, else its "cuda" (false when absent).
std::optional<bool> cudaCapabilityOf(const nlohmann::json &runtime);

// device: "cpu", "cuda" or "cuda:N". Throws Error(InvalidInput) for any other device text, and
// for a CUDA device when no component of the protocol can use CUDA (each named, with why).
// Components with a CPU-only runtime stay on the CPU under a CUDA device (listed in `left`).
DevicePlacement placeOnDevice(const nlohmann::json &protocol, const std::string &device,
                              const CudaCapability &capability);

} // namespace kosmos
