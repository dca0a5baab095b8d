#include "queries/ComponentLabels.h"

#include "util/BoundedJson.h"

#include <map>
#include <set>

namespace kosmos {
namespace {

void flatten(const nlohmann::json &value, const std::string &prefix,
             std::map<std::string, std::string> &out)
{
    if (value.is_object() && !value.empty()) {
        for (const auto &[key, child] : value.items())
            flatten(child, prefix.empty() ? key : prefix + "." + key, out);
        return;
    }
    if (prefix.empty() && value.is_null())
        return;
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    // A model package is named by its folder (".../models/bc-expert-full" -> "bc-expert-full").
    if (prefix == "package" && value.is_string()) {
        while (text.size() > 1 && text.back() == '/')
            text.pop_back();
        if (const auto slash = text.rfind('/');
            slash != std::string::npos && slash + 1 < text.size())
            text = text.substr(slash + 1);
    }
    if (text.size() > 24)
        text = text.substr(0, 23) + "\u2026";
    out[prefix.empty() ? "config" : prefix] = text;
}

} // namespace

std::vector<std::string> distinguishingLabels(const std::vector<LabelledComponent> &components)
{
    std::vector<std::map<std::string, std::string>> flat(components.size());
    std::map<std::string, std::vector<std::size_t>> byAdapter;
    for (std::size_t i = 0; i < components.size(); ++i) {
        flatten(components[i].config, "", flat[i]);
        byAdapter[components[i].adapterId].push_back(i);
    }
    std::vector<std::string> labels(components.size());
    for (const auto &[adapter, members] : byAdapter) {
        // The keys whose values are not the same in every member (a key one lacks differs too).
        std::set<std::string> keys;
        for (std::size_t i : members)
            for (const auto &[k, v] : flat[i])
                keys.insert(k);
        std::vector<std::string> differing;
        for (const auto &k : keys) {
            const auto first = flat[members.front()].find(k);
            for (std::size_t i : members) {
                const auto it = flat[i].find(k);
                if ((it == flat[i].end()) != (first == flat[members.front()].end()) ||
                    (it != flat[i].end() && it->second != first->second)) {
                    differing.push_back(k);
                    break;
                }
            }
        }
        std::map<std::string, int> seen;
        for (std::size_t i : members) {
            // The model package it runs, always (the adapter alone says nothing of the model);
            // then what differs (a narrow column cuts the end), then the adapter.
            std::string label;
            if (const auto package = flat[i].find("package"); package != flat[i].end())
                label = package->second;
            for (const auto &k : differing) {
                if (k == "package")
                    continue; // said first
                const auto it = flat[i].find(k);
                label +=
                    (label.empty() ? "" : " ") + k + "=" + (it == flat[i].end() ? "-" : it->second);
            }
            labels[i] = label.empty() ? adapter : label + " (" + adapter + ")";
            ++seen[labels[i]];
        }
        std::map<std::string, int> numbered;
        for (std::size_t i : members)
            if (seen[labels[i]] > 1)
                labels[i] += " #" + std::to_string(++numbered[labels[i]]);
    }
    return labels;
}

LabelledComponent labelledComponentOf(const std::string &text)
{
    const auto space = text.find(' ');
    const std::string settings = space == std::string::npos ? "" : text.substr(space + 1);
    nlohmann::json config;
    if (!settings.empty()) {
        try {
            config = json::parseBounded(settings, "settings", {16, 64u << 10, false});
        } catch (const std::exception &) {
            config = settings; // not JSON (or too deep, too large): one opaque value
        }
    }
    return {text.substr(0, space), std::move(config)};
}

std::vector<std::string> labelsOfIdentityTexts(const std::vector<std::string> &texts)
{
    std::vector<LabelledComponent> components;
    components.reserve(texts.size());
    for (const std::string &text : texts)
        components.push_back(labelledComponentOf(text));
    return distinguishingLabels(components);
}

} // namespace kosmos
