#include "contracts/ActionContract.h"

#include "util/Error.h"
#include "util/JsonFields.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace kosmos {

namespace {

constexpr double kBoundsTolerance = 1e-9;

std::string fmt(double v)
{
    std::ostringstream ss;
    ss.precision(6);
    ss << v;
    return ss.str();
}

template<typename Enum>
struct Named
{
    Enum value;
    const char *name;
};

constexpr Named<GripperConvention> kConventions[] = {
    {GripperConvention::ZeroClosedOneOpen, "zero_closed_one_open"},
    {GripperConvention::ZeroOpenOneClosed, "zero_open_one_closed"},
    {GripperConvention::MinusOneClosedPlusOneOpen, "minus_one_closed_plus_one_open"},
};
constexpr Named<NormalizationScheme> kSchemes[] = {
    {NormalizationScheme::None, "none"},         {NormalizationScheme::BoundsQ99, "bounds_q99"},
    {NormalizationScheme::Bounds, "bounds"},     {NormalizationScheme::Normal, "normal"},
    {NormalizationScheme::Quantile, "quantile"},
};

template<typename Enum, std::size_t N>
Enum parseNamed(const Named<Enum> (&table)[N], const std::string &text, const std::string &where)
{
    std::string allowed;
    for (const auto &entry : table) {
        if (text == entry.name)
            return entry.value;
        allowed += (allowed.empty() ? "" : ", ") + std::string(entry.name);
    }
    json::fail(where, "unknown value '" + text + "' (allowed: " + allowed + ")");
}

bool schemeUsesMask(NormalizationScheme scheme)
{
    return scheme == NormalizationScheme::BoundsQ99 || scheme == NormalizationScheme::Bounds ||
           scheme == NormalizationScheme::Normal;
}

} // namespace

std::string gripperConventionName(GripperConvention convention)
{
    for (const auto &entry : kConventions) {
        if (entry.value == convention)
            return entry.name;
    }
    return "unknown";
}

std::string normalizationSchemeName(NormalizationScheme scheme)
{
    for (const auto &entry : kSchemes) {
        if (entry.value == scheme)
            return entry.name;
    }
    return "unknown";
}

std::vector<std::string> expectedStatisticsKeys(NormalizationScheme scheme)
{
    switch (scheme) {
    case NormalizationScheme::None:
        return {};
    case NormalizationScheme::BoundsQ99:
    case NormalizationScheme::Quantile:
        return {"q01", "q99"};
    case NormalizationScheme::Bounds:
        return {"p01", "p99"};
    case NormalizationScheme::Normal:
        return {"mean", "std"};
    }
    return {};
}

ContractCheck ActionContract::checkSelf() const
{
    ContractCheck check;
    const int dim = dimension();
    if (dim == 0)
        check.add(Reason::ActionDimensionMismatch, "the contract declares no dimensions");
    for (int i = 0; i < dim; ++i) {
        const auto &d = dimensions[static_cast<std::size_t>(i)];
        if (!(d.min < d.max))
            check.add(Reason::ActionOutOfBounds, "dimension " + std::to_string(i) + " (" + d.name +
                                                     ") has empty bounds [" + fmt(d.min) + ", " +
                                                     fmt(d.max) + "]");
    }
    if (gripperIndex && (*gripperIndex < 0 || *gripperIndex >= dim))
        check.add(Reason::ActionDimensionMismatch, "gripper index " +
                                                       std::to_string(*gripperIndex) +
                                                       " is outside 0.." + std::to_string(dim - 1));
    const auto expected = expectedStatisticsKeys(normalization);
    for (const auto &key : expected) {
        const auto it = statistics.values.find(key);
        if (it == statistics.values.end()) {
            std::string present;
            for (const auto &[k, v] : statistics.values)
                present += (present.empty() ? "" : ", ") + k;
            check.add(Reason::NormalizationKeysMismatch,
                      "scheme " + normalizationSchemeName(normalization) + " expects key '" + key +
                          "', statistics have [" + present + "]");
        } else if (static_cast<int>(it->second.size()) != dim) {
            check.add(Reason::NormalizationDimensionMismatch,
                      "statistics '" + key + "' have " + std::to_string(it->second.size()) +
                          " values for a " + std::to_string(dim) + "-D action");
        }
    }
    if (schemeUsesMask(normalization)) {
        if (!statistics.mask.empty() && static_cast<int>(statistics.mask.size()) != dim)
            check.add(Reason::NormalizationDimensionMismatch,
                      "mask has " + std::to_string(statistics.mask.size()) + " entries for a " +
                          std::to_string(dim) + "-D action");
        if (gripperIndex &&
            (statistics.mask.empty() || (static_cast<int>(statistics.mask.size()) == dim &&
                                         statistics.mask[static_cast<std::size_t>(*gripperIndex)])))
            check.add(Reason::GripperMaskMissing,
                      "scheme " + normalizationSchemeName(normalization) +
                          " needs a mask that leaves the gripper (dimension " +
                          std::to_string(*gripperIndex) + ") unnormalized");
    }
    return check;
}

ContractCheck ActionContract::checkChunk(const ActionChunk &chunk, bool expectChunkLength) const
{
    ContractCheck check;
    if (expectChunkLength && static_cast<int>(chunk.size()) != chunkLength)
        check.add(Reason::ChunkLengthMismatch, "expected " + std::to_string(chunkLength) +
                                                   " actions per chunk, got " +
                                                   std::to_string(chunk.size()));
    const int dim = dimension();
    for (std::size_t row = 0; row < chunk.size(); ++row) {
        const Action &a = chunk[row];
        const std::string at = "action " + std::to_string(row);
        if (static_cast<int>(a.size()) != dim) {
            check.add(Reason::ActionDimensionMismatch, at + " has " + std::to_string(a.size()) +
                                                           " values, the contract " +
                                                           std::to_string(dim));
            continue;
        }
        for (int i = 0; i < dim; ++i) {
            const double v = a[static_cast<std::size_t>(i)];
            const auto &d = dimensions[static_cast<std::size_t>(i)];
            if (!std::isfinite(v)) {
                check.add(Reason::ActionNonFinite, at + " " + d.name + " is " + fmt(v));
                continue;
            }
            if (gripperIndex && i == *gripperIndex) {
                const bool signedConvention =
                    gripper == GripperConvention::MinusOneClosedPlusOneOpen;
                const double lo = signedConvention ? -1.0 : 0.0;
                if (v < lo - kBoundsTolerance || v > 1.0 + kBoundsTolerance)
                    check.add(Reason::GripperOutOfConvention,
                              at + " gripper " + fmt(v) + " is outside [" + fmt(lo) + ", 1] (" +
                                  gripperConventionName(gripper) + ")");
                continue;
            }
            if (v < d.min - kBoundsTolerance || v > d.max + kBoundsTolerance)
                check.add(Reason::ActionOutOfBounds, at + " " + d.name + " = " + fmt(v) +
                                                         " is outside [" + fmt(d.min) + ", " +
                                                         fmt(d.max) + "] " + d.unit);
        }
    }
    return check;
}

Action ActionContract::convert(const Action &in, bool toPhysical) const
{
    Action out = in;
    if (normalization == NormalizationScheme::None)
        return out;
    // Every scheme reads two statistics per dimension: (q01, q99), (p01, p99) or (mean, std).
    const auto keys = expectedStatisticsKeys(normalization);
    const std::vector<double> &first = statistics.values.at(keys[0]);
    const std::vector<double> &second = statistics.values.at(keys[1]);
    for (std::size_t i = 0; i < out.size() && i < dimensions.size(); ++i) {
        const double a = first[i];
        const double b = second[i];
        const double v = in[i];
        const bool masked = statistics.mask.empty() || statistics.mask[i];
        switch (normalization) {
        case NormalizationScheme::None:
            break;
        case NormalizationScheme::BoundsQ99:
        case NormalizationScheme::Bounds:
            if (!masked)
                break;
            // OpenVLA's BOUNDS_Q99: +1e-8 in the denominator, clipped to [-1, 1] when normalizing.
            out[i] = toPhysical ? 0.5 * (v + 1.0) * (b - a) + a
                                : std::clamp(2.0 * (v - a) / (b - a + 1e-8) - 1.0, -1.0, 1.0);
            break;
        case NormalizationScheme::Normal: // a = mean, b = std
            if (masked)
                out[i] = toPhysical ? v * b + a : (v - a) / b;
            break;
        case NormalizationScheme::Quantile: // openpi: +1e-6, no mask
            out[i] = toPhysical ? (v + 1.0) * (b - a + 1e-6) / 2.0 + a
                                : (v - a) / (b - a + 1e-6) * 2.0 - 1.0;
            break;
        }
    }
    return out;
}

Action ActionContract::unnormalize(const Action &normalized) const
{
    return convert(normalized, true);
}

Action ActionContract::normalize(const Action &physical) const
{
    return convert(physical, false);
}

nlohmann::json ActionContract::toJson() const
{
    nlohmann::json dims = nlohmann::json::array();
    for (const auto &d : dimensions)
        dims.push_back({{"name", d.name}, {"unit", d.unit}, {"min", d.min}, {"max", d.max}});
    nlohmann::json stats = nlohmann::json::object();
    for (const auto &[key, values] : statistics.values)
        stats[key] = values;
    nlohmann::json out = {
        {"dimensions", dims},
        {"chunk_length", chunkLength},
        {"gripper_index", gripperIndex ? nlohmann::json(*gripperIndex) : nlohmann::json()},
        {"gripper_convention", gripperConventionName(gripper)},
        {"normalization",
         {{"scheme", normalizationSchemeName(normalization)}, {"statistics", stats}}},
        {"control_rate_hz", controlRateHz},
    };
    if (!statistics.mask.empty())
        out["normalization"]["mask"] = statistics.mask;
    return out;
}

ActionContract ActionContract::fromJson(const nlohmann::json &j, const std::string &where)
{
    ActionContract c;
    const auto &dims = json::requireArray(j, "dimensions", where);
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const std::string at = where + ".dimensions[" + std::to_string(i) + "]";
        ActionDimension d;
        d.name = json::requireString(dims[i], "name", at);
        d.unit = json::requireString(dims[i], "unit", at);
        d.min = json::requireNumber(dims[i], "min", at);
        d.max = json::requireNumber(dims[i], "max", at);
        if (!(d.min < d.max))
            json::fail(at, "min must be below max");
        c.dimensions.push_back(d);
    }
    if (c.dimensions.empty())
        json::fail(where + ".dimensions", "needs at least one dimension");
    c.chunkLength = static_cast<int>(json::requireInt(j, "chunk_length", where, 1, 1024));
    if (auto g = json::optInt(j, "gripper_index", where, 0, c.dimension() - 1))
        c.gripperIndex = static_cast<int>(*g);
    c.gripper = parseNamed(kConventions, json::requireString(j, "gripper_convention", where),
                           where + ".gripper_convention");
    c.controlRateHz = json::requireNumber(j, "control_rate_hz", where);
    if (c.controlRateHz <= 0)
        json::fail(where + ".control_rate_hz", "must be positive");
    if (j.contains("normalization")) {
        const std::string at = where + ".normalization";
        const auto &n = json::requireObject(j, "normalization", where);
        c.normalization =
            parseNamed(kSchemes, json::requireString(n, "scheme", at), at + ".scheme");
        if (n.contains("statistics")) {
            for (const auto &[key, values] : json::requireObject(n, "statistics", at).items()) {
                if (!values.is_array())
                    json::fail(at + ".statistics." + key, "expected an array of numbers");
                for (const auto &v : values) {
                    if (!v.is_number())
                        json::fail(at + ".statistics." + key, "expected an array of numbers");
                    c.statistics.values[key].push_back(v.get<double>());
                }
            }
        }
        if (n.contains("mask")) {
            for (const auto &v : json::requireArray(n, "mask", at)) {
                if (!v.is_boolean())
                    json::fail(at + ".mask", "expected an array of booleans");
                c.statistics.mask.push_back(v.get<bool>());
            }
        }
    }
    return c;
}

ActionContract ActionContract::bridgeEndEffector()
{
    ActionContract c;
    c.dimensions = {
        {"dx", "m", -0.05, 0.05},      {"dy", "m", -0.05, 0.05},       {"dz", "m", -0.05, 0.05},
        {"droll", "rad", -0.25, 0.25}, {"dpitch", "rad", -0.25, 0.25}, {"dyaw", "rad", -0.25, 0.25},
        {"gripper", "1", 0.0, 1.0},
    };
    c.chunkLength = 1;
    c.gripperIndex = 6;
    c.gripper = GripperConvention::ZeroClosedOneOpen;
    c.controlRateHz = 5.0;
    return c;
}

} // namespace kosmos
