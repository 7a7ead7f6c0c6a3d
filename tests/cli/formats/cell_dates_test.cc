#include "cli/formats/cell_dates.h"

#include <gtest/gtest.h>

namespace leakhound {
namespace {

TEST(CellDatesTest, SerialsAreExcelsDays) {
  EXPECT_EQ(SerialDate(1, false), "1900-01-01");
  EXPECT_EQ(SerialDate(59, false), "1900-02-28");
  EXPECT_EQ(SerialDate(60, false), "1900-02-28");  // Excel's 1900-02-29
  EXPECT_EQ(SerialDate(61, false), "1900-03-01");
  EXPECT_EQ(SerialDate(31108, false), "1985-03-02");
  EXPECT_EQ(SerialDate(45000.5, false), "2023-03-15 12:00:00");
  EXPECT_EQ(SerialDate(0, true), "1904-01-01");
  EXPECT_EQ(SerialDate(29646, true), "1985-03-02");
  EXPECT_FALSE(SerialDate(0, false).has_value());
  EXPECT_FALSE(SerialDate(-3, false).has_value());
  EXPECT_FALSE(SerialDate(3e9, false).has_value());
}

TEST(CellDatesTest, DateFormatsAreTheBuiltInOnesAndCodesWithDateFields) {
  EXPECT_TRUE(IsDateFormat(14, ""));
  EXPECT_TRUE(IsDateFormat(22, ""));
  EXPECT_FALSE(IsDateFormat(0, ""));   // General
  EXPECT_FALSE(IsDateFormat(4, ""));   // #,##0.00
  EXPECT_TRUE(IsDateFormat(164, "dd/mm/yyyy"));
  EXPECT_TRUE(IsDateFormat(165, "yyyy\\-mm\\-dd"));
  EXPECT_TRUE(IsDateFormat(166, "[$-409]mmmm d, yyyy;@"));
  EXPECT_TRUE(IsDateFormat(167, "DD.MM.YYYY"));
  EXPECT_FALSE(IsDateFormat(168, "h:mm"));      // a time: m is minutes
  EXPECT_FALSE(IsDateFormat(169, "mm:ss"));
  EXPECT_FALSE(IsDateFormat(170, "0.00\"d\""));  // a quoted d is text
  EXPECT_FALSE(IsDateFormat(171, "[Red]0.00"));
  EXPECT_FALSE(IsDateFormat(172, "#,##0 \\d"));
}

TEST(CellDatesTest, OnlyCellsOfADateStyleReadAsDates) {
  CellDates dates;
  dates.AddFormat(164, "General");
  dates.AddFormat(165, "dd.mm.yyyy");
  dates.AddStyle(164);  // style 0
  dates.AddStyle(165);  // style 1
  dates.AddStyle(14);   // style 2: built-in m/d/yyyy
  EXPECT_FALSE(dates.Text(0, 31108).has_value());
  EXPECT_EQ(dates.Text(1, 31108), "1985-03-02");
  EXPECT_EQ(dates.Text(2, 31108), "1985-03-02");
  EXPECT_FALSE(dates.Text(7, 31108).has_value());  // no such style
  dates.set_date1904(true);
  EXPECT_EQ(dates.Text(1, 29646), "1985-03-02");
}

}  // namespace
}  // namespace leakhound
