// OCR of page images rendered by poppler's pdftoppm at 150 dpi, of a PDF
// without a text layer, and the pixel and time limits.
#include "cli/formats/ocr_engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cli/formats/legacy_fixtures.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(OcrEngineTest, PageImagesAreReadInEnglishAndChinese) {
  auto png = ExtractFixture("passage.png");
  ASSERT_TRUE(png.ok()) << png.status();
  EXPECT_EQ(png->format, "png");
  EXPECT_THAT(Collapsed(png->parts[0].text), HasSubstr(kLegacyPassage));
  auto zh = ExtractFixture("passage-zh.png");
  ASSERT_TRUE(zh.ok()) << zh.status();
  // Recognition may differ in a character or two; the scanner's passage
  // matching absorbs that, so this checks a long run only.
  EXPECT_THAT(Collapsed(zh->parts[0].text, true),
              HasSubstr("供应商应当在每个季度结束后十五个工作日内"));
}

TEST(OcrEngineTest, PdfPagesWithoutTextAreRenderedAndRead) {
  auto out = ExtractFixture("scan.pdf");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Collapsed(out->parts[0].text), HasSubstr(kLegacyPassage));
  ExtractionLimits off;
  off.ocr.enabled = false;
  auto unread = ExtractFixture("scan.pdf", off);
  EXPECT_EQ(UnreadableOf(unread.status()), Unreadable::kNoText);
}

TEST(OcrEngineTest, PagesOcrHasNoTimeForAreListedNotATimeOut) {
  // Less time than OCR may start with: the page is listed as `limit`, and
  // the file, with no other text, is unread for lack of time, not an error.
  ExtractionLimits hurried;
  hurried.max_seconds = 0.3;
  auto out = ExtractFixture("scan.pdf", hurried);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented)
      << out.status();
  EXPECT_EQ(UnreadableOf(out.status()), Unreadable::kLimit);
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("out of time"));
}

TEST(OcrEngineTest, ImagesPastThePixelLimitAreBombsRefusedFromTheHeader) {
  auto out = ExtractFixture("bomb-50000.png", OneSecond());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted)
      << out.status();
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("2500000000 pixels"));
}

TEST(OcrEngineTest, OcrOffOrOutOfTimeLeavesTheImageListedAsUnread) {
  ExtractionLimits off;
  off.ocr.enabled = false;
  auto no_ocr = ExtractFixture("passage.png", off);
  EXPECT_EQ(UnreadableOf(no_ocr.status()), Unreadable::kNoText);
  EXPECT_THAT(std::string(no_ocr.status().message()), HasSubstr("PNG image"));
  ExtractionLimits hurried;
  hurried.ocr.max_seconds = 0.01;
  auto late = ExtractFixture("passage.png", hurried);
  EXPECT_EQ(late.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_EQ(UnreadableOf(late.status()), Unreadable::kLimit);
}

TEST(OcrEngineTest, ShortOrDamagedImagesAreUnreadableNotCrashes) {
  // fuzz_image found the first: a RIFF header too short for its format
  // tag was read past its end.
  for (const std::string& bytes :
       {std::string("RIFFII*"), std::string("\x89PNG\r\n\x1a\n", 8),
        std::string("\xFF\xD8\xFF", 3), std::string("GIF89a")}) {
    auto out = ExtractBytesAs(FileKind::kImage, "x", bytes, OneSecond());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented)
        << out.status();
    EXPECT_EQ(UnreadableOf(out.status()), Unreadable::kUnsupported);
  }
}

TEST(OcrEngineTest, MissingLanguageDataNamesThePackage) {
  absl::Status s = CheckOcrLanguages("xyz");
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("tesseract-ocr-xyz"));
  EXPECT_TRUE(CheckOcrLanguages("eng").ok());
}

}  // namespace
}  // namespace leakhound
