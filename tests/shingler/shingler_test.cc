#include "shingler/shingler.h"

#include <array>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shingler/tokenizer.h"

namespace leakhound {
namespace {

FingerprintKey TestKey() {
  std::array<uint8_t, 32> b{};
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i);
  return *FingerprintKey::FromBytes(b);
}

std::unique_ptr<Shingler> Make(ShinglerOptions options = {},
                               FingerprintKey key = TestKey()) {
  auto s = Shingler::Create(options, key);
  EXPECT_TRUE(s.ok()) << s.status();
  return std::move(*s);
}

std::vector<uint64_t> Fingerprints(Shingler& s, std::string_view text) {
  auto r = s.Shingle(text);
  EXPECT_TRUE(r.ok()) << r.status();
  std::vector<uint64_t> f;
  for (const Shingle& sh : r->shingles) f.push_back(sh.fingerprint);
  return f;
}

TEST(ShinglerTest, TokenHashesMatchIndependentXxh3) {
  // Computed with Debian's python3-xxhash: xxh3_64(normalized UTF-8).
  auto tokenizer = *Tokenizer::Create();
  std::vector<Token> t;
  tokenizer->Tokenize("The QUICK 机 passw0rd", &t);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].hash, 0xcb1283631cf33d7du);
  EXPECT_EQ(t[1].hash, 0xa484d68ab370b322u);
  EXPECT_EQ(t[2].hash, 0x1eb16e99174e1139u);
  EXPECT_EQ(t[3].hash, 0x336576d7e0e06f9au);
}

TEST(ShinglerTest, FingerprintsArePinnedForAFixedKey) {
  // Golden: a change here changes every persisted index (bump the shingler
  // version in the index metadata when it is intended).
  auto s = Make();
  EXPECT_THAT(
      Fingerprints(*s, "the quick brown fox jumps over the lazy dog"),
      ::testing::ElementsAre(13230252181702815139u, 17241002577417657879u,
                             14034801160994337464u, 12017348835034371482u,
                             15250854906372252677u));
  EXPECT_THAT(
      Fingerprints(*s, "机密文件仅限采购部门内部使用"),
      ::testing::ElementsAre(5746588541833789905u, 8686665893377550010u,
                             14145359498161277384u, 11415859529967150099u,
                             4562804899905494251u));
}

TEST(ShinglerTest, WordChecksArePinnedForAFixedKey) {
  // Golden, as the fingerprints: stored lists hold these bytes.
  auto s = Make();
  auto text = s->Shingle("the quick brown fox jumps over the lazy dog");
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(text->word_checks,
              ::testing::ElementsAre(18, 175, 120, 185, 87, 192, 18, 204, 237));
  // One byte per token, the same for the same word.
  EXPECT_EQ(text->word_checks[0], text->word_checks[6]);
  auto cjk = s->Shingle("机密文件");
  ASSERT_TRUE(cjk.ok());
  EXPECT_EQ(cjk->word_checks.size(), cjk->token_count);
  EXPECT_THAT(cjk->word_checks, ::testing::ElementsAre(149, 31, 14, 169));
}

TEST(ShinglerTest, OneCharacterTokensWeighAsCjkCharacters) {
  auto s = Make();
  auto letters =
      s->Shingle("A B C D E F G H I J K L M N O P Q R S T U V W X Y Z");
  ASSERT_TRUE(letters.ok());
  EXPECT_EQ(letters->token_count, 26u);
  EXPECT_EQ(letters->Words(0, 26), 13u);
  // A shingle of 5 words takes 10 one-letter tokens.
  ASSERT_FALSE(letters->shingles.empty());
  EXPECT_EQ(letters->shingles[0].token_end - letters->shingles[0].token_begin,
            10u);
  // Alone among words, one character is a word; next to another, half.
  auto words = s->Shingle("a cat, I think, sat on 7 mats, 1 2 3");
  ASSERT_TRUE(words.ok());
  EXPECT_EQ(words->token_count, 11u);
  EXPECT_EQ(words->Words(0, 8), 8u);
  EXPECT_EQ(words->Words(8, 11), 1u);  // three half words, rounded down
}

TEST(ShinglerTest, KeyChangesEveryFingerprint) {
  std::array<uint8_t, 32> other{};
  other.fill(0xA5);
  auto a = Make();
  auto b = Make({}, *FingerprintKey::FromBytes(other));
  auto fa = Fingerprints(*a, "one two three four five six seven");
  auto fb = Fingerprints(*b, "one two three four five six seven");
  ASSERT_EQ(fa.size(), 3u);
  ASSERT_EQ(fb.size(), 3u);
  for (size_t i = 0; i < fa.size(); ++i) EXPECT_NE(fa[i], fb[i]);
}

TEST(ShinglerTest, ShinglesSlideOneTokenAndRecordRanges) {
  auto s = Make();
  const std::string text = "One two, three four five six.";
  auto r = *s->Shingle(text);
  EXPECT_EQ(r.token_count, 6u);
  ASSERT_EQ(r.shingles.size(), 2u);
  EXPECT_EQ(text.substr(r.shingles[0].byte_begin,
                        r.shingles[0].byte_end - r.shingles[0].byte_begin),
            "One two, three four five");
  EXPECT_EQ(r.shingles[1].token_begin, 1u);
  EXPECT_EQ(r.shingles[1].token_end, 6u);
  EXPECT_EQ(text.substr(r.shingles[1].byte_begin,
                        r.shingles[1].byte_end - r.shingles[1].byte_begin),
            "two, three four five six");
}

TEST(ShinglerTest, EmptyTextHasNoShingles) {
  auto s = Make();
  auto r = *s->Shingle("");
  EXPECT_EQ(r.token_count, 0u);
  EXPECT_TRUE(r.shingles.empty());
  EXPECT_TRUE(s->Shingle(" \n...\n ")->shingles.empty());
}

TEST(ShinglerTest, TextShorterThanOneShingleGivesOneShingleOfAllTokens) {
  auto s = Make();
  auto r = *s->Shingle("just three words");
  ASSERT_EQ(r.shingles.size(), 1u);
  EXPECT_EQ(r.shingles[0].token_begin, 0u);
  EXPECT_EQ(r.shingles[0].token_end, 3u);
}

TEST(ShinglerTest, CjkShinglesSpanTwiceAsManyCharactersAsWords) {
  auto s = Make();
  auto r = *s->Shingle("一二三四五六七八九十");
  ASSERT_EQ(r.shingles.size(), 1u);
  EXPECT_EQ(r.shingles[0].token_end - r.shingles[0].token_begin, 10u);
  ShinglerOptions narrow;
  narrow.cjk_chars_per_word = 1;
  auto n = Make(narrow);
  EXPECT_EQ(n->Shingle("一二三四五六七八九十")->shingles.size(), 6u);
}

TEST(ShinglerTest, MixedScriptShinglesWeighWordsAndCharacters) {
  auto s = Make();
  // "DLP" weighs 2 units, each Han character 1; 10 units per shingle.
  auto r = *s->Shingle("DLP 系统检测数据泄露风险");
  ASSERT_FALSE(r.shingles.empty());
  EXPECT_EQ(r.shingles[0].token_end - r.shingles[0].token_begin, 9u);
}

TEST(ShinglerTest, WordsCountCjkCharactersAsFractionsOfAWord) {
  auto s = Make();
  // Tokens: DLP, then 10 Han characters (5 words), then "and", "more".
  auto r = *s->Shingle("DLP 系统检测数据泄露风险 and more");
  ASSERT_EQ(r.token_count, 13u);
  ASSERT_EQ(r.word_units.size(), 14u);
  EXPECT_EQ(r.Words(0, 13), 8u);   // 1 + 5 + 2
  EXPECT_EQ(r.Words(1, 11), 5u);   // the characters alone
  EXPECT_EQ(r.Words(1, 4), 1u);    // three characters: 1.5, rounded down
  EXPECT_EQ(r.Words(11, 13), 2u);
  EXPECT_EQ(r.Words(5, 5), 0u);
}

TEST(ShinglerTest, ObfuscationsDoNotChangeFingerprints) {
  auto s = Make();
  const auto plain = Fingerprints(
      *s, "the floor price for the analytics add-on is 41 dollars per user");
  EXPECT_EQ(Fingerprints(*s,
                         "THE FLOOR PRICE\r\nfor the analytics add\u2011on "
                         "is 41 dollars per user!!"),
            plain);
  EXPECT_EQ(Fingerprints(*s,
                         "thе flооr рrice for the аnalytics add-on is ４１ "
                         "dol\u200Blars per user"),
            plain);
}

TEST(ShinglerTest, FastPathEqualsReferencePath) {
  auto s = Make();
  const std::string text =
      "Résumé: the quick brown fox — 快速的棕色狐狸 — jumps over ｔｈｅ lazy "
      "dog. Ça va? カタカナ and 한국어 text, done.";
  auto fast = *s->Shingle(text);
  auto reference = s->ShingleReference(text);
  EXPECT_EQ(fast.token_count, reference.token_count);
  EXPECT_EQ(fast.shingles, reference.shingles);
}

TEST(ShinglerTest, RejectsOptionsOutOfRange) {
  ShinglerOptions o;
  o.shingle_words = 0;
  EXPECT_EQ(Shingler::Create(o, TestKey()).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = {};
  o.winnow_window = -1;
  EXPECT_EQ(Shingler::Create(o, TestKey()).status().code(),
            absl::StatusCode::kInvalidArgument);
  o = {};
  o.cjk_chars_per_word = 9;
  EXPECT_EQ(Shingler::Create(o, TestKey()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

std::string RandomWords(std::mt19937_64& rng, size_t n) {
  static const std::vector<std::string> kVocabulary = {
      "alpha", "beta", "gamma", "delta", "kernel", "memory", "the", "of",
      "filter", "row", "bloom", "leak", "data", "page", "user", "a"};
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += kVocabulary[rng() % kVocabulary.size()];
    out += (rng() % 7 == 0) ? ",\n" : " ";
  }
  return out;
}

TEST(ShinglerTest, WinnowingKeepsACommonFingerprintForEverySharedRun) {
  // Any shared run of at least w + W - 1 words yields a common selected
  // fingerprint (Schleimer et al.), here over random texts sharing one run;
  // one-letter words next to each other weigh half a word (shingler.h), so
  // the run is grown until it has w + W - 1 words even were every "a" half.
  std::mt19937_64 rng(99);
  for (int iter = 0; iter < 300; ++iter) {
    ShinglerOptions o;
    o.shingle_words = 1 + static_cast<int>(rng() % 8);
    o.winnow_window = 2 + static_cast<int>(rng() % 12);
    auto s = Make(o);
    const size_t run =
        static_cast<size_t>(o.shingle_words + o.winnow_window - 1);
    std::string shared;
    for (size_t halves = 0; halves < 2 * run;) {
      const std::string word = RandomWords(rng, 1);
      const bool one_letter = word[0] == 'a' && !std::isalpha(word[1]);
      halves += one_letter ? 1 : 2;
      shared += word;
    }
    const std::string a =
        RandomWords(rng, rng() % 40) + " . " + shared + " . " +
        RandomWords(rng, rng() % 40);
    const std::string b =
        RandomWords(rng, rng() % 40) + " ! " + shared + " ? " +
        RandomWords(rng, rng() % 40);
    auto fa = Fingerprints(*s, a);
    auto fb = Fingerprints(*s, b);
    std::set<uint64_t> sa(fa.begin(), fa.end());
    bool common = false;
    for (uint64_t f : fb) common = common || sa.count(f) > 0;
    ASSERT_TRUE(common) << "w=" << o.shingle_words
                        << " W=" << o.winnow_window << " shared=[" << shared
                        << "]";
  }
}

TEST(ShinglerTest, WinnowingReducesFingerprintsToTheExpectedDensity) {
  std::mt19937_64 rng(5);
  const std::string text = RandomWords(rng, 50000);
  ShinglerOptions o;
  o.winnow_window = 8;
  auto all = Make()->Shingle(text)->shingles.size();
  auto kept = Make(o)->Shingle(text)->shingles.size();
  EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(all),
              2.0 / 9.0, 0.03);
}

}  // namespace
}  // namespace leakhound
