#include "cli/records/folded_spaces.h"

#include <gtest/gtest.h>

#include <string>

namespace leakhound {
namespace {

TEST(FoldedSpacesTest, TextWithSingleSpacesIsItselfNotACopy) {
  const std::string text = "card 4111 1111 1111 1111 paid";
  const FoldedSpaces folded(text);
  EXPECT_EQ(folded.text().data(), text.data());
  EXPECT_FALSE(folded.moved());
  EXPECT_EQ(folded.Original(7), 7u);
}

TEST(FoldedSpacesTest, EveryKindOfSpaceWithOneLineBreakReadsAsOneSpace) {
  for (const std::string sep :
       {"\n", "\r\n", "\t", "  ", "\xC2\xA0", " \n ", "\xE2\x80\xAF",
        "\xE2\x80\x89", "\xE3\x80\x80", "\f", " \t\xC2\xA0\r\n  "}) {
    const std::string text = "4111 1111" + sep + "1111 1111";
    const FoldedSpaces folded(text);
    EXPECT_EQ(folded.text(), "4111 1111 1111 1111") << sep.size();
  }
}

TEST(FoldedSpacesTest, TwoLineBreaksStayABreak) {
  for (const std::string sep : {"\n\n", "\r\n\r\n", "\n \n", "\n\f"}) {
    const FoldedSpaces folded("4111 1111" + sep + "1111 1111");
    EXPECT_EQ(folded.text(), "4111 1111\n1111 1111");
  }
}

TEST(FoldedSpacesTest, OffsetsMapBackToTheOriginalText) {
  const std::string text = "ab\r\n\r\ncd  ef\xC2\xA0gh\nij";
  const FoldedSpaces folded(text);
  ASSERT_EQ(folded.text(), "ab\ncd ef gh ij");
  ASSERT_TRUE(folded.moved());
  const std::string_view f = folded.text();
  for (std::string_view word : {"ab", "cd", "ef", "gh", "ij"}) {
    const auto b = static_cast<uint32_t>(f.find(word));
    const uint32_t ob = folded.Original(b);
    const uint32_t oe = folded.Original(b + 2);
    EXPECT_EQ(text.substr(ob, oe - ob), word);
  }
  // A run's one space maps to the run's start; the end to the end.
  EXPECT_EQ(folded.Original(2), 2u);
  EXPECT_EQ(folded.Original(static_cast<uint32_t>(f.size())), text.size());
}

}  // namespace
}  // namespace leakhound
