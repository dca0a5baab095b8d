#include "protocol/DevicePlacement.h"

#include "util/Error.h"

#include <regex>

namespace kosmos {

std::optional<bool> cudaCapabilityOf(const nlohmann::json &runtime)
{
    if (!runtime.is_object())
        return std::nullopt;
    const auto cuda = runtime.find("cuda");
    return cuda != runtime.end() && cuda->is_boolean() && cuda->get<bool>();
}

DevicePlacement placeOnDevice(const nlohmann::json &protocol, const std::string &device,
                              const CudaCapability &capability)
{
    static const std::regex kDevice(R"(cpu|cuda(:[0-9]{1,2})?)");
    if (!std::regex_match(device, kDevice))
        throw Error(ErrorCode::InvalidInput,
                    "--device '" + device + "': expected cpu, cuda or cuda:N (N the GPU's index)");
    if (!protocol.is_object())
        throw Error(ErrorCode::InvalidInput, "protocol: not a JSON object");
    const bool cuda = device != "cpu";
    DevicePlacement out{protocol, {}, {}};
    auto place = [&](nlohmann::json &spec, const std::string &where) {
        if (!spec.is_object() || !spec.contains("plugin") || !spec["plugin"].is_string())
            return; // Protocol::fromJson names what is wrong with it
        const std::string id = spec["plugin"].get<std::string>();
        const std::optional<bool> canUseCuda = capability(id);
        if (!canUseCuda) {
            out.left.push_back(where + " " + id + " (no device setting)");
            return;
        }
        if (cuda && !*canUseCuda) {
            out.left.push_back(where + " " + id + " (its libtorch is CPU-only)");
            return;
        }
        if (!spec.contains("settings") || !spec["settings"].is_object())
            spec["settings"] = nlohmann::json::object();
        spec["settings"]["device"] = device;
        out.placed.push_back(where + " " + id);
    };
    nlohmann::json &doc = out.document;
    if (doc.contains("policies") && doc["policies"].is_array())
        for (std::size_t i = 0; i < doc["policies"].size(); ++i)
            place(doc["policies"][i], "policies[" + std::to_string(i) + "]");
    if (doc.contains("world_model"))
        place(doc["world_model"], "world_model");
    if (doc.contains("judge"))
        place(doc["judge"], "judge");
    if (cuda && out.placed.empty()) {
        std::string why;
        for (const auto &l : out.left)
            why += (why.empty() ? "" : "; ") + l;
        throw Error(ErrorCode::InvalidInput,
                    "--device " + device + ": no component of this protocol can use CUDA (" +
                        (why.empty() ? std::string("it names none") : why) +
                        "); the torch.* plugins of a CUDA build can (docs/gpu.md)");
    }
    return out;
}

} // namespace kosmos
