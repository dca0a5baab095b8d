#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace kosmos {

class Ledger;

struct VerifyProblem
{
    std::string check; // e.g. "artifact_hash", "attempt_seal", "judge_sample_hash"
    std::string where; // what the problem is about: "artifact 3 (objects/ab/cd...)"
    std::string message;
};

struct VerifyReport
{
    std::vector<VerifyProblem> problems;
    std::vector<std::string> notes; // harmless findings (stale temporaries ...)
    std::int64_t runsChecked = 0;
    std::int64_t attemptsChecked = 0;
    std::int64_t eventsChecked = 0;
    std::int64_t artifactsChecked = 0;
    std::int64_t judgeSamplesChecked = 0;
    std::int64_t judgmentsRechecked = 0;
    bool clean() const { return problems.empty(); }
};

// Called as work proceeds: stage name, items done, items in the stage.
using VerifyProgress =
    std::function<void(std::string_view stage, std::int64_t done, std::int64_t total)>;

// Checks everything a ledger promises: SQLite integrity and foreign keys, the schema's
// immutability triggers, every content hash (protocols, components, run keys, artifacts and
// their pixels, judge samples, attempt seals), event sequences, and that every attempt's
// state agrees with its events and its run's status. Read-only.
VerifyReport verifyLedger(Ledger &ledger, const VerifyProgress &progress = {});

// Object files in objects/ that no artifact row names (a writer killed between storing an object
// and recording it), by hash. Harmless: never visible as artifacts.
std::vector<std::string> strayObjects(Ledger &ledger);

// `kosmos-cli gc`: removes stray objects older than minAgeSeconds (a younger one may belong to a
// writer that is about to record it), checked under the ledger's write lock. Never removes an
// object an artifact row names.
struct StrayRemoval
{
    std::vector<std::string> removed;
    std::vector<std::string> failed;
    int keptYoung = 0;
};
StrayRemoval removeStrayObjects(Ledger &ledger, std::int64_t minAgeSeconds = 600);

} // namespace kosmos
