// The OCR cache: the same image is recognized once, readings cut short are
// not kept, least recently used readings leave first.
#include "cli/formats/ocr_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/formats/ocr_engine.h"
#include "tests/cli/formats/legacy_fixtures.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(OcrCacheTest, TheSameImageIsRecognizedOnceForTheSameLanguages) {
  OcrCache::Instance().Clear();
  auto first = ExtractFixture("passage.png");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(OcrCache::Instance().hits(), 0u);
  EXPECT_EQ(OcrCache::Instance().misses(), 1u);
  auto again = ExtractFixture("passage.png");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(OcrCache::Instance().hits(), 1u);
  EXPECT_EQ(again->parts[0].text, first->parts[0].text);
  EXPECT_THAT(Collapsed(again->parts[0].text), HasSubstr(kLegacyPassage));
  ExtractionLimits english;
  english.ocr.languages = "eng";  // another reading: recognized anew
  auto other = ExtractFixture("passage.png", english);
  ASSERT_TRUE(other.ok()) << other.status();
  EXPECT_EQ(OcrCache::Instance().hits(), 1u);
  EXPECT_EQ(OcrCache::Instance().misses(), 2u);
}

TEST(OcrCacheTest, PdfPagesAreKeptByTheFileAndByTheirPixels) {
  OcrCache::Instance().Clear();
  auto first = ExtractFixture("scan.pdf");
  ASSERT_TRUE(first.ok()) << first.status();
  // One page: looked up by the file and page (a miss), rendered, looked up
  // by its pixels (a miss), read.
  EXPECT_EQ(OcrCache::Instance().misses(), 2u);
  auto again = ExtractFixture("scan.pdf");
  ASSERT_TRUE(again.ok()) << again.status();
  // Found by the file and page: not rendered again.
  EXPECT_EQ(OcrCache::Instance().hits(), 1u);
  EXPECT_EQ(OcrCache::Instance().misses(), 2u);
  EXPECT_EQ(again->parts[0].text, first->parts[0].text);
  // Other settings name the page otherwise (a miss), but a 150 dpi scan
  // is rendered at its own 150 dpi under 200 as under 300: the same
  // pixels, found by them.
  ExtractionLimits other;
  other.ocr.pdf_dpi = 200;
  ASSERT_TRUE(ExtractFixture("scan.pdf", other).ok());
  EXPECT_EQ(OcrCache::Instance().misses(), 3u);
  EXPECT_EQ(OcrCache::Instance().hits(), 2u);
}

TEST(OcrCacheTest, AReadingCutShortIsNotKept) {
  OcrCache::Instance().Clear();
  ExtractionLimits hurried;
  hurried.ocr.max_seconds = 0.01;
  auto late = ExtractFixture("passage.png", hurried);
  EXPECT_EQ(UnreadableOf(late.status()), Unreadable::kLimit);
  EXPECT_EQ(OcrCache::Instance().bytes(), 0u);
  auto read = ExtractFixture("passage.png");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(OcrCache::Instance().hits(), 0u);
}

TEST(OcrCacheTest, NoCapacityKeepsNothing) {
  OcrCache::Instance().Clear();
  ExtractionLimits none;
  none.ocr.cache_bytes = 0;
  ASSERT_TRUE(ExtractFixture("passage.png", none).ok());
  ASSERT_TRUE(ExtractFixture("passage.png", none).ok());
  EXPECT_EQ(OcrCache::Instance().hits(), 0u);
  EXPECT_EQ(OcrCache::Instance().bytes(), 0u);
}

TEST(OcrCacheTest, LeastRecentlyUsedReadingsLeaveFirst) {
  OcrCache& cache = OcrCache::Instance();
  cache.Clear();
  const std::string text(1000, 'x');
  cache.Insert("a", OcrReading{true, text}, 10'000);
  const size_t one = cache.bytes();
  cache.Insert("b", OcrReading{true, text}, 10'000);
  ASSERT_TRUE(cache.Lookup("a").has_value());  // b is now the oldest
  cache.Insert("c", OcrReading{false, ""}, 2 * one);
  EXPECT_TRUE(cache.Lookup("a").has_value());
  EXPECT_FALSE(cache.Lookup("b").has_value());
  auto nothing = cache.Lookup("c");
  ASSERT_TRUE(nothing.has_value());
  EXPECT_FALSE(nothing->legible);
  EXPECT_LE(cache.bytes(), 2 * one);
  cache.Insert("d", OcrReading{true, text}, 0);
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_FALSE(cache.Lookup("a").has_value());
}

TEST(OcrCacheTest, KeysTellPiecesApartAndAreSha256Long) {
  const std::string ab_c = OcrCacheKey().Add("ab").Add("c").Finish();
  const std::string a_bc = OcrCacheKey().Add("a").Add("bc").Finish();
  EXPECT_NE(ab_c, a_bc);
  EXPECT_EQ(ab_c.size(), 32u);
  EXPECT_EQ(ab_c, OcrCacheKey().Add("ab").Add("c").Finish());
  EXPECT_NE(OcrCacheKey().Add(uint64_t{1}).Finish(),
            OcrCacheKey().Add(uint64_t{2}).Finish());
}

}  // namespace
}  // namespace leakhound
