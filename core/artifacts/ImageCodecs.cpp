#include "artifacts/ImageCodecs.h"

#include "util/Error.h"

#include <opencv2/imgcodecs.hpp> // the IMWRITE_ flags only: the codecs load lazily
#include <opencv2/imgproc.hpp>

#include <dlfcn.h>
#include <png.h>

#include <csetjmp>
#include <mutex>

namespace kosmos {

namespace {

// The two entry points, by their C++ (Itanium ABI) names in OpenCV 4's libopencv_imgcodecs:
//   cv::Mat cv::imdecode(cv::_InputArray const&, int)
//   bool cv::imencode(std::string const&, cv::_InputArray const&, std::vector<uchar>&,
//                     std::vector<int> const&)
// Their types below are the declarations in <opencv2/imgcodecs.hpp>; the soname pins the ABI.
using Decode = cv::Mat (*)(const cv::_InputArray &, int);
using Encode = bool (*)(const cv::String &, const cv::_InputArray &, std::vector<uchar> &,
                        const std::vector<int> &);
constexpr const char *kDecodeSymbol = "_ZN2cv8imdecodeERKNS_11_InputArrayEi";
constexpr const char *kEncodeSymbol =
    "_ZN2cv8imencodeERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_11_InputArrayERSt6"
    "vectorIhSaIhEERKSB_IiSaIiEE";

struct Codecs
{
    Decode decode = nullptr;
    Encode encode = nullptr;
    std::string error;
};

const Codecs &codecs()
{
    static Codecs c;
    static std::once_flag once;
    std::call_once(once, [] {
        // Never unloaded: OpenCV registers its codecs in process-wide state.
        void *library = ::dlopen(KOSMOS_IMGCODECS_SONAME, RTLD_NOW | RTLD_GLOBAL);
        if (!library) {
            const char *why = ::dlerror();
            c.error = std::string("cannot load OpenCV's image codecs (") + KOSMOS_IMGCODECS_SONAME +
                      "): " + (why ? why : "unknown reason");
            return;
        }
        c.decode = reinterpret_cast<Decode>(::dlsym(library, kDecodeSymbol));
        c.encode = reinterpret_cast<Encode>(::dlsym(library, kEncodeSymbol));
        if (!c.decode || !c.encode)
            c.error = std::string(KOSMOS_IMGCODECS_SONAME) +
                      " does not provide cv::imdecode / cv::imencode with the expected signatures";
    });
    if (!c.error.empty())
        throw Error(ErrorCode::Io, c.error);
    return c;
}

} // namespace

cv::Mat decodeImage(std::span<const std::uint8_t> encoded, int flags)
{
    const Codecs &c = codecs();
    const cv::Mat buffer(1, static_cast<int>(encoded.size()), CV_8UC1,
                         const_cast<std::uint8_t *>(encoded.data()));
    return c.decode(buffer, flags);
}

std::vector<std::uint8_t> encodeImage(const std::string &extension, const cv::Mat &image,
                                      const std::vector<int> &params)
{
    const Codecs &c = codecs();
    std::vector<std::uint8_t> out;
    if (!c.encode(extension, image, out, params))
        throw Error(ErrorCode::InvalidInput, "cannot encode a " + std::to_string(image.cols) + "x" +
                                                 std::to_string(image.rows) + " image as " +
                                                 extension);
    return out;
}

namespace {

// libpng's low-level writer: the one PNG filter for every row (OpenCV's encoder tries all five
// per row, which is most of its cost) and zlib level 1. Measured side by side
// (kosmos-bench-frame-codecs, docs/benchmarks.md "Frame codecs"): no filter at level 1 encodes a
// 320x256 physics frame in 0.6 ms (OpenCV level 3: 2.5 ms) in fewer bytes, a synthetic one in
// 0.8 ms (1.8 ms) in 1.8 times the bytes; PNG either way, read by every decoder as before.
struct PngSink
{
    std::vector<std::uint8_t> bytes;
    std::string error;
};

void pngWrite(png_structp png, png_bytep data, png_size_t size)
{
    auto *sink = static_cast<PngSink *>(png_get_io_ptr(png));
    sink->bytes.insert(sink->bytes.end(), data, data + size);
}

void pngFlush(png_structp) {}

void pngError(png_structp png, png_const_charp message)
{
    static_cast<PngSink *>(png_get_error_ptr(png))->error = message;
    png_longjmp(png, 1);
}

void pngWarning(png_structp, png_const_charp) {}

// Only C calls between setjmp and the rows written: a libpng error longjmps back here, past no
// C++ object that needs destroying.
bool writePngRows(png_structp png, png_infop info, const cv::Mat &image)
{
    if (setjmp(png_jmpbuf(png)))
        return false;
    png_set_IHDR(png, info, static_cast<png_uint_32>(image.cols),
                 static_cast<png_uint_32>(image.rows), 8,
                 image.channels() == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_GRAY,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_BASE, PNG_FILTER_TYPE_BASE);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
    png_set_compression_level(png, 1);
    png_write_info(png, info);
    for (int y = 0; y < image.rows; ++y)
        png_write_row(png, image.ptr<png_byte>(y));
    png_write_end(png, info);
    return true;
}

} // namespace

std::vector<std::uint8_t> encodeFramePng(const cv::Mat &rgb)
{
    if (rgb.depth() == CV_8U && (rgb.channels() == 3 || rgb.channels() == 1) && !rgb.empty()) {
        PngSink sink;
        sink.bytes.reserve(rgb.total() * rgb.elemSize() / 4);
        png_structp png =
            png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, pngError, pngWarning);
        png_infop info = png ? png_create_info_struct(png) : nullptr;
        if (!png || !info) {
            png_destroy_write_struct(&png, &info);
            throw Error(ErrorCode::Io, "libpng could not start a PNG encoder (out of memory?)");
        }
        png_set_write_fn(png, &sink, pngWrite, pngFlush);
        const bool ok = writePngRows(png, info, rgb);
        png_destroy_write_struct(&png, &info);
        if (!ok)
            throw Error(ErrorCode::InvalidInput, "cannot encode a " + std::to_string(rgb.cols) +
                                                     "x" + std::to_string(rgb.rows) +
                                                     " frame as PNG: " + sink.error);
        return std::move(sink.bytes);
    }
    cv::Mat bgr;
    if (rgb.channels() == 3)
        cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    else
        bgr = rgb;
    return encodeImage(".png", bgr, {cv::IMWRITE_PNG_COMPRESSION, 3});
}

std::vector<std::uint8_t> encodeJudgeFramePng(const cv::Mat &rgb)
{
    // The engine's encoding of rollout frames: a judged frame is then the very object already
    // stored for the rollout, kept once.
    try {
        return encodeFramePng(rgb);
    } catch (const Error &e) {
        if (e.code() != ErrorCode::InvalidInput)
            throw; // the codecs could not be loaded: that reason, as it is
        throw Error(ErrorCode::InvalidInput, "a judge frame could not be encoded as PNG");
    }
}

} // namespace kosmos
