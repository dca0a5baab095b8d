#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kosmos {

// Every boundary check in Kosmos fails with one of these named reasons. The names are stored in
// the ledger (validation reason codes, failed attempts' error_code) and never change meaning.
enum class Reason
{
    // Action contract
    ActionDimensionMismatch,        // an action row does not have the contract's dimension
    ActionNonFinite,                // NaN or infinity in an action
    ActionOutOfBounds,              // a value outside the declared bounds of its dimension
    GripperOutOfConvention,         // a gripper value the declared convention does not allow
    ChunkLengthMismatch,            // a policy returned a chunk of another length than declared
    NormalizationKeysMismatch,      // statistics lack the keys the scheme expects (p01 vs q01 ...)
    NormalizationDimensionMismatch, // statistics vectors do not match the action dimension
    GripperMaskMissing,             // a scheme that needs a mask (gripper unnormalized) has none
                                    // Frame contract
    FrameCountMismatch,             // not N+1 frames for N actions (or the declared rule)
    FrameSizeMismatch,              // width/height differ from the contract
    FrameChannelMismatch,           // channel count differs
    FrameDtypeMismatch,             // element type differs (e.g. float where uint8 is declared)
    FrameOrderInvalid,              // timestamps not strictly increasing
    FrameUndecodable,               // a stored frame does not decode
    FrameNonFinite,                 // NaN/inf in a float frame
    ChunkLengthUncertified,         // a chunk length the world model was not certified for
    PaddingRuleMissing,             // terminal padding needed but no padding rule declared
                                    // Conversion
    ConversionDimensionMismatch,    // the conversion does not fit the two contracts
                                    // Validation (deterministic checks of a rollout)
    FrameBlack,                     // a (nearly) black frame
    FrameConstant,                  // a frame with (nearly) no variation
    FrozenSequence,                 // consecutive frames identical while motion was commanded
    FrameDiscontinuity,             // a jump between consecutive frames
    MotionMismatch,                 // commanded motion and observed optical flow disagree
    NotEnoughFrames,                // too few frames to run a check
};

std::string_view reasonName(Reason reason);
std::vector<std::string> reasonNames(const std::vector<Reason> &reasons);

} // namespace kosmos
