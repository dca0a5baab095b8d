#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kosmos {

struct LabelledComponent
{
    std::string adapterId;
    nlohmann::json config; // the component's settings (null or an object)
};

// Short labels that tell components apart (the runs table's policy column): a model package's
// folder name first whenever the settings name one ("bc-expert-full (torch.generic_policy)");
// the adapter id alone when no other component has it; else the settings that differ among the
// components of that adapter, as key=value (nested keys dotted, long values cut to 24 characters),
// first - a narrow column cuts the end - then the adapter id in parentheses; components of equal
// settings get " #1", " #2" in the given order. One label per input, in order.
std::vector<std::string> distinguishingLabels(const std::vector<LabelledComponent> &components);

// An identity written as "ADAPTER SETTINGS-JSON" (a component label) read back: the settings
// within bounds (depth 16, 64 KiB); null without settings, the text itself when it is not such
// JSON (or too deep, too large).
LabelledComponent labelledComponentOf(const std::string &text);

// The same for identities written as "ADAPTER SETTINGS-JSON" (how the runs table and the ranking
// name a policy): the settings are read within bounds (depth 16, 64 KiB); settings that are not
// such JSON count as one opaque value.
std::vector<std::string> labelsOfIdentityTexts(const std::vector<std::string> &texts);

} // namespace kosmos
