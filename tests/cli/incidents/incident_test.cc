#include "cli/incidents/incident.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

TEST(FillSnippetTest, KeepsContextEitherSideAndMarksThePassage) {
  const std::string before(300, 'a'), passage = "the leaked words",
                                      after(300, 'z');
  const std::string text = before + passage + after;
  IncidentMatch m;
  FillSnippet(text, 300, 300 + static_cast<uint32_t>(passage.size()), &m);
  EXPECT_EQ(m.snippet.size(),
            kSnippetContext + passage.size() + kSnippetContext);
  EXPECT_EQ(m.snippet.substr(m.snippet_begin, m.snippet_end - m.snippet_begin),
            passage);
  EXPECT_EQ(m.snippet_begin, kSnippetContext);
}

TEST(FillSnippetTest, ALongPassageIsCutAndMarked) {
  const std::string text(5000, 'x');
  IncidentMatch m;
  FillSnippet(text, 10, 4000, &m);
  EXPECT_EQ(m.snippet_begin, 10u);
  EXPECT_EQ(m.snippet_end - m.snippet_begin, kSnippetPassage);
  EXPECT_TRUE(m.snippet.ends_with(" [...]"));
}

TEST(FillSnippetTest, CutsFallOnCharacterBoundaries) {
  // 3-byte characters: no cut may split one.
  std::string text;
  for (int i = 0; i < 400; ++i) text += "\xE6\xBC\xA2";  // 漢
  IncidentMatch m;
  FillSnippet(text, 600, 603, &m);
  ASSERT_EQ(m.snippet.size() % 3, 0u);
  EXPECT_EQ(m.snippet.substr(m.snippet_begin, 3), "\xE6\xBC\xA2");
  EXPECT_EQ(m.snippet_begin % 3, 0u);
}

TEST(ParseTimeBoundTest, AgesCountBackFromNow) {
  const int64_t now = 1'000'000'000'000;
  EXPECT_EQ(*ParseTimeBound("90d", now), now - 90 * 86'400'000LL);
  EXPECT_EQ(*ParseTimeBound("12h", now), now - 12 * 3'600'000LL);
  EXPECT_EQ(*ParseTimeBound("30m", now), now - 30 * 60'000LL);
  EXPECT_EQ(*ParseTimeBound("2w", now), now - 14 * 86'400'000LL);
}

TEST(ParseTimeBoundTest, DatesAreUtc) {
  EXPECT_EQ(*ParseTimeBound("2026-11-25", 0), 1795564800000LL);
  EXPECT_EQ(*ParseTimeBound("2026-11-25T14:30:00", 0),
            1795564800000LL + 52'200'000);
  EXPECT_EQ(*ParseTimeBound("2026-11-25T14:30:00Z", 0),
            1795564800000LL + 52'200'000);
  EXPECT_EQ(FormatTime(1795564800000LL + 52'200'000), "2026-11-25 14:30:00");
}

TEST(ParseTimeBoundTest, AnythingElseIsRefused) {
  for (const char* bad : {"", "d", "-3d", "3y", "2026-13-01", "2026-11-25x",
                          "yesterday", "2026-11-25T25:00:00"}) {
    EXPECT_FALSE(ParseTimeBound(bad, 0).ok()) << bad;
  }
}

TEST(DistinctDocumentsTest, KeepsFirstOccurrenceOrder) {
  std::vector<IncidentMatch> m(4);
  m[0].document = "b";
  m[1].document = "a";
  m[2].document = "b";
  m[3].document = "c";
  EXPECT_EQ(DistinctDocuments(m), (std::vector<std::string>{"b", "a", "c"}));
}

}  // namespace
}  // namespace leakhound
