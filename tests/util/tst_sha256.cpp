#include "util/Error.h"
#include "util/Sha256.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <fstream>

using kosmos::Sha256;

TEST(Sha256, KnownVectors)
{
    // FIPS 180-2 examples.
    EXPECT_EQ(Sha256::hex(std::string_view("")),
              "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(Sha256::hex(std::string_view("abc")),
              "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, IncrementalEqualsOneShot)
{
    Sha256 h;
    h.update("ab");
    h.update("c");
    EXPECT_EQ(h.finalHex(), Sha256::hex(std::string_view("abc")));
}

TEST(Sha256, FileHashAndMissingFile)
{
    kosmos::test::TempDir dir;
    {
        std::ofstream out(dir / "f");
        out << "abc";
    }
    EXPECT_EQ(Sha256::fileHex(dir / "f"), Sha256::hex(std::string_view("abc")));
    EXPECT_THROW(Sha256::fileHex(dir / "missing"), kosmos::Error);
}

TEST(Sha256, HexValidation)
{
    EXPECT_TRUE(Sha256::isValidHex(std::string(64, 'a')));
    EXPECT_FALSE(Sha256::isValidHex(std::string(64, 'A')));
    EXPECT_FALSE(Sha256::isValidHex(std::string(63, 'a')));
    EXPECT_FALSE(Sha256::isValidHex("../" + std::string(61, 'a')));
}
