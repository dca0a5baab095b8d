#include "openai/OpenAiJudgePlugin.h"

#include "openai/OpenAiJudge.h"

namespace kosmos::openai {

Availability OpenAiJudgePlugin::availability(const nlohmann::json &settings) const
{
    return checkAvailability(settings, settings.value("probe", true));
}

std::unique_ptr<Judge> OpenAiJudgePlugin::createJudge(const nlohmann::json &settings)
{
    return std::make_unique<OpenAiJudge>(JudgeSettings::fromJson(settings));
}

} // namespace kosmos::openai
