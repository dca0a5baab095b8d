#include "synthetic/TabletopWorldPlugin.h"

#include "synthetic/TabletopWorldModel.h"

namespace kosmos::synthetic {

std::unique_ptr<WorldModel> TabletopWorldPlugin::createWorldModel(const nlohmann::json &)
{
    return std::make_unique<TabletopWorldModel>();
}

} // namespace kosmos::synthetic
