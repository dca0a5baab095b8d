#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kosmos::json {

// Reading fields of a JSON document with errors that name the field. `where` is a path such as
// "protocol.tasks[2]"; each function throws Error(InvalidInput) with "<where>.<key>: <problem>".

const nlohmann::json &require(const nlohmann::json &object, const std::string &key,
                              const std::string &where);
std::string requireString(const nlohmann::json &object, const std::string &key,
                          const std::string &where);
double requireNumber(const nlohmann::json &object, const std::string &key,
                     const std::string &where);
std::int64_t requireInt(const nlohmann::json &object, const std::string &key,
                        const std::string &where, std::int64_t min, std::int64_t max);
const nlohmann::json &requireArray(const nlohmann::json &object, const std::string &key,
                                   const std::string &where);
const nlohmann::json &requireObject(const nlohmann::json &object, const std::string &key,
                                    const std::string &where);

std::optional<std::string> optString(const nlohmann::json &object, const std::string &key,
                                     const std::string &where);
std::optional<double> optNumber(const nlohmann::json &object, const std::string &key,
                                const std::string &where);
std::optional<std::int64_t> optInt(const nlohmann::json &object, const std::string &key,
                                   const std::string &where, std::int64_t min, std::int64_t max);

[[noreturn]] void fail(const std::string &where, const std::string &problem);

} // namespace kosmos::json
