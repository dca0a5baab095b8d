#pragma once

#include "components/Components.h"

#include <map>
#include <string>
#include <tuple>

namespace kosmos::replay {

// The SHA-256 that identifies what a judge was shown: the pixel digests of the 16 frames, in
// order, and the instruction. Replay files key their answers by it.
std::string judgeInputDigest(const JudgeRequest &request);

// Answers from a saved file of raw samples (audits, offline re-judging of imported runs):
//   {"answers": [{"input_sha256": "...", "sample_index": 0, "try_index": 0,
//                 "raw_text": "...", "generated_tokens": 64, "decode_ms": 1589}, ...]}
// A request with no saved answer is a request failure with that reason, never a made-up answer.
class ReplayJudge : public Judge
{
public:
    explicit ReplayJudge(const std::string &file); // throws Error(InvalidInput) naming the entry
    JudgeAnswer sample(const JudgeRequest &request) override;

private:
    std::map<std::tuple<std::string, int, int>, JudgeAnswer> m_answers;
    std::string m_file;
};

} // namespace kosmos::replay
