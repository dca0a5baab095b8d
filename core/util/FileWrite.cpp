#include "util/FileWrite.h"

#include "util/Error.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kosmos {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path &path, const char *what, int error)
{
    throw Error(ErrorCode::Io,
                "cannot write " + path.string() + ": " + what + ": " + std::strerror(error));
}

// Every byte written, EINTR retried; false with errno set otherwise.
bool writeAll(int fd, std::string_view bytes)
{
    while (!bytes.empty()) {
        const ssize_t n = ::write(fd, bytes.data(), bytes.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        if (n == 0) {
            errno = EIO;
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

} // namespace

void writeFileAtomically(const fs::path &path, std::string_view bytes)
{
    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            throw Error(ErrorCode::Io, "cannot write " + path.string() + ": it is a folder");
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
        if (fd < 0)
            fail(path, "open", errno);
        if (!writeAll(fd, bytes)) {
            const int error = errno;
            ::close(fd);
            fail(path, "write", error);
        }
        if (::close(fd) != 0)
            fail(path, "close", errno);
        return;
    }
    const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    std::string name = (folder / ("." + path.filename().string() + ".partial-XXXXXX")).string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
        fail(path, "create a temporary file beside it", errno);
    const fs::path temporary = name;
    auto abandon = [&](const char *what, int error) {
        ::unlink(temporary.c_str());
        fail(path, what, error);
    };
    if (!writeAll(fd, bytes)) {
        const int error = errno;
        ::close(fd);
        abandon("write", error);
    }
    if (::fchmod(fd, 0644) != 0 || ::fsync(fd) != 0) {
        const int error = errno;
        ::close(fd);
        abandon("flush", error);
    }
    if (::close(fd) != 0)
        abandon("close", errno);
    if (::rename(temporary.c_str(), path.c_str()) != 0)
        abandon("rename the temporary file", errno);
}

StagingFolder::StagingFolder(const fs::path &parent, std::string_view purpose)
    : m_path((parent.empty() ? fs::path(".") : parent) /
             (".kosmos-" + std::string(purpose) + "-partial-" + std::to_string(::getpid())))
{
    std::error_code ec;
    fs::remove_all(m_path, ec); // left by an earlier process with this pid
    fs::create_directories(m_path, ec);
    if (ec)
        throw Error(ErrorCode::Io, "cannot create " + m_path.string() + ": " + ec.message());
}

StagingFolder::~StagingFolder()
{
    std::error_code ignored;
    if (!m_path.empty())
        fs::remove_all(m_path, ignored);
}

void StagingFolder::publish(const fs::path &target)
{
    std::error_code ec;
    if (fs::is_directory(target, ec) && fs::is_empty(target, ec))
        fs::remove(target, ec);
    ec.clear();
    fs::rename(m_path, target, ec);
    if (ec)
        throw Error(ErrorCode::Io, "cannot move " + m_path.string() + " to " + target.string() +
                                       ": " + ec.message());
    m_path.clear();
}

fs::path StagingFolder::publishInto(const fs::path &piece, const fs::path &folder)
{
    fs::path target = folder / piece.filename();
    std::error_code ec;
    fs::remove_all(target, ec);
    ec.clear();
    fs::rename(piece, target, ec);
    if (ec)
        throw Error(ErrorCode::Io, "cannot move " + piece.string() + " to " + target.string() +
                                       ": " + ec.message());
    return target;
}

} // namespace kosmos
