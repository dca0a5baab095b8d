#include "judge/JudgeRunner.h"

#include "judge/JudgePrompt.h"
#include "judge/JudgeRequestRecord.h"

#include <algorithm>

namespace kosmos {

namespace {

// One answer per request: the judge's batch (or its sample() for one), an adapter's throw
// recorded as that request's error; a batched call that throws is asked again one at a time.
JudgeAnswer askOne(Judge &judge, const JudgeRequest &request)
{
    try {
        return judge.sample(request);
    } catch (const std::exception &e) {
        JudgeAnswer answer;
        answer.error = std::string("the judge adapter threw: ") + e.what();
        return answer;
    }
}

std::vector<JudgeAnswer> askJudge(Judge &judge, const std::vector<JudgeRequest> &requests)
{
    if (requests.size() > 1) {
        try {
            std::vector<JudgeAnswer> answers = judge.sampleBatch(requests);
            if (answers.size() == requests.size())
                return answers;
        } catch (const std::exception &) {
            // asked one at a time below
        }
    }
    std::vector<JudgeAnswer> answers;
    answers.reserve(requests.size());
    for (const JudgeRequest &request : requests)
        answers.push_back(askOne(judge, request));
    return answers;
}

} // namespace

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
    // The samples go to the judge together, at most maxBatch() a call: first every sample's
    // first try, then the second try of those whose answer had no valid format. The records are
    // in the order of one sample at a time (sample, then its tries) whatever the batch.
    const auto requestFor = [&](int s, int tryIndex) {
        JudgeRequest r = request;
        r.sampleIndex = s;
        r.sampleCount = settings.samples;
        r.tryIndex = tryIndex;
        r.seed = settings.seeds[static_cast<std::size_t>(s)];
        return r;
    };
    const auto toRecord = [&](int s, const JudgeRequest &r, const JudgeAnswer &answer,
                              ParsedAnswer &parsed) {
        const ScreenedAnswer screened = screenJudgeAnswer(answer.rawText);
        parsed = parseJudgeAnswer(screened.rawText);
        JudgeSampleRecord sample;
        sample.sampleIndex = s;
        sample.tryIndex = r.tryIndex;
        sample.seed = answer.seedUsed ? *answer.seedUsed : r.seed;
        sample.rawText = screened.rawText;
        if (screened.changed)
            record.screenedSamples.push_back("sample " + std::to_string(s) + " try " +
                                             std::to_string(r.tryIndex));
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
        sample.request = makeJudgeRequestRecord(r, frameRefs, answer);
        sample.serverModel = answer.serverModel;
        sample.systemFingerprint = answer.systemFingerprint;
        return sample;
    };
    const int perCall = std::max(1, judge.maxBatch());
    std::vector<ParsedAnswer> finals;
    for (int first = 0; first < settings.samples; first += perCall) {
        if (checkCancel)
            checkCancel();
        const int last = std::min(settings.samples, first + perCall);
        std::vector<JudgeRequest> tries;
        for (int s = first; s < last; ++s)
            tries.push_back(requestFor(s, 0));
        const std::vector<JudgeAnswer> answers = askJudge(judge, tries);
        std::vector<JudgeSampleRecord> firstTries;
        std::vector<ParsedAnswer> parsed(tries.size());
        std::vector<JudgeRequest> retries;
        for (std::size_t i = 0; i < tries.size(); ++i) {
            const int s = first + static_cast<int>(i);
            firstTries.push_back(toRecord(s, tries[i], answers[i], parsed[i]));
            if (parsed[i].format == FormatClass::Invalid) // only a format failure earns a retry
                retries.push_back(requestFor(s, 1));
        }
        if (!retries.empty() && checkCancel)
            checkCancel();
        const std::vector<JudgeAnswer> retried =
            retries.empty() ? std::vector<JudgeAnswer>() : askJudge(judge, retries);
        std::size_t next = 0;
        for (std::size_t i = 0; i < tries.size(); ++i) {
            const int s = first + static_cast<int>(i);
            record.samples.push_back(firstTries[i]);
            if (next < retries.size() && retries[next].sampleIndex == s) {
                record.samples.push_back(toRecord(s, retries[next], retried[next], parsed[i]));
                ++next;
            }
            finals.push_back(parsed[i]);
        }
    }
    const QuorumOutcome q = computeQuorum(finals, settings);
    record.outcome = q.outcome;
    record.unknownReason = q.unknownReason;
    record.progress = q.progress;
    record.decisiveVotes = q.decisiveVotes;
    return record;
}

} // namespace kosmos
