#include "shingler/month_names.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

TEST(MonthNamesTest, NamesAndAbbreviationsOfTheTablesLanguages) {
  EXPECT_EQ(MonthNumber("January"), 1);
  EXPECT_EQ(MonthNumber("März"), 3);
  EXPECT_EQ(MonthNumber("MÄRZ"), 3);
  EXPECT_EQ(MonthNumber("Mai"), 5);
  EXPECT_EQ(MonthNumber("Okt."), 10);
  EXPECT_EQ(MonthNumber("Dezember"), 12);
  EXPECT_EQ(MonthNumber("février"), 2);
  EXPECT_EQ(MonthNumber("juillet"), 7);
  EXPECT_EQ(MonthNumber("diciembre"), 12);
  EXPECT_EQ(MonthNumber("ottobre"), 10);
  EXPECT_EQ(MonthNumber("października"), 10);  // Polish, genitive
  EXPECT_EQ(MonthNumber("sept"), 9);
}

TEST(MonthNamesTest, ShortWordsAndCutsOfTwoMonthsAreNoMonth) {
  EXPECT_EQ(MonthNumber("ma"), 0);
  EXPECT_EQ(MonthNumber("ju"), 0);
  EXPECT_EQ(MonthNumber("board"), 0);
  EXPECT_EQ(MonthNumber(""), 0);
  // "červe" begins Czech June (červen) and July (červenec).
  EXPECT_EQ(MonthNumber("\xC4\x8D" "erve"), 0);
  EXPECT_EQ(MonthNumber("\xC4\x8D" "erven"), 6);
}

}  // namespace
}  // namespace leakhound
