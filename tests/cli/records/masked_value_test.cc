#include "cli/records/masked_value.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

TEST(MaskedValueTest, CardsKeepTheFirstSixAndLastFourDigits) {
  EXPECT_EQ(MaskedValue("4111 1111 1111 1111", CellType::kCard),
            "4111 11** **** 1111");
  EXPECT_EQ(MaskedValue("378282246310005", CellType::kCard), "378282*****0005");
  EXPECT_EQ(MaskedValue("1234", CellType::kCard), "****");
}

// A written-out date showed its month and day ("17 Ma*** 1984"): only the
// year shows now, in one shape whatever the date's form.
TEST(MaskedValueTest, DatesShowTheYearOnly) {
  EXPECT_EQ(MaskedValue("17 March 1984", CellType::kDate), "**-**-1984");
  EXPECT_EQ(MaskedValue("1985-03-02", CellType::kDate), "**-**-1985");
  EXPECT_EQ(MaskedValue("2 May 1984", CellType::kDate), "**-**-1984");
  EXPECT_EQ(MaskedValue("17.03.84", CellType::kDate), "**-**-****");
}

// "Zeld* ******gton" gave a name away: initials only.
TEST(MaskedValueTest, NamesShowInitialsOnly) {
  EXPECT_EQ(MaskedValue("Zelda Huntington", CellType::kName), "Z. H.");
  EXPECT_EQ(MaskedValue("O'Brien, Ann-Marie", CellType::kName), "O. B. A. M.");
  EXPECT_EQ(MaskedValue("\xE7\x8E\x8B\xE5\xB0\x8F\xE6\x98\x8E", CellType::kName),
            "\xE7\x8E\x8B.");
}

TEST(MaskedValueTest, EmailsPhonesIbansAndTheRest) {
  EXPECT_EQ(MaskedValue("zelda.huntington@corp.example", CellType::kEmail),
            "z***@corp.example");
  EXPECT_EQ(MaskedValue("+49 30 1234567", CellType::kPhone), "+** ** ****567");
  EXPECT_EQ(MaskedValue("DE89 3704 0044 0532 0130 00", CellType::kIban),
            "DE** **** **** **** **30 00");
  EXPECT_EQ(MaskedValue("123-45-6789", CellType::kNationalId), "***-**-****");
  EXPECT_EQ(MaskedValue("Gold tier", CellType::kText), "**** ****");
}

}  // namespace
}  // namespace leakhound
