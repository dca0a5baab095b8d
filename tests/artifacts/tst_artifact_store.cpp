#include "artifacts/ArtifactStore.h"
#include "artifacts/ImageCodecs.h"
#include "artifacts/PixelDigest.h"
#include "util/Error.h"
#include "util/Sha256.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

using namespace kosmos;
using kosmos::test::TempDir;
namespace fs = std::filesystem;

class ArtifactStoreTest : public ::testing::Test
{
protected:
    void SetUp() override { ArtifactStore::initialize(m_dir / "objects"); }
    ArtifactStore store() { return ArtifactStore(m_dir / "objects"); }
    TempDir m_dir;
};

TEST_F(ArtifactStoreTest, StoresContentUnderItsHashOnce)
{
    auto s = store();
    const auto first = s.putBytes(std::string_view("hello"), "text/plain");
    EXPECT_EQ(first.sha256, Sha256::hex(std::string_view("hello")));
    EXPECT_EQ(first.sizeBytes, 5);
    EXPECT_FALSE(first.alreadyPresent);
    const fs::path path = s.objectPath(first.sha256);
    EXPECT_EQ(path, m_dir / "objects" / first.sha256.substr(0, 2) / first.sha256.substr(2));
    EXPECT_TRUE(fs::is_regular_file(path));

    const auto second = s.putBytes(std::string_view("hello"), "text/plain");
    EXPECT_TRUE(second.alreadyPresent);
    EXPECT_EQ(second.sha256, first.sha256);
    EXPECT_TRUE(s.temporaries().empty()) << "the duplicate's temporary file was not removed";

    const auto bytes = s.read(first.sha256);
    EXPECT_EQ(std::string(bytes.begin(), bytes.end()), "hello");
}

TEST_F(ArtifactStoreTest, PutFileStreamsAndMatchesPutBytes)
{
    const auto data = test::randomBytes(3 * 1024 * 1024 + 17, 5);
    {
        std::ofstream out(m_dir / "big.bin", std::ios::binary);
        out.write(reinterpret_cast<const char *>(data.data()),
                  static_cast<std::streamsize>(data.size()));
    }
    auto s = store();
    const auto fromFile = s.putFile(m_dir / "big.bin", "application/octet-stream");
    EXPECT_EQ(fromFile.sha256, Sha256::hex(data));
    EXPECT_EQ(fromFile.sizeBytes, static_cast<std::int64_t>(data.size()));
    EXPECT_TRUE(s.putBytes(data, "application/octet-stream").alreadyPresent);
    EXPECT_TRUE(s.check(fromFile.sha256, fromFile.sizeBytes, std::nullopt).ok());
}

TEST_F(ArtifactStoreTest, RefusesHashesThatCouldEscapeTheStore)
{
    auto s = store();
    for (const std::string &bad :
         {std::string("../../etc/passwd"), std::string(64, 'g'), std::string(64, 'A'),
          std::string("ab/") + std::string(61, 'a'), std::string(63, 'a'), std::string()}) {
        EXPECT_THROW(s.objectPath(bad), Error) << bad;
        EXPECT_THROW(s.read(bad), Error) << bad;
        EXPECT_FALSE(s.check(bad, 0, std::nullopt).ok()) << bad;
    }
}

TEST_F(ArtifactStoreTest, DoesNotFollowSymlinks)
{
    auto s = store();
    // A file outside the store, and a symlink planted where an object would be.
    const std::string content = "secret outside the store";
    {
        std::ofstream out(m_dir / "outside.txt");
        out << content;
    }
    const std::string sha = Sha256::hex(std::string_view(content));
    fs::create_directories(m_dir / "objects" / sha.substr(0, 2));
    fs::create_symlink(m_dir / "outside.txt", s.objectPath(sha));
    EXPECT_THROW(s.read(sha), Error);
    EXPECT_EQ(s.check(sha, static_cast<std::int64_t>(content.size()), std::nullopt).status,
              ObjectCheck::Status::NotARegularFile);

    // A symlinked prefix directory is refused too.
    const std::string other = Sha256::hex(std::string_view("x"));
    fs::create_directories(m_dir / "elsewhere");
    fs::create_directory_symlink(m_dir / "elsewhere", m_dir / "objects" / other.substr(0, 2));
    EXPECT_THROW(s.putBytes(std::string_view("x"), "text/plain"), Error);
    EXPECT_FALSE(fs::exists(m_dir / "elsewhere" / other.substr(2)));
}

TEST_F(ArtifactStoreTest, DetectsTamperedTruncatedAndMissingObjects)
{
    auto s = store();
    const auto a = s.putBytes(std::string_view("aaaaaaaa"), "text/plain");
    const auto b = s.putBytes(std::string_view("bbbbbbbb"), "text/plain");
    const auto c = s.putBytes(std::string_view("cccccccc"), "text/plain");
    {
        std::fstream f(s.objectPath(a.sha256), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(3);
        f.put('X');
    }
    fs::resize_file(s.objectPath(b.sha256), 4);
    fs::remove(s.objectPath(c.sha256));
    EXPECT_EQ(s.check(a.sha256, 8, std::nullopt).status, ObjectCheck::Status::HashMismatch);
    EXPECT_EQ(s.check(b.sha256, 8, std::nullopt).status, ObjectCheck::Status::SizeMismatch);
    EXPECT_EQ(s.check(c.sha256, 8, std::nullopt).status, ObjectCheck::Status::Missing);
    try {
        s.read(a.sha256);
        FAIL() << "tampered object read without complaint";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::Corrupt);
    }
    try {
        s.read(c.sha256);
        FAIL() << "missing object read without complaint";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::NotFound);
    }
}

TEST_F(ArtifactStoreTest, ImagesCarryAPixelHashThatSurvivesReencoding)
{
    auto s = store();
    const auto png = test::testImage(32, 24, 1, ".png");
    const auto bmp = test::testImage(32, 24, 1, ".bmp");
    const auto otherPng = test::testImage(32, 24, 2, ".png");
    const auto a = s.putBytes(png, "image/png");
    const auto b = s.putBytes(bmp, "image/bmp");
    const auto c = s.putBytes(otherPng, "image/png");
    ASSERT_TRUE(a.pixels && b.pixels && c.pixels);
    EXPECT_NE(a.sha256, b.sha256) << "different encodings, different bytes";
    EXPECT_EQ(a.pixels->sha256, b.pixels->sha256) << "same pixels, same pixel hash";
    EXPECT_NE(a.pixels->sha256, c.pixels->sha256);
    EXPECT_EQ(a.pixels->width, 32);
    EXPECT_EQ(a.pixels->height, 24);
    EXPECT_EQ(a.pixels->channels, 3);

    // The pixel hash equals the hash of the raw RGB pixels.
    cv::Mat bgr = cv::imdecode(png, cv::IMREAD_UNCHANGED);
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    const auto raw = pixelDigestOfRaw(std::span(rgb.data, rgb.total() * rgb.elemSize()), 32, 24, 3);
    EXPECT_EQ(raw.sha256, a.pixels->sha256);

    // A re-encoded file that kept its size but changed a pixel fails the pixel check.
    EXPECT_TRUE(s.check(a.sha256, a.sizeBytes, a.pixels->sha256).ok());
    EXPECT_EQ(s.check(a.sha256, a.sizeBytes, c.pixels->sha256).status,
              ObjectCheck::Status::PixelMismatch);
}

TEST_F(ArtifactStoreTest, RefusesUndecodableImagesBeforeWriting)
{
    auto s = store();
    try {
        s.putBytes(std::string_view("definitely not a png"), "image/png");
        FAIL() << "garbage accepted as image/png";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::InvalidInput);
        EXPECT_NE(std::string(e.what()).find("does not decode"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(s.contains(Sha256::hex(std::string_view("definitely not a png"))));
    EXPECT_THROW(s.putBytes(std::string_view("x"), ""), Error);
}

TEST_F(ArtifactStoreTest, AStoredImageReadsBackAsRgbAndOtherBytesAreNamedNotDecoded)
{
    auto s = store();
    cv::Mat rgb(4, 6, CV_8UC3, cv::Scalar(200, 40, 10)); // R, G, B
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    std::vector<std::uint8_t> png;
    cv::imencode(".png", bgr, png);
    const auto image = s.putBytes(png, "image/png");
    const cv::Mat back = s.readRgb(image.sha256);
    ASSERT_EQ(back.size(), rgb.size());
    EXPECT_EQ(back.at<cv::Vec3b>(2, 3), cv::Vec3b(200, 40, 10));
    const auto text = s.putBytes(std::string_view("not an image"), "text/plain");
    try {
        s.readRgb(text.sha256);
        FAIL() << "decoded text";
    } catch (const Error &e) {
        EXPECT_EQ(e.code(), ErrorCode::Corrupt);
        EXPECT_EQ(std::string(e.what()),
                  "stored object " + text.sha256.substr(0, 16) + "... does not decode as an image");
    }
    EXPECT_THROW(decodeStoredRgb({}, text.sha256), Error);
}

// Rollout frames are written by libpng directly (no row filter, zlib level 1): lossless for RGB and
// grey frames of any size, a view into a larger image included, and read back by OpenCV's decoder
// as every stored frame always was; the pixel digest does not depend on the encoder.
TEST(FramePng, IsLosslessForRgbAndGreyAndReadAsBefore)
{
    cv::Mat big(97, 131, CV_8UC3);
    cv::randu(big, cv::Scalar::all(0), cv::Scalar::all(255));
    const cv::Mat rgb = big(cv::Rect(3, 5, 61, 33)); // not continuous
    const std::vector<std::uint8_t> png = encodeFramePng(rgb);
    ASSERT_GT(png.size(), 8u);
    EXPECT_EQ(std::memcmp(png.data(), "\x89PNG\r\n\x1a\n", 8), 0);
    const cv::Mat bgr = decodeImage(png, cv::IMREAD_UNCHANGED);
    cv::Mat back;
    cv::cvtColor(bgr, back, cv::COLOR_BGR2RGB);
    EXPECT_EQ(cv::norm(back, rgb, cv::NORM_INF), 0);
    // The same pixels through OpenCV's encoder: other bytes, the same pixel digest.
    cv::Mat rgbBgr;
    cv::cvtColor(rgb, rgbBgr, cv::COLOR_RGB2BGR);
    const auto opencv = encodeImage(".png", rgbBgr, {cv::IMWRITE_PNG_COMPRESSION, 3});
    EXPECT_NE(opencv, png);
    EXPECT_EQ(pixelDigestOfEncoded(opencv).sha256, pixelDigestOfEncoded(png).sha256);
    cv::Mat grey(16, 24, CV_8UC1);
    cv::randu(grey, cv::Scalar::all(0), cv::Scalar::all(255));
    const cv::Mat greyBack = decodeImage(encodeFramePng(grey), cv::IMREAD_UNCHANGED);
    ASSERT_EQ(greyBack.channels(), 1);
    EXPECT_EQ(cv::norm(greyBack, grey, cv::NORM_INF), 0);
}
