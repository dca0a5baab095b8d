#pragma once

#include "artifacts/ImageCodecs.h" // encodeJudgeFramePng
#include "components/Components.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kosmos {

class ArtifactStore;

// The exact request of one judge call, kept so that a judgment can be replayed byte for byte
// against another endpoint (docs/judge.md "Provenance and replay"). A kosmos.judge_request/1
// document:
//
//   {"schema": "kosmos.judge_request/1",
//    "prompt": "...", "prompt_sha256": "...", "task_id": "...",
//    "frame_indices": [16 ints], "frames_png_sha256": [16 hashes of the PNGs sent],
//    "sample_index", "sample_count", "try_index", "seed", "temperature", "top_p",
//    "max_new_tokens",
//    "wire": null, or {"method": "POST", "url": "...", "body_sha256": "...", "body_bytes": N,
//                      "body_template": the body text exactly as sent, except that each image's
//                          data URL is replaced by "kosmos-artifact:sha256:<hash of its PNG>"}}
//
// The PNGs are stored as artifacts (role judge_frame) and the document itself as one (role
// judge_request); judge_samples.request_sha256 names it.
inline constexpr const char *kJudgeRequestSchema = "kosmos.judge_request/1";
inline constexpr const char *kArtifactRefPrefix = "kosmos-artifact:sha256:";

// What a judgment's frames are called in its request documents: each PNG's SHA-256 and its
// data URL (data:image/png;base64,...), computed once per judgment and shared by every sample's
// document (a judgment sends the same frames 5-10 times).
struct JudgeFrameRefs
{
    std::vector<std::string> sha256;
    std::vector<std::string> dataUrls;
};
JudgeFrameRefs judgeFrameRefs(const std::vector<std::vector<std::uint8_t>> &framePngs);

// The document for one call: the request as the runner built it and, when the adapter sent
// one, its wire request (answer.wireBody: the exact bytes; answer.wireUrl).
nlohmann::json makeJudgeRequestRecord(const JudgeRequest &request, const JudgeFrameRefs &frames,
                                      const JudgeAnswer &answer);

// The exact bytes of the wire request a document describes, rebuilt from the artifact store and
// checked against body_sha256. Throws Error(NotFound) when the document has no wire request or a
// frame is missing from the store, Error(Corrupt) when the rebuilt bytes do not hash as recorded.
std::string rebuildJudgeWireBody(const nlohmann::json &record, const ArtifactStore &store);

} // namespace kosmos
