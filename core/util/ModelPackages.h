#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace kosmos {

// The model packages a user can choose without typing a path (docs/export.md): every folder
// with a kosmos-model.json directly under installedDataDirectory()/models (the shipped ones;
// the build tree links the source tree's models/ there) and under each folder of
// KOSMOS_MODEL_PATH (colon-separated). Read from the manifests alone; nothing is loaded.
struct ModelPackageEntry
{
    std::filesystem::path folder;
    std::string name;        // the folder's name
    std::string family;      // the manifest's "family" (generic_policy, openvla, ...)
    std::string pluginId;    // the plugin that runs it: "torch." + family
    std::string description; // the manifest's, first sentence kept whole
};

std::vector<std::filesystem::path> modelPackageFolders();
// Packages found in `folders` (sorted by name within each folder); a manifest that does not
// parse or names no family is left out.
std::vector<ModelPackageEntry> findModelPackages(const std::vector<std::filesystem::path> &folders);

} // namespace kosmos
