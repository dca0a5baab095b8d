#include "judge/JudgeRunner.h"

#include "judge/JudgePrompt.h"
#include "judge/JudgeRequestRecord.h"

namespace kosmos {

JudgmentRecord runJudge(Judge &judge, const std::vector<cv::Mat> &frames, const std::string &taskId,
                        const std::string &instruction, const QuorumSettings &settings,
                        const std::vector<std::string> &forbiddenNames,
                        const std::function<void()> &checkCancel)
{
    const std::vector<int> indices = selectJudgeFrames(static_cast<int>(frames.size()));
    JudgeRequest request;
    for (int i : indices)
        request.frames.push_back(frames[static_cast<std::size_t>(i)]);
    request.frameIndices = indices;
    request.taskId = taskId;
    request.instruction = instruction;
    request.prompt = renderPrompt(defaultPromptTemplate(), instruction, forbiddenNames);
    request.temperature = settings.temperature;
    request.topP = settings.topP;
    request.maxNewTokens = settings.maxNewTokens;
    for (const cv::Mat &frame : request.frames)
        request.framePngs.push_back(encodeJudgeFramePng(frame));
    const JudgeFrameRefs frameRefs = judgeFrameRefs(request.framePngs);
    request.frameDataUrls = frameRefs.dataUrls;

    JudgmentRecord record;
    record.framePngs = request.framePngs;
    record.settings = settings.toJson();
    record.frameIndices = indices;
    record.promptSha256 = defaultPromptTemplate().sha256;
    std::vector<ParsedAnswer> finals;
    for (int s = 0; s < settings.samples; ++s) {
        if (checkCancel)
            checkCancel();
        ParsedAnswer parsed;
        for (int tryIndex = 0; tryIndex < 2; ++tryIndex) {
            request.sampleIndex = s;
            request.sampleCount = settings.samples;
            request.tryIndex = tryIndex;
            request.seed = settings.seeds[static_cast<std::size_t>(s)];
            JudgeAnswer answer;
            try {
                answer = judge.sample(request);
            } catch (const std::exception &e) {
                answer.rawText.reset();
                answer.error = std::string("the judge adapter threw: ") + e.what();
            }
            const ScreenedAnswer screened = screenJudgeAnswer(answer.rawText);
            parsed = parseJudgeAnswer(screened.rawText);
            JudgeSampleRecord sample;
            sample.sampleIndex = s;
            sample.tryIndex = tryIndex;
            sample.seed = answer.seedUsed ? *answer.seedUsed : request.seed;
            sample.rawText = screened.rawText;
            if (screened.changed)
                record.screenedSamples.push_back("sample " + std::to_string(s) + " try " +
                                                 std::to_string(tryIndex));
            sample.formatClass = formatClassName(parsed.format);
            sample.answerForm = answerFormName(parsed.form);
            if (answer.finishReason && *answer.finishReason == "length" && !parsed.schemaValid())
                parsed.error += " (the answer was cut off at max_new_tokens)";
            if (!parsed.error.empty())
                sample.parseError = answer.rawText
                                        ? parsed.error
                                        : (answer.error.empty() ? parsed.error : answer.error);
            sample.parsed = parsed.value;
            sample.generatedTokens = answer.generatedTokens;
            sample.decodeMs = answer.decodeMs;
            sample.finishReason = answer.finishReason;
            sample.request = makeJudgeRequestRecord(request, frameRefs, answer);
            sample.serverModel = answer.serverModel;
            sample.systemFingerprint = answer.systemFingerprint;
            record.samples.push_back(sample);
            if (parsed.format != FormatClass::Invalid)
                break; // only a format failure earns the one retry
        }
        finals.push_back(parsed);
    }
    const QuorumOutcome q = computeQuorum(finals, settings);
    record.outcome = q.outcome;
    record.unknownReason = q.unknownReason;
    record.progress = q.progress;
    record.decisiveVotes = q.decisiveVotes;
    return record;
}

} // namespace kosmos
