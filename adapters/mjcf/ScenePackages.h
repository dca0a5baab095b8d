#pragma once

// Where a scene's files come from: the folder of an installed Python package (gym-aloha ships
// ALOHA sim's MJCF scenes and meshes; they are read from there, never copied into this
// repository), and the digest of what is in it, for each run's provenance.

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace kosmos::mjcf {

struct SceneLookup
{
    std::vector<std::string> packageDirs; // folders that hold package folders (site-packages)
    std::string python; // the interpreter asked with importlib (empty: the environment's)
};

struct ScenePackage
{
    std::filesystem::path dir;
    std::string version; // the distribution's version, when found
    std::string foundBy; // "package_dirs", "KOSMOS_MJCF_PACKAGE_PATH" or the interpreter
};

// The interpreter asked: `python` if set, else $KOSMOS_WORLDS_PYTHON, $KOSMOS_PYTHON, python3.
std::string lookupPython(const SceneLookup &lookup);

// Finds `package`: in lookup.packageDirs, then $KOSMOS_MJCF_PACKAGE_PATH (folders separated by
// ':'), then by asking the interpreter (importlib.util.find_spec; the package is not imported).
// Cached per (package, lookup). Throws Error(InvalidInput) saying where it looked and how to
// install it.
ScenePackage findScenePackage(const std::string &package, const SceneLookup &lookup);

// SHA-256 of every regular file under `dir` (sorted by relative path; cached by size and mtime)
// and one digest over the list: {"files": {"rel": hex}, "sha256": hex}.
nlohmann::json folderDigest(const std::filesystem::path &dir);

} // namespace kosmos::mjcf
