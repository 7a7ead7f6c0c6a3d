#include "shingler/mark_folding.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

TEST(MarkFoldingTest, LatinAccentsAreDropped) {
  EXPECT_EQ(FoldMarks("José"), "Jose");
  EXPECT_EQ(FoldMarks("Müller"), "Muller");
  EXPECT_EQ(FoldMarks("Lefèvre"), "Lefevre");
  EXPECT_EQ(FoldMarks("François"), "Francois");
  EXPECT_EQ(FoldMarks("Dvořák"), "Dvorak");
  EXPECT_EQ(FoldMarks("Ångström"), "Angstrom");
  // Written with combining marks rather than precomposed letters.
  EXPECT_EQ(FoldMarks("Jose\xCC\x81"), "Jose");
}

TEST(MarkFoldingTest, LettersNoDecompositionReachesAreSpelled) {
  EXPECT_EQ(FoldMarks("Søren"), "Soren");
  EXPECT_EQ(FoldMarks("Łukasz"), "Lukasz");
  EXPECT_EQ(FoldMarks("Đorđević"), "Dordevic");
  EXPECT_EQ(FoldMarks("Æsa"), "AEsa");
}

TEST(MarkFoldingTest, AsciiAndOtherScriptsStayAsTheyAre) {
  EXPECT_EQ(FoldMarks("John Smith"), "John Smith");
  EXPECT_EQ(FoldMarks("张伟"), "张伟");
  EXPECT_EQ(FoldMarks("がぎ"), "がぎ");        // Japanese voicing marks
  EXPECT_EQ(FoldMarks("김민수"), "김민수");    // Hangul syllables
  EXPECT_EQ(FoldMarks("Ιωάννης"), "Ιωαννης");  // Greek tonos is U+0301
}

}  // namespace
}  // namespace leakhound
