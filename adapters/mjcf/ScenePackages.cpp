#include "mjcf/ScenePackages.h"

#include "util/Error.h"
#include "util/Sha256.h"
#include "util/Subprocess.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>

namespace kosmos::mjcf {
namespace fs = std::filesystem;
namespace {

std::string distVersion(const fs::path &site, const std::string &package)
{
    std::string normalized = package;
    std::replace(normalized.begin(), normalized.end(), '-', '_');
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(site, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(normalized + "-", 0) != 0 || name.size() < 10 ||
            name.substr(name.size() - 10) != ".dist-info")
            continue;
        std::ifstream metadata(entry.path() / "METADATA");
        std::string line;
        while (std::getline(metadata, line)) {
            if (line.rfind("Version: ", 0) == 0)
                return line.substr(9);
        }
    }
    return {};
}

std::vector<std::string> splitPath(const char *value)
{
    std::vector<std::string> out;
    if (!value)
        return out;
    std::string s = value;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t end = s.find(':', start);
        const std::string part = s.substr(start, end == std::string::npos ? end : end - start);
        if (!part.empty())
            out.push_back(part);
        if (end == std::string::npos)
            break;
        start = end + 1;
    }
    return out;
}

} // namespace

std::string lookupPython(const SceneLookup &lookup)
{
    if (!lookup.python.empty())
        return lookup.python;
    for (const char *name : {"KOSMOS_WORLDS_PYTHON", "KOSMOS_PYTHON"}) {
        if (const char *v = std::getenv(name); v && *v)
            return v;
    }
    return "python3";
}

ScenePackage findScenePackage(const std::string &package, const SceneLookup &lookup)
{
    static std::mutex mutex;
    static std::map<std::string, ScenePackage> cache;
    const char *envPath = std::getenv("KOSMOS_MJCF_PACKAGE_PATH");
    std::string key = package + "\n" + lookupPython(lookup) + "\n" + (envPath ? envPath : "");
    for (const auto &d : lookup.packageDirs)
        key += "\n" + d;
    {
        const std::lock_guard lock(mutex);
        if (const auto it = cache.find(key); it != cache.end())
            return it->second;
    }
    ScenePackage found;
    std::vector<std::string> looked;
    const auto tryDirs = [&](const std::vector<std::string> &dirs, const std::string &how) {
        for (const auto &d : dirs) {
            std::error_code ec;
            if (fs::is_directory(fs::path(d) / package, ec)) {
                found = {fs::path(d) / package, distVersion(d, package), how};
                return true;
            }
            looked.push_back(d);
        }
        return false;
    };
    bool ok = tryDirs(lookup.packageDirs, "package_dirs") ||
              tryDirs(splitPath(envPath), "KOSMOS_MJCF_PACKAGE_PATH");
    std::string asked;
    if (!ok) {
        const std::string python = lookupPython(lookup);
        const CommandResult r =
            runCommand({python, "-c",
                        "import importlib.util, importlib.metadata, os, sys\n"
                        "s = importlib.util.find_spec(sys.argv[1])\n"
                        "print(os.path.dirname(s.origin) if s and s.origin else '')\n"
                        "try:\n    print(importlib.metadata.version(sys.argv[1]))\n"
                        "except Exception:\n    print('')\n",
                        package},
                       30000);
        const std::size_t nl = r.out.find('\n');
        const std::string dir = r.ok() ? r.out.substr(0, nl) : "";
        if (!dir.empty()) {
            std::string version;
            if (nl != std::string::npos) {
                version = r.out.substr(nl + 1);
                version.erase(version.find_last_not_of(" \n\r") + 1);
            }
            found = {fs::path(dir), version, python};
            ok = true;
        } else {
            asked = r.ok() ? python + " has no package " + package : python + ": " + r.said();
        }
    }
    if (!ok) {
        std::string where;
        for (const auto &d : looked)
            where += (where.empty() ? "" : ", ") + d;
        throw Error(ErrorCode::InvalidInput,
                    "the scene package '" + package + "' was not found (" +
                        (where.empty() ? "" : "not in " + where + "; ") + asked +
                        "): install it (for ALOHA sim: pip install gym-aloha==0.1.3, as "
                        "scripts/setup-worlds.sh does) and set python or package_dirs");
    }
    const std::lock_guard lock(mutex);
    cache[key] = found;
    return found;
}

nlohmann::json folderDigest(const fs::path &dir)
{
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (it->is_directory() && (name == "__pycache__")) {
            it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file())
            files.push_back(it->path());
    }
    if (ec)
        throw Error(ErrorCode::Io, "cannot list " + dir.string() + ": " + ec.message());
    std::sort(files.begin(), files.end());
    nlohmann::json out = nlohmann::json::object();
    Sha256 all;
    for (const auto &f : files) {
        const std::string digest = Sha256::cachedFileHex(f);
        const std::string rel = fs::relative(f, dir).string();
        out[rel] = digest;
        all.update(rel + " " + digest + "\n");
    }
    return {{"files", out}, {"sha256", all.finalHex()}};
}

} // namespace kosmos::mjcf
