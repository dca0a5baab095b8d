#pragma once

#include "artifacts/PixelDigest.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cv {
class Mat;
}

namespace kosmos {

// What the store holds for one piece of content.
struct StoredObject
{
    std::string sha256;
    std::int64_t sizeBytes = 0;
    std::string mediaType;
    std::optional<PixelDigest> pixels; // set for image media types
    bool alreadyPresent = false;       // identical content was stored before
};

// The result of re-checking one stored object against what the ledger says about it.
struct ObjectCheck
{
    enum class Status
    {
        Ok,
        Missing,
        NotARegularFile,
        SizeMismatch,
        HashMismatch,
        PixelMismatch,
        Unreadable
    };
    Status status = Status::Ok;
    std::string detail;
    bool ok() const { return status == Status::Ok; }
};

// Content-addressed artifact store: objects/ab/cdef... where abcdef... is the SHA-256 of the
// content. Writes go to objects/tmp/, are fsynced, renamed into place and the directory is
// fsynced, so an object is either complete under its final name or absent. Paths are built
// only from validated hashes and opened component by component without following symlinks,
// so nothing outside objects/ can be read or written through the store.
// Stored image bytes decoded to RGB 8-bit; throws Error(Corrupt) naming the object (by its
// SHA-256) when they do not decode as an image.
cv::Mat decodeStoredRgb(std::span<const std::uint8_t> bytes, std::string_view sha256);

class ArtifactStore
{
public:
    explicit ArtifactStore(std::filesystem::path objectsDir);

    // Creates objects/ and objects/tmp/ (and fsyncs the parent) if they do not exist.
    static void initialize(const std::filesystem::path &objectsDir);

    const std::filesystem::path &directory() const { return m_dir; }

    StoredObject putBytes(std::span<const std::uint8_t> content, std::string_view mediaType);
    StoredObject putBytes(std::string_view content, std::string_view mediaType);
    // An image the caller has just encoded losslessly from pixels it holds: `pixels` is their
    // digest (pixelDigestOfRaw), so the bytes are not decoded again to hash them.
    StoredObject putEncodedImage(std::span<const std::uint8_t> content, std::string_view mediaType,
                                 const PixelDigest &pixels);
    // Streams a file into the store (hashing while copying: one read of the source).
    StoredObject putFile(const std::filesystem::path &source, std::string_view mediaType);

    // objects/ab/cdef...; throws Error(InvalidInput) unless sha256 is 64 lowercase hex.
    std::filesystem::path objectPath(std::string_view sha256) const;
    bool contains(std::string_view sha256) const;

    // Reads an object and checks its hash; throws Error(Corrupt) on a mismatch,
    // Error(NotFound) when absent.
    std::vector<std::uint8_t> read(std::string_view sha256) const;
    // A stored image decoded to RGB 8-bit (what components and exports take), hash-checked by
    // read(). Throws Error(Corrupt) naming the object when its bytes do not decode as an image.
    cv::Mat readRgb(std::string_view sha256) const;

    // Re-hashes an object (and its pixels, when expectedPixelSha256 is given).
    ObjectCheck check(std::string_view sha256, std::int64_t expectedSize,
                      const std::optional<std::string> &expectedPixelSha256) const;

    // Batched durability for bulk copies (a merge): objects are renamed into place without
    // their own fsyncs, and syncFilesystem() makes everything written so far durable at once
    // (syncfs). The caller must call it before it commits a database row that names them.
    void setDeferredSync(bool deferred) { m_deferredSync = deferred; }
    void syncFilesystem() const;

    // Every object file in the store (objects/ab/cdef... named by a valid hash), with its
    // modification time (seconds since the epoch): what verify compares with the artifact rows.
    struct StoredFile
    {
        std::string sha256;
        std::int64_t modifiedAt = 0;
    };
    std::vector<StoredFile> storedFiles() const;
    // Removes one object file (for `kosmos-cli gc`, which removes only files no row names);
    // false when it could not.
    bool removeObject(std::string_view sha256) const;

    // Temporary files left by writers that died before renaming (harmless; never visible as
    // artifacts).
    std::vector<std::filesystem::path> temporaries() const;

private:
    StoredObject putWithPixels(std::span<const std::uint8_t> content, std::string_view mediaType,
                               std::optional<PixelDigest> pixels);
    StoredObject commitTemporary(int tmpFd, const std::string &tmpName, std::string sha256,
                                 std::int64_t size, std::string_view mediaType);

    std::filesystem::path m_dir;
    bool m_deferredSync = false;
};

} // namespace kosmos
