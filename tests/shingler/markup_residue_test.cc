#include "shingler/markup_residue.h"

#include <string>

#include "gtest/gtest.h"

namespace leakhound {
namespace {

std::string Blank(std::string_view text) {
  std::string scratch;
  return std::string(BlankMarkupResidue(text, &scratch));
}

TEST(MarkupResidueTest, TextWithoutResidueIsReturnedWithoutACopy) {
  const std::string text = "plain words, a < b and c > d, 3<4";
  std::string scratch = "untouched";
  const std::string_view out = BlankMarkupResidue(text, &scratch);
  EXPECT_EQ(out.data(), text.data());
  EXPECT_EQ(scratch, "untouched");
}

TEST(MarkupResidueTest, TagsOfEveryFormBecomeSpacesOfTheirLength) {
  EXPECT_EQ(Blank("a <b>bold</b> c"), "a    bold     c");
  EXPECT_EQ(Blank("x<br/>y<br />z"), "x     y      z");
  const std::string open = "<a href=\"https://e.example/?q=1\">";
  EXPECT_EQ(Blank(open + "link</a>"),
            std::string(open.size(), ' ') + "link    ");
  const std::string w = "<w:t xml:space=\"preserve\">";
  EXPECT_EQ(Blank(w + "word</w:t>"), std::string(w.size(), ' ') + "word      ");
}

TEST(MarkupResidueTest, WhatIsNotATagStays) {
  for (const char* text : {"a <b c", "a < b>", "<1>", "<>", "a <b <i>x"}) {
    const std::string blanked = Blank(text);
    if (std::string(text) == "a <b <i>x") {
      EXPECT_EQ(blanked, "a <b    x");  // only the closed tag
    } else {
      EXPECT_EQ(blanked, text);
    }
  }
  // A tag longer than kMaxTagBytes after its name is not one.
  const std::string long_tag = "<a " + std::string(kMaxTagBytes, 'x') + ">";
  EXPECT_EQ(Blank(long_tag), long_tag);
}

TEST(MarkupResidueTest, UnderscoresAtWordEdgesGoInsideWordsStay) {
  EXPECT_EQ(Blank("_open_ talks"), " open  talks");
  EXPECT_EQ(Blank("__init__ snake_case __"), "  init   snake_case   ");
  EXPECT_EQ(Blank("naïve_café _日本_"), "naïve_café  日本 ");
  EXPECT_EQ(Blank("a_ _b"), "a   b");
}

}  // namespace
}  // namespace leakhound
