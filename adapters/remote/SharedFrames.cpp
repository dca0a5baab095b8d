#include "SharedFrames.h"

#include "util/Error.h"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <random>

#include <csignal>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace kosmos::remote {

namespace {

[[noreturn]] void failed(const std::string &what, int error)
{
    throw Error(ErrorCode::Io,
                "remote.world: shared memory: " + what + ": " + std::strerror(error));
}

std::string randomHex(std::random_device &device, int words)
{
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < words; ++i) {
        const unsigned v = device();
        for (int shift = 28; shift >= 0; shift -= 4)
            out.push_back(digits[(v >> shift) & 0xf]);
    }
    return out;
}

// Segments left by a client that was killed (kosmos-world-PID-...: its PID no longer runs) go,
// once per process, before the first segment is made.
void removeOrphans()
{
    static std::once_flag once;
    std::call_once(once, [] {
        std::error_code error;
        for (const auto &entry : std::filesystem::directory_iterator("/dev/shm", error)) {
            const std::string name = entry.path().filename().string();
            const std::string prefix = "kosmos-world-";
            if (name.rfind(prefix, 0) != 0)
                continue;
            const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
            if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
                ::shm_unlink(("/" + name).c_str());
        }
    });
}

} // namespace

SharedFrames::SharedFrames(std::size_t size) : m_size(size)
{
    removeOrphans();
    static std::atomic<int> counter{0};
    std::random_device device;
    m_name = "kosmos-world-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-" +
             randomHex(device, 2);
    m_token = randomHex(device, 4); // 32 bytes
    if (m_size < m_token.size())
        m_size = m_token.size();
    const std::string path = "/" + m_name;
    const int fd = ::shm_open(path.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        failed("shm_open " + path, errno);
    // The pages reserved now (not a sparse ftruncate): a /dev/shm too small for the segment (a
    // container's 64 MiB) is said here, and the frames come inline, instead of the server dying
    // of SIGBUS when it writes past what tmpfs can hold.
    if (const int error = ::posix_fallocate(fd, 0, static_cast<off_t>(m_size)); error != 0) {
        ::close(fd);
        ::shm_unlink(path.c_str());
        failed("reserving " + std::to_string(m_size) + " bytes for " + path, error);
    }
    m_data = ::mmap(nullptr, m_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int error = errno;
    ::close(fd);
    if (m_data == MAP_FAILED) {
        m_data = nullptr;
        ::shm_unlink(path.c_str());
        failed("mmap " + path, error);
    }
    std::memcpy(m_data, m_token.data(), m_token.size());
}

SharedFrames::~SharedFrames()
{
    if (m_data)
        ::munmap(m_data, m_size);
    ::shm_unlink(("/" + m_name).c_str());
}

} // namespace kosmos::remote
