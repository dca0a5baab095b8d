#pragma once

#include <QStringList>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace kosmos::ui {

// Help > About's lines on libtorch: the workstation never links it; plugins whose metadata says
// "requires": {"libtorch": true} load it when they run, and the build stamps the version they were
// built against into their metadata as "runtime": {"libtorch": "2.4.1", ...}. `plugins` is each
// found plugin's id and metadata (PluginRegistry), read without loading any.
QStringList libtorchAboutLines(const std::vector<std::pair<std::string, nlohmann::json>> &plugins);

} // namespace kosmos::ui
