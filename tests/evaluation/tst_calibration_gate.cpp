// The calibration gate (issue [honest-gate]): a bound passes only when the Wilson 95% interval
// clears it, fails only when the interval lies wholly on the wrong side, and is inconclusive
// otherwise; too few labelled clips of a class is inconclusive; the point-value reading of the
// original system is kept as a secondary line, never the verdict. (Before: the learned judge's
// 12/15 sensitivity and a third seed's 4/5 read PASS; 0/2 read FAIL.)
#include "evaluation/Calibration.h"
#include "stats/Proportion.h"

#include <cmath>

#include <gtest/gtest.h>

using namespace kosmos;

TEST(CalibrationGate, AFigureSaysWhenTheVerdictIsOnlyThePointValues)
{
    const std::string marginalPass = gateFigure(wilson(12, 15), 0.8);
    EXPECT_EQ(marginalPass.rfind(intervalText(wilson(12, 15)), 0), 0u) << marginalPass;
    EXPECT_NE(marginalPass.find("the interval reaches below the bound: a pass on the point value"),
              std::string::npos)
        << marginalPass;
    // 15/15: Wilson's lower bound is 0.796, under 0.8 by a hair.
    EXPECT_NE(gateFigure(wilson(15, 15), 0.8).find("a pass on the point value"), std::string::npos);
    EXPECT_NE(gateFigure(wilson(11, 15), 0.8)
                  .find("the interval reaches the bound: a fail on the "
                        "point value"),
              std::string::npos);
    // Clear either way: the interval text alone.
    EXPECT_EQ(gateFigure(wilson(443, 472), 0.8), intervalText(wilson(443, 472)));
    EXPECT_EQ(gateFigure(wilson(2, 40), 0.8), intervalText(wilson(2, 40)));
    EXPECT_EQ(gateFigure(wilson(0, 0), 0.8), "n = 0 (no rate)");
}

TEST(CalibrationGate, ARateLinePassesOnlyWhenItsIntervalClearsTheBound)
{
    const GateLine pass = rateGateLine("sensitivity >= 0.80", wilson(100, 100), 0.8, "successes");
    EXPECT_EQ(pass.verdict, GateVerdict::Pass);
    EXPECT_TRUE(pass.needed.empty());
    const GateLine fail = rateGateLine("sensitivity >= 0.80", wilson(2, 40), 0.8, "successes");
    EXPECT_EQ(fail.verdict, GateVerdict::Fail);
    EXPECT_FALSE(fail.pointPass);
    // The cases that read PASS before: 4/5 (interval 38-96%), 12/15, 15/15 (lower bound 0.796).
    for (const auto &[k, n] : std::vector<std::pair<int, int>>{{4, 5}, {12, 15}, {15, 15}}) {
        const GateLine line = rateGateLine("s", wilson(k, n), 0.8, "labelled successes");
        EXPECT_EQ(line.verdict, GateVerdict::Inconclusive) << k << "/" << n;
        EXPECT_FALSE(line.needed.empty()) << k << "/" << n;
    }
    EXPECT_TRUE(rateGateLine("s", wilson(4, 5), 0.8, "x").pointPass) << "80% is on the bound";
    EXPECT_NE(rateGateLine("s", wilson(4, 5), 0.8, "x").needed.find("lies on the bound"),
              std::string::npos);
    EXPECT_NE(rateGateLine("s", wilson(0, 0), 0.8, "labelled successes").needed.find("to measure"),
              std::string::npos);
    // How many more: the estimate settles the line at the observed rate, one fewer does not.
    const GateLine more = rateGateLine("s", wilson(13, 15), 0.8, "labelled successes");
    EXPECT_EQ(more.verdict, GateVerdict::Inconclusive);
    const auto at = more.needed.find("about ");
    ASSERT_NE(at, std::string::npos) << more.needed;
    const int extra = std::stoi(more.needed.substr(at + 6));
    const double rate = 13.0 / 15;
    const int total = 15 + extra;
    EXPECT_GE(*wilson(static_cast<int>(std::lround(rate * total)), total).lower, 0.8)
        << more.needed;
    EXPECT_LT(*wilson(static_cast<int>(std::lround(rate * (total - 1))), total - 1).lower, 0.8)
        << more.needed;
    EXPECT_NE(more.needed.find("more labelled successes (at the observed 87%) for the interval to "
                               "clear the bound"),
              std::string::npos)
        << more.needed;
    EXPECT_NE(rateGateLine("s", wilson(7, 10), 0.8, "labelled successes")
                  .needed.find("for the interval to fall below the bound"),
              std::string::npos);
}

TEST(CalibrationGate, TooFewLabelledClipsOfAClassIsInconclusiveNeverAFail)
{
    const GateLine few = countGateLine("labelled successes >= 20", 5, 20, "labelled successes");
    EXPECT_EQ(few.verdict, GateVerdict::Inconclusive);
    EXPECT_EQ(few.needed, "15 more labelled successes");
    EXPECT_EQ(countGateLine("c", 20, 20, "x").verdict, GateVerdict::Pass);
    EXPECT_EQ(countGateLine("c", 19, 20, "x").needed, "1 more x");
}

TEST(CalibrationGate, TheLeniencyLineReadsTheIntervalOfTheOffset)
{
    // No discordant pair: the offset is exactly 0.
    EXPECT_EQ(leniencyGateLine("l", 0, 0, 50, 0.1).verdict, GateVerdict::Pass);
    // 29 lenient and 3 harsh of 487 (the shipped judge against physics): +0.053, and the
    // interval (2 x Wilson(29, 32) - 1) x 32 / 487 = [+0.034, +0.061] (statsmodels' Wilson) lies
    // inside 0.10.
    const GateLine shipped = leniencyGateLine("l", 29, 3, 487, 0.1);
    EXPECT_EQ(shipped.verdict, GateVerdict::Pass) << shipped.figure;
    EXPECT_NE(shipped.figure.find("+0.053 [95% CI +0.034, +0.061] over 487 pairs"),
              std::string::npos)
        << shipped.figure;
    EXPECT_EQ(leniencyGateLine("l", 40, 0, 60, 0.1).verdict, GateVerdict::Fail);
    // 10 lenient and 1 harsh of 100: +0.090 [+0.027, +0.106] reaches across 0.10.
    const GateLine unsure = leniencyGateLine("l", 10, 1, 100, 0.1);
    EXPECT_EQ(unsure.verdict, GateVerdict::Inconclusive) << unsure.figure;
    EXPECT_TRUE(unsure.pointPass);
    EXPECT_NE(unsure.needed.find("more decisive labelled clips"), std::string::npos)
        << unsure.needed;
}

TEST(CalibrationGate, TheGatePassesOnlyWhenEveryLinePasses)
{
    using V = GateVerdict;
    EXPECT_EQ(overallVerdict({V::Pass, V::Pass}), V::Pass);
    EXPECT_EQ(overallVerdict({V::Pass, V::Inconclusive}), V::Inconclusive);
    EXPECT_EQ(overallVerdict({V::Inconclusive, V::Fail, V::Pass}), V::Fail);
    EXPECT_EQ(overallVerdict({}), V::Inconclusive);
    EXPECT_EQ(gateVerdictTitle(V::Inconclusive), "INCONCLUSIVE");
}

namespace {

// A binary agreement of `tp` true positives and so on (judge x label).
BinaryAgreement agreementOf(int tp, int fp, int tn, int fn)
{
    std::vector<std::optional<bool>> judge, label;
    auto add = [&](int count, bool j, bool l) {
        for (int i = 0; i < count; ++i) {
            judge.emplace_back(j);
            label.emplace_back(l);
        }
    };
    add(tp, true, true);
    add(fp, true, false);
    add(tn, false, false);
    add(fn, false, true);
    return binaryAgreement(judge, label);
}

} // namespace

TEST(CalibrationGate, BelowTheMinimumEvidencePerClassTheGateIsInconclusive)
{
    // 30 physics runs with 2 successes, both missed by the judge: read FAIL before (0/2 = 0%
    // [0-66%]). Too few successes to say anything: INCONCLUSIVE, and the line says how many more.
    const GateResult few = evaluateGate(agreementOf(0, 1, 27, 2), CalibrationGate{});
    EXPECT_EQ(few.verdict, GateVerdict::Inconclusive);
    ASSERT_EQ(few.lines.size(), 6u);
    EXPECT_EQ(few.lines[1].needed, "18 more labelled successes");
    EXPECT_EQ(few.lines[3].verdict, GateVerdict::Inconclusive) << few.lines[3].figure;
    EXPECT_NE(few.lines[3].needed.find("fewer than the gate's 20 labelled successes"),
              std::string::npos)
        << few.lines[3].needed;
    EXPECT_FALSE(few.pointValuesPass);
    // A third seed's held-out starts: 4/5 successes found, 89 of 95 failures: read PASS before.
    const GateResult fivePositives = evaluateGate(agreementOf(4, 6, 89, 1), CalibrationGate{});
    EXPECT_EQ(fivePositives.verdict, GateVerdict::Inconclusive);
    EXPECT_TRUE(fivePositives.pointValuesPass) << "the original system's reading, kept aside";
    // Enough of both classes and clear intervals: PASS; a clearly bad judge: FAIL.
    EXPECT_EQ(evaluateGate(agreementOf(95, 2, 97, 1), CalibrationGate{}).verdict,
              GateVerdict::Pass);
    EXPECT_EQ(evaluateGate(agreementOf(5, 40, 60, 35), CalibrationGate{}).verdict,
              GateVerdict::Fail);
    // The minimums are the gate's configuration, recorded with it.
    CalibrationGate lenient;
    lenient.minSuccesses = 2;
    EXPECT_EQ(evaluateGate(agreementOf(0, 1, 27, 2), lenient).verdict, GateVerdict::Fail);
    EXPECT_EQ(lenient.toJson()["min_labelled_successes"], 2);
}
