#include "artifacts/PixelDigest.h"

#include "util/Error.h"
#include "util/Sha256.h"

#include "artifacts/ImageCodecs.h"

#include <opencv2/imgcodecs.hpp> // the IMREAD_ flags only: the codecs load lazily
#include <opencv2/imgproc.hpp>

#include <array>
#include <mutex>
#include <vector>

namespace kosmos {
namespace {

PixelDigest digestOfMat(const cv::Mat &rgb)
{
    const int bytesPerSample = static_cast<int>(rgb.elemSize1());
    Sha256 hash;
    hash.update("kosmos-pixels-v1 " + std::to_string(rgb.cols) + " " + std::to_string(rgb.rows) +
                " " + std::to_string(rgb.channels()) + " " + std::to_string(bytesPerSample) + "\n");
    const std::size_t rowBytes = static_cast<std::size_t>(rgb.cols) * rgb.elemSize();
    for (int y = 0; y < rgb.rows; ++y)
        hash.update(rgb.ptr(y), rowBytes); // x86-64 and aarch64 are little-endian
    return PixelDigest{hash.finalHex(), rgb.cols, rgb.rows, rgb.channels()};
}

} // namespace

bool isImageMediaType(std::string_view mediaType)
{
    static constexpr std::array<std::string_view, 6> kTypes = {
        "image/png", "image/jpeg", "image/webp",
        "image/bmp", "image/tiff", "image/x-portable-anymap"};
    for (auto type : kTypes) {
        if (mediaType == type)
            return true;
    }
    return false;
}

PixelDigest pixelDigestOfEncoded(std::span<const std::uint8_t> encoded)
{
    if (encoded.empty())
        throw Error(ErrorCode::InvalidInput, "image artifact is empty (0 bytes)");
    cv::Mat image;
    try {
        image = decodeImage(encoded, cv::IMREAD_UNCHANGED);
    } catch (const cv::Exception &e) {
        throw Error(ErrorCode::InvalidInput,
                    std::string("image artifact does not decode: ") + e.what());
    }
    if (image.empty())
        throw Error(ErrorCode::InvalidInput, "image artifact does not decode (" +
                                                 std::to_string(encoded.size()) +
                                                 " bytes, not a PNG/JPEG/WebP/BMP/TIFF/PNM image)");
    cv::Mat rgb;
    switch (image.channels()) {
    case 1:
        rgb = image;
        break;
    case 3:
        cv::cvtColor(image, rgb, cv::COLOR_BGR2RGB);
        break;
    case 4:
        cv::cvtColor(image, rgb, cv::COLOR_BGRA2RGBA);
        break;
    default:
        throw Error(ErrorCode::InvalidInput, "image artifact has an unsupported channel count: " +
                                                 std::to_string(image.channels()));
    }
    if (!rgb.isContinuous())
        rgb = rgb.clone();
    return digestOfMat(rgb);
}

PixelDigest pixelDigestOfRaw(std::span<const std::uint8_t> pixels, int width, int height,
                             int channels)
{
    if (width <= 0 || height <= 0 || (channels != 1 && channels != 3 && channels != 4))
        throw Error(ErrorCode::InvalidInput, "raw pixels: bad geometry " + std::to_string(width) +
                                                 "x" + std::to_string(height) + "x" +
                                                 std::to_string(channels));
    const std::size_t expected = static_cast<std::size_t>(width) * height * channels;
    if (pixels.size() != expected)
        throw Error(ErrorCode::InvalidInput, "raw pixels: expected " + std::to_string(expected) +
                                                 " bytes, got " + std::to_string(pixels.size()));
    const cv::Mat mat(height, width, CV_8UC(channels), const_cast<std::uint8_t *>(pixels.data()));
    return digestOfMat(mat);
}

void prepareImageCodecs()
{
    static std::once_flag once;
    std::call_once(once, [] {
        const cv::Mat pixel(1, 1, CV_8UC3, cv::Scalar(0, 0, 0));
        const std::vector<std::uint8_t> png = encodeImage(".png", pixel);
        (void)decodeImage(png, cv::IMREAD_UNCHANGED);
    });
}

} // namespace kosmos
