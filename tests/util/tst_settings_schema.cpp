#include "util/SettingsSchema.h"

#include <gtest/gtest.h>

using namespace kosmos;

namespace {

const nlohmann::json kSchema = nlohmann::json::parse(R"({
  "type": "object", "additionalProperties": false, "required": ["base_url"],
  "properties": {
    "base_url": {"type": "string", "minLength": 1},
    "skill": {"enum": ["expert", "noisy"]},
    "samples": {"type": "integer", "minimum": 1, "maximum": 16},
    "temperature": {"type": "number", "minimum": 0},
    "stop": {"type": "array", "items": {"type": "string"}},
    "quorum": {"type": "object", "properties": {"votes": {"type": "integer"}}}
  }})");

} // namespace

TEST(SettingsSchema, FittingSettingsHaveNoProblems)
{
    EXPECT_TRUE(checkSettings(kSchema, {{"base_url", "http://x"},
                                        {"skill", "noisy"},
                                        {"samples", 5},
                                        {"temperature", 0.7},
                                        {"stop", {"a", "b"}},
                                        {"quorum", {{"votes", 3}}}})
                    .empty());
    EXPECT_TRUE(checkSettings(nlohmann::json::object(), {{"anything", 1}}).empty())
        << "an empty schema constrains nothing";
    EXPECT_TRUE(checkSettings(kSchema, {{"base_url", "x"}, {"samples", 4.0}}).empty())
        << "4.0 is an integer";
}

TEST(SettingsSchema, EachProblemNamesItsField)
{
    const auto problems = checkSettings(kSchema, {{"skill", "wizard"},
                                                  {"samples", 0},
                                                  {"temperature", "hot"},
                                                  {"stop", {"a", 2}},
                                                  {"quorum", {{"votes", 2.5}}},
                                                  {"colour", "red"}});
    std::map<std::string, std::string> byField;
    for (const auto &p : problems)
        byField[p.field] = p.message;
    EXPECT_EQ(byField.at("base_url"), "is required");
    EXPECT_NE(byField.at("skill").find("one of"), std::string::npos);
    EXPECT_EQ(byField.at("samples"), "must be at least 1, not 0");
    EXPECT_NE(byField.at("temperature").find("must be number"), std::string::npos);
    EXPECT_NE(byField.at("stop[1]").find("must be string"), std::string::npos);
    EXPECT_NE(byField.at("quorum.votes").find("must be integer"), std::string::npos);
    EXPECT_NE(byField.at("colour").find("not a setting of this plugin"), std::string::npos);
    EXPECT_EQ(problems.size(), 7u);
    EXPECT_NE(describeProblems(problems).find("samples: must be at least 1"), std::string::npos);
    EXPECT_EQ(checkSettings(kSchema, "text")[0].message, "must be object, not \"text\"");
}

#include "util/ProcessStats.h"

#include <unistd.h>

TEST(ProcessStats, SamplesThisProcessAndNotAMissingOne)
{
    const auto before = sampleProcess(::getpid());
    ASSERT_TRUE(before);
    EXPECT_GT(before->rssBytes, 1 << 20);
    volatile double x = 0;
    for (int i = 0; i < 20'000'000; ++i)
        x = x + i * 1e-9; // burn some CPU
    const auto after = sampleProcess(::getpid());
    ASSERT_TRUE(after);
    EXPECT_GE(after->cpuSeconds, before->cpuSeconds);
    EXPECT_GE(cpuPercent(*before, *after), 0.0);
    EXPECT_FALSE(sampleProcess(999'999'999));
}
