#include "engine/scan/passage_matcher.h"

#include <array>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

constexpr char kSource[] =
    "The committee reviewed the supplier audit in March and found that three "
    "of the eleven warehouses stored customer records on unencrypted "
    "laptops. The remediation plan assigns each site manager a deadline of "
    "thirty days to replace the devices, and the security office will "
    "inspect every site again before the end of the second quarter. Budget "
    "for the replacement comes from the operations reserve, not from the "
    "regional allocations.";

class PassageMatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::array<uint8_t, 32> key{};
    key[0] = 7;
    auto shingler = Shingler::Create({}, *FingerprintKey::FromBytes(key));
    ASSERT_TRUE(shingler.ok());
    shingler_ = std::move(*shingler);
    SetSource(kSource);
  }

  void SetSource(const std::string& text) {
    auto shingled = shingler_->Shingle(text);
    ASSERT_TRUE(shingled.ok());
    source_.clear();
    for (const Shingle& s : shingled->shingles) {
      source_.push_back(Occurrence{s.fingerprint, s.token_begin, s.token_end,
                                   s.byte_begin, s.byte_end});
    }
    checks_.assign(shingled->word_checks.begin(), shingled->word_checks.end());
  }

  // Without the source's word checks (passages end at their shingles).
  std::vector<Passage> Match(const std::string& scanned,
                     const std::function<bool(uint64_t)>& suppressed = {}) {
    ScannedText text(*shingler_->Shingle(scanned));
    return MatchPassages(text, source_, "", suppressed,
                         PassageOptionsFor(shingler_->options()));
  }

  std::vector<Passage> MatchWithChecks(
      const std::string& scanned,
      const std::function<bool(uint64_t)>& suppressed = {},
      std::optional<PassageOptions> options = std::nullopt) {
    ScannedText text(*shingler_->Shingle(scanned));
    return MatchPassages(
        text, source_, checks_, suppressed,
        options.value_or(PassageOptionsFor(shingler_->options())));
  }

  // The words and covered words of `m`'s one passage; {0, 0} when `m`
  // holds another number of passages.
  static std::pair<uint32_t, uint32_t> Sole(const std::vector<Passage>& m) {
    if (m.size() != 1) return {0, 0};
    return {m[0].words, m[0].covered_words};
  }

  uint32_t GroupWords(const std::vector<Passage>& m) const {
    return LargestGroupWords(m,
                             PassageOptionsFor(shingler_->options()));
  }

  std::unique_ptr<Shingler> shingler_;
  std::vector<Occurrence> source_;
  std::string checks_;
};

TEST_F(PassageMatcherTest, VerbatimExcerptIsOnePassageWithBothSidesOffsets) {
  const std::string excerpt =
      "The remediation plan assigns each site manager a deadline of thirty "
      "days to replace the devices";
  const std::string host = "Hi all, quick update before the call. " + excerpt +
                           ". See you on Monday, Dana.";
  std::vector<Passage> m = Match(host);
  ASSERT_EQ(m.size(), 1u);
  const Passage& p = m[0];
  EXPECT_EQ(host.substr(p.byte_begin, p.byte_end - p.byte_begin), excerpt);
  EXPECT_EQ(std::string(kSource).substr(
                p.source_byte_begin, p.source_byte_end - p.source_byte_begin),
            excerpt);
  EXPECT_EQ(p.words, 16u);
  EXPECT_EQ(p.covered_words, 16u);  // verbatim: every word in a shingle
  EXPECT_EQ(p.source_token_end - p.source_token_begin, 16u);
}

TEST_F(PassageMatcherTest, SubstitutedWordIsBridgedInsideOnePassage) {
  std::vector<Passage> m = Match(
      "found that three of the eleven depots stored customer records on "
      "unencrypted laptops. The remediation plan assigns");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].words, 17u);
  // "depots" is in no matched shingle, but it faces "warehouses" on the
  // passage's diagonal: a word substituted for one counts as covered.
  EXPECT_EQ(m[0].covered_words, 17u);
}

TEST_F(PassageMatcherTest, SubstitutionsBridgeFartherThanInsertions) {
  // Source tokens 0-31 with tokens 11, 16, 21 and 26 replaced: no shingle
  // starting at 7-26 survives, so the matched ones start at 0-6 and 27,
  // 21 tokens apart: past max_gap_tokens (2 * 5 words * 2 CJK characters
  // per word = 20), within max_aligned_gap_tokens (30) since the diagonal
  // holds, and the words between face as many source words.
  const PassageOptions options = PassageOptionsFor(shingler_->options());
  ASSERT_EQ(options.max_gap_tokens, 20u);
  ASSERT_EQ(options.max_aligned_gap_tokens, 30u);
  std::vector<Passage> m = Match(
      "The committee reviewed the supplier audit in March and found that "
      "seven of the eleven warehouses kept customer records on unencrypted "
      "tablets. The remediation plan assigns one site manager a deadline of");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].words, 32u);
  EXPECT_EQ(m[0].covered_words, 32u);
  // One word inserted ("safely"): the last shingle is 22 tokens on and off
  // the diagonal by one, so only max_gap_tokens applies and it splits.
  m = Match(
      "The committee reviewed the supplier audit in March and found that "
      "seven of the eleven warehouses kept safely customer records on "
      "unencrypted tablets. The remediation plan assigns one site manager a "
      "deadline of");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].covered_words, 11u);
  EXPECT_EQ(m[1].covered_words, 5u);
}

TEST_F(PassageMatcherTest,
       WordChecksStopCountingAGapOfOtherWordsAsSubstituted) {
  // Source tokens 0-6 and 27-31 kept, the 20 between replaced by as many
  // other words: the same diagonal, so without word checks the gap counts
  // as 20 substituted words. From the 10,000-document evaluation: a
  // sibling page's sentence with its subject changed.
  const std::string templated =
      "The committee reviewed the supplier audit in April because nobody "
      "wanted to read the long report about regional sales figures and new "
      "office plans for next year site manager a deadline of";
  std::vector<Passage> m = Match(templated);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].words, 32u);
  EXPECT_EQ(m[0].covered_words, 32u);
  // The checks of the gap differ (all but "the", which faces "the"): more
  // than one in five of the passage's tokens, so they do not count.
  m = MatchWithChecks(templated);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].words, 32u);
  EXPECT_EQ(m[0].covered_words, 13u);
  // Four words substituted in the same 32 (one in eight) still count.
  m = MatchWithChecks(
      "The committee reviewed the supplier audit in March and found that "
      "seven of the eleven warehouses kept customer records on unencrypted "
      "tablets. The remediation plan assigns one site manager a deadline of");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].covered_words, 32u);
}

TEST_F(PassageMatcherTest,
       WordChecksCountOnlyStretchesWithFewInsertionsBetween) {
  // Source tokens 0-9, 10-19 and 20-29, with four other words inserted
  // after the first and the second stretch: the chain bridges both steps
  // of its diagonal, 38 tokens of which 8 (more than one in five) are
  // words the source does not hold. Two stretches and one insertion, 4 of
  // 24 tokens, stay within the share.
  const std::string inserted =
      "The committee reviewed the supplier audit in March and found alpha "
      "bravo charlie delta that three of the eleven warehouses stored "
      "customer records on echo foxtrot golf hotel unencrypted laptops. The "
      "remediation plan assigns each site manager a";
  EXPECT_EQ(Sole(Match(inserted)), std::make_pair(38u, 30u));
  EXPECT_EQ(Sole(MatchWithChecks(inserted)), std::make_pair(38u, 20u));
  // Five words between source tokens 0-5 and 6-14: 5 of 20 tokens is too
  // many, and each stretch is alone.
  const std::string crowded =
      "The committee reviewed the supplier audit alpha bravo charlie delta "
      "echo in March and found that three of the eleven";
  EXPECT_EQ(Sole(Match(crowded)), std::make_pair(20u, 15u));
  EXPECT_EQ(Sole(MatchWithChecks(crowded)), std::make_pair(20u, 9u));
}

TEST_F(PassageMatcherTest, WordChecksCountAGapOfFewerThanARunAsInserted) {
  // "of the" inserted after every five source words: the source says "of
  // the" too, but a run of 1 or 2 tokens agrees with some place near by
  // chance, so a gap shorter than a moved run (3 tokens) is inserted
  // words, 8 of 33 tokens: only two stretches with one gap count.
  const std::string inserted =
      "The committee reviewed the supplier of the audit in March and found "
      "of the that three of the eleven of the warehouses stored customer "
      "records on of the unencrypted laptops. The remediation plan";
  EXPECT_EQ(Sole(Match(inserted)), std::make_pair(33u, 25u));
  EXPECT_EQ(Sole(MatchWithChecks(inserted)), std::make_pair(33u, 10u));
}

TEST_F(PassageMatcherTest, WordChecksCountWordsMovedWithinTheCopyAsCovered) {
  // The same three stretches with source tokens 30-33 and 34-37 moved
  // between them (short sentences of a reordered excerpt, too short for a
  // shingle of their own): the source holds them near the passage, so
  // they are copied words, not inserted ones.
  const std::string moved =
      "The committee reviewed the supplier audit in March and found "
      "deadline of thirty days that three of the eleven warehouses stored "
      "customer records on to replace the devices, unencrypted laptops. The "
      "remediation plan assigns each site manager a";
  EXPECT_EQ(Sole(Match(moved)), std::make_pair(38u, 30u));
  EXPECT_EQ(Sole(MatchWithChecks(moved)), std::make_pair(38u, 38u));
  // Source tokens 4-9, then 31-33 and 40-41 (fragments of two sentences
  // from different places), then 10-15: the source holds the gap as two
  // runs.
  const std::string fragments =
      "supplier audit in March and found of thirty days security office "
      "that three of the eleven warehouses";
  EXPECT_EQ(Sole(Match(fragments)), std::make_pair(17u, 12u));
  EXPECT_EQ(Sole(MatchWithChecks(fragments)), std::make_pair(17u, 17u));
}

TEST_F(PassageMatcherTest,
       WordChecksCountSentencesSwappedOnOneDiagonalAsCovered) {
  // Source tokens 0-9, 16-21, 10-15, 22-31: the two middle sentences
  // swapped. With aligned gaps of up to 30 tokens (as for CJK text, where
  // a word is two tokens) the first and last sentences chain on one
  // diagonal across the swapped ones, whose own passages lie inside and
  // are dropped; their words differ from the source tokens they face, but
  // the source holds them, moved.
  const std::string swapped =
      "The committee reviewed the supplier audit in March and found stored "
      "customer records on unencrypted laptops. that three of the eleven "
      "warehouses The remediation plan assigns each site manager a deadline "
      "of";
  PassageOptions wide = PassageOptionsFor(shingler_->options());
  wide.max_aligned_gap_tokens = 30;
  std::vector<Passage> m = MatchWithChecks(swapped, {}, wide);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].words, 32u);
  EXPECT_EQ(m[0].covered_words, 32u);
}

TEST_F(PassageMatcherTest, WordChecksCountShortSentencesMovedToAPassagesEdges) {
  // A passage of source tokens 10-21, with source tokens 34-37 before it
  // and 31-33 after it (short sentences of a reordered excerpt, too short
  // for a shingle of their own, moved to its edges): the source holds them
  // next to the passage's source range, so its group counts them.
  const std::string moved =
      "Hi all, quick update. to replace the devices that three of the eleven "
      "warehouses stored customer records on unencrypted laptops. of thirty "
      "days. See you on Monday, Dana.";
  std::vector<Passage> m = Match(moved);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].held_before + m[0].held_after, 0u);
  EXPECT_EQ(GroupWords(m), 12u);
  m = MatchWithChecks(moved);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].covered_words, 12u);
  EXPECT_EQ(m[0].held_before, 4u);
  EXPECT_EQ(m[0].held_after, 3u);
  EXPECT_EQ(GroupWords(m), 19u);
  // Source tokens 43-46 lie farther past the passage's source range than a
  // group reaches (max_group_slack_tokens + max_group_gap_tokens): words
  // in common, not a part of the excerpt.
  m = MatchWithChecks(
      "Hi all, quick update. that three of the eleven warehouses stored "
      "customer records on unencrypted laptops. inspect every site again. "
      "See you on Monday, Dana.");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].held_after, 0u);
  EXPECT_EQ(GroupWords(m), 12u);
}

TEST_F(PassageMatcherTest, ASentenceTheSourceRepeatsIsPlacedNextToItsExcerpt) {
  // The source says `repeated` twice, 50 words apart. An excerpt of its
  // last two sentences, sent in the other order, matches both places;
  // `repeated` is kept at the one next to the rest of its excerpt, so the
  // two make one group.
  const std::string repeated =
      "Each backup is verified by restoring a sample file to a spare disk.";
  const std::string last =
      "Nightly jobs copy the ledger database to the vault in Leeds.";
  SetSource(repeated +
            " Storage budgets are reviewed each quarter by the finance "
            "office, which weighs the cost of tape against cloud buckets "
            "and reports to the board on capacity growth, vendor terms, "
            "retention rules, staffing, insurance and the audit findings of "
            "the previous year before the budget is signed. " +
            last + " " + repeated);
  const std::vector<Passage> m = Match(repeated + " " + last);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].source_token_begin, m[1].source_token_end);
  EXPECT_EQ(GroupWords(m), 24u);
}

TEST_F(PassageMatcherTest, GapsOffTheDiagonalDoNotCountAsCoveredWords) {
  // The five source words between "warehouses" and "laptops" replaced by
  // nine, then by three: the diagonal moves by four, then by two; the chain
  // bridges the step, but the words between face no source words one for
  // one and are not covered.
  std::vector<Passage> m = Match(
      "three of the eleven warehouses alpha bravo charlie delta echo foxtrot "
      "golf hotel india laptops. The remediation plan assigns");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].words, 19u);
  EXPECT_EQ(m[0].covered_words, 10u);
  m = Match(
      "three of the eleven warehouses alpha bravo charlie laptops. The "
      "remediation plan assigns each");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].words, 14u);
  EXPECT_EQ(m[0].covered_words, 11u);
}

TEST_F(PassageMatcherTest, DistantExcerptsAreSeparatePassagesInTextOrder) {
  std::vector<Passage> m = Match(
      "Budget for the replacement comes from the operations reserve. Nothing "
      "else to report from the team this week, except that we moved desks "
      "again and the coffee machine is still broken on the third floor. The "
      "committee reviewed the supplier audit in March and found that three");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_LT(m[0].token_end, m[1].token_begin);
  EXPECT_GT(m[0].source_token_begin, m[1].source_token_end);
}

TEST_F(PassageMatcherTest, SuppressedFingerprintsNeverFormPassages) {
  const std::string text =
      "the security office will inspect every site again before the end";
  ASSERT_EQ(Match(text).size(), 1u);
  EXPECT_EQ(Match(text)[0].covered_words, 11u);
  EXPECT_THAT(Match(text, [](uint64_t) { return true; }),
              ::testing::IsEmpty());
}

TEST_F(PassageMatcherTest, RepeatedSourceTextGivesOnePassagePerScannedSpan) {
  SetSource(std::string(kSource) + " " + kSource);
  std::vector<Passage> m = Match(
      "inspect every site again before the end of the second quarter");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].words, 11u);
}

TEST_F(PassageMatcherTest, UnrelatedTextHasNoPassages) {
  std::vector<Passage> m = Match(
      "Our team shipped the new onboarding flow and the dashboard loads "
      "twice as fast since the cache landed.");
  EXPECT_THAT(m, ::testing::IsEmpty());
}

TEST_F(PassageMatcherTest, ReorderedSentencesFormOneGroup) {
  // The end of the first sentence and the start of the second, swapped:
  // two passages (12 and 6 words), one group of 18.
  std::vector<Passage> m = Match(
      "Notes: The remediation plan assigns each site manager a deadline of "
      "thirty days stored customer records on unencrypted laptops. Bye.");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].covered_words, 12u);
  EXPECT_EQ(m[1].covered_words, 6u);
  EXPECT_EQ(GroupWords(m), 18u);
}

TEST_F(PassageMatcherTest,
       WordChecksChargeWordsInsertedBetweenAGroupsPassages) {
  // The two passages of ReorderedSentencesFormOneGroup with five other
  // words between them: 5 of the group's 23 tokens are inserted, more
  // than one in five, so the passages are not one group.
  const std::string apart =
      "Notes: The remediation plan assigns each site manager a deadline of "
      "thirty days alpha bravo charlie delta echo stored customer records on "
      "unencrypted laptops. Bye.";
  std::vector<Passage> m = Match(apart);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].inserted_before, 0u) << "set with word checks only";
  EXPECT_EQ(GroupWords(m), 18u);
  m = MatchWithChecks(apart);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].inserted_before, 5u);
  EXPECT_EQ(GroupWords(m), 12u);
  // Four words, 4 of 22 tokens: one group.
  m = MatchWithChecks(
      "Notes: The remediation plan assigns each site manager a deadline of "
      "thirty days alpha bravo charlie delta stored customer records on "
      "unencrypted laptops. Bye.");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[1].inserted_before, 4u);
  EXPECT_EQ(GroupWords(m), 18u);
}

TEST_F(PassageMatcherTest, PassagesApartInTheTextAreNotOneGroup) {
  std::vector<Passage> m = Match(
      "The remediation plan assigns each site manager a deadline of thirty "
      "days, and in other news the canteen reopens next week with a new "
      "menu. stored customer records on unencrypted laptops.");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(GroupWords(m), 12u);
}

TEST_F(PassageMatcherTest,
       AdjacentPassagesFromDistantSourcePartsAreNotOneGroup) {
  // The last sentence's start, then the first sentence's start: adjacent
  // here, 50 tokens apart in the source.
  std::vector<Passage> m = Match(
      "Budget for the replacement comes from the operations reserve The "
      "committee reviewed the supplier audit in March");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(GroupWords(m), 9u);
}

TEST_F(PassageMatcherTest, WordChecksExtendAPassagePastSubstitutionsAtItsEnds) {
  // "vendor" for "supplier" (token 4) and "notebooks" for "laptops" (21):
  // no matched shingle holds tokens 0-4 or 21, so the shingles alone make
  // a passage of tokens 5-20.
  const std::string excerpt =
      "The committee reviewed the vendor audit in March and found that three "
      "of the eleven warehouses stored customer records on unencrypted "
      "notebooks";
  const std::string host = excerpt + ", see you on Monday.";
  std::vector<Passage> m = Match(host);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].token_begin, 5u);
  EXPECT_EQ(m[0].covered_words, 16u);
  // With the source's word checks the passage grows back over "vendor" to
  // the first word, whose checks agree; past "notebooks" the host's words
  // ("see you on") disagree with the source's ("The remediation plan").
  m = MatchWithChecks(host);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].token_begin, 0u);
  EXPECT_EQ(m[0].byte_begin, 0u);
  EXPECT_EQ(m[0].source_token_begin, 0u);
  EXPECT_EQ(m[0].source_byte_begin, 0u);
  EXPECT_EQ(m[0].token_end, 21u);
  EXPECT_EQ(m[0].covered_words, 21u);
  // At the other end: "notebooks" skipped, "The remediation plan" agree,
  // "was late" do not ("assigns each").
  m = MatchWithChecks(excerpt + ". The remediation plan was late.");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].token_end, 25u);
  EXPECT_EQ(m[0].covered_words, 25u);
  EXPECT_EQ(m[0].source_token_end, 25u);
}

TEST_F(PassageMatcherTest, WordChecksGrowAnEndByAtMostTheExtensionLimit) {
  const std::string host =
      "The committee reviewed the vendor audit in March and found that three "
      "of the eleven warehouses stored customer records";
  PassageOptions options = PassageOptionsFor(shingler_->options());
  EXPECT_EQ(options.max_check_extension_tokens, 30u);
  ASSERT_EQ(MatchWithChecks(host, {}, options).at(0).token_begin, 0u);
  // Three tokens back from token 5: "vendor" skipped, "the reviewed" agree.
  options.max_check_extension_tokens = 3;
  std::vector<Passage> m = MatchWithChecks(host, {}, options);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].token_begin, 2u);
  // Two: "the" alone is too short a run.
  options.max_check_extension_tokens = 2;
  m = MatchWithChecks(host, {}, options);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].token_begin, 5u);
}

TEST_F(PassageMatcherTest, WordChecksNeverExtendIntoSuppressedShingles) {
  const std::string host =
      "The committee reviewed the vendor audit in March and found that three "
      "of the eleven warehouses stored customer records";
  auto shingled = shingler_->Shingle(host);
  ASSERT_TRUE(shingled.ok());
  // The scanned shingles holding token 2 ("reviewed") are allow-listed.
  std::set<uint64_t> allowed;
  for (const Shingle& sh : shingled->shingles) {
    if (sh.token_begin <= 2 && sh.token_end > 2) allowed.insert(sh.fingerprint);
  }
  ASSERT_FALSE(allowed.empty());
  std::vector<Passage> m =
      MatchWithChecks(host, [&](uint64_t fp) { return allowed.contains(fp); });
  ASSERT_EQ(m.size(), 1u);
  // Back from token 5: "vendor" skipped, then only "the" (3) before the
  // allow-listed token: a run of one agreeing token, too short to take.
  EXPECT_EQ(m[0].token_begin, 5u);
  EXPECT_EQ(m[0].covered_words, 14u);
}

TEST_F(PassageMatcherTest, WordChecksRarelyAgreeOnUnrelatedWords) {
  // A passage followed by 300 different unrelated continuations: each must
  // pass a run of two agreeing check bytes after at most two skipped words
  // (about 3 in 65,536 by chance), so none extends the passage.
  const std::string excerpt =
      "inspect every site again before the end of the second quarter";
  std::mt19937_64 random(1);
  int extended = 0;
  for (int i = 0; i < 300; ++i) {
    std::string host = excerpt;
    for (int w = 0; w < 6; ++w)
      host += " w" + std::to_string(random() % 100000);
    std::vector<Passage> m = MatchWithChecks(host);
    ASSERT_EQ(m.size(), 1u);
    extended += m[0].token_end != 11u;
  }
  EXPECT_EQ(extended, 0);
}

TEST(LargestGroupWordsTest, OverlappingPassageAddsOnlyItsPartPastTheGroup) {
  Passage a, b;
  a.token_begin = 0, a.token_end = 20, a.covered_words = 20;
  a.source_token_begin = 100, a.source_token_end = 120;
  b.token_begin = 15, b.token_end = 30, b.covered_words = 15;
  b.source_token_begin = 80, b.source_token_end = 95;
  const std::vector<Passage> passages = {a, b};
  // Scanned span 30, source span 40 <= 30 + slack 10: one group, and b
  // adds the 10 of its 15 tokens past a's end.
  EXPECT_EQ(LargestGroupWords(passages, PassageOptions{}), 30u);
  PassageOptions tight;
  tight.max_group_slack_tokens = 9;
  EXPECT_EQ(LargestGroupWords(passages, tight), 20u);
  EXPECT_EQ(LargestGroupWords({}, PassageOptions{}), 0u);
}

TEST(LargestGroupWordsTest, ARunIsOneGroupWhenALaterPassageFillsItsSourceGap) {
  // Three sentences of one stretch (source 8-20, 20-32, 32-38), sent in the
  // order first, third, second: the first two alone span 30 source tokens
  // for 18 scanned (more than the slack), the three together 30 for 30.
  // From the 10,000-document evaluation: group 20 (the last two) instead
  // of 30.
  Passage a, b, c;
  a.token_begin = 76, a.token_end = 88, a.covered_words = 12;
  a.source_token_begin = 8, a.source_token_end = 20;
  b.token_begin = 86, b.token_end = 94, b.covered_words = 8;
  b.source_token_begin = 32, b.source_token_end = 38;
  c.token_begin = 94, c.token_end = 106, c.covered_words = 12;
  c.source_token_begin = 20, c.source_token_end = 32;
  EXPECT_EQ(LargestGroupWords(std::vector<Passage>{a, b, c}, PassageOptions{}),
            30u);  // 12 + 6 of b past a + 12
  // A passage from elsewhere in the source does not join.
  c.source_token_begin = 500, c.source_token_end = 512;
  EXPECT_EQ(LargestGroupWords(std::vector<Passage>{a, b, c}, PassageOptions{}),
            12u);
}

TEST(LargestGroupWordsTest, ASourceSentenceCopiedTwiceCountsOnce) {
  // From the 10,000-document evaluation: a held-out page repeating one
  // sentence of a protected page (source tokens 2-17), once in part, was a
  // group of 7 + 15 = 22 words, a match by the default rule.
  Passage a, b;
  a.token_begin = 172, a.token_end = 179, a.covered_words = 7;
  a.source_token_begin = 2, a.source_token_end = 9;
  b.token_begin = 188, b.token_end = 203, b.covered_words = 15;
  b.source_token_begin = 2, b.source_token_end = 17;
  EXPECT_EQ(LargestGroupWords(std::vector<Passage>{a, b}, PassageOptions{}),
            15u);  // 7 + the 8 of b's 15 source tokens a does not hold
  // The same sentence twice, whole: one sentence's words.
  a = b;
  a.token_begin = 170, a.token_end = 185;
  EXPECT_EQ(LargestGroupWords(std::vector<Passage>{a, b}, PassageOptions{}),
            15u);
}

TEST(LargestGroupWordsTest, AGroupCountsTheWordsHeldAtItsPassagesEdges) {
  // Two passages of one stretch 3 tokens apart (max_group_gap_tokens),
  // the gap partly held (2 words after a, 1 before b), 3 words held
  // before a and 2 after b.
  Passage a, b;
  a.token_begin = 10, a.token_end = 22, a.covered_words = 12;
  a.source_token_begin = 40, a.source_token_end = 52;
  a.held_before = 3, a.held_after = 2;
  b.token_begin = 25, b.token_end = 35, b.covered_words = 10;
  b.source_token_begin = 55, b.source_token_end = 65;
  b.held_before = 1, b.held_after = 2;
  EXPECT_EQ(LargestGroupWords(std::vector<Passage>{a, b}, PassageOptions{}),
            30u);  // 3 + 12 + 2 + 1 + 10 + 2
  // Apart, each counts only its own edges.
  b.token_begin = 60, b.token_end = 70;
  EXPECT_EQ(LargestGroupWords(std::vector<Passage>{a, b}, PassageOptions{}),
            17u);  // 3 + 12 + 2
}

TEST(ScannedTextTest, RepeatedFingerprintsAreCappedAndDistinctKeepsOrder) {
  std::array<uint8_t, 32> key{};
  auto shingler = Shingler::Create({}, *FingerprintKey::FromBytes(key));
  std::string text;
  for (int i = 0; i < 40; ++i) text += "one two three four five ";
  ScannedText scanned(*(*shingler)->Shingle(text));
  ASSERT_EQ(scanned.distinct().size(), 5u);  // five rotations of the line
  EXPECT_EQ(scanned.ShinglesWith(scanned.distinct()[0]).size(),
            ScannedText::kMaxRepeats);
  EXPECT_THAT(scanned.ShinglesWith(12345), ::testing::IsEmpty());
}

TEST(ScannedTextTest, EveryFingerprintOfALargeTextIsFoundAndNoOther) {
  // Enough distinct fingerprints to size the bit array past its minimum.
  std::mt19937_64 rng(3);
  ShingledText text;
  for (uint32_t i = 0; i < 10000; ++i) {
    text.shingles.push_back(Shingle{rng(), i, i + 1, i, i + 5});
  }
  text.token_count = 10004;
  text.word_units.resize(text.token_count + 1);
  const ScannedText scanned(text);
  for (uint32_t i = 0; i < 10000; ++i) {
    ASSERT_THAT(scanned.ShinglesWith(text.shingles[i].fingerprint),
                ::testing::ElementsAre(i));
  }
  for (int i = 0; i < 100000; ++i) {
    ASSERT_THAT(scanned.ShinglesWith(rng()), ::testing::IsEmpty());
  }
}

TEST(ScannedTextTest, InterleavedRepeatsKeepTextOrderAndFirstOccurrence) {
  // 30,000 shingles drawn from 2,000 fingerprints, some sharing their top
  // 22 bits (the radix sort's passes), in random order.
  std::mt19937_64 rng(7);
  std::vector<uint64_t> pool;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t fp = rng();
    pool.push_back(fp);
    pool.push_back(fp ^ (rng() >> 22));  // same top 22 bits
  }
  ShingledText text;
  for (uint32_t i = 0; i < 30000; ++i) {
    text.shingles.push_back(Shingle{pool[rng() % pool.size()], i, i + 1, i,
                                    i + 5});
  }
  text.token_count = 30004;
  text.word_units.resize(text.token_count + 1);
  const ScannedText scanned(text);
  std::vector<uint64_t> distinct;
  std::map<uint64_t, std::vector<uint32_t>> where;
  for (uint32_t i = 0; i < text.shingles.size(); ++i) {
    const uint64_t fp = text.shingles[i].fingerprint;
    if (where[fp].empty()) distinct.push_back(fp);
    if (where[fp].size() < ScannedText::kMaxRepeats) where[fp].push_back(i);
  }
  EXPECT_EQ(scanned.distinct(), distinct);
  for (const auto& [fp, shingles] : where) {
    ASSERT_THAT(scanned.ShinglesWith(fp),
                ::testing::ElementsAreArray(shingles));
  }
}

}  // namespace
}  // namespace leakhound
