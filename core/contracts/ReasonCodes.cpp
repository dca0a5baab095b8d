#include "contracts/ReasonCodes.h"

namespace kosmos {

std::string_view reasonName(Reason reason)
{
    switch (reason) {
    case Reason::ActionDimensionMismatch:
        return "action_dimension_mismatch";
    case Reason::ActionNonFinite:
        return "action_non_finite";
    case Reason::ActionOutOfBounds:
        return "action_out_of_bounds";
    case Reason::GripperOutOfConvention:
        return "gripper_out_of_convention";
    case Reason::ChunkLengthMismatch:
        return "chunk_length_mismatch";
    case Reason::NormalizationKeysMismatch:
        return "normalization_keys_mismatch";
    case Reason::NormalizationDimensionMismatch:
        return "normalization_dimension_mismatch";
    case Reason::GripperMaskMissing:
        return "gripper_mask_missing";
    case Reason::FrameCountMismatch:
        return "frame_count_mismatch";
    case Reason::FrameSizeMismatch:
        return "frame_size_mismatch";
    case Reason::FrameChannelMismatch:
        return "frame_channel_mismatch";
    case Reason::FrameDtypeMismatch:
        return "frame_dtype_mismatch";
    case Reason::FrameOrderInvalid:
        return "frame_order_invalid";
    case Reason::FrameUndecodable:
        return "frame_undecodable";
    case Reason::FrameNonFinite:
        return "frame_non_finite";
    case Reason::ChunkLengthUncertified:
        return "chunk_length_uncertified";
    case Reason::PaddingRuleMissing:
        return "padding_rule_missing";
    case Reason::ConversionDimensionMismatch:
        return "conversion_dimension_mismatch";
    case Reason::FrameBlack:
        return "frame_black";
    case Reason::FrameConstant:
        return "frame_constant";
    case Reason::FrozenSequence:
        return "frozen_sequence";
    case Reason::FrameDiscontinuity:
        return "frame_discontinuity";
    case Reason::MotionMismatch:
        return "motion_mismatch";
    case Reason::NotEnoughFrames:
        return "not_enough_frames";
    }
    return "unknown_reason";
}

std::vector<std::string> reasonNames(const std::vector<Reason> &reasons)
{
    std::vector<std::string> out;
    out.reserve(reasons.size());
    for (Reason r : reasons)
        out.emplace_back(reasonName(r));
    return out;
}

} // namespace kosmos
