#include "util/ModelPackages.h"

#include "util/BoundedJson.h"
#include "util/Error.h"
#include "util/InstallPaths.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <system_error>

namespace fs = std::filesystem;

namespace kosmos {

std::vector<fs::path> modelPackageFolders()
{
    std::vector<fs::path> out;
    try {
        out.push_back(installedDataDirectory() / "models");
    } catch (const Error &) {
        // no /proc/self/exe: only the configured folders
    }
    if (const char *extra = std::getenv("KOSMOS_MODEL_PATH")) {
        std::stringstream list(extra);
        for (std::string folder; std::getline(list, folder, ':');)
            if (!folder.empty())
                out.emplace_back(folder);
    }
    return out;
}

std::vector<ModelPackageEntry> findModelPackages(const std::vector<fs::path> &folders)
{
    std::vector<ModelPackageEntry> out;
    for (const fs::path &folder : folders) {
        std::error_code ec;
        std::vector<fs::path> candidates;
        for (const auto &entry : fs::directory_iterator(folder, ec))
            if (entry.is_directory(ec) && fs::is_regular_file(entry.path() / "kosmos-model.json"))
                candidates.push_back(entry.path());
        std::sort(candidates.begin(), candidates.end());
        for (const fs::path &candidate : candidates) {
            nlohmann::json manifest;
            try {
                manifest = json::parseFile(candidate / "kosmos-model.json", {32, 4u << 20});
            } catch (const Error &) {
                continue;
            }
            if (!manifest.is_object() || !manifest.contains("family") ||
                !manifest["family"].is_string() || manifest["family"].get<std::string>().empty())
                continue;
            ModelPackageEntry e;
            e.folder = fs::absolute(candidate).lexically_normal();
            e.name = candidate.filename().string();
            e.family = manifest["family"].get<std::string>();
            e.pluginId = "torch." + e.family;
            if (manifest.contains("description") && manifest["description"].is_string())
                e.description = manifest["description"].get<std::string>();
            out.push_back(std::move(e));
        }
    }
    return out;
}

} // namespace kosmos
