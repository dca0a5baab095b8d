#pragma once

#include "evaluation/Calibration.h"
#include "evaluation/Fidelity.h"
#include "stats/Ranking.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kosmos {

class Ledger;

// The evaluation record of one frozen protocol: everything a reader needs to weigh its numbers
// (protocol hash, component identities, n, intervals, missing outcomes, judge calibration and
// gate, the paired audit, reference correlations) and a plain statement of what those numbers
// do and do not support. `kosmos-cli report` prints it (text, JSON) or renders it (HTML with
// embedded plots, PDF; ui/report); the workstation exports the same record.

struct EvaluationRecordOptions
{
    std::string protocol;                // name or SHA-256 prefix; empty: the newest protocol
    std::string outcomeSource = "judge"; // judge | synthetic_reference | human
    std::string judgeKey;                // the judge to calibrate; empty: the one that judged
                                         // most of the protocol's rollouts
    CalibrationGate gate;
    std::vector<std::string> auditKeys; // two judge configuration keys, or none
    std::vector<std::pair<std::string, double>> referenceRates; // e.g. real-robot results
    std::string referenceName;                                  // where they came from
    int replicates = 10000;
    std::uint64_t seed = 20261202;
};

struct ComponentUse
{
    std::string family; // policy | world_model | judge
    std::string adapterId;
    std::string adapterVersion;
    std::string identitySha256;
    std::optional<std::string> weightsSha256;
    nlohmann::json config; // identity_json's config, if any
    int runs = 0;
};

struct EvaluationRecord
{
    std::string kosmosVersion;
    std::int64_t generatedAtMs = 0;
    std::string ledgerPath;
    std::string protocolName;
    std::string protocolSha256;
    std::vector<ComponentUse> components;
    std::string outcomeSource;
    int episodes = 0; // rollout runs of the protocol
    ProtocolOutcomes outcomes;
    PolicyRanking ranking;
    int replicates = 0;
    std::uint64_t seed = 0;
    std::vector<CellRate> cells;
    std::string judgeKey; // calibrated judge; empty when nothing was judged
    std::optional<CalibrationReport> humanCalibration;
    std::optional<CalibrationReport> referenceCalibration;
    std::vector<AnnotatorAgreement> annotatorAgreements; // pairs of human annotators, held out
    std::optional<PairedAudit> audit;
    std::optional<ReferenceComparison> reference;
    std::string referenceName;
    // When the ledger holds "<protocol>-imagined" (kosmos-cli fidelity prepare): this physics
    // protocol's policies from the same starts in a learned world model (docs/fidelity.md).
    std::optional<FidelityReport> fidelity;
    std::vector<std::string> supports;       // what the numbers support
    std::vector<std::string> doesNotSupport; // and what they do not
};

// Throws Error(InvalidInput) when the ledger has no protocol with rollouts or no protocol of
// that name, and Error(NotFound) for an unknown judge configuration.
EvaluationRecord buildEvaluationRecord(Ledger &ledger, const EvaluationRecordOptions &options);

nlohmann::json toJson(const Proportion &p);
nlohmann::json toJson(const CalibrationReport &r);
nlohmann::json toJson(const PairedAudit &a);
nlohmann::json toJson(const AnnotatorAgreement &a);
// {"rates": [{policy, success}], "pairs": [{a, b, verdict, bootstrap_difference,
// exact_separated}]}
nlohmann::json toJson(const PolicyRanking &ranking);
nlohmann::json toJson(const ReferenceComparison &comparison);
nlohmann::json toJson(const EvaluationRecord &record);
// The record as plain text (what `kosmos-cli report` prints).
std::string toText(const EvaluationRecord &record);

} // namespace kosmos
