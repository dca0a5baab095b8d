#include "util/CanonicalJson.h"

#include "util/Error.h"
#include "util/Sha256.h"

#include <cmath>

namespace kosmos {
namespace {

nlohmann::json normalized(const nlohmann::json &value, const std::string &pointer)
{
    switch (value.type()) {
    case nlohmann::json::value_t::object: {
        nlohmann::json out = nlohmann::json::object();
        for (const auto &[key, item] : value.items())
            out[key] = normalized(item, pointer + "/" + key);
        return out;
    }
    case nlohmann::json::value_t::array: {
        nlohmann::json out = nlohmann::json::array();
        std::size_t index = 0;
        for (const auto &item : value)
            out.push_back(normalized(item, pointer + "/" + std::to_string(index++)));
        return out;
    }
    case nlohmann::json::value_t::number_float: {
        const double v = value.get<double>();
        if (!std::isfinite(v))
            throw Error(ErrorCode::InvalidInput,
                        "canonical JSON: non-finite number at " +
                            (pointer.empty() ? std::string("/") : pointer));
        constexpr double kExactIntegerLimit = 9007199254740992.0; // 2^53
        if (std::trunc(v) == v && std::fabs(v) < kExactIntegerLimit)
            return nlohmann::json(static_cast<std::int64_t>(v));
        return value;
    }
    default:
        return value;
    }
}

} // namespace

std::string canonicalJson(const nlohmann::json &value)
{
    try {
        return normalized(value, "").dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    } catch (const nlohmann::json::exception &e) {
        throw Error(ErrorCode::InvalidInput, std::string("canonical JSON: ") + e.what());
    }
}

std::string canonicalHash(const nlohmann::json &value)
{
    return Sha256::hex(canonicalJson(value));
}

} // namespace kosmos
