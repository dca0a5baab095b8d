#pragma once

#include "api/KosmosPlugin.h"

#include <QObject>

namespace kosmos::replay {

class ReplayJudgePlugin : public QObject, public JudgePlugin
{
    Q_OBJECT
    Q_PLUGIN_METADATA(IID KOSMOS_JUDGE_PLUGIN_IID FILE "replay_judge.json")
    Q_INTERFACES(kosmos::JudgePlugin)
public:
    Availability availability(const nlohmann::json &settings) const override;
    std::unique_ptr<Judge> createJudge(const nlohmann::json &settings) override;
};

} // namespace kosmos::replay
