#pragma once

#include "ledger/LedgerTypes.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace kosmos {

class Ledger;

// Blind human labeling outside the workstation: an annotation packet is a folder with the
// frames of each clip and its task instruction only (no policy, actions, world model, seed or
// judge output; clips in a seeded random order under opaque names), plus an answers template
// in the judge's own fields. The key that maps clips back to runs stays with the exporter
// (<dir>.key.json, never inside the packet). Answers come back hash-bound to the packet.

// The split of a start lineage ("<task>#<episode>"): held_out for a stable, salted hash share
// of lineages, development for the rest. Every run of a lineage gets the same split, so a
// lineage never spans both.
std::string splitOfLineage(const std::string &lineage, double heldOutFraction = 1.0 / 3,
                           const std::string &salt = "kosmos-split-v1");
std::string lineageOfRun(Ledger &ledger, std::int64_t runId);

struct PacketExport
{
    std::filesystem::path directory;
    std::filesystem::path keyFile;
    std::string packetSha256; // of packet.json
    int clips = 0;
};
// Throws Error(InvalidInput) for a run without frames, Error(NotFound) for an unknown run, and
// refuses a directory that exists and is not empty.
PacketExport exportAnnotationPacket(Ledger &ledger, const std::vector<std::int64_t> &runIds,
                                    const std::filesystem::path &directory, std::uint64_t seed);

struct PacketImport
{
    std::string annotator;
    int labels = 0;
    int heldOut = 0;
};
// One answered clip of an answers file, checked against its key: the label (annotator, fields,
// split, "packet <sha>" in notes) and the run key it belongs to (not yet resolved).
struct AnsweredClip
{
    std::string clip;
    std::string runKey;
    HumanLabelRecord label;
};
// Every check that needs no ledger: the packet hash, the annotator, each clip in the key and
// answered once, each field a value of the judge schema. Throws Error(InvalidInput) naming the
// answer and the field. (The fuzz target fuzz_annotation_answers drives it.)
std::vector<AnsweredClip> checkAnswers(const nlohmann::json &answers, const nlohmann::json &key,
                                       const std::string &where);

// Checks everything first (the answers name this packet's hash, every clip is in the key, every
// field is a value of the judge schema, the annotator is named), then records one human label
// per answered clip with its split; nothing is written when anything is wrong.
PacketImport importAnnotationAnswers(Ledger &ledger, const std::filesystem::path &answers,
                                     const std::filesystem::path &keyFile);

} // namespace kosmos
