#pragma once

#include "contracts/ReasonCodes.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kosmos {

// One failed rule at a boundary: a named reason and a detail saying where (row, dimension,
// frame index, key) and what was found.
struct Violation
{
    Reason reason;
    std::string detail;
};

// The result of checking something against a contract.
struct ContractCheck
{
    std::vector<Violation> violations;

    bool ok() const { return violations.empty(); }
    void add(Reason reason, std::string detail)
    {
        violations.push_back({reason, std::move(detail)});
    }
    void merge(const ContractCheck &other)
    {
        violations.insert(violations.end(), other.violations.begin(), other.violations.end());
    }
    bool has(Reason reason) const
    {
        for (const auto &v : violations) {
            if (v.reason == reason)
                return true;
        }
        return false;
    }
    // "reason: detail; reason: detail" (at most `limit` entries, then "... and N more").
    std::string summary(std::size_t limit = 5) const;
    nlohmann::json toJson() const;
};

} // namespace kosmos
