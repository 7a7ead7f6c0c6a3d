// PassageMatcher: the exact comparison of the second stage. Given a scanned
// text's shingles and one protected document's stored shingles
// (Occurrences), it finds the shingles they share and chains them into
// passages: runs of scanned shingles, in text order, whose source
// positions follow along the same diagonal (source token - scanned token)
// within a drift, with gaps of unmatched shingles (a substituted word, an
// inserted one) bridged up to a limit. The filter never enters: this is
// exact on fingerprints, so its only error is a 64-bit collision.
//
// Thread-safety: ScannedText is immutable after construction and may be
// shared by threads; MatchPassages is a pure function.
#ifndef LEAKHOUND_ENGINE_SCAN_PASSAGE_MATCHER_H_
#define LEAKHOUND_ENGINE_SCAN_PASSAGE_MATCHER_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "index/records.h"
#include "shingler/shingler.h"

namespace leakhound {

// A scanned text's shingles with an index from fingerprint to shingles.
class ScannedText {
 public:
  // At most this many shingles per fingerprint take part in matching (a
  // line repeated a thousand times must not make a million pairs).
  static constexpr size_t kMaxRepeats = 16;

  explicit ScannedText(ShingledText text);

  const ShingledText& text() const { return text_; }
  // Indexes into text().shingles of the shingles with `fingerprint`, in
  // text order, at most kMaxRepeats; empty if none. Most calls ask for
  // fingerprints the text lacks (a candidate's whole list is probed), and
  // a bit array answers most of those without touching the map.
  std::span<const uint32_t> ShinglesWith(uint64_t fingerprint) const {
    const uint64_t bit = fingerprint >> shift_;
    if (((present_[bit >> 6] >> (bit & 63)) & 1) == 0) return {};
    return Lookup(fingerprint);
  }
  // The distinct fingerprints, in order of first occurrence.
  const std::vector<uint64_t>& distinct() const { return distinct_; }

 private:
  std::span<const uint32_t> Lookup(uint64_t fingerprint) const;

  ShingledText text_;
  // The distinct fingerprints in ascending order; the shingles of
  // sorted_[k] are shingle_index_[begin_[k], begin_[k + 1]): flat arrays
  // built by a radix sort, not a hash map (why, measured: docs/engine.md,
  // "The scanned text's index").
  std::vector<uint64_t> sorted_;
  std::vector<uint32_t> begin_;
  std::vector<uint32_t> shingle_index_;
  std::vector<uint64_t> distinct_;
  // Bit (fingerprint >> shift_) is set for every fingerprint of the text:
  // at least 64 bits per distinct fingerprint, so a fingerprint the text
  // lacks passes with probability under 1/64 (fingerprints are keyed
  // hashes, uniform in their top bits). The fingerprints of sorted_ with
  // top bits h (fingerprint >> bucket_shift_) are
  // sorted_[bucket_[h], bucket_[h + 1]): about one each.
  std::vector<uint64_t> present_;
  unsigned shift_ = 52;
  std::vector<uint32_t> bucket_;
  unsigned bucket_shift_ = 64;
};

struct PassageOptions {
  // Largest step, in scanned tokens, between the starts of two consecutive
  // matched shingles of one passage.
  uint32_t max_gap_tokens = 10;
  // The same between two shingles on one diagonal: the scanned tokens
  // between them face as many source tokens (words substituted one for
  // one), and count as covered.
  uint32_t max_aligned_gap_tokens = 15;
  // Largest change of the diagonal (source token - scanned token) between
  // two consecutive matched shingles of one passage.
  uint32_t max_drift_tokens = 5;
  // Passage groups (LargestGroupWords): the most tokens between two
  // passages that follow each other in the scanned text, and the most
  // tokens by which a group's source ranges may span more than its scanned
  // span.
  uint32_t max_group_gap_tokens = 3;
  uint32_t max_group_slack_tokens = 10;
  // Word-check extension (MatchPassages with the source's word checks): at
  // each end, a passage grows over up to `max_check_skip_tokens` tokens
  // whose checks differ (substituted words) followed by at least
  // `min_check_run_tokens` tokens whose checks agree, as long as such steps
  // follow each other. A step that random bytes pass has probability
  // 2^-(8 * min_check_run_tokens) at most.
  // No end grows by more than `max_check_extension_tokens` (a text and a
  // source of one line repeated must not make every chain walk them
  // whole).
  uint32_t max_check_skip_tokens = 2;
  uint32_t min_check_run_tokens = 2;
  uint32_t max_check_extension_tokens = 15;
};

// The gap and drift for text shingled with `options`: a substituted token
// removes the shingles covering it, so the gap must exceed one shingle's
// tokens, and winnowing thins the survivors by up to its window. On one
// diagonal the gap is one shingle's tokens more: 15 % of words substituted
// often leave two substitutions within a shingle of each other (issue
// 37). A group may skip one shingle's tokens of its source stretch, and
// as many (plus the winnowing window) between two of its passages in the
// scanned text: a sentence too short to hold a shingle of its own, which
// sits in both. A word-check step skips up to cjk_chars_per_word tokens
// (two English words or one two-character CJK word) and needs as many
// agreeing tokens after it; an end grows by at most the aligned gap.
PassageOptions PassageOptionsFor(const ShinglerOptions& options);

struct Passage {
  // Scanned text: tokens [token_begin, token_end), bytes [byte_begin,
  // byte_end).
  uint32_t token_begin = 0;
  uint32_t token_end = 0;
  uint32_t byte_begin = 0;
  uint32_t byte_end = 0;
  // Protected document: the smallest token and byte ranges holding every
  // source shingle of the passage and the tokens word checks added.
  uint32_t source_token_begin = 0;
  uint32_t source_token_end = 0;
  uint32_t source_byte_begin = 0;
  uint32_t source_byte_end = 0;
  uint32_t shingles = 0;  // matched shingle pairs chained into it
  uint32_t words = 0;     // words of the scanned span (ShingledText::Words)
  // Words of the scanned span inside its matched shingles, between two of
  // them on one diagonal (as many words on both sides: substituted one for
  // one) or added at its ends by word checks: the span less the other gaps
  // the chain bridged (<= words).
  uint32_t covered_words = 0;
  // Set with word checks, for gaps of at most max_group_gap_tokens: the
  // tokens between this passage and the passages before it that the
  // source does not hold near it (words inserted between two passages of
  // a group), and the words among them it does hold (moved: a group
  // counts them as covered).
  uint32_t inserted_before = 0;
  uint32_t copied_before = 0;
  // Set with word checks: the words of the tokens right before (after)
  // the passage, at most max_group_gap_tokens and short of the next
  // passage's, that the source holds, checks equal and in order, as runs
  // of 3 or more tokens outside the passage's source range but within
  // max_group_slack_tokens + max_group_gap_tokens of it (short sentences
  // of a reordered excerpt moved to its edge), unless copied_before
  // counts them. A group counts them as covered.
  uint32_t held_before = 0;
  uint32_t held_after = 0;
  bool operator==(const Passage&) const = default;
};

// The passages `scanned` shares with `source`, in scanned-text order; a
// passage whose scanned span lies inside another's (the same text matching
// a repeated source part) is dropped, and a scanned span the source holds
// in several places (a sentence it repeats) keeps the place nearest the
// source ranges of the passages next to it. With the source's word checks
// (FingerprintsRecord::word_checks) each passage then grows at both ends
// along its diagonal while the scanned text's word checks agree with the
// source's (PassageOptions::max_check_skip_tokens), never into a token
// of a suppressed scanned shingle, and the words it holds without a
// shingle are checked. Substituted: the tokens it counts as covered (those
// extensions, the aligned gaps between its shingles) whose checks differ.
// Inserted: the tokens it bridged off its diagonal, unless the source
// holds them, checks equal and in order, as runs of 3 or more near where
// the passage resumes (short sentences moved within a copied excerpt;
// from 3 tokens on these count as covered, and so do differing tokens of
// an aligned gap that the source holds so: sentences swapped). When more
// than one token in kMaxSubstitutedShare of the passage is substituted or
// inserted (templated text, not a copy with a few words changed), it
// counts only the largest run of the stretches between its insertions
// that stays within that share, less the substituted words of a lone
// stretch beyond it. Each passage's inserted_before and copied_before
// count the same for the gap before it, and held_before and held_after
// the moved words at its edges. With none (`source_checks` empty,
// as in lists written before record version 2) passages end at their
// outermost shingles and aligned gaps count whole.
// REQUIRES: `source` in stored order (ascending token_begin);
// `source_checks` empty or one byte per source token.
// `suppressed` (may be empty) names fingerprints that must not count
// (allow-listed, boilerplate).
inline constexpr uint32_t kMaxSubstitutedShare = 5;
std::vector<Passage> MatchPassages(
    const ScannedText& scanned, std::span<const Occurrence> source,
    std::string_view source_checks,
    const std::function<bool(uint64_t)>& suppressed,
    const PassageOptions& options);

// The measure of the union of [begin, end) spans, where `measure(b, e)` is
// additive over adjacent spans (a length, a word count).
template <typename Measure>
uint64_t UnionMeasure(std::vector<std::pair<uint32_t, uint32_t>> spans,
                      const Measure& measure) {
  std::sort(spans.begin(), spans.end());
  uint64_t total = 0;
  uint32_t reach = 0;
  for (auto [begin, end] : spans) {
    begin = std::max(begin, reach);
    if (end > begin) {
      total += measure(begin, end);
      reach = end;
    }
  }
  return total;
}

// The share of a source of `source_tokens` tokens inside the union of the
// source ranges of `passages` (0 for an empty source): the coverage the
// match rule's min_coverage is compared with.
double SourceCoverage(std::span<const Passage> passages,
                      uint32_t source_tokens);

// The covered words of the largest group of `passages`: a run of passages
// that follow each other in the scanned text, at most max_group_gap_tokens
// apart, and come from one stretch of the source in any order (their
// source ranges together span at most the run's scanned span plus
// max_group_slack_tokens, and the tokens inserted between its passages,
// Passage::inserted_before, are at most one in kMaxSubstitutedShare of
// that span): the sentences of one excerpt reordered, each its own
// passage, with the moved words at their edges (Passage::held_before,
// held_after). A passage alone is a group; a passage overlapping the
// run's scanned end, or source ranges the run already holds, adds only the
// smaller of its covered words' shares past that end and outside those
// ranges (a sentence copied twice counts once). Runs
// of up to kMaxGroupPassages passages are tried from every passage
// (quadratic in that bound).
// REQUIRES: `passages` in scanned-text order, as MatchPassages returns them.
inline constexpr size_t kMaxGroupPassages = 256;
uint32_t LargestGroupWords(std::span<const Passage> passages,
                           const PassageOptions& options);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_SCAN_PASSAGE_MATCHER_H_
