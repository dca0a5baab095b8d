#pragma once

#include <filesystem>

namespace kosmos {

// Where this program and its installed files are. The build tree and an install have the same
// layout (docs/packaging.md): bin/ for executables, lib/<multiarch>/kosmos for plugins and the
// CLI's verbs, share/kosmos for data (translations, example protocols, model packages).

// This process's executable (/proc/self/exe). Throws Error(Io) when it cannot be read.
std::filesystem::path executablePath();

// <bin>/../share/kosmos, for the executable running now (not checked for existence).
std::filesystem::path installedDataDirectory();

// A relative path to data that may be installed: `relative` itself when it exists from the
// current folder, else installedDataDirectory() / relative when that exists, else `relative`
// unchanged (the caller's error then names what was asked for). Absolute paths are returned as
// they are.
std::filesystem::path resolveInstalledData(const std::filesystem::path &relative);

} // namespace kosmos
