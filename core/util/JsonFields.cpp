#include "util/JsonFields.h"

#include "util/Error.h"

#include <cmath>

namespace kosmos::json {

void fail(const std::string &where, const std::string &problem)
{
    throw Error(ErrorCode::InvalidInput, where + ": " + problem);
}

namespace {
std::string path(const std::string &where, const std::string &key)
{
    return where.empty() ? key : where + "." + key;
}
} // namespace

const nlohmann::json &require(const nlohmann::json &object, const std::string &key,
                              const std::string &where)
{
    if (!object.is_object())
        fail(where, "expected a JSON object");
    const auto it = object.find(key);
    if (it == object.end() || it->is_null())
        fail(path(where, key), "missing required field");
    return *it;
}

std::string requireString(const nlohmann::json &object, const std::string &key,
                          const std::string &where)
{
    const auto &v = require(object, key, where);
    if (!v.is_string() || v.get<std::string>().empty())
        fail(path(where, key), "expected a non-empty string");
    return v.get<std::string>();
}

double requireNumber(const nlohmann::json &object, const std::string &key, const std::string &where)
{
    const auto &v = require(object, key, where);
    if (!v.is_number() || !std::isfinite(v.get<double>()))
        fail(path(where, key), "expected a finite number");
    return v.get<double>();
}

std::int64_t requireInt(const nlohmann::json &object, const std::string &key,
                        const std::string &where, std::int64_t min, std::int64_t max)
{
    const auto &v = require(object, key, where);
    if (!v.is_number_integer())
        fail(path(where, key), "expected an integer");
    const auto value = v.get<std::int64_t>();
    if (value < min || value > max)
        fail(path(where, key), "must be from " + std::to_string(min) + " to " +
                                   std::to_string(max) + ", got " + std::to_string(value));
    return value;
}

const nlohmann::json &requireArray(const nlohmann::json &object, const std::string &key,
                                   const std::string &where)
{
    const auto &v = require(object, key, where);
    if (!v.is_array())
        fail(path(where, key), "expected an array");
    return v;
}

const nlohmann::json &requireObject(const nlohmann::json &object, const std::string &key,
                                    const std::string &where)
{
    const auto &v = require(object, key, where);
    if (!v.is_object())
        fail(path(where, key), "expected an object");
    return v;
}

std::optional<std::string> optString(const nlohmann::json &object, const std::string &key,
                                     const std::string &where)
{
    if (!object.contains(key) || object[key].is_null())
        return std::nullopt;
    return requireString(object, key, where);
}

std::optional<double> optNumber(const nlohmann::json &object, const std::string &key,
                                const std::string &where)
{
    if (!object.contains(key) || object[key].is_null())
        return std::nullopt;
    return requireNumber(object, key, where);
}

std::optional<std::int64_t> optInt(const nlohmann::json &object, const std::string &key,
                                   const std::string &where, std::int64_t min, std::int64_t max)
{
    if (!object.contains(key) || object[key].is_null())
        return std::nullopt;
    return requireInt(object, key, where, min, max);
}

} // namespace kosmos::json
