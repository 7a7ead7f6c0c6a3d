#include "corpus/obfuscation.h"

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kText[] =
    "The pickle module implements binary protocols for serializing and "
    "de-serializing a Python object structure. Pickling is the process "
    "whereby an object hierarchy is converted into a byte stream! Unpickling "
    "is the inverse operation? It reads the stream back.";

std::string ObfuscateText(Obfuscation o, uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  const std::vector<std::string> vocabulary = {"zebra", "quartz", "violin"};
  return Obfuscate(kText, o, vocabulary, rng);
}

// Count of maximal ASCII letter/digit runs.
size_t Words(const std::string& s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool alnum = std::isalnum(static_cast<unsigned char>(s[i]));
    const bool prev =
        i > 0 && std::isalnum(static_cast<unsigned char>(s[i - 1]));
    n += alnum && !prev;
  }
  return n;
}

TEST(ObfuscationTest, SameSeedSameOutputForEveryObfuscation) {
  for (Obfuscation o : kAllObfuscations) {
    EXPECT_EQ(ObfuscateText(o), ObfuscateText(o)) << ObfuscationName(o);
  }
  EXPECT_EQ(ObfuscateText(Obfuscation::kNone), kText);
}

TEST(ObfuscationTest, CaseChangeKeepsLettersIgnoringCase) {
  const std::string out = ObfuscateText(Obfuscation::kCase);
  ASSERT_EQ(out.size(), std::string(kText).size());
  EXPECT_NE(out, kText);
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(std::tolower(out[i]), std::tolower(kText[i]));
  }
}

TEST(ObfuscationTest, RewrapUsesCrlfLinesOfAtMost72Bytes) {
  const std::string out = ObfuscateText(Obfuscation::kRewrapCrlf);
  EXPECT_THAT(out, HasSubstr("\r\n"));
  size_t start = 0;
  while (start < out.size()) {
    const size_t end = out.find("\r\n", start);
    ASSERT_NE(end, std::string::npos);
    EXPECT_LE(end - start, 72u);
    start = end + 2;
  }
  EXPECT_EQ(Words(out), Words(kText));
}

TEST(ObfuscationTest, PunctuationChangesTouchOnlyMarks) {
  const std::string out = ObfuscateText(Obfuscation::kPunctuation);
  EXPECT_NE(out, kText);
  std::string letters_in, letters_out;
  for (char c : std::string(kText)) {
    if (std::isalnum(static_cast<unsigned char>(c))) letters_in += c;
  }
  for (char c : out) {
    if (std::isalnum(static_cast<unsigned char>(c))) letters_out += c;
  }
  EXPECT_EQ(letters_in, letters_out);
}

TEST(ObfuscationTest, HomoglyphsAreCyrillicOrGreekLookAlikes) {
  const std::string out = ObfuscateText(Obfuscation::kHomoglyph);
  EXPECT_GT(out.size(), std::string(kText).size());
  // Cyrillic small a/e/o (D0 B0, D0 B5, D0 BE) appear.
  EXPECT_TRUE(out.find("\xD0\xB0") != std::string::npos ||
              out.find("\xD0\xB5") != std::string::npos ||
              out.find("\xD0\xBE") != std::string::npos);
}

TEST(ObfuscationTest, FullwidthWidensEveryAsciiMark) {
  const std::string out = ObfuscateText(Obfuscation::kFullwidth);
  EXPECT_THAT(out, HasSubstr("\xEF\xBC\xB4"));  // U+FF34, fullwidth 'T'
  EXPECT_THAT(out, Not(HasSubstr("The")));
}

TEST(ObfuscationTest, ZeroWidthCharactersAreTheOnlyAddition) {
  std::string out = ObfuscateText(Obfuscation::kZeroWidth);
  EXPECT_NE(out, kText);
  for (const char* invisible : {"\u200B", "\u200C", "\u200D", "\u2060",
                                "\u00AD", "\uFEFF"}) {
    for (size_t at; (at = out.find(invisible)) != std::string::npos;) {
      out.erase(at, std::string(invisible).size());
    }
  }
  EXPECT_EQ(out, kText);
}

TEST(ObfuscationTest, SubstitutionReplacesTheStatedShareOfWords) {
  const std::string five = ObfuscateText(Obfuscation::kSubstitute5);
  const std::string fifteen = ObfuscateText(Obfuscation::kSubstitute15);
  EXPECT_EQ(Words(five), Words(kText));
  auto replaced = [](const std::string& s) {
    size_t n = 0;
    for (const char* w : {"zebra", "quartz", "violin"}) {
      for (size_t at = s.find(w); at != std::string::npos;
           at = s.find(w, at + 1)) {
        ++n;
      }
    }
    return n;
  };
  // 39 words: 5 % rounds to 2, 15 % to 6.
  ASSERT_EQ(Words(kText), 39u);
  EXPECT_EQ(replaced(five), 2u);
  EXPECT_EQ(replaced(fifteen), 6u);
}

TEST(ObfuscationTest, ReorderingKeepsEverySentence) {
  const std::string out = ObfuscateText(Obfuscation::kReorderSentences);
  EXPECT_NE(out, kText);
  for (const char* sentence :
       {"Pickling is the process whereby an object hierarchy is converted "
        "into a byte stream!",
        "Unpickling is the inverse operation?", "It reads the stream back."}) {
    EXPECT_THAT(out, HasSubstr(sentence));
  }
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

// The text's words, in order, from `s` with its markup removed as `strip`
// says: the disguise must keep every word and only add its own marks.
std::string WordsOnly(const std::string& s) {
  std::string out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && !std::isalnum(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && std::isalnum(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out += s.substr(i, j - i) + " ";
    i = j;
  }
  return out;
}

TEST(ObfuscationTest, HyphenationBreaksLongWordsAtLineEndsAndKeepsTheRest) {
  const std::string out = ObfuscateText(Obfuscation::kHyphenate);
  EXPECT_THAT(out, HasSubstr("-\n"));
  std::string joined;  // undo the breaks
  for (size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 2, "-\n") == 0 && i > 0 &&
        std::isalpha(static_cast<unsigned char>(out[i - 1]))) {
      ++i;
      continue;
    }
    joined += out[i];
  }
  EXPECT_EQ(WordsOnly(joined), WordsOnly(kText));
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(line.size(), 72u) << line;
  }
}

TEST(ObfuscationTest, RichTextWrapsWordsInMarkupAndKeepsThem) {
  const std::string out = ObfuscateText(Obfuscation::kRichText);
  EXPECT_NE(out, kText);
  std::string stripped = out;
  for (const char* tag : {"<b>", "</b>", "<em>", "</em>", "<i>", "</i>"}) {
    for (size_t at; (at = stripped.find(tag)) != std::string::npos;) {
      stripped.erase(at, std::string(tag).size());
    }
  }
  EXPECT_EQ(WordsOnly(stripped), WordsOnly(kText));
}

TEST(ObfuscationTest, RichTextMarksWholeWordsNeverPiecesOfThem) {
  const std::vector<std::string> text = {"HUGE_VAL,", "don't", "(math_error)",
                                         "de-serializing", "it."};
  const std::vector<std::string> cores = {"HUGE_VAL", "don't", "math_error",
                                          "de-serializing", "it"};
  const std::pair<std::string, std::string> marks[] = {
      {"**", "**"}, {"_", "_"}, {"`", "`"},
      {"<b>", "</b>"}, {"<em>", "</em>"}, {"<i>", "</i>"}};
  std::mt19937_64 rng(3);
  int marked = 0;
  for (int i = 0; i < 100; ++i) {
    std::istringstream out(Obfuscate("HUGE_VAL, don't (math_error) "
                                     "de-serializing it.",
                                     Obfuscation::kRichText, {}, rng));
    for (size_t w = 0; w < text.size(); ++w) {
      std::string word;
      ASSERT_TRUE(out >> word);
      if (word == text[w]) continue;
      const size_t at = text[w].find(cores[w]);
      bool whole = false;
      for (const auto& [open, close] : marks) {
        whole = whole || word == text[w].substr(0, at) + open + cores[w] +
                                     close +
                                     text[w].substr(at + cores[w].size());
      }
      EXPECT_TRUE(whole) << word;
      ++marked;
    }
  }
  EXPECT_GT(marked, 100);
}

TEST(ObfuscationTest, HanVariantWritesEveryMappedCharacterInTheOtherScript) {
  const HanVariants to_traditional = {{U'\u673A', U'\u6A5F'},   // 机 -> 機
                                      {U'\u53D1', U'\u767C'}};  // 发 -> 發
  std::mt19937_64 rng(1);
  EXPECT_EQ(Obfuscate("机密文件 send 发送, 机", Obfuscation::kHanVariant, {},
                      rng, &to_traditional),
            "機密文件 send 發送, 機");
}

TEST(ObfuscationTest, MailQuotingPrefixesEveryLine) {
  const std::string out = ObfuscateText(Obfuscation::kMailQuote);
  std::istringstream lines(out);
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    EXPECT_EQ(line.rfind("> ", 0), 0u) << line;
  }
  EXPECT_GT(n, 2);
  EXPECT_EQ(WordsOnly(out), WordsOnly(kText));
}

TEST(ObfuscationTest, TableCellsSplitTheTextIntoCellsOrItems) {
  bool table = false, html = false, bullets = false;
  for (uint64_t seed = 1; seed < 30; ++seed) {
    const std::string out = ObfuscateText(Obfuscation::kTableCells, seed);
    table |= out.find("|---|") != std::string::npos;
    html |= out.find("<td>") != std::string::npos;
    bullets |= out.rfind("- ", 0) == 0;
    std::string stripped = out;
    for (const char* tag :
         {"<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>"}) {
      for (size_t at; (at = stripped.find(tag)) != std::string::npos;) {
        stripped.erase(at, std::string(tag).size());
      }
    }
    EXPECT_EQ(WordsOnly(stripped), WordsOnly(kText)) << out;
  }
  EXPECT_TRUE(table && html && bullets);
}

}  // namespace
}  // namespace leakhound
