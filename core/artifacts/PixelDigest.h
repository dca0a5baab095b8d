#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kosmos {

// The hash of an image's decoded pixels, independent of how the image was encoded.
// Digest input (version 1): the ASCII header "kosmos-pixels-v1 W H C D\n" (width, height,
// channels, bytes per sample) followed by the rows top to bottom, samples in R,G,B(,A)
// order (grey images: one sample), 16-bit samples little-endian. A PNG and a lossless
// WebP/TIFF of the same pixels therefore share the digest; any changed pixel changes it.
struct PixelDigest
{
    std::string sha256;
    int width = 0;
    int height = 0;
    int channels = 0;
};

// True for media types whose pixels Kosmos hashes (image/png, image/jpeg, image/webp,
// image/bmp, image/tiff, image/x-portable-anymap).
bool isImageMediaType(std::string_view mediaType);

// Decodes an encoded image (OpenCV imgcodecs) and hashes its pixels. Throws
// Error(InvalidInput) when the bytes do not decode as an image.
PixelDigest pixelDigestOfEncoded(std::span<const std::uint8_t> encoded);

// Hashes raw interleaved RGB/RGBA/grey 8-bit pixels (rows packed, no padding).
PixelDigest pixelDigestOfRaw(std::span<const std::uint8_t> pixels, int width, int height,
                             int channels);

// Makes OpenCV register its image codecs (and Debian's OpenCV, GDAL its drivers) now, on the
// calling thread, once per process: a PNG encode and decode of a 1x1 image. OpenCV does that on
// its first encode/decode behind a function-local static whose fast path is uninstrumented, so
// threads that first touch the codecs concurrently are reported by ThreadSanitizer as racing.
// Call it before starting threads that encode or decode images: their start then orders the
// registration before their first use. Safe to call from any thread, any number of times.
void prepareImageCodecs();

} // namespace kosmos
