#include "util/CanonicalJson.h"
#include "util/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using kosmos::canonicalHash;
using kosmos::canonicalJson;
using nlohmann::json;

TEST(CanonicalJson, SortsKeysAndDropsWhitespace)
{
    const json a = json::parse(R"({ "b": 1, "a": {"z": [1, 2], "y": null} })");
    EXPECT_EQ(canonicalJson(a), R"({"a":{"y":null,"z":[1,2]},"b":1})");
}

TEST(CanonicalJson, KeyOrderAndFormattingDoNotChangeTheHash)
{
    const json a = json::parse(R"({"x": 1, "y": [true, "s"]})");
    const json b = json::parse("{\n  \"y\" : [ true , \"s\" ],\n  \"x\":1\n}");
    EXPECT_EQ(canonicalHash(a), canonicalHash(b));
}

TEST(CanonicalJson, IntegralFloatsAreIntegersAndNegativeZeroIsZero)
{
    EXPECT_EQ(canonicalJson(json(1.0)), "1");
    EXPECT_EQ(canonicalJson(json(-0.0)), "0");
    EXPECT_EQ(canonicalJson(json(0.7)), "0.7");
    EXPECT_EQ(canonicalJson(json(1e-5)), "1e-05");
    EXPECT_EQ(canonicalHash(json{{"t", 2.0}}), canonicalHash(json{{"t", 2}}));
}

TEST(CanonicalJson, RefusesNonFiniteNumbersNamingWhere)
{
    const json bad = {{"settings", {{"temperature", std::numeric_limits<double>::quiet_NaN()}}}};
    try {
        canonicalJson(bad);
        FAIL() << "NaN accepted";
    } catch (const kosmos::Error &e) {
        EXPECT_EQ(e.code(), kosmos::ErrorCode::InvalidInput);
        EXPECT_NE(std::string(e.what()).find("/settings/temperature"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(canonicalJson(json::array({std::numeric_limits<double>::infinity()})),
                 kosmos::Error);
}

TEST(CanonicalJson, RefusesInvalidUtf8)
{
    const json bad = std::string("caf\xC3", 4);
    EXPECT_THROW(canonicalJson(bad), kosmos::Error);
}

TEST(CanonicalJson, KeepsUtf8AndEscapesControlCharacters)
{
    EXPECT_EQ(canonicalJson(json("Grüße\n")), "\"Grüße\\n\"");
}

TEST(CanonicalJson, GoldenHashIsStable)
{
    // If this changes, every stored run key changes: bump the canonical JSON version instead.
    const json doc = {{"kosmos_run_key", 1}, {"episode_index", 3}, {"seeds", {{"policy", 7}}}};
    EXPECT_EQ(canonicalJson(doc), R"({"episode_index":3,"kosmos_run_key":1,"seeds":{"policy":7}})");
    EXPECT_EQ(canonicalHash(doc),
              "c25dc43c6dae6c13dcc194e6fca7062f662f9d28fefbe6fb0161584454fd5b24");
}
