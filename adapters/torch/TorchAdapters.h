#pragma once

// The libtorch adapters behind a header without libtorch: the plugin modules (Qt, moc) include
// only this; TorchAdapters.cpp is the one translation unit that includes torch (build-notes
// pitfalls 1-3). Each family runs its exported TorchScript module(s) and does everything else
// in C++ (Processing.h).

#include "ModelPackage.h"
#include "components/Components.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace kosmos::torchadapters {

// Settings every torch adapter takes (the family's extras are listed in its plugin metadata):
//   package  folder with kosmos-model.json (required)
//   device   "cpu" (default: the package's), "cuda", "cuda:N"
//   dtype    "fp32" (default: the package's), "bf16", "fp16" (CUDA only)
//   threads  intra-op CPU threads (0: libtorch's default; recorded either way; one count for the
//            whole process, so the last component to set it sets it for all)
//   warmup   forward passes on placeholder inputs before the first step, excluded from timings
//            (once per loaded module and process: Module::warmUp)
struct RuntimeOptions
{
    std::string device = "cpu";
    std::string dtype = "fp32";
    int threads = 0;
    int warmup = 1;
    // TorchScript modules frozen and rewritten for inference at load (torch::jit::freeze, then
    // optimize_for_inference: weights folded and prepacked for oneDNN); CPU and fp32 only.
    bool optimize = false;
};

// Whether this family can run here with these settings, and why not: package not set, package
// wrong (the named error), no CUDA in this libtorch, a dtype the device does not support.
Availability torchAvailability(ModelFamily family, const nlohmann::json &settings);

// What identifies a component beyond its settings: {"weights_sha256": the manifest's SHA-256
// (it binds every file's hash), "details": {package identity, resolved device, dtype,
// threads}}. Throws Error like createTorch*.
nlohmann::json torchIdentity(ModelFamily family, const nlohmann::json &settings);

// Throws Error naming what is wrong (InvalidInput, NotFound, Corrupt).
std::unique_ptr<Policy> createTorchPolicy(ModelFamily family, const nlohmann::json &settings);
std::unique_ptr<WorldModel> createTorchWorldModel(ModelFamily family,
                                                  const nlohmann::json &settings);
std::unique_ptr<Judge> createTorchJudge(ModelFamily family, const nlohmann::json &settings);

// The generic families (TorchGeneric.cpp): the module signature comes from the package's "io".
std::unique_ptr<Policy> createGenericPolicy(const nlohmann::json &settings);
std::unique_ptr<WorldModel> createGenericWorldModel(const nlohmann::json &settings);

} // namespace kosmos::torchadapters
