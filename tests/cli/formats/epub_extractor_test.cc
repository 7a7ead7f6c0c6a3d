// EPUB written by pandoc, and zips whose mimetype names no known format.
#include "cli/formats/epub_extractor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cli/formats/legacy_fixtures.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(EpubExtractorTest, PandocsEpubIsReadInSpineOrder) {
  auto out = ExtractFixture("passage.epub");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->format, "epub");
  const std::string text = Collapsed(out->parts[0].text);
  EXPECT_THAT(text, HasSubstr(kLegacyPassage));
  const size_t minutes = text.find("Minutes of the meeting.");
  ASSERT_NE(minutes, std::string::npos);
  EXPECT_LT(minutes, text.find(kLegacyPassage));
}

TEST(EpubExtractorTest, AZipWithAnUnknownMimetypeIsAnArchive) {
  auto out = ExtractFixture("unknown-mimetype.zip");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->format, "zip");
  EXPECT_THAT(PartText(*out, "notes/passage.txt"), HasSubstr(kLegacyPassage));
}

TEST(EpubExtractorTest, AnEpubWithoutItsPackageDocumentIsMalformed) {
  const std::string epub = SlurpFixture("passage.epub");
  // The zip with its container.xml renamed: the package cannot be found.
  std::string renamed = epub;
  for (size_t at = renamed.find("container.xml"); at != std::string::npos;
       at = renamed.find("container.xml", at + 1)) {
    renamed[at] = 'k';
  }
  auto out = ExtractBytes("book.epub", renamed, {});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
      << out.status();
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("malformed EPUB"));
}

}  // namespace
}  // namespace leakhound
