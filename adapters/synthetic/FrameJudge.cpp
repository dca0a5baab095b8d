#include "synthetic/FrameJudge.h"

#include "synthetic/ScriptedPolicy.h"
#include "synthetic/TabletopScene.h"

#include <opencv2/imgproc.hpp>

#include <chrono>
#include <cmath>
#include <random>

namespace kosmos::synthetic {

JudgeAnswer FrameJudge::sample(const JudgeRequest &request)
{
    const auto start = std::chrono::steady_clock::now();
    // Like a sampled VLM: the answer depends on the seed and on what it is shown.
    const cv::Scalar content = cv::sum(request.frames.back());
    const auto inputDigest = static_cast<std::uint32_t>(
        static_cast<std::uint64_t>(content[0] * 3 + content[1] * 5 + content[2] * 7));
    std::seed_seq seq{static_cast<std::uint32_t>(request.seed),
                      static_cast<std::uint32_t>(request.seed >> 32), inputDigest,
                      static_cast<std::uint32_t>(request.tryIndex)};
    std::mt19937_64 rng(seq);
    std::uniform_real_distribution<double> u(0, 1);
    nlohmann::json j;
    j["collision"] = "none_visible";
    const auto words = parseInstruction(request.instruction);
    const cv::Mat &last = request.frames.back();
    cv::Scalar mean, stddev;
    cv::meanStdDev(last, mean, stddev);
    if (!words) {
        j["integrity"] = "uncertain";
        j["progress"] = nullptr;
        j["completion_evidence"] = "uncertain";
        j["evidence_frame_indices"] = {15};
        j["observable_reasons"] = "the task does not name a block and a square I can find";
    } else if (stddev[0] + stddev[1] + stddev[2] < 6.0) {
        j["integrity"] = "artifact";
        j["progress"] = nullptr;
        j["completion_evidence"] = "uncertain";
        j["evidence_frame_indices"] = {15};
        j["observable_reasons"] = "the final frame is blank";
    } else {
        j["integrity"] = "intact";
        const auto blockNow = findColour(last, *colourOf(words->block), 40, 30);
        const auto blockStart = findColour(request.frames.front(), *colourOf(words->block), 40, 30);
        const auto target = findColour(request.frames.front(), *colourOf(words->target), 30, 200);
        const int fullBlock = static_cast<int>(std::pow(kBlockSize * kPixelsPerMetre, 2));
        if (!blockNow || !target || blockNow->pixels < fullBlock / 3) {
            j["progress"] = nullptr;
            j["completion_evidence"] = "uncertain";
            j["evidence_frame_indices"] = {14, 15};
            j["observable_reasons"] = "the block is hidden by the gripper in the last frames";
        } else {
            // Each sample draws its own tolerance for the square's edge (+-5 px).
            const double tolerance = (u(rng) - 0.5) * 10.0 / kPixelsPerMetre;
            const cv::Vec2d centre = blockNow->centreM;
            const double left = target->box.x / kPixelsPerMetre - tolerance;
            const double right = (target->box.x + target->box.width) / kPixelsPerMetre + tolerance;
            const double top = target->box.y / kPixelsPerMetre - tolerance;
            const double bottom =
                (target->box.y + target->box.height) / kPixelsPerMetre + tolerance;
            const bool inside =
                centre[0] >= left && centre[0] <= right && centre[1] >= top && centre[1] <= bottom;
            const double moved = blockStart ? std::hypot(centre[0] - blockStart->centreM[0],
                                                         centre[1] - blockStart->centreM[1])
                                            : 0.0;
            const double toTarget =
                std::hypot(centre[0] - target->centreM[0], centre[1] - target->centreM[1]);
            if (inside) {
                j["progress"] = 5;
                j["completion_evidence"] = "met";
                j["observable_reasons"] = "the " + words->block + " block rests inside the " +
                                          words->target + " square in the final frame";
            } else {
                int progress = moved > 0.03 ? (toTarget < 0.08 ? 4 : 2) : (moved > 0.005 ? 1 : 0);
                j["progress"] = progress;
                j["completion_evidence"] = "not_met";
                j["observable_reasons"] =
                    "the " + words->block + " block ends outside the " + words->target + " square";
            }
            j["evidence_frame_indices"] = {0, 15};
        }
    }
    // Format behaviour of a real model: mostly bare JSON, sometimes fenced, rarely prose.
    const double r = u(rng);
    JudgeAnswer answer;
    if (r < m_formatNoise * 0.3)
        answer.rawText = "The robot appears to complete part of the task.";
    else if (r < m_formatNoise)
        answer.rawText = "```json\n" + j.dump(2) + "\n```";
    else
        answer.rawText = j.dump();
    answer.generatedTokens = static_cast<std::int64_t>(answer.rawText->size() / 4);
    answer.decodeMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - start)
                          .count();
    return answer;
}

} // namespace kosmos::synthetic
