#include "cli/console/story_pages.h"

#include "cli/gateway/cumulative_facts.h"
#include "cli/gateway/label_facts.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(StoryPagesTest, TheStoryLinksEachEarlierMessageAndEscapesNames) {
  Incident i;
  CumulativeFact c{"sender", 30, "hr/<handbook>.txt", 300, 0.43, 0,
                   {"LH-AAAA1111", "LH-BBBB2222", "<script>"}};
  i.facts.push_back(CumulativeFactRecord(c));
  i.facts.push_back(PartFactRecord(
      PartFacts{"a.docx", true, {{"f42aa342-8706-4288-bd11-ebb85995028c",
                                  "Confidential & <b>"}}, {}}));
  std::string html;
  AppendLabelsAndStory(i, &html);
  EXPECT_THAT(html, HasSubstr("<b>300 words</b> of hr/&lt;handbook&gt;.txt "
                              "(43 %) sent by the sender within 30 days: this "
                              "message and 3 before it"));
  EXPECT_THAT(html,
              HasSubstr("<a href=\"/incidents?reference=LH-AAAA1111\">"));
  EXPECT_THAT(html, HasSubstr("<li>&lt;script&gt;</li>"));
  EXPECT_THAT(html, HasSubstr("a.docx: Confidential &amp; &lt;b&gt;"));
  EXPECT_THAT(html, Not(HasSubstr("<script>")));
}

TEST(StoryPagesTest, AnIncidentWithoutLabelsOrSumsShowsNeither) {
  Incident i;
  i.facts.push_back({"handbook.txt", {}, 40, 0.1});
  i.facts.push_back(PartFactRecord(PartFacts{"", false, {}, {"handbook.txt"}}));
  std::string html;
  AppendLabelsAndStory(i, &html);
  EXPECT_EQ(html, "");
}

}  // namespace
}  // namespace leakhound
