#pragma once

// Model packages for the libtorch adapters: a folder with a manifest, kosmos-model.json, that
// names the model family, every file with its SHA-256, the module signature version, the action
// and frame contracts with their normalization statistics, and default device and dtype.
// Loading checks all of it against the family's contract before the first step; every mismatch
// is an Error naming the file, key or dimension. No libtorch here: this is plain C++.

#include "GenericSignature.h"
#include "contracts/ActionContract.h"
#include "contracts/FrameContract.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kosmos::torchadapters {

enum class ModelFamily
{
    OpenVla,
    MiniVla,
    Octo,
    OpenPiZero,
    Susie,
    SusieLowLevel,
    Cosmos,
    IraSim,
    GenericPolicy, // any signature, declared in the manifest's "io" block
    GenericWorldModel,
    GenericJudge,
};

// What a family needs from its package (docs/export.md has the module signatures).
struct FamilySpec
{
    ModelFamily family;
    std::string name;                 // "openvla", ... as in the manifest's "family"
    std::string kind;                 // "policy", "world_model" or "judge"
    int signature = 1;                // the module signature version this build speaks
    std::vector<std::string> modules; // file roles that are TorchScript modules
    NormalizationScheme normalization = NormalizationScheme::None;
    int chunkLength = 1;  // actions per model call
    int imageSize = 224;  // square policy input; world models: see the frame contract
    bool generic = false; // dimensions, normalization and chunk length as the manifest declares
};
const FamilySpec &familySpec(ModelFamily family);
std::optional<ModelFamily> familyFromName(const std::string &name);
const std::vector<FamilySpec> &allFamilies();

// One input of an AOTInductor module as it was compiled: the shape (-1: a dimension exported as
// dynamic) and dtype ("float32", "bfloat16", "float16", "int64", "bool"). A compiled module
// does not check its inputs, so the adapter checks them against this before every call.
struct TensorSpec
{
    std::vector<std::int64_t> shape;
    std::string dtype;
};

struct PackageFile
{
    std::filesystem::path path; // absolute
    std::string sha256;
    std::int64_t bytes = 0;
    // "torchscript" (a torch.jit module, runs on any device and dtype) or "aoti" (an
    // AOTInductor package, .pt2, compiled for one device type and dtype with fixed inputs).
    std::string runtime = "torchscript";
    std::string compiledDevice;     // aoti: "cpu" or "cuda"
    std::string compiledDtype;      // aoti: "fp32", "bf16" or "fp16"
    std::vector<TensorSpec> inputs; // aoti: in the order the module takes them
};

struct ModelPackage
{
    std::filesystem::path directory;
    std::string manifestSha256; // of kosmos-model.json's bytes: part of the component identity
    FamilySpec spec;
    std::map<std::string, PackageFile> files; // role -> file ("module", "subgoal", ...)
    ActionContract action;                    // policies: their output; world models: input
    std::optional<FrameContract> frame;       // world models
    std::string defaultDevice = "cpu";
    std::string defaultDtype = "fp32";
    nlohmann::json options = nlohmann::json::object(); // the family's own block, e.g. "openvla"
    std::optional<GenericIo> io;                       // generic families: the module signature
    // "requirements": {"device_memory_mib": N}: what the package needs on the device (weights,
    // activations, workspace) for the batch's budget check; nullopt when it does not say.
    std::optional<std::int64_t> deviceMemoryBytes;
    nlohmann::json manifest;

    const PackageFile &file(const std::string &role) const;
    // What identifies the package in a run's component identity.
    nlohmann::json identity() const;
};

inline constexpr const char *kManifestName = "kosmos-model.json";

// Reads and checks a package: manifest schema, family, signature version, every file's SHA-256,
// the statistics' keys and dimensions against the family's scheme (e.g. "p01" where "q01" is
// expected), the gripper mask, and the frame contract. Throws Error(InvalidInput) for a wrong
// manifest or contract, Error(Corrupt) for a hash mismatch, Error(NotFound) for a missing file.
ModelPackage loadModelPackage(const std::filesystem::path &directory,
                              std::optional<ModelFamily> expected = std::nullopt);

} // namespace kosmos::torchadapters
