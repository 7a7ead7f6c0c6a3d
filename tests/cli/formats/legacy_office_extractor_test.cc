// Word, Excel and PowerPoint 97-2003 files saved by LibreOffice, Outlook
// items in OLE2 containers written by libgsf, and damaged or protected
// compound files (make_legacy_fixtures.py).
#include "cli/formats/legacy_office_extractor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cli/formats/legacy_fixtures.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;

TEST(LegacyOfficeExtractorTest,
     WordExcelAndPowerPointFromLibreOfficeYieldThePassage) {
  for (const char* name : {"passage.doc", "passage.xls", "passage.ppt"}) {
    SCOPED_TRACE(name);
    auto out = ExtractFixture(name);
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->parts.size(), 1u);
    EXPECT_THAT(Collapsed(out->parts[0].text), HasSubstr(kLegacyPassage));
    EXPECT_THAT(out->parts[0].text, HasSubstr("Minutes of the meeting."));
  }
  auto zh = ExtractFixture("passage-zh.doc");
  ASSERT_TRUE(zh.ok()) << zh.status();
  EXPECT_THAT(Collapsed(zh->parts[0].text, true), HasSubstr(kLegacyPassageZh));
}

TEST(LegacyOfficeExtractorTest, WordHeadersAndFootersAreRead) {
  auto out = ExtractFixture("header.doc");
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string text = Collapsed(out->parts[0].text);
  EXPECT_THAT(text, HasSubstr("Body text of the memo."));
  EXPECT_THAT(text, HasSubstr(std::string("Header: ") + kLegacyPassage));
  EXPECT_THAT(text, HasSubstr("Footer: company confidential"));
}

TEST(LegacyOfficeExtractorTest, EmbeddedObjectsAreMembers) {
  auto out = ExtractFixture("embedded.doc");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Collapsed(PartText(*out, "")), HasSubstr(kLegacyPassage));
  EXPECT_THAT(Collapsed(PartText(*out, "object1"), true),
              HasSubstr(kLegacyPassageZh));
}

TEST(LegacyOfficeExtractorTest, StoragesNestedPastTheDepthLimitAreRefused) {
  auto out = ExtractFixture("nested-pools.doc", OneSecond());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted)
      << out.status();
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("--max-depth"));
}

TEST(LegacyOfficeExtractorTest, PasswordProtectedDocumentsAreEncryptedErrors) {
  for (const char* name : {"encrypted.doc", "encrypted-package.docx"}) {
    SCOPED_TRACE(name);
    auto out = ExtractFixture(name);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(UnreadableOf(out.status()), Unreadable::kEncrypted);
    EXPECT_THAT(std::string(out.status().message()),
                HasSubstr("password-protected"));
  }
}

TEST(LegacyOfficeExtractorTest,
     ASectorChainThatLoopsIsMalformedWithinTheTimeLimit) {
  auto out = ExtractFixture("fat-cycle.doc", OneSecond());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
      << out.status();
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("malformed OLE2 compound file"));
}

TEST(LegacyOfficeExtractorTest,
     OutlookItemBodyAttachmentAndAttachedItemAreParts) {
  auto out = ExtractFixture("message.msg");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->format, "msg");
  EXPECT_THAT(PartText(*out, ""), HasSubstr("Board pack"));
  EXPECT_THAT(PartText(*out, ""), HasSubstr("Please see the attachment."));
  EXPECT_THAT(Collapsed(PartText(*out, "valuation.doc")),
              HasSubstr(kLegacyPassage));
  EXPECT_THAT(Collapsed(PartText(*out, "forwarded.msg"), true),
              HasSubstr(kLegacyPassageZh));
  auto body = ExtractFixture("body.msg");
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_THAT(Collapsed(body->parts[0].text), HasSubstr(kLegacyPassage));
}

TEST(LegacyOfficeExtractorTest, TruncatedCompoundFilesAreMalformedNotClean) {
  const std::string doc = SlurpFixture("passage.doc");
  for (size_t keep : {size_t{8}, size_t{600}, doc.size() / 2}) {
    SCOPED_TRACE(keep);
    auto out = ExtractBytesAs(FileKind::kLegacyOffice, "cut.doc",
                              doc.substr(0, keep), OneSecond());
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
        << out.status();
  }
}

}  // namespace
}  // namespace leakhound
