#include "shingler/tokenizer.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_paths.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;

class TokenizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = Tokenizer::Create();
    ASSERT_TRUE(t.ok()) << t.status();
    tokenizer_ = std::move(*t);
  }
  std::vector<std::string> Norm(std::string_view text) {
    return tokenizer_->NormalizedTokens(text);
  }
  std::vector<Token> Fast(std::string_view text) {
    std::vector<Token> out;
    tokenizer_->Tokenize(text, &out);
    return out;
  }
  std::vector<Token> Reference(std::string_view text) {
    std::vector<Token> out;
    tokenizer_->TokenizeReference(text, &out);
    return out;
  }
  std::vector<uint64_t> Hashes(std::string_view text) {
    std::vector<uint64_t> h;
    for (const Token& t : Fast(text)) h.push_back(t.hash);
    return h;
  }
  std::unique_ptr<Tokenizer> tokenizer_;
};

// Golden normalizations: these pin the shingler's normalization version.
TEST_F(TokenizerTest, FullwidthFormsFoldToAscii) {
  EXPECT_THAT(Norm("ＨＥＬＬＯ　Ｗｏｒｌｄ　１２３"),
              ElementsAre("hello", "world", "l23"));
}

TEST_F(TokenizerTest, CyrillicAndGreekLookAlikesFoldToLatin) {
  // "рaуpal" with Cyrillic р and у; "ΡΟΟL" with Greek capitals.
  EXPECT_THAT(Norm("\xD1\x80\x61\xD1\x83pal \xCE\xA1\xCE\x9F\xCE\x9FL"),
              ElementsAre("paypal", "pool"));
  EXPECT_EQ(Hashes("сrеdit"), Hashes("credit"));  // Cyrillic с and е
}

TEST_F(TokenizerTest, GreekAndCyrillicCapitalTwinsFoldAsTheLatinCapitals) {
  // Folded first, Greek Χ, Β and Ε became χ, β (then ss) and ε, which no
  // skeleton makes x, b and e: "PΟSIΧ" (Greek Ο and Χ) was not "posix".
  EXPECT_THAT(Norm("P\u039FSI\u03A7 \u0392\u0395 \u03A7 \u0421\u0410T"),
              ElementsAre("posix", "be", "x", "cat"));
  EXPECT_EQ(Hashes("\u0391\u0392\u0395 P\u039FSI\u03A7.1-2008"),
            Hashes("ABE POSIX.1-2008"));
}

TEST_F(TokenizerTest, GreekAndCyrillicWordsStillFoldCaseAsThemselves) {
  // A word of their own script with a letter of no Latin twin (Λ, Д).
  EXPECT_EQ(Hashes("\u0391\u039B\u0395\u039E\u0397"),   // ΑΛΕΞΗ
            Hashes("\u03B1\u03BB\u03B5\u03BE\u03B7"));  // αλεξη
  EXPECT_EQ(Hashes("\u0414\u0410\u041C\u0410"),          // ДАМА
            Hashes("\u0434\u0430\u043C\u0430"));         // дама
}

TEST_F(TokenizerTest, ZeroWidthAndSoftHyphenDisappearInsideWords) {
  EXPECT_THAT(Norm("pass\u200Bword con\u00ADfidential join\u200Ded"),
              ElementsAre("password", "confidential", "joined"));
}

TEST_F(TokenizerTest, TurkishDotlessAndDottedIFold) {
  EXPECT_THAT(Norm("ISPARTA \xC4\xB1sparta \xC4\xB0stanbul"),
              ElementsAre("isparta", "isparta", "i\xCC\x87stanbul"));
}

TEST_F(TokenizerTest, GermanSharpSFoldsToSs) {
  EXPECT_THAT(Norm("Straße STRASSE straẞe"),
              ElementsAre("strasse", "strasse", "strasse"));
}

TEST_F(TokenizerTest, SkeletonFoldsDigitAndLetterLookAlikes) {
  // TS #39 skeletons: 0 -> o, 1 -> l, m -> rn. Applied to both sides of a
  // comparison, so a "passw0rd" spelling still matches "password".
  EXPECT_THAT(Norm("passw0rd l1 modem"),
              ElementsAre("password", "ll", "rnodern"));
}

TEST_F(TokenizerTest, PunctuationWhitespaceAndLineBreaksNeverMatter) {
  const auto expected = Hashes("the quick brown fox jumps");
  EXPECT_EQ(Hashes("The  quick\r\nbrown, fox -- jumps!"), expected);
  EXPECT_EQ(Hashes("THE QUICK\tBROWN \"FOX\" (jumps)."), expected);
  EXPECT_EQ(Hashes("> the quick\n> brown fox\n> jumps"), expected);
}

TEST_F(TokenizerTest, MarksInsideAWhitespaceDelimitedRunDoNotSplitIt) {
  EXPECT_THAT(Norm("don't e.g. 3.14 1,000 a;b x:y a_b _ __ j.doe@example.com"),
              ElementsAre("dont", "eg", "3l4", "looo", "ab", "xy", "a_b",
                          "jdoe@exarnplecorn"));
  // A mark deleted or replaced by another leaves the token as it was.
  const auto single = Hashes("a single.thread runs");
  for (const char* variant :
       {"a singlethread runs", "a single-thread runs", "a single,thread runs",
        "a single(thread runs", "a single'thread runs", "a single:thread runs",
        "a single\"thread runs", "a single—thread runs"}) {
    EXPECT_EQ(Hashes(variant), single) << variant;
    EXPECT_EQ(Fast(variant), Reference(variant)) << variant;
  }
  EXPECT_EQ(Hashes("see chmod(2) now"), Hashes("see chmod2) now"));
  // Marks ICU keeps inside non-ASCII words go too (Hebrew gershayim, the
  // fullwidth full stop).
  EXPECT_EQ(Hashes("צה\"ל"), Hashes("צהל"));
  EXPECT_EQ(Hashes("single．thread"), Hashes("singlethread"));
  EXPECT_EQ(Hashes("https://example.com/a?b=1"),
            Hashes("https//example-com/a?b1"));
  // Whitespace, ASCII or not, still separates words.
  EXPECT_THAT(Norm("single. thread"), ElementsAre("single", "thread"));
  EXPECT_THAT(Norm("single.\u00A0thread single.\u3000thread"),
              ElementsAre("single", "thread", "single", "thread"));
}

TEST_F(TokenizerTest, AJoinedTokenSpansItsWordsAndCharactersNeverJoin) {
  const std::string text = "go (single.thread) 中、文 abc、def";
  auto tokens = Fast(text);
  EXPECT_EQ(tokens, Reference(text));
  ASSERT_EQ(tokens.size(), 5u);
  auto slice = [&](const Token& t) {
    return text.substr(t.byte_begin, t.byte_end - t.byte_begin);
  };
  EXPECT_EQ(slice(tokens[1]), "single.thread");
  EXPECT_TRUE(tokens[2].per_character);
  EXPECT_TRUE(tokens[3].per_character);
  EXPECT_EQ(slice(tokens[4]), "abc、def");
  EXPECT_FALSE(tokens[4].per_character);
}

// Rich text pasted as plain text (markup_residue.h): tags and emphasis
// underscores are read as spaces, in both paths, and the tokens keep their
// own bytes.
TEST_F(TokenizerTest, MarkupResidueReadsAsSpaces) {
  const std::vector<uint64_t> plain =
      Hashes("the executive team will open talks");
  EXPECT_EQ(Hashes("the <b>executive</b> team will _open_ talks"), plain);
  EXPECT_EQ(
      Hashes("the <em class=\"x\">executive</em> team will __open__ talks"),
      plain);
  EXPECT_EQ(Hashes("the **executive** team will `open` talks"), plain);
  EXPECT_EQ(Hashes("the executive<br/>team will open talks"), plain);
  // Not markup: a comparison, and underscores inside a word.
  EXPECT_THAT(Norm("a < b > c snake_case"),
              ElementsAre("a", "b", "c", "snake_case"));
  const std::string text = "x <i>Zürich</i> y";
  auto tokens = Fast(text);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(text.substr(tokens[1].byte_begin,
                        tokens[1].byte_end - tokens[1].byte_begin),
            "Zürich");
  EXPECT_EQ(tokens, Reference(text));
}

// The same Chinese text in traditional and simplified characters gives the
// same tokens (ICU's Traditional-Simplified transform), in both paths.
TEST_F(TokenizerTest, TraditionalHanFoldsToSimplified) {
  EXPECT_EQ(Hashes("機密文件將於會議後銷毀"), Hashes("机密文件将于会议后销毁"));
  EXPECT_EQ(Reference("機密文件"), Fast("机密文件"));
  EXPECT_NE(Hashes("机密"), Hashes("机会"));
}

TEST_F(TokenizerTest, HanKanaAndHangulGiveOneTokenPerCharacter) {
  auto tokens = Fast("机密文件 カタカナ한국abc");
  ASSERT_EQ(tokens.size(), 11u);
  for (size_t i = 0; i < 10; ++i) EXPECT_TRUE(tokens[i].per_character) << i;
  EXPECT_FALSE(tokens[10].per_character);
  EXPECT_THAT(Norm("机密"), ElementsAre("机", "密"));
}

TEST_F(TokenizerTest, HalfwidthKatakanaFoldsToFullwidth) {
  EXPECT_EQ(Hashes("ｶﾀｶﾅ"), Hashes("カタカナ"));
}

TEST_F(TokenizerTest, ByteRangesCoverExactlyTheTokenBytes) {
  const std::string text = "  Zürich,\tnaïve — 東京!";
  auto tokens = Fast(text);
  ASSERT_EQ(tokens.size(), 4u);
  auto slice = [&](const Token& t) {
    return text.substr(t.byte_begin, t.byte_end - t.byte_begin);
  };
  EXPECT_EQ(slice(tokens[0]), "Zürich");
  EXPECT_EQ(slice(tokens[1]), "naïve");
  EXPECT_EQ(slice(tokens[2]), "東");
  EXPECT_EQ(slice(tokens[3]), "京");
}

TEST_F(TokenizerTest, InvalidUtf8IsReplacedNotFatal) {
  const std::string text = "good \xFF\xFE text \xC3 more \xE6\x9C end\xF0\x9F";
  auto fast = Fast(text);
  EXPECT_EQ(fast, Reference(text));
  EXPECT_THAT(Norm(text), ElementsAre("good", "text", "rnore", "end"));
}

// An invalid byte (or its U+FFFD) between words is a break, as a space
// is: glued to every word it must not join a passage into one token.
TEST_F(TokenizerTest, AnInvalidByteBetweenWordsSeparatesThem) {
  for (const std::string text :
       {"board\xFF" "approved\xFF" "the\x80merger\xFF",
        "board\xEF\xBF\xBD" "approved\xEF\xBF\xBD" "the\xEF\xBF\xBDmerger"}) {
    EXPECT_THAT(Norm(text), ElementsAre("board", "approved", "the", "rnerger"))
        << text;
    EXPECT_EQ(Fast(text), Reference(text));
  }
  // A mark still joins.
  EXPECT_THAT(Norm("single-thread"), ElementsAre("singlethread"));
}

TEST_F(TokenizerTest, EmptyAndPunctuationOnlyTextsHaveNoTokens) {
  EXPECT_TRUE(Fast("").empty());
  EXPECT_TRUE(Fast(" ,.;:!?\r\n\t-- «» 、。").empty());
}

TEST_F(TokenizerTest, HugeRunWithoutWhitespaceIsBoundedAndComplete) {
  // 3 MiB of Han characters without whitespace: the fast path splits it into
  // 1 MiB ICU chunks at code point boundaries and still finds every one.
  std::string text;
  for (int i = 0; i < (3 << 20) / 3; ++i) text += "漢";
  auto tokens = Fast(text);
  EXPECT_EQ(tokens.size(), text.size() / 3);
  EXPECT_EQ(tokens.back().byte_end, text.size());
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_F(TokenizerTest, FastPathEqualsReferenceOnSampleCorpus) {
  const std::filesystem::path root =
      std::filesystem::path(test_paths::kSourceDir) / "corpus" / "sample";
  size_t files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    const std::string text = ReadFile(entry.path());
    auto fast = Fast(text);
    EXPECT_FALSE(fast.empty()) << entry.path();
    EXPECT_EQ(fast, Reference(text)) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 10u);
}

// Random texts drawn from pieces that stress every rule the fast path
// re-implements: ASCII word characters and mid-word punctuation next to
// non-ASCII letters, combining marks, ignorables, CJK, non-ASCII spaces and
// invalid bytes.
TEST_F(TokenizerTest, FastPathEqualsReferenceOnRandomTexts) {
  const std::vector<std::string> pieces = {"a",
                                           "Z",
                                           "m",
                                           "0",
                                           "1",
                                           "7",
                                           "_",
                                           ".",
                                           "'",
                                           ",",
                                           ";",
                                           ":",
                                           "-",
                                           " ",
                                           "  ",
                                           "\t",
                                           "\n",
                                           "\r\n",
                                           "\v",
                                           "\f",
                                           "!",
                                           "\"",
                                           "(",
                                           ")",
                                           "/",
                                           "@",
                                           "é",
                                           "ß",
                                           "İ",
                                           "ı",
                                           "а",
                                           "ο",
                                           "Ａ",
                                           "１",
                                           "\u0301",
                                           "\u0308",
                                           "\u200B",
                                           "\u00AD",
                                           "\u200D",
                                           "\uFE0F",
                                           "\u00A0",
                                           "\u3000",
                                           "漢",
                                           "字",
                                           "カ",
                                           "ｶ",
                                           "\u3099",
                                           "ー",
                                           "々",
                                           "한",
                                           "\u2019",
                                           "\u2011",
                                           "\xFF",
                                           "\xC3",
                                           "\xE6\x9C",
                                           "\xF0\x9F\x98\x80",
                                           "\xED\xA0\x80",
                                           "word",
                                           "don't",
                                           "3.14",
                                           "x.y",
                                           "@",
                                           "a@b.c",
                                           "naïve",
                                           "שָׁלוֹם",
                                           "ไทย",
                                           "١٢٣"};
  std::mt19937_64 rng(20261121);
  std::uniform_int_distribution<size_t> pick(0, pieces.size() - 1);
  std::uniform_int_distribution<int> length(0, 60);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text;
    for (int n = length(rng); n > 0; --n) text += pieces[pick(rng)];
    ASSERT_EQ(Fast(text), Reference(text)) << "text: [" << text << "]";
  }
}

TEST_F(TokenizerTest, FastPathEqualsReferenceOnRandomBytes) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> length(0, 200);
  for (int iter = 0; iter < 5000; ++iter) {
    std::string text;
    for (int n = length(rng); n > 0; --n) {
      int b = byte(rng);
      // Bias toward ASCII so the fast path has runs to handle.
      if (b < 160) b = " aZ0_.',;\n\tq"[b % 12];
      text += static_cast<char>(b);
    }
    ASSERT_EQ(Fast(text), Reference(text));
  }
}

}  // namespace
}  // namespace leakhound
