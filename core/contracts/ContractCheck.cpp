#include "contracts/ContractCheck.h"

namespace kosmos {

std::string ContractCheck::summary(std::size_t limit) const
{
    std::string out;
    for (std::size_t i = 0; i < violations.size() && i < limit; ++i) {
        if (!out.empty())
            out += "; ";
        out += std::string(reasonName(violations[i].reason)) + ": " + violations[i].detail;
    }
    if (violations.size() > limit)
        out += "; ... and " + std::to_string(violations.size() - limit) + " more";
    return out;
}

nlohmann::json ContractCheck::toJson() const
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto &v : violations)
        out.push_back({{"reason", reasonName(v.reason)}, {"detail", v.detail}});
    return out;
}

} // namespace kosmos
