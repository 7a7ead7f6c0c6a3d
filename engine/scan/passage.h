// Passage: a run of scanned text that a protected document holds, as the
// second stage reports it, and PassageOptions: how far the matcher may
// bridge, drift and extend one (passage_matcher.h).
//
// Thread-safety: plain values and a pure function.
#ifndef LEAKHOUND_ENGINE_SCAN_PASSAGE_H_
#define LEAKHOUND_ENGINE_SCAN_PASSAGE_H_

#include <cstddef>
#include <cstdint>

#include "shingler/shingler.h"

namespace leakhound {

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

// A passage with more than one token in this many substituted or inserted
// is templated text, not a copy with a few words changed (MatchPassages).
inline constexpr uint32_t kMaxSubstitutedShare = 5;
// The most passages a group is grown over from each passage
// (LargestGroupWords).
inline constexpr size_t kMaxGroupPassages = 256;

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_SCAN_PASSAGE_H_
