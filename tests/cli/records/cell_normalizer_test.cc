#include "cli/records/cell_normalizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

class CellNormalizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto n = CellNormalizer::Create();
    ASSERT_TRUE(n.ok());
    normalizer_ = std::move(*n);
  }
  std::vector<std::string> Forms(CellType type, std::string_view raw) {
    std::vector<std::string> forms;
    normalizer_->TextForms(type, raw, &forms);
    return forms;
  }
  std::optional<std::string> Cell(CellType type, std::string_view raw,
                                  DateOrder order = DateOrder::kDayMonthYear) {
    return normalizer_->Cell(type, order, raw);
  }
  std::unique_ptr<CellNormalizer> normalizer_;
};

TEST_F(CellNormalizerTest, NumbersLoseTheirSeparators) {
  EXPECT_EQ(Cell(CellType::kPhone, "+49 (30) 123-4567"), "49301234567");
  EXPECT_EQ(Cell(CellType::kPhone, "0049 30 1234567"), "49301234567");
  EXPECT_EQ(Cell(CellType::kPhone, "12345"), std::nullopt);
  EXPECT_EQ(Cell(CellType::kCard, "4111-1111 1111.1111"), "4111111111111111");
  EXPECT_EQ(Cell(CellType::kIban, "gb82 west 1234 5698 7654 32"),
            "GB82WEST12345698765432");
  EXPECT_EQ(Cell(CellType::kNationalId, "ab 12-34-56 c"), "AB123456C");
}

TEST_F(CellNormalizerTest, EmailsAreLowerCasedAndUnwrapped) {
  EXPECT_EQ(Cell(CellType::kEmail, "<John.Smith@Example.COM>"),
            "john.smith@example.com");
  EXPECT_EQ(Cell(CellType::kEmail, "mailto:a@b.org"), "a@b.org");
  EXPECT_EQ(Cell(CellType::kEmail, "not an address"), std::nullopt);
}

// Month names of the languages customer tables are written in (ICU's, in
// shingler/month_names.h), and two-digit years with a pivot: 41 of 68 German
// dates and no two-digit year matched before issue 67.
TEST_F(CellNormalizerTest, DatesInOtherLanguagesAndWithTwoDigitYears) {
  for (const char* german : {"17. März 1984", "17 Mär 1984", "17. MÄRZ 1984"}) {
    EXPECT_EQ(Cell(CellType::kDate, german), "19840317") << german;
  }
  EXPECT_EQ(Cell(CellType::kDate, "2. Mai 1984"), "19840502");
  EXPECT_EQ(Cell(CellType::kDate, "30. Juni 1984"), "19840630");
  EXPECT_EQ(Cell(CellType::kDate, "4. Juli 1984"), "19840704");
  EXPECT_EQ(Cell(CellType::kDate, "9. Okt. 1984"), "19841009");
  EXPECT_EQ(Cell(CellType::kDate, "24. Dezember 1984"), "19841224");
  EXPECT_EQ(Cell(CellType::kDate, "17 mars 1984"), "19840317");       // fr
  EXPECT_EQ(Cell(CellType::kDate, "3 déc. 1984"), "19841203");        // fr
  EXPECT_EQ(Cell(CellType::kDate, "17 marzo 1984"), "19840317");      // es, it
  EXPECT_EQ(Cell(CellType::kDate, "17 septiembre 1984"), "19840917");
  EXPECT_EQ(Cell(CellType::kDate, "17 de marzo de 1984"), "19840317");
  EXPECT_EQ(Cell(CellType::kDate, "17th of March 1984"), "19840317");
  // Two-digit years: 80 years back, 20 ahead of this year.
  EXPECT_EQ(Cell(CellType::kDate, "17.03.84"), "19840317");
  EXPECT_EQ(Cell(CellType::kDate, "17/03/05"), "20050317");
  EXPECT_EQ(Cell(CellType::kDate, "17 März 84"), "19840317");
  EXPECT_EQ(Cell(CellType::kDate, "03/17/84", DateOrder::kMonthDayYear),
            "19840317");
  // Chinese, Japanese and Korean: year, month and day marks.
  EXPECT_EQ(Cell(CellType::kDate, "1984年3月17日"), "19840317");
  EXPECT_EQ(Cell(CellType::kDate, "1984\xEB\x85\x84 3\xEC\x9B\x94 "
                                  "17\xEC\x9D\xBC"),  // 1984년 3월 17일
            "19840317");
}

TEST_F(CellNormalizerTest, DatesReadInTheTablesOrderAndTextsInEither) {
  EXPECT_EQ(Cell(CellType::kDate, "1985-03-02"), "19850302");
  EXPECT_EQ(Cell(CellType::kDate, "02.03.1985"), "19850302");
  EXPECT_EQ(Cell(CellType::kDate, "03/02/1985", DateOrder::kMonthDayYear),
            "19850302");
  EXPECT_EQ(Cell(CellType::kDate, "2nd March 1985"), "19850302");
  EXPECT_EQ(Cell(CellType::kDate, "Mar 2, 1985"), "19850302");
  EXPECT_EQ(Cell(CellType::kDate, "1985 March 2"), "19850302");
  EXPECT_EQ(Cell(CellType::kDate, "31/02/1985"), std::nullopt);
  EXPECT_THAT(Forms(CellType::kDate, "03/02/1985"),
              UnorderedElementsAre("19850203", "19850302"));
  EXPECT_THAT(Forms(CellType::kDate, "25/02/1985"), ElementsAre("19850225"));
  EXPECT_THAT(Forms(CellType::kDate, "born 1985"), IsEmpty());
}

TEST_F(CellNormalizerTest, NamesFoldCaseWidthAndLookAlikesButNotOrder) {
  const auto plain = Cell(CellType::kName, "John Smith");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(Cell(CellType::kName, "JOHN   SMITH"), plain);
  EXPECT_EQ(Cell(CellType::kName, "ｊｏｈｎ ｓｍｉｔｈ"), plain);  // fullwidth
  EXPECT_EQ(Cell(CellType::kName, "J\xD0\xBEhn Smith"), plain);  // Cyrillic о
  EXPECT_NE(Cell(CellType::kName, "Smith John"), plain);
  EXPECT_EQ(Cell(CellType::kName, "  "), std::nullopt);
  EXPECT_EQ(CellNormalizer::WordCount("Jean-Luc  O'Brien, Jr."), 3u);
}

TEST(SplitWordsTest, SplitsAtSpacesAndTablePunctuationNotInsideNumbers) {
  const std::string text =
      "a@b.com,+49 30/123-45;\"x\"\t(y)\xC2\xA0z 1.5. end: O'Brien";
  std::vector<std::string> words;
  for (const WordSpan& w : SplitWords(text)) {
    words.push_back(text.substr(w.begin, w.end - w.begin));
  }
  EXPECT_THAT(words, ElementsAre("a@b.com", "+49", "30/123-45", "x", "y", "z",
                                 "1.5", "end", "O'Brien"));
}

// Issue 67: CJK prose has no spaces; a name inside it was one word with
// the sentence around it.
TEST(SplitWordsTest, CjkCharactersAreWordsOfTheirOwnAndPunctuationBreaks) {
  const std::string text =
      "客户张伟的卡号是4111111111111111，生于1985年3月2日。Mail: wei@x.cn";
  std::vector<std::string> words;
  for (const WordSpan& w : SplitWords(text)) {
    words.push_back(text.substr(w.begin, w.end - w.begin));
  }
  EXPECT_THAT(words, ElementsAre("客", "户", "张", "伟", "的", "卡", "号", "是",
                                 "4111111111111111", "生", "于",
                                 "1985年3月2日", "Mail", "wei@x.cn"));
  EXPECT_EQ(CellNormalizer::WordCount("张伟"), 2u);
}

}  // namespace
}  // namespace leakhound
