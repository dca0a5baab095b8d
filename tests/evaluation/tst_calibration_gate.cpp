// The calibration gate's figures: the verdict reads the point value; where the 95% interval
// reaches across the bound, the figure says so (the learned judge's 12/15 sensitivity against
// physics: a pass at 80% with an interval from 55%).
#include "evaluation/Calibration.h"
#include "stats/Proportion.h"

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
