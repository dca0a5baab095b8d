#include "artifacts/StartFrame.h"

#include "artifacts/ImageCodecs.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace kosmos {

namespace {
constexpr std::uintmax_t kMaxStartFrameBytes = std::uintmax_t{256} << 20;
} // namespace

cv::Mat startFrameFromState(const nlohmann::json &s, const std::string &who)
{
    if (!s.is_object() || !s.contains("frame") || !s["frame"].is_string() ||
        !s.contains("frame_sha256") || !s["frame_sha256"].is_string())
        throw Error(ErrorCode::InvalidInput,
                    who + " needs a start frame: the task's start_state must name \"frame\" (an "
                          "image file) and \"frame_sha256\"");
    const std::string path = s["frame"].get<std::string>();
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec)
        throw Error(ErrorCode::InvalidInput, "start_state.frame " + path + " cannot be read");
    if (size > kMaxStartFrameBytes)
        throw Error(ErrorCode::InvalidInput, "start_state.frame " + path + " holds " +
                                                 std::to_string(size) +
                                                 " bytes; a start frame is at most 256 MiB");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(ErrorCode::InvalidInput, "start_state.frame " + path + " cannot be read");
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    const std::string actual = Sha256::hex(bytes);
    const std::string expected = s["frame_sha256"].get<std::string>();
    if (actual != expected)
        throw Error(ErrorCode::Corrupt, "start_state.frame " + path +
                                            ": SHA-256 mismatch (the protocol says " +
                                            expected.substr(0, 16) + "..., the file has " +
                                            actual.substr(0, 16) + "...)");
    const cv::Mat bgr = decodeImage(bytes, cv::IMREAD_COLOR);
    if (bgr.empty())
        throw Error(ErrorCode::InvalidInput, "start_state.frame " + path + " is not an image");
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    return rgb;
}

} // namespace kosmos
