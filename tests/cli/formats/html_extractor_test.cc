#include "cli/formats/html_extractor.h"

#include <string>

#include "cli/formats/extraction.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Text(const std::string& html) {
  auto out = ExtractBytes("page.html", html, ExtractionLimits{});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() && !out->parts.empty() ? out->parts[0].text : "";
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

TEST(HtmlExtractorTest, LinkTargetsFollowTheTextOncePerTarget) {
  const std::string text = Text(
      "<p>See <a href=\"https://wiki.corp.example/finance/q3\">the plan</a> "
      "and <a href=\"https://wiki.corp.example/finance/q3\">again</a>.</p>"
      "<img src=\"file://fs01/hr/chart.png\"><a href=\"#top\">top</a>"
      "<img src=\"data:image/png;base64,AAAA\">");
  EXPECT_EQ(text,
            "See the plan and again.\ntop\n\n"
            "https://wiki.corp.example/finance/q3\nfile://fs01/hr/chart.png\n");
}

TEST(HtmlExtractorTest, BrokenMarkupIsRecovered) {
  EXPECT_THAT(Text("<p>one <i>two <p>three</div> four"),
              HasSubstr("one two \nthree four"));
}

TEST(HtmlExtractorTest, OutputLimitIsEnforced) {
  std::string big = "<html><body>";
  for (int i = 0; i < 2000; ++i) big += "<p>paragraph of text</p>";
  ExtractionLimits limits;
  limits.max_output_bytes = 1000;
  auto out = ExtractBytes("x.html", big, limits);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(HtmlToText(big, 1000).status().code(),
              absl::StatusCode::kResourceExhausted);
}

TEST(HtmlExtractorTest, NestingPastTheParserLimitIsRefusedNotTruncated) {
  std::string nested;
  for (int i = 0; i < 200; ++i) nested += "<div>";
  EXPECT_THAT(Text(nested + "bottom"), HasSubstr("bottom"));
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "<div>";
  auto out = ExtractBytes("x.html", deep + "hidden leak", ExtractionLimits{});
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("HTML not fully parsed (libxml2: Excessive depth"));
}

}  // namespace
}  // namespace leakhound
