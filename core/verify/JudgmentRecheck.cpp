#include "verify/JudgmentRecheck.h"

#include "judge/JudgeSchema.h"
#include "ledger/Ledger.h"
#include "ledger/LedgerSql.h"
#include "util/CanonicalJson.h"
#include "util/Error.h"

#include <map>

namespace kosmos {

std::vector<RecheckProblem> recheckJudgments(Ledger &ledger, std::int64_t *checked)
{
    std::vector<RecheckProblem> problems;
    auto &db = LedgerSql::of(ledger);
    sqlite::Statement judgments(
        db, "SELECT judgment_id, settings_json, outcome, unknown_reason, progress, "
            "decisive_votes FROM judgments ORDER BY judgment_id");
    sqlite::Statement samples(
        db, "SELECT sample_index, try_index, raw_text, format_class, parsed_json, answer_form "
            "FROM judge_samples WHERE judgment_id = ? ORDER BY sample_index, try_index");
    std::int64_t count = 0;
    while (judgments.step()) {
        ++count;
        const std::int64_t id = judgments.int64(0);
        auto problem = [&](const std::string &message) { problems.push_back({id, message}); };
        QuorumSettings settings;
        try {
            settings =
                QuorumSettings::fromJson(nlohmann::json::parse(judgments.text(1)), "settings");
        } catch (const std::exception &e) {
            problem(std::string("stored quorum settings are unreadable: ") + e.what());
            continue;
        }
        samples.reset();
        samples.bind(1, id);
        std::map<int, ParsedAnswer> finals;
        bool formatProblem = false;
        while (samples.step()) {
            const int index = static_cast<int>(samples.int64(0));
            // Rows before schema version 3 have no answer_form and were read under rule 1.
            const auto storedForm = samples.optText(5);
            const ParsedAnswer parsed = parseJudgeAnswer(samples.optText(2), storedForm ? 2 : 1);
            if (storedForm && *storedForm != answerFormName(parsed.form)) {
                problem("sample " + std::to_string(index) + " try " +
                        std::to_string(samples.int64(1)) + " is stored as written " + *storedForm +
                        " but its raw text is " + answerFormName(parsed.form));
                formatProblem = true;
            } else if (formatClassName(parsed.format) != samples.text(3)) {
                problem("sample " + std::to_string(index) + " try " +
                        std::to_string(samples.int64(1)) + " is stored as " + samples.text(3) +
                        " but its raw text parses as " + formatClassName(parsed.format));
                formatProblem = true;
            } else {
                const auto stored = samples.optText(4);
                const std::string again =
                    parsed.value.is_null() ? std::string() : canonicalJson(parsed.value);
                if (stored.value_or("") != again) {
                    problem("sample " + std::to_string(index) +
                            ": the stored parse differs from its raw text");
                    formatProblem = true;
                }
            }
            finals[index] = parsed; // ordered by try: the retry, when there is one, wins
        }
        bool contiguous = static_cast<int>(finals.size()) == settings.samples;
        int expected = 0;
        for (const auto &[index, answer] : finals)
            contiguous = contiguous && index == expected++;
        if (!contiguous) {
            problem("holds samples for " + std::to_string(finals.size()) +
                    " indices; the frozen settings need " + std::to_string(settings.samples) +
                    " numbered 0.." + std::to_string(settings.samples - 1));
            continue;
        }
        if (formatProblem)
            continue;
        std::vector<ParsedAnswer> answers;
        answers.reserve(finals.size());
        for (auto &[index, answer] : finals)
            answers.push_back(answer);
        const QuorumOutcome q = computeQuorum(answers, settings);
        const auto storedReason = judgments.optText(3);
        const auto storedProgress = judgments.optInt64(4);
        const auto storedVotes = judgments.optInt64(5);
        if (q.outcome != judgments.text(2) || q.unknownReason != storedReason ||
            (q.progress ? std::optional<std::int64_t>(*q.progress) : std::nullopt) !=
                storedProgress ||
            (storedVotes && *storedVotes != q.decisiveVotes))
            problem("the stored summary (" + judgments.text(2) +
                    (storedReason ? "/" + *storedReason : "") +
                    ") does not follow from its raw samples (recomputed: " + q.outcome +
                    (q.unknownReason ? "/" + *q.unknownReason : "") + ", " +
                    std::to_string(q.successVotes) + " success and " +
                    std::to_string(q.failureVotes) +
                    " failure votes): a forged or corrupted summary");
    }
    if (checked)
        *checked = count;
    return problems;
}

} // namespace kosmos
