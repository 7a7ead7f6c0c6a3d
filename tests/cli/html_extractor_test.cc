#include "cli/html_extractor.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Text(const std::string& html) {
  auto out = HtmlExtractor().Extract("page.html", html, ExtractionLimits{});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? out->text : "";
}

TEST(HtmlExtractorTest, KeepsTextAndCommentsDropsScriptsStylesAndTags) {
  const std::string text = Text(
      "<!DOCTYPE html><html><head><title>Q3 plan</title>"
      "<style>p { color: red }</style><script>var secret = 1;</script></head>"
      "<body><p>Opening <b>offer</b> of 205&nbsp;million &amp; more</p>"
      "<!-- walk-away price 241 --><div>caf&eacute;</div></body></html>");
  EXPECT_THAT(text, HasSubstr("Q3 plan\n"));
  EXPECT_THAT(text, HasSubstr("Opening offer of 205\u00a0million & more\n"));
  EXPECT_THAT(text, HasSubstr("walk-away price 241"));
  EXPECT_THAT(text, HasSubstr("café"));
  EXPECT_THAT(text, Not(HasSubstr("color")));
  EXPECT_THAT(text, Not(HasSubstr("secret")));
  EXPECT_THAT(text, Not(HasSubstr("<")));
}

TEST(HtmlExtractorTest, BrokenMarkupIsRecovered) {
  EXPECT_THAT(Text("<p>one <i>two <p>three</div> four"),
              HasSubstr("one two \nthree four"));
}

TEST(HtmlExtractorTest, AcceptsByExtensionOrDoctype) {
  HtmlExtractor html;
  EXPECT_TRUE(html.Accepts("a/B.HTM", "whatever"));
  EXPECT_TRUE(html.Accepts("mail.txt", "  \n<!doctype HTML><html>"));
  EXPECT_TRUE(html.Accepts("x", "<html lang=en>"));
  EXPECT_FALSE(html.Accepts("notes.md", "# <html> in a heading"));
}

TEST(HtmlExtractorTest, OutputLimitIsEnforced) {
  std::string big = "<html><body>";
  for (int i = 0; i < 2000; ++i) big += "<p>paragraph of text</p>";
  auto out = HtmlExtractor().Extract("x.html", big, ExtractionLimits{1 << 20, 1000});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(HtmlExtractorTest, NestingPastTheParserLimitIsRefusedNotTruncated) {
  std::string nested;
  for (int i = 0; i < 200; ++i) nested += "<div>";
  EXPECT_THAT(Text(nested + "bottom"), HasSubstr("bottom"));
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<div>";
  auto out = HtmlExtractor().Extract("x.html", deep + "hidden leak",
                                     ExtractionLimits{});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("HTML not fully parsed (libxml2: Excessive depth"));
}

}  // namespace
}  // namespace leakhound
