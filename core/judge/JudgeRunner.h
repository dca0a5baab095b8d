#pragma once

#include "components/Components.h"
#include "judge/JudgeSchema.h"
#include "ledger/LedgerTypes.h"

#include <functional>
#include <string>
#include <vector>

namespace kosmos {

// Asks a judge for its frozen number of samples over a rollout and combines them: 16 frames
// (selectJudgeFrames), the blinded prompt (renderPrompt; forbiddenNames are this run's plugin
// ids), one format-only retry per sample, the quorum rule. Returns the complete record to
// store: every raw answer (both tries), the frame indices, the settings, the prompt hash and
// the outcome. `checkCancel` is called before each sample and may throw to stop.
// Throws PromptNotBlinded when the prompt would leak, Error(InvalidInput) when there are fewer
// than 16 frames.
JudgmentRecord runJudge(Judge &judge, const std::vector<cv::Mat> &frames, const std::string &taskId,
                        const std::string &instruction, const QuorumSettings &settings,
                        const std::vector<std::string> &forbiddenNames,
                        const std::function<void()> &checkCancel = {});

} // namespace kosmos
