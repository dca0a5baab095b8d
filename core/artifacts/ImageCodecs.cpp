#include "artifacts/ImageCodecs.h"

#include "util/Error.h"

#include <opencv2/imgcodecs.hpp> // the IMWRITE_ flags only: the codecs load lazily
#include <opencv2/imgproc.hpp>

#include <dlfcn.h>

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

std::vector<std::uint8_t> encodeFramePng(const cv::Mat &rgb)
{
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
