// RTF saved by LibreOffice, and the reader's rules on small documents.
#include "cli/formats/rtf_extractor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/cli/formats/legacy_fixtures.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Text(const std::string& rtf) {
  auto out = ExtractBytesAs(FileKind::kRtf, "t.rtf", rtf, {});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok() || out->parts.empty()) return "";
  return out->parts[0].text;
}

TEST(RtfExtractorTest, LibreOfficeRtfYieldsThePassage) {
  auto out = ExtractFixture("passage.rtf");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->format, "rtf");
  const std::string text = Collapsed(out->parts[0].text);
  EXPECT_THAT(text, HasSubstr(kLegacyPassage));
  EXPECT_THAT(text, Not(HasSubstr("Times New Roman")));  // the font table
}

TEST(RtfExtractorTest, HexBytesAreDecodedInTheFontsCodePage) {
  auto out = ExtractFixture("gbk.rtf");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(Collapsed(out->parts[0].text, true), HasSubstr(kLegacyPassageZh));
  EXPECT_THAT(out->parts[0].text, Not(HasSubstr("leakhound-test")));
}

TEST(RtfExtractorTest, UnicodeEscapesSkipTheirFallbackCharacters) {
  EXPECT_EQ(Text("{\\rtf1\\ansi\\uc1 caf\\u233?, na\\u239\\'ef}"), "café, naï");
  EXPECT_EQ(Text("{\\rtf1\\uc2 \\u20013\\'d6\\'d0\\u25991\\'ce\\'c4}"), "中文");
  // A surrogate pair written as two \u.
  EXPECT_EQ(Text("{\\rtf1\\u-10179?\\u-8704?}"), "\xF0\x9F\x98\x80");
  // A group ends the fallback count.
  EXPECT_EQ(Text("{\\rtf1\\uc3 {\\u233}x}"), "éx");
}

TEST(RtfExtractorTest, DestinationsWithoutVisibleTextAreSkipped) {
  const std::string text = Text(
      "{\\rtf1{\\fonttbl{\\f0 Arial;}}{\\colortbl;\\red0\\green0\\blue0;}"
      "{\\*\\htmltag64 <p class=x>}visible{\\*\\unknowndest hidden}"
      "{\\field{\\*\\fldinst HYPERLINK \"http://x\"}{\\fldrslt link}}"
      "\\par{\\pict\\pngblip 89504e47}after\\bin4 \\par{after bin}");
  EXPECT_EQ(text, "visiblelink\nafterafter bin");
}

TEST(RtfExtractorTest, MarksBecomeLineEndsTabsAndTheirCharacters) {
  EXPECT_EQ(Text("{\\rtf1 a\\par b\\tab c\\line d\\cell e\\row f\\emdash "
                 "g\\lquote h\\rquote\\~i\\{j\\}\\\\}"),
            "a\nb\tc\nd\te\nf\u2014g\u2018h\u2019 i{j}\\");
}

TEST(RtfExtractorTest, EmbeddedObjectsAreMembers) {
  // An OLE1 object: version, format 2 (embedded), class "Package", empty
  // topic and item names, then the native data: a text file here.
  std::string native = "Embedded minutes: ";
  native += kLegacyPassage;
  std::string ole1;
  auto u32 = [&ole1](uint32_t v) {
    for (int i = 0; i < 4; ++i) ole1.push_back(static_cast<char>(v >> (8 * i)));
  };
  u32(0x0501);
  u32(2);
  u32(8);
  ole1 += std::string("Package", 8);
  u32(0);
  u32(0);
  u32(static_cast<uint32_t>(native.size()));
  ole1 += native;
  std::string hex;
  for (unsigned char c : ole1) {
    static const char kDigits[] = "0123456789abcdef";
    hex += kDigits[c >> 4];
    hex += kDigits[c & 15];
  }
  auto out = ExtractBytesAs(
      FileKind::kRtf, "t.rtf",
      "{\\rtf1 before{\\object\\objemb{\\*\\objclass Package}{\\*\\objdata " +
          hex + "}}after}",
      {});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(PartText(*out, ""), "beforeafter");
  EXPECT_THAT(PartText(*out, "object1"), HasSubstr(kLegacyPassage));
}

TEST(RtfExtractorTest, GroupsNestedTooDeepAreRefusedWithinTheTimeLimit) {
  auto out = ExtractFixture("deep.rtf", OneSecond());
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
      << out.status();
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("nested deeper"));
}

}  // namespace
}  // namespace leakhound
