#include "util/Sha256.h"

#include "util/Error.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <mutex>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace kosmos {

struct Sha256::Impl
{
    EVP_MD_CTX *ctx = nullptr;
};

Sha256::Sha256() : m_impl(std::make_unique<Impl>())
{
    m_impl->ctx = EVP_MD_CTX_new();
    if (!m_impl->ctx || EVP_DigestInit_ex(m_impl->ctx, EVP_sha256(), nullptr) != 1)
        throw Error(ErrorCode::Io, "OpenSSL could not initialise SHA-256");
}

Sha256::~Sha256()
{
    if (m_impl)
        EVP_MD_CTX_free(m_impl->ctx);
}

Sha256::Sha256(Sha256 &&) noexcept = default;
Sha256 &Sha256::operator=(Sha256 &&) noexcept = default;

void Sha256::update(const void *data, std::size_t size)
{
    if (size > 0)
        EVP_DigestUpdate(m_impl->ctx, data, size);
}

std::string Sha256::finalHex()
{
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(m_impl->ctx, digest, &length);
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(static_cast<std::size_t>(length) * 2, '0');
    for (unsigned int i = 0; i < length; ++i) {
        out[2 * static_cast<std::size_t>(i)] = kDigits[digest[i] >> 4];
        out[2 * static_cast<std::size_t>(i) + 1] = kDigits[digest[i] & 0x0f];
    }
    EVP_DigestInit_ex(m_impl->ctx, EVP_sha256(), nullptr);
    return out;
}

std::string Sha256::hex(std::string_view data)
{
    Sha256 h;
    h.update(data);
    return h.finalHex();
}

std::string Sha256::hex(std::span<const std::uint8_t> data)
{
    Sha256 h;
    h.update(data.data(), data.size());
    return h.finalHex();
}

std::string Sha256::cachedFileHex(const std::filesystem::path &path)
{
    static std::mutex mutex;
    static std::map<std::string,
                    std::tuple<std::uintmax_t, std::filesystem::file_time_type, std::string>>
        cache;
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    const auto mtime =
        ec ? std::filesystem::file_time_type() : std::filesystem::last_write_time(path, ec);
    if (ec)
        throw Error(ErrorCode::Io, "cannot read " + path.string() + ": " + ec.message());
    {
        const std::lock_guard lock(mutex);
        const auto it = cache.find(path.string());
        if (it != cache.end() && std::get<0>(it->second) == size &&
            std::get<1>(it->second) == mtime)
            return std::get<2>(it->second);
    }
    std::string hash = fileHex(path);
    const std::lock_guard lock(mutex);
    cache[path.string()] = {size, mtime, hash};
    return hash;
}

std::string Sha256::fileHex(const std::filesystem::path &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        throw Error(ErrorCode::Io, "cannot read " + path.string() + ": " + std::strerror(errno));
    Sha256 h;
    std::vector<char> buffer(1 << 20);
    for (;;) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int err = errno;
            ::close(fd);
            throw Error(ErrorCode::Io, "cannot read " + path.string() + ": " + std::strerror(err));
        }
        if (n == 0)
            break;
        h.update(buffer.data(), static_cast<std::size_t>(n));
    }
    ::close(fd);
    return h.finalHex();
}

bool Sha256::isValidHex(std::string_view digest)
{
    if (digest.size() != 64)
        return false;
    for (char c : digest) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return false;
    }
    return true;
}

} // namespace kosmos
