// PassageChain: a passage as the matcher grows it, before it is a Passage:
// scanned shingles chained along diagonals of the source, with the tokens
// it covers without a shingle and the gaps it bridged, for the word checks
// (word_checks.h) to verify. Internal to engine/scan (passage_matcher.cc
// and word_checks.cc).
//
// Thread-safety: a plain value.
#ifndef LEAKHOUND_ENGINE_SCAN_PASSAGE_CHAIN_H_
#define LEAKHOUND_ENGINE_SCAN_PASSAGE_CHAIN_H_

#include <cstdint>
#include <vector>

#include "engine/scan/passage.h"

namespace leakhound {

struct PassageChain {
  Passage passage;
  uint32_t last_token;  // token_begin of the last scanned shingle
  int64_t first_diagonal;
  int64_t last_diagonal;
  // Union of the chained shingles' scanned tokens: its end and its weight
  // (ShingledText::word_units). Shingles come in token_begin order.
  uint32_t covered_end;
  uint64_t covered_units;
  // Scanned tokens counted as covered without a shingle over them, between
  // shingles on one diagonal: each [begin, end) with its diagonal.
  struct Unverified {
    uint32_t begin, end;
    int64_t diagonal;
  };
  std::vector<Unverified> unverified;
  // Scanned tokens [begin, end) the chain bridged off its diagonal (words
  // inserted, or moved from elsewhere in the source), not counted as
  // covered, each with the chain's covered_units before it.
  struct Bridged {
    uint32_t begin, end;
    uint64_t covered_before;
    int64_t diagonal_after;  // of the shingle after them
  };
  std::vector<Bridged> bridged;
  // What CheckExtender::Extend added before the chain's first shingle and
  // after its last: the weight, and the tokens whose checks differ (counted
  // as it walks) with their weight.
  struct Extension {
    uint64_t units = 0;
    uint32_t differing = 0;
    uint64_t differing_units = 0;
  };
  Extension head, tail;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_SCAN_PASSAGE_CHAIN_H_
