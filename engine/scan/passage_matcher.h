// PassageMatcher: the exact comparison of the second stage. Given a scanned
// text's shingles and one protected document's stored shingles
// (Occurrences), it finds the shingles they share and chains them into
// passages: runs of scanned shingles, in text order, whose source
// positions follow along the same diagonal (source token - scanned token)
// within a drift, with gaps of unmatched shingles (a substituted word, an
// inserted one) bridged up to a limit. The filter never enters: this is
// exact on fingerprints, so its only error is a 64-bit collision.
//
// The scanned text's index is scanned_text.h, what a passage is passage.h.
//
// Thread-safety: MatchPassages is a pure function.
#ifndef LEAKHOUND_ENGINE_SCAN_PASSAGE_MATCHER_H_
#define LEAKHOUND_ENGINE_SCAN_PASSAGE_MATCHER_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/scan/passage.h"
#include "engine/scan/scanned_text.h"
#include "index/records.h"
#include "shingler/shingler.h"

namespace leakhound {

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
uint32_t LargestGroupWords(std::span<const Passage> passages,
                           const PassageOptions& options);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_SCAN_PASSAGE_MATCHER_H_
