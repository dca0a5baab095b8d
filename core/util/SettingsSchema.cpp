#include "util/SettingsSchema.h"

namespace kosmos {

namespace {

bool hasType(const nlohmann::json &value, const std::string &type)
{
    if (type == "object")
        return value.is_object();
    if (type == "array")
        return value.is_array();
    if (type == "string")
        return value.is_string();
    if (type == "boolean")
        return value.is_boolean();
    if (type == "integer")
        return value.is_number_integer() ||
               (value.is_number_float() && value.get<double>() == std::floor(value.get<double>()));
    if (type == "number")
        return value.is_number();
    if (type == "null")
        return value.is_null();
    return true; // an unknown type name constrains nothing
}

void check(const nlohmann::json &schema, const nlohmann::json &value, const std::string &field,
           std::vector<SettingsProblem> &out)
{
    if (!schema.is_object())
        return;
    if (schema.contains("type")) {
        const auto &type = schema["type"];
        bool ok = false;
        std::string names;
        for (const auto &t : type.is_array() ? type : nlohmann::json::array({type})) {
            if (!t.is_string())
                continue;
            ok = ok || hasType(value, t.get<std::string>());
            names += (names.empty() ? "" : " or ") + t.get<std::string>();
        }
        if (!ok) {
            out.push_back({field, "must be " + names + ", not " + value.dump()});
            return;
        }
    }
    if (schema.contains("enum") && schema["enum"].is_array()) {
        bool found = false;
        for (const auto &e : schema["enum"])
            found = found || e == value;
        if (!found)
            out.push_back(
                {field, "must be one of " + schema["enum"].dump() + ", not " + value.dump()});
    }
    if (value.is_number()) {
        const double v = value.get<double>();
        if (schema.contains("minimum") && schema["minimum"].is_number() &&
            v < schema["minimum"].get<double>())
            out.push_back(
                {field, "must be at least " + schema["minimum"].dump() + ", not " + value.dump()});
        if (schema.contains("maximum") && schema["maximum"].is_number() &&
            v > schema["maximum"].get<double>())
            out.push_back(
                {field, "must be at most " + schema["maximum"].dump() + ", not " + value.dump()});
    }
    if (value.is_string() && schema.contains("minLength") &&
        schema["minLength"].is_number_integer() &&
        value.get<std::string>().size() < schema["minLength"].get<std::size_t>())
        out.push_back({field, "must have at least " + schema["minLength"].dump() + " characters"});
    if (value.is_array() && schema.contains("items")) {
        for (std::size_t i = 0; i < value.size(); ++i)
            check(schema["items"], value[i], field + "[" + std::to_string(i) + "]", out);
    }
    if (!value.is_object())
        return;
    const auto join = [&](const std::string &key) {
        return field.empty() ? key : field + "." + key;
    };
    const nlohmann::json properties =
        schema.contains("properties") && schema["properties"].is_object()
            ? schema["properties"]
            : nlohmann::json::object();
    if (schema.contains("required") && schema["required"].is_array()) {
        for (const auto &key : schema["required"])
            if (key.is_string() && !value.contains(key.get<std::string>()))
                out.push_back({join(key.get<std::string>()), "is required"});
    }
    for (const auto &[key, item] : value.items()) {
        if (properties.contains(key))
            check(properties[key], item, join(key), out);
        else if (schema.contains("additionalProperties") && schema["additionalProperties"] == false)
            out.push_back({join(key), "is not a setting of this plugin (known: " + [&] {
                               std::string names;
                               for (const auto &[k, _] : properties.items())
                                   names += (names.empty() ? "" : ", ") + k;
                               return names.empty() ? std::string("none") : names;
                           }() + ")"});
    }
}

} // namespace

std::vector<SettingsProblem> checkSettings(const nlohmann::json &schema,
                                           const nlohmann::json &settings)
{
    std::vector<SettingsProblem> out;
    check(schema, settings, "", out);
    return out;
}

std::string describeProblems(const std::vector<SettingsProblem> &problems)
{
    std::string text;
    for (const auto &p : problems)
        text += (text.empty() ? "" : "; ") + (p.field.empty() ? std::string("settings") : p.field) +
                ": " + p.message;
    return text;
}

} // namespace kosmos
