#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kosmos {

// One way a plugin's settings fail its metadata's settings_schema: the field (a JSON path such
// as "quorum.samples", or "" for the whole object) and what is wrong with it.
struct SettingsProblem
{
    std::string field;
    std::string message;
};

// Checks settings against the JSON-Schema subset that plugin metadata uses: type (object,
// string, number, integer, boolean, array), properties, required, additionalProperties: false,
// enum, minimum, maximum, minLength, items. Anything else in the schema is ignored. Empty
// result: the settings fit.
std::vector<SettingsProblem> checkSettings(const nlohmann::json &schema,
                                           const nlohmann::json &settings);

// "field: message; field: message" for error texts.
std::string describeProblems(const std::vector<SettingsProblem> &problems);

} // namespace kosmos
