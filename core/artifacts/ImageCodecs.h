#pragma once

#include <opencv2/core/mat.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace kosmos {

// OpenCV's image codecs (cv::imdecode, cv::imencode), loaded on first use. Debian's
// libopencv_imgcodecs pulls in GDAL, GDCM and ~140 shared libraries: a program linked with it
// spends ~150 ms in the dynamic loader before main. The ledger and the artifact store need the
// codecs only to hash or read an image, so they load them here, by the soname the build was
// made against, when an image is first decoded or encoded; `kosmos-cli info` or `events` never
// load them. A program that links the codecs itself (the engine, the workstation) gets the
// library it already has. Throws Error(Io) naming the library when it cannot be loaded.
cv::Mat decodeImage(std::span<const std::uint8_t> encoded, int flags);
std::vector<std::uint8_t> encodeImage(const std::string &extension, const cv::Mat &image,
                                      const std::vector<int> &params = {});
// An RGB (or grey) 8-bit frame as PNG bytes (libpng: no row filter, zlib level 1; since
// 2026-12-06, before OpenCV's adaptive filters at level 3): how the engine stores rollout frames
// and how the judge sends them, so a judged frame is the very object already stored. Other
// layouts go through OpenCV's encoder as before.
std::vector<std::uint8_t> encodeFramePng(const cv::Mat &rgb);
// The PNG bytes of a judge frame (RGB in, as every judge adapter sends it): encodeFramePng, so a
// judged frame is the very object already stored for the rollout; a frame that cannot be encoded
// is refused with Error(InvalidInput).
std::vector<std::uint8_t> encodeJudgeFramePng(const cv::Mat &rgb);

} // namespace kosmos
