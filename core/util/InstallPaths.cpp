#include "util/InstallPaths.h"

#include "util/Error.h"

#include <unistd.h>

#include <system_error>

namespace fs = std::filesystem;

namespace kosmos {

fs::path executablePath()
{
    char self[4096] = {};
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        throw Error(ErrorCode::Io, "cannot find this program's path (/proc/self/exe)");
    return fs::path(std::string(self, static_cast<std::size_t>(n)));
}

fs::path installedDataDirectory()
{
    return (executablePath().parent_path() / ".." / "share" / "kosmos").lexically_normal();
}

fs::path resolveInstalledData(const fs::path &relative)
{
    std::error_code ec;
    if (relative.empty() || relative.is_absolute() || fs::exists(relative, ec))
        return relative;
    fs::path installed;
    try {
        installed = installedDataDirectory() / relative;
    } catch (const Error &) {
        return relative;
    }
    return fs::exists(installed, ec) ? installed : relative;
}

} // namespace kosmos
