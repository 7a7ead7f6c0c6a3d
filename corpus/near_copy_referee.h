// NearCopyReferee: the evaluation's own judge of whether a text holds a
// near-copy of a protected document, written apart from the engine's second
// stage (engine/scan/passage_matcher.h) so that the negatives are not
// classified by the rule under test. It compares token hashes (the
// tokenizer's XXH3 of each normalized token, unkeyed): runs of kSeedTokens
// equal tokens seed diagonals; a stretch of a diagonal scores +1 per equal
// token and -mismatch_cost per differing one (a word substituted), and the
// longest stretches scoring 0 or more, from an equal token to an equal
// one, are its segments; segments in order in both texts, at most
// max_gap_tokens apart, chain while the chain's score (its gaps' tokens
// counted as differing) stays 0 or more. So a passage has at most one
// differing or inserted token in mismatch_cost + 1, however they cluster.
// Its words are its segments' scanned word units (CJK characters count as
// in the shingler), boilerplate tokens not counting.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CORPUS_NEAR_COPY_REFEREE_H_
#define LEAKHOUND_CORPUS_NEAR_COPY_REFEREE_H_

#include <cstdint>
#include <span>

namespace leakhound {

struct RefereeOptions {
  // A segment's score: +1 per equal token, -mismatch_cost per differing one.
  uint32_t mismatch_cost = 4;
  // Segments chain when the next starts at most this many tokens after the
  // previous ends, in the scanned text and in the source.
  uint32_t max_gap_tokens = 30;
};

// Equal tokens that seed a diagonal.
inline constexpr uint32_t kSeedTokens = 3;

// The scanned text as the referee reads it. REQUIRES: counts.size() ==
// hashes.size() + 1, counts non-decreasing; counts[t + 1] - counts[t] is
// token t's word units, 0 for a boilerplate token.
struct RefereeText {
  std::span<const uint64_t> hashes;
  std::span<const uint32_t> counts;
  uint32_t units_per_word = 1;
};

// The most words of `scanned` in one chain of segments aligned with
// `source` (token hashes). 0 when no kSeedTokens tokens in a row are shared.
uint32_t LongestNearCopyWords(const RefereeText& scanned,
                              std::span<const uint64_t> source,
                              const RefereeOptions& options);

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_NEAR_COPY_REFEREE_H_
