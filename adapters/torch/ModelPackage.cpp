#include "ModelPackage.h"

#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/InstallPaths.h"
#include "util/JsonFields.h"
#include "util/Sha256.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <tuple>

namespace kosmos::torchadapters {

namespace fs = std::filesystem;

const std::vector<FamilySpec> &allFamilies()
{
    static const std::vector<FamilySpec> families = {
        {ModelFamily::OpenVla,
         "openvla",
         "policy",
         1,
         {"module"},
         NormalizationScheme::BoundsQ99,
         1,
         224},
        {ModelFamily::MiniVla,
         "minivla",
         "policy",
         1,
         {"module"},
         NormalizationScheme::BoundsQ99,
         1,
         224},
        {ModelFamily::Octo, "octo", "policy", 1, {"module"}, NormalizationScheme::Normal, 4, 256},
        {ModelFamily::OpenPiZero,
         "openpizero",
         "policy",
         1,
         {"module"},
         NormalizationScheme::Bounds,
         4,
         224},
        {ModelFamily::Susie,
         "susie",
         "policy",
         1,
         {"subgoal", "module"},
         NormalizationScheme::Normal,
         4,
         256},
        {ModelFamily::SusieLowLevel,
         "susie_ll",
         "policy",
         1,
         {"module"},
         NormalizationScheme::Normal,
         4,
         256},
        {ModelFamily::Cosmos,
         "cosmos",
         "world_model",
         1,
         {"module"},
         NormalizationScheme::None,
         12,
         0},
        {ModelFamily::IraSim,
         "irasim",
         "world_model",
         1,
         {"module"},
         NormalizationScheme::None,
         15,
         0},
        {ModelFamily::GenericPolicy,
         "generic_policy",
         "policy",
         1,
         {"module"},
         NormalizationScheme::None,
         0,
         0,
         true},
        {ModelFamily::GenericWorldModel,
         "generic_world_model",
         "world_model",
         1,
         {"module"},
         NormalizationScheme::None,
         0,
         0,
         true},
        {ModelFamily::GenericJudge,
         "generic_judge",
         "judge",
         1,
         {"module"},
         NormalizationScheme::None,
         0,
         0,
         true},
    };
    return families;
}

const FamilySpec &familySpec(ModelFamily family)
{
    for (const auto &spec : allFamilies())
        if (spec.family == family)
            return spec;
    throw Error(ErrorCode::InvalidInput, "unknown model family");
}

std::optional<ModelFamily> familyFromName(const std::string &name)
{
    for (const auto &spec : allFamilies())
        if (spec.name == name)
            return spec.family;
    return std::nullopt;
}

const PackageFile &ModelPackage::file(const std::string &role) const
{
    const auto it = files.find(role);
    if (it == files.end())
        throw Error(ErrorCode::InvalidInput, std::string(kManifestName) + ": files." + role +
                                                 " is missing (family " + spec.name + ")");
    return it->second;
}

nlohmann::json ModelPackage::identity() const
{
    nlohmann::json fileHashes = nlohmann::json::object();
    for (const auto &[role, f] : files)
        fileHashes[role] = f.sha256;
    return {{"family", spec.name},
            {"signature", spec.signature},
            {"manifest_sha256", manifestSha256},
            {"files", fileHashes}};
}

namespace {

// A file's "runtime" block: {"runtime": "aoti", "device": "cpu", "dtype": "fp32",
// "inputs": [{"shape": [1, 3, 224, 224], "dtype": "float32"}, ...]} (docs/export.md).
void readRuntime(const nlohmann::json &entry, const std::string &at, PackageFile &file)
{
    file.runtime = json::optString(entry, "runtime", at).value_or("torchscript");
    if (file.runtime == "torchscript") {
        for (const char *key : {"device", "dtype", "inputs"})
            if (entry.contains(key))
                json::fail(at + "." + key, "only an AOTInductor module (\"runtime\": \"aoti\") "
                                           "is compiled for a device, dtype and inputs");
        return;
    }
    if (file.runtime != "aoti")
        json::fail(at + ".runtime",
                   "must be \"torchscript\" or \"aoti\", not \"" + file.runtime + "\"");
    file.compiledDevice = json::requireString(entry, "device", at);
    if (file.compiledDevice != "cpu" && file.compiledDevice != "cuda")
        json::fail(at + ".device", "an AOTInductor module is compiled for \"cpu\" or \"cuda\", "
                                   "not \"" +
                                       file.compiledDevice + "\"");
    file.compiledDtype = json::requireString(entry, "dtype", at);
    if (file.compiledDtype != "fp32" && file.compiledDtype != "bf16" &&
        file.compiledDtype != "fp16")
        json::fail(at + ".dtype", "must be fp32, bf16 or fp16, not \"" + file.compiledDtype + "\"");
    const auto &inputs = json::requireArray(entry, "inputs", at);
    if (inputs.empty() || inputs.size() > 16)
        json::fail(at + ".inputs", "1 to 16 inputs, in the order the module takes them");
    static const std::vector<std::string> dtypes = {"float32", "bfloat16", "float16", "int64",
                                                    "bool"};
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::string in = at + ".inputs[" + std::to_string(i) + "]";
        if (!inputs[i].is_object())
            json::fail(in, "expected {\"shape\": [...], \"dtype\": ...}");
        TensorSpec spec;
        const auto &shape = json::requireArray(inputs[i], "shape", in);
        if (shape.empty() || shape.size() > 8)
            json::fail(in + ".shape", "1 to 8 dimensions");
        for (const auto &d : shape) {
            if (!d.is_number_integer() || d.get<std::int64_t>() < -1 ||
                d.get<std::int64_t>() == 0 || d.get<std::int64_t>() > (1 << 20))
                json::fail(in + ".shape", "each dimension is a size 1..1048576, or -1 (dynamic)");
            spec.shape.push_back(d.get<std::int64_t>());
        }
        spec.dtype = json::requireString(inputs[i], "dtype", in);
        if (std::find(dtypes.begin(), dtypes.end(), spec.dtype) == dtypes.end())
            json::fail(in + ".dtype", "must be float32, bfloat16, float16, int64 or bool, not \"" +
                                          spec.dtype + "\"");
        file.inputs.push_back(std::move(spec));
    }
}

// The contracts of a named family: 7-D Bridge actions, the family's normalization scheme and
// chunk length, its frame size.
void loadFamilyContracts(ModelPackage &p, const std::string &where)
{
    const auto &m = p.manifest;
    // The action contract and its statistics, against the family's scheme.
    p.action = ActionContract::fromJson(json::requireObject(m, "action", where), where + ".action");
    if (p.action.dimension() != 7)
        json::fail(where + ".action.dimensions",
                   "family " + p.spec.name +
                       " uses 7-D Bridge end-effector actions, the manifest "
                       "declares " +
                       std::to_string(p.action.dimension()));
    if (p.action.normalization != p.spec.normalization)
        json::fail(where + ".action.normalization.scheme",
                   "family " + p.spec.name + " unnormalizes with " +
                       normalizationSchemeName(p.spec.normalization) + ", the manifest says " +
                       normalizationSchemeName(p.action.normalization));
    // MiniVLA with a VQ decoder predicts a chunk (default 8) from its 7 codes.
    const bool vqChunk = p.spec.family == ModelFamily::MiniVla && p.files.count("vq_decoder") &&
                         p.action.chunkLength == p.options.value("vq_chunk", 8);
    if (p.action.chunkLength != p.spec.chunkLength && !vqChunk)
        json::fail(where + ".action.chunk_length",
                   "family " + p.spec.name + " predicts chunks of " +
                       std::to_string(p.spec.chunkLength) + ", the manifest says " +
                       std::to_string(p.action.chunkLength));
    const ContractCheck self = p.action.checkSelf();
    if (!self.ok())
        throw Error(ErrorCode::InvalidInput, where + ".action: " + self.summary());

    if (p.spec.kind == "world_model") {
        p.frame = FrameContract::fromJson(json::requireObject(m, "frame", where), where + ".frame");
        if (p.spec.family == ModelFamily::IraSim &&
            (p.frame->width != 320 || p.frame->height != 256))
            json::fail(where + ".frame", "IRASim generates 256x320 frames, the manifest says " +
                                             std::to_string(p.frame->height) + "x" +
                                             std::to_string(p.frame->width));
        if (p.frame->conditioningFrames != 1)
            json::fail(where + ".frame.conditioning_frames",
                       "family " + p.spec.name + " conditions on 1 frame");
    }
}

// The contracts of a generic package: as declared (any dimension, scheme and chunk length), and
// the module signature ("io") checked against them.
void loadGenericContracts(ModelPackage &p, const std::string &where)
{
    const auto &m = p.manifest;
    if (p.spec.kind != "judge") {
        p.action =
            ActionContract::fromJson(json::requireObject(m, "action", where), where + ".action");
        const ContractCheck self = p.action.checkSelf();
        if (!self.ok())
            throw Error(ErrorCode::InvalidInput, where + ".action: " + self.summary());
    }
    if (p.spec.kind == "world_model")
        p.frame = FrameContract::fromJson(json::requireObject(m, "frame", where), where + ".frame");
    p.io = parseGenericIo(m.contains("io") ? m["io"] : nlohmann::json(), p.spec.kind, where + ".io",
                          p.action.dimension(), p.action.chunkLength, p.frame ? p.frame->height : 0,
                          p.frame ? p.frame->width : 0);
    // Like every world here it returns the start frame first; a module that takes K frames gets
    // the start frame repeated until it has generated K of its own.
    if (p.frame && p.frame->conditioningFrames != 1)
        json::fail(where + ".frame.conditioning_frames",
                   "a generic world model conditions on the start frame (1)");
}

} // namespace

ModelPackage loadModelPackage(const fs::path &asked, std::optional<ModelFamily> expected)
{
    const std::string where = kManifestName;
    // A relative path is taken from the current folder, else from the installed data
    // (<bin>/../share/kosmos: the shipped packages, models/..., in the Debian package).
    const fs::path directory = resolveInstalledData(asked);
    if (!fs::is_directory(directory))
        throw Error(ErrorCode::NotFound,
                    "model package " + asked.string() + " is not a folder" +
                        (asked.is_relative() ? " (looked in the current folder and in " +
                                                   installedDataDirectory().string() + ")"
                                             : std::string()));
    ModelPackage p;
    p.directory = fs::absolute(directory).lexically_normal();
    if (!fs::exists(p.directory / kManifestName))
        throw Error(ErrorCode::NotFound, "no model package manifest at " +
                                             (p.directory / kManifestName).string() +
                                             " (a package is a folder with " + kManifestName + ")");
    json::Limits limits;
    limits.maxBytes = 4u << 20;
    limits.maxDepth = 32;
    limits.rejectDuplicateKeys = true;
    const std::string text = json::readFileBounded(p.directory / kManifestName, limits.maxBytes);
    p.manifestSha256 = Sha256::hex(std::string_view(text));
    p.manifest = json::parseBounded(text, (p.directory / kManifestName).string(), limits);
    if (!p.manifest.is_object())
        throw Error(ErrorCode::InvalidInput,
                    (p.directory / kManifestName).string() + ": not a JSON object");
    const auto &m = p.manifest;
    if (json::requireInt(m, "kosmos_model", where, 0, 1000) != 1)
        json::fail(where + ".kosmos_model", "this build reads manifest version 1");
    const std::string familyName = json::requireString(m, "family", where);
    const auto family = familyFromName(familyName);
    if (!family)
        json::fail(where + ".family", "unknown family '" + familyName +
                                          "' (openvla, minivla, octo, openpizero, susie, "
                                          "susie_ll, cosmos, irasim, generic_policy, "
                                          "generic_world_model, generic_judge)");
    p.spec = familySpec(*family);
    if (expected && *expected != *family)
        json::fail(where + ".family", "the package is a " + familyName +
                                          " package; this adapter "
                                          "loads " +
                                          familySpec(*expected).name);
    const auto signature = json::requireInt(m, "signature", where, 0, 1000);
    if (signature != p.spec.signature)
        json::fail(where + ".signature",
                   "module signature version " + std::to_string(signature) +
                       "; this build of the " + familyName + " adapter speaks version " +
                       std::to_string(p.spec.signature) + " (docs/export.md)");

    // Files: inside the folder, present, and with the SHA-256 the manifest names.
    for (const auto &[role, entry] : json::requireObject(m, "files", where).items()) {
        const std::string at = where + ".files." + role;
        if (!entry.is_object())
            json::fail(at, "expected {\"path\": ..., \"sha256\": ...}");
        const fs::path relative = json::requireString(entry, "path", at);
        const fs::path full = (p.directory / relative).lexically_normal();
        if (relative.is_absolute() || full.string().rfind(p.directory.string() + "/", 0) != 0)
            json::fail(at + ".path", "must be a path inside the package folder");
        const std::string sha = json::requireString(entry, "sha256", at);
        if (!Sha256::isValidHex(sha))
            json::fail(at + ".sha256", "must be 64 lowercase hex characters");
        if (!fs::is_regular_file(full))
            throw Error(ErrorCode::NotFound, at + ": file " + full.string() + " is missing");
        const std::string actual = Sha256::cachedFileHex(full);
        if (actual != sha)
            throw Error(ErrorCode::Corrupt, at + ": SHA-256 mismatch for " + relative.string() +
                                                ": the manifest says " + sha.substr(0, 16) +
                                                "..., the file has " + actual.substr(0, 16) +
                                                "...");
        PackageFile file;
        file.path = full;
        file.sha256 = sha;
        file.bytes = static_cast<std::int64_t>(fs::file_size(full));
        readRuntime(entry, at, file);
        p.files[role] = std::move(file);
    }
    for (const auto &role : p.spec.modules)
        if (!p.files.count(role))
            json::fail(where + ".files",
                       "family " + familyName + " needs a '" + role + "' module (docs/export.md)");

    if (m.contains("options"))
        p.options = json::requireObject(m, "options", where);
    if (p.spec.generic)
        loadGenericContracts(p, where);
    else
        loadFamilyContracts(p, where);
    if (m.contains("requirements")) {
        const auto &r = json::requireObject(m, "requirements", where);
        if (const auto mib = json::optInt(r, "device_memory_mib", where + ".requirements", 1,
                                          std::int64_t{16} * 1024 * 1024))
            p.deviceMemoryBytes = *mib * 1024 * 1024;
    }
    if (m.contains("defaults")) {
        const auto &d = json::requireObject(m, "defaults", where);
        p.defaultDevice = json::optString(d, "device", where + ".defaults").value_or("cpu");
        p.defaultDtype = json::optString(d, "dtype", where + ".defaults").value_or("fp32");
    }
    return p;
}

} // namespace kosmos::torchadapters
