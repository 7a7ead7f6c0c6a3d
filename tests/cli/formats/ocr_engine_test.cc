// OCR of page images rendered by poppler's pdftoppm at 150 dpi, of a PDF
// without a text layer, and the pixel and time limits.
#include "cli/formats/ocr_engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "cli/formats/pdf_extractor.h"
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

TEST(OcrEngineTest, ScannedPagesAreRenderedAtTheScansOwnResolution) {
  // make_formats.py's scans are 150 dpi page images: rendered at 300 dpi,
  // a 150 dpi scan read worse in Chinese (docs/results.md).
  auto scan = PdfScanResolutions(SlurpFixture("pages.pdf"));
  ASSERT_TRUE(scan.ok()) << scan.status();
  ASSERT_GE(scan->size(), 4u);
  for (const std::optional<double>& ppi : *scan) {
    ASSERT_TRUE(ppi.has_value());
    EXPECT_NEAR(*ppi, 150, 1);
  }
  auto text = PdfScanResolutions(SlurpFixture("passage.pdf"));
  ASSERT_TRUE(text.ok()) << text.status();
  ASSERT_EQ(text->size(), 1u);
  EXPECT_FALSE((*text)[0].has_value());
  EXPECT_FALSE(PdfScanResolutions("%PDF-1.4 truncated").ok());
}

TEST(OcrEngineTest, ScannedPagesReadInParallelKeepTheirOrder) {
  ExtractionLimits patient;  // time is not what this checks
  patient.max_seconds = 600;
  patient.ocr.max_seconds = 300;
  auto out = ExtractFixture("pages.pdf", patient);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE(out->skipped.empty());
  const std::string text = Collapsed(out->parts[0].text);
  const size_t opening = text.find("Appendix opening.");
  const size_t middle = text.find("of the appendix.", opening);
  const size_t passage = text.find(kLegacyPassage);
  ASSERT_NE(opening, std::string::npos);
  ASSERT_NE(middle, std::string::npos);
  ASSERT_NE(passage, std::string::npos) << text;
  EXPECT_LT(opening, middle);
  EXPECT_LT(middle, passage);
}

TEST(OcrEngineTest, EveryCoreIsLentOnceAndGivenBack) {
  const int cores =
      std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  {
    OcrCoreLease first(64);
    EXPECT_EQ(first.extra(), cores - 1);
    OcrCoreLease second(64);  // every core busy: its holder alone
    EXPECT_EQ(second.extra(), 0);
  }
  OcrCoreLease again(64);
  EXPECT_EQ(again.extra(), cores - 1);
  OcrCoreLease none(0);
  EXPECT_EQ(none.extra(), 0);
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
  hurried.ocr.cache_bytes = 0;  // an earlier reading would answer at once
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
