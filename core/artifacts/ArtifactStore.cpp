#include "artifacts/ArtifactStore.h"

#include "util/Error.h"
#include "util/Sha256.h"

#include "artifacts/ImageCodecs.h"

#include <opencv2/imgcodecs.hpp> // the IMREAD_ flags only: the codecs load lazily
#include <opencv2/imgproc.hpp>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kosmos {
namespace {

constexpr std::size_t kChunkBytes = 1 << 20;

[[noreturn]] void throwIo(const std::string &what, int err)
{
    throw Error(ErrorCode::Io, what + ": " + std::strerror(err));
}

// Owns a file descriptor.
class Fd
{
public:
    explicit Fd(int fd = -1) : m_fd(fd) {}
    ~Fd()
    {
        if (m_fd >= 0)
            ::close(m_fd);
    }
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    Fd &operator=(Fd &&other) noexcept
    {
        if (this != &other) {
            if (m_fd >= 0)
                ::close(m_fd);
            m_fd = other.release();
        }
        return *this;
    }
    int get() const { return m_fd; }
    int release()
    {
        const int fd = m_fd;
        m_fd = -1;
        return fd;
    }

private:
    int m_fd;
};

void writeAll(int fd, const std::uint8_t *data, std::size_t size, const std::string &what)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throwIo("cannot write " + what, errno);
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

void fsyncOrThrow(int fd, const std::string &what)
{
    if (::fsync(fd) != 0)
        throwIo("cannot fsync " + what, errno);
}

// Opens a directory without following a symlink at the last component.
int openDirNoFollow(int parentFd, const char *name)
{
    return ::openat(parentFd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

void checkHash(std::string_view sha256)
{
    if (!Sha256::isValidHex(sha256))
        throw Error(ErrorCode::InvalidInput,
                    "not an artifact hash (need 64 lowercase hex digits): '" +
                        std::string(sha256.substr(0, 80)) + "'");
}

} // namespace

ArtifactStore::ArtifactStore(std::filesystem::path objectsDir) : m_dir(std::move(objectsDir)) {}

void ArtifactStore::initialize(const std::filesystem::path &objectsDir)
{
    for (const auto &dir : {objectsDir, objectsDir / "tmp"}) {
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
            throwIo("cannot create " + dir.string(), errno);
        struct stat st
        {
        };
        if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
            throw Error(ErrorCode::Io, dir.string() + " is not a directory");
        Fd parent(::open(dir.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (parent.get() >= 0)
            ::fsync(parent.get());
    }
}

std::filesystem::path ArtifactStore::objectPath(std::string_view sha256) const
{
    checkHash(sha256);
    return m_dir / std::string(sha256.substr(0, 2)) / std::string(sha256.substr(2));
}

StoredObject ArtifactStore::putBytes(std::string_view content, std::string_view mediaType)
{
    return putBytes(
        std::span(reinterpret_cast<const std::uint8_t *>(content.data()), content.size()),
        mediaType);
}

StoredObject ArtifactStore::putBytes(std::span<const std::uint8_t> content,
                                     std::string_view mediaType)
{
    if (mediaType.empty())
        throw Error(ErrorCode::InvalidInput, "artifact media type is empty");
    std::optional<PixelDigest> pixels;
    if (isImageMediaType(mediaType))
        pixels = pixelDigestOfEncoded(content); // refuses undecodable images before any write
    return putWithPixels(content, mediaType, std::move(pixels));
}

StoredObject ArtifactStore::putEncodedImage(std::span<const std::uint8_t> content,
                                            std::string_view mediaType, const PixelDigest &pixels)
{
    if (!isImageMediaType(mediaType))
        throw Error(ErrorCode::InvalidInput,
                    "putEncodedImage: " + std::string(mediaType) + " is not an image media type");
    if (content.empty())
        throw Error(ErrorCode::InvalidInput, "image artifact is empty (0 bytes)");
    return putWithPixels(content, mediaType, pixels);
}

StoredObject ArtifactStore::putWithPixels(std::span<const std::uint8_t> content,
                                          std::string_view mediaType,
                                          std::optional<PixelDigest> pixels)
{

    std::string tmpTemplate = (m_dir / "tmp" / "put-XXXXXX").string();
    Fd tmp(::mkostemp(tmpTemplate.data(), O_CLOEXEC));
    if (tmp.get() < 0)
        throwIo("cannot create a temporary file in " + (m_dir / "tmp").string(), errno);
    const std::string tmpName = std::filesystem::path(tmpTemplate).filename().string();
    try {
        writeAll(tmp.get(), content.data(), content.size(), tmpTemplate);
    } catch (...) {
        ::unlink(tmpTemplate.c_str());
        throw;
    }
    StoredObject object = commitTemporary(tmp.release(), tmpName, Sha256::hex(content),
                                          static_cast<std::int64_t>(content.size()), mediaType);
    object.pixels = std::move(pixels);
    return object;
}

StoredObject ArtifactStore::putFile(const std::filesystem::path &source, std::string_view mediaType)
{
    if (mediaType.empty())
        throw Error(ErrorCode::InvalidInput, "artifact media type is empty");
    Fd in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0)
        throwIo("cannot read " + source.string(), errno);
    struct stat st
    {
    };
    if (::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode))
        throw Error(ErrorCode::InvalidInput, source.string() + " is not a regular file");

    if (isImageMediaType(mediaType)) {
        std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
        std::size_t done = 0;
        while (done < bytes.size()) {
            const ssize_t n = ::read(in.get(), bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                throwIo("cannot read " + source.string(), n < 0 ? errno : EIO);
            done += static_cast<std::size_t>(n);
        }
        return putBytes(bytes, mediaType);
    }

    ::posix_fadvise(in.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
    std::string tmpTemplate = (m_dir / "tmp" / "put-XXXXXX").string();
    Fd tmp(::mkostemp(tmpTemplate.data(), O_CLOEXEC));
    if (tmp.get() < 0)
        throwIo("cannot create a temporary file in " + (m_dir / "tmp").string(), errno);
    const std::string tmpName = std::filesystem::path(tmpTemplate).filename().string();
    Sha256 hash;
    std::int64_t size = 0;
    try {
        std::vector<std::uint8_t> buffer(kChunkBytes);
        for (;;) {
            const ssize_t n = ::read(in.get(), buffer.data(), buffer.size());
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                throwIo("cannot read " + source.string(), errno);
            }
            if (n == 0)
                break;
            hash.update(buffer.data(), static_cast<std::size_t>(n));
            writeAll(tmp.get(), buffer.data(), static_cast<std::size_t>(n), tmpTemplate);
            size += n;
        }
    } catch (...) {
        ::unlink(tmpTemplate.c_str());
        throw;
    }
    return commitTemporary(tmp.release(), tmpName, hash.finalHex(), size, mediaType);
}

StoredObject ArtifactStore::commitTemporary(int tmpFdRaw, const std::string &tmpName,
                                            std::string sha256, std::int64_t size,
                                            std::string_view mediaType)
{
    Fd tmpFd(tmpFdRaw);
    const std::string tmpPath = (m_dir / "tmp" / tmpName).string();
    auto discard = [&] { ::unlink(tmpPath.c_str()); };

    Fd objects(::open(m_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    Fd tmpDir(objects.get() >= 0 ? openDirNoFollow(objects.get(), "tmp") : -1);
    if (objects.get() < 0 || tmpDir.get() < 0) {
        const int err = errno;
        discard();
        throwIo("cannot open the artifact store " + m_dir.string(), err);
    }
    const std::string prefix = sha256.substr(0, 2);
    const std::string rest = sha256.substr(2);

    Fd sub(openDirNoFollow(objects.get(), prefix.c_str()));
    if (sub.get() < 0 && errno == ENOENT) {
        if (::mkdirat(objects.get(), prefix.c_str(), 0755) != 0 && errno != EEXIST) {
            const int err = errno;
            discard();
            throwIo("cannot create " + (m_dir / prefix).string(), err);
        }
        fsyncOrThrow(objects.get(), m_dir.string());
        sub = Fd(openDirNoFollow(objects.get(), prefix.c_str()));
    }
    if (sub.get() < 0) {
        const int err = errno;
        discard();
        throwIo("cannot open " + (m_dir / prefix).string() + " (a symlink is refused)", err);
    }

    StoredObject object;
    object.sha256 = std::move(sha256);
    object.sizeBytes = size;
    object.mediaType = std::string(mediaType);

    struct stat existing
    {
    };
    if (::fstatat(sub.get(), rest.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(existing.st_mode) && existing.st_size == size) {
        // Identical content is stored once. (A same-size corrupt copy is found by verify.) Its
        // time is renewed: an object not yet named by a row is a stray only when it is old
        // (kosmos-cli gc), and this one is about to be named again.
        ::utimensat(sub.get(), rest.c_str(), nullptr, AT_SYMLINK_NOFOLLOW);
        discard();
        object.alreadyPresent = true;
        return object;
    }

    try {
        if (!m_deferredSync)
            fsyncOrThrow(tmpFd.get(), tmpPath);
    } catch (...) {
        discard();
        throw;
    }
    if (::renameat(tmpDir.get(), tmpName.c_str(), sub.get(), rest.c_str()) != 0) {
        const int err = errno;
        discard();
        throwIo("cannot move " + tmpPath + " into the store", err);
    }
    if (!m_deferredSync)
        fsyncOrThrow(sub.get(), (m_dir / prefix).string());
    return object;
}

void ArtifactStore::syncFilesystem() const
{
    Fd objects(::open(m_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (objects.get() < 0 || ::syncfs(objects.get()) != 0)
        throwIo("cannot sync the file system of " + m_dir.string(), errno);
}

bool ArtifactStore::contains(std::string_view sha256) const
{
    struct stat st
    {
    };
    return ::lstat(objectPath(sha256).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

namespace {

// Opens objects/ab/cdef... component by component, never following a symlink.
int openObject(const std::filesystem::path &dir, std::string_view sha256)
{
    Fd objects(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (objects.get() < 0)
        return -1;
    Fd sub(openDirNoFollow(objects.get(), std::string(sha256.substr(0, 2)).c_str()));
    if (sub.get() < 0)
        return -1;
    return ::openat(sub.get(), std::string(sha256.substr(2)).c_str(),
                    O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

} // namespace

std::vector<std::uint8_t> ArtifactStore::read(std::string_view sha256) const
{
    checkHash(sha256);
    Fd fd(openObject(m_dir, sha256));
    if (fd.get() < 0) {
        const int err = errno;
        if (err == ENOENT)
            throw Error(ErrorCode::NotFound,
                        "artifact " + std::string(sha256) + " is missing from " + m_dir.string());
        throwIo("cannot open artifact " + objectPath(sha256).string(), err);
    }
    struct stat st
    {
    };
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        throw Error(ErrorCode::Corrupt, objectPath(sha256).string() + " is not a regular file");
    std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::read(fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throwIo("cannot read " + objectPath(sha256).string(), errno);
        if (n == 0)
            break;
        done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);
    const std::string actual = Sha256::hex(bytes);
    if (actual != sha256)
        throw Error(ErrorCode::Corrupt, "artifact " + objectPath(sha256).string() +
                                            " does not match its hash (content hashes to " +
                                            actual + ")");
    return bytes;
}

ObjectCheck ArtifactStore::check(std::string_view sha256, std::int64_t expectedSize,
                                 const std::optional<std::string> &expectedPixelSha256) const
{
    using S = ObjectCheck::Status;
    if (!Sha256::isValidHex(sha256))
        return {S::Unreadable, "not a valid hash"};
    Fd fd(openObject(m_dir, sha256));
    if (fd.get() < 0) {
        const int err = errno;
        if (err == ENOENT)
            return {S::Missing, "file is missing"};
        if (err == ELOOP || err == ENOTDIR)
            return {S::NotARegularFile, "path is a symlink or not a file"};
        return {S::Unreadable, std::strerror(err)};
    }
    struct stat st
    {
    };
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return {S::NotARegularFile, "not a regular file"};
    if (st.st_size != expectedSize)
        return {S::SizeMismatch, "size is " + std::to_string(st.st_size) +
                                     " bytes, the ledger says " + std::to_string(expectedSize)};
    const bool needPixels = expectedPixelSha256.has_value();
    std::vector<std::uint8_t> all;
    if (needPixels)
        all.reserve(static_cast<std::size_t>(st.st_size));
    Sha256 hash;
    std::vector<std::uint8_t> buffer(kChunkBytes);
    for (;;) {
        const ssize_t n = ::read(fd.get(), buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return {S::Unreadable, std::strerror(errno)};
        if (n == 0)
            break;
        hash.update(buffer.data(), static_cast<std::size_t>(n));
        if (needPixels)
            all.insert(all.end(), buffer.begin(), buffer.begin() + n);
    }
    const std::string actual = hash.finalHex();
    if (actual != sha256)
        return {S::HashMismatch, "content hashes to " + actual};
    if (needPixels) {
        try {
            const PixelDigest pixels = pixelDigestOfEncoded(all);
            if (pixels.sha256 != *expectedPixelSha256)
                return {S::PixelMismatch, "decoded pixels hash to " + pixels.sha256};
        } catch (const Error &e) {
            return {S::PixelMismatch, e.what()};
        }
    }
    return {};
}

std::vector<ArtifactStore::StoredFile> ArtifactStore::storedFiles() const
{
    std::vector<StoredFile> out;
    std::error_code ec;
    for (const auto &sub : std::filesystem::directory_iterator(m_dir, ec)) {
        const std::string prefix = sub.path().filename().string();
        if (prefix.size() != 2 || !sub.is_directory(ec) || sub.is_symlink(ec))
            continue;
        for (const auto &entry : std::filesystem::directory_iterator(sub.path(), ec)) {
            const std::string sha = prefix + entry.path().filename().string();
            struct stat st
            {
            };
            if (!Sha256::isValidHex(sha) || ::lstat(entry.path().c_str(), &st) != 0 ||
                !S_ISREG(st.st_mode))
                continue;
            out.push_back({sha, static_cast<std::int64_t>(st.st_mtime)});
        }
    }
    return out;
}

bool ArtifactStore::removeObject(std::string_view sha256) const
{
    return ::unlink(objectPath(sha256).c_str()) == 0;
}

std::vector<std::filesystem::path> ArtifactStore::temporaries() const
{
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(m_dir / "tmp", ec))
        out.push_back(entry.path());
    return out;
}

} // namespace kosmos

namespace kosmos {

cv::Mat decodeStoredRgb(std::span<const std::uint8_t> bytes, std::string_view sha256)
{
    const cv::Mat bgr = bytes.empty() ? cv::Mat() : decodeImage(bytes, cv::IMREAD_COLOR);
    if (bgr.empty())
        throw Error(ErrorCode::Corrupt, "stored object " + std::string(sha256.substr(0, 16)) +
                                            "... does not decode as an image");
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

cv::Mat ArtifactStore::readRgb(std::string_view sha256) const
{
    return decodeStoredRgb(read(sha256), sha256);
}

} // namespace kosmos
