#include "synthetic/FrameJudgePlugin.h"

#include "synthetic/FrameJudge.h"

namespace kosmos::synthetic {

Availability FrameJudgePlugin::availability(const nlohmann::json &settings) const
{
    const double noise = settings.value("format_noise", 0.1);
    if (noise < 0 || noise > 1)
        return Availability::no("settings.format_noise must be from 0 to 1");
    return Availability::yes();
}

std::unique_ptr<Judge> FrameJudgePlugin::createJudge(const nlohmann::json &settings)
{
    return std::make_unique<FrameJudge>(settings.value("format_noise", 0.1));
}

} // namespace kosmos::synthetic
