#include "replay/ReplayJudgePlugin.h"

#include "replay/ReplayJudge.h"

#include <filesystem>

namespace kosmos::replay {

Availability ReplayJudgePlugin::availability(const nlohmann::json &settings) const
{
    if (!settings.contains("file") || !settings["file"].is_string())
        return Availability::no("no replay file (settings.file)");
    if (!std::filesystem::is_regular_file(settings["file"].get<std::string>()))
        return Availability::no("replay file not found: " + settings["file"].get<std::string>());
    return Availability::yes();
}

std::unique_ptr<Judge> ReplayJudgePlugin::createJudge(const nlohmann::json &settings)
{
    return std::make_unique<ReplayJudge>(settings.at("file").get<std::string>());
}

} // namespace kosmos::replay
