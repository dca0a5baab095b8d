#pragma once

#include "contracts/ContractCheck.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kosmos {

// One action: a row of numbers. A chunk: consecutive actions, oldest first.
using Action = std::vector<double>;
using ActionChunk = std::vector<Action>;

// How a gripper value is read. Bridge data: 0 = closed, 1 = open.
enum class GripperConvention
{
    ZeroClosedOneOpen,         // continuous in [0, 1], 0 closed (Bridge / OpenVLA)
    ZeroOpenOneClosed,         // continuous in [0, 1], 1 closed
    MinusOneClosedPlusOneOpen, // continuous in [-1, 1] (open-pi-zero's Bridge mapping 2(a>0.5)-1)
};

// How a policy's outputs map to physical actions (domain.md section 1).
enum class NormalizationScheme
{
    None,      // actions are physical already
    BoundsQ99, // OpenVLA: a -> 0.5 (a + 1)(q99 - q01) + q01 where mask; keys q01, q99
    Bounds,    // Octo BOUNDS / open-pi-zero: same formula with keys p01, p99
    Normal,    // Octo NORMAL, SuSIE: a -> a * std + mean where mask; keys mean, std
    Quantile,  // openpi: a -> (a + 1)(q99 - q01 + 1e-6) / 2 + q01; keys q01, q99; no mask
};

std::string gripperConventionName(GripperConvention convention);
std::string normalizationSchemeName(NormalizationScheme scheme);
// The statistics keys a scheme needs, e.g. {"q01", "q99"}.
std::vector<std::string> expectedStatisticsKeys(NormalizationScheme scheme);

struct ActionDimension
{
    std::string name; // "dx", "droll", "gripper" ...
    std::string unit; // "m", "rad", "1" ...
    double min = 0;   // physical bounds of one action value
    double max = 0;
};

struct NormalizationStatistics
{
    std::map<std::string, std::vector<double>> values; // "q01" -> per-dimension values
    std::vector<bool> mask; // true: this dimension is (un)normalized; empty: all dimensions
};

// What a policy emits and what a world model accepts, with its units and limits.
struct ActionContract
{
    std::vector<ActionDimension> dimensions;
    int chunkLength = 1;             // actions per policy call
    std::optional<int> gripperIndex; // which dimension is the gripper, if any
    GripperConvention gripper = GripperConvention::ZeroClosedOneOpen;
    NormalizationScheme normalization = NormalizationScheme::None;
    NormalizationStatistics statistics;
    double controlRateHz = 5.0;

    int dimension() const { return static_cast<int>(dimensions.size()); }

    // Checks the contract itself: statistics keys and dimensions, the mask, the gripper index.
    ContractCheck checkSelf() const;
    // Checks one chunk of physical actions: dimension, finite values, bounds, gripper
    // convention, chunk length (when expectChunkLength).
    ContractCheck checkChunk(const ActionChunk &chunk, bool expectChunkLength = true) const;
    // Normalized model output -> physical action, per the scheme (checkSelf() must pass).
    Action unnormalize(const Action &normalized) const;
    Action normalize(const Action &physical) const;

    nlohmann::json toJson() const;
    // Throws Error(InvalidInput) naming the field (prefixed with `where`).
    static ActionContract fromJson(const nlohmann::json &json, const std::string &where);

private:
    Action convert(const Action &in, bool toPhysical) const;

public:
    // The 7-D Bridge end-effector contract: dx dy dz (m), droll dpitch dyaw (rad), gripper
    // (0 closed, 1 open), 5 Hz.
    static ActionContract bridgeEndEffector();
};

} // namespace kosmos
