// The first step of a pseudo-matrix query: count, per row, the query
// fingerprints the row holds, over the whole query and per chunk of its
// windows (query_windows.h). RowCounts holds the counts of every row, or
// of the rows of some 64-row blocks (the second level of a grouped query).
//
// Thread-safety: CountMemberships and CountAndPopcount only read the
// matrix; a RowCounts is a plain value.
#ifndef LEAKHOUND_ENGINE_FILTER_MEMBERSHIP_COUNTER_H_
#define LEAKHOUND_ENGINE_FILTER_MEMBERSHIP_COUNTER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/filter/bloom_geometry.h"
#include "engine/filter/query_windows.h"
#include "engine/filter/row_matrix.h"

namespace leakhound {

struct RowCounts {
  // The 64-row blocks counted, sorted and distinct; empty: every row, row
  // r in slot r. Otherwise row 64 * blocks[i] + j is in slot 64 * i + j.
  std::vector<uint32_t> blocks;
  std::vector<uint32_t> whole;   // hits over the whole query, per slot
  // Hits of chunk c in slot i at chunks[c * slots() + i]; empty when the
  // query has no windows.
  std::vector<uint32_t> chunks;
  // Per slot, the hits of its fullest window but the last
  // (QueryWindows::WindowPeaks), gathered while counting so a row's test
  // does not walk its chunks; empty when the query has no windows.
  std::vector<uint32_t> fullest;
  double trials = 0;  // the query's trials (fingerprints, or filter bits)

  size_t slots() const { return whole.size(); }
  // REQUIRES: `row` was counted.
  size_t Slot(uint32_t row) const {
    return blocks.empty() ? row : BlockSlot(row);
  }
  // Slot when rows were counted by blocks (a binary search of blocks).
  size_t BlockSlot(uint32_t row) const;
  uint32_t Whole(uint32_t row) const { return whole[Slot(row)]; }
  // Hits of `row` in window w (chunks w and w + 1).
  // REQUIRES: w + 1 < number of chunks.
  uint32_t InWindow(size_t w, uint32_t row) const {
    const size_t i = Slot(row);
    return chunks[w * slots() + i] + chunks[(w + 1) * slots() + i];
  }
};

// Membership counts (all k bits set) of `fingerprints` in every row of
// `matrix` (`blocks` empty) or in the rows of `blocks` (sorted, distinct,
// each holding a row), per chunk of `windows` when it has windows.
// `geometry` is the matrix's. Trials: the number of fingerprints.
RowCounts CountMemberships(const RowMatrix& matrix,
                           const BloomGeometry& geometry,
                           std::span<const uint64_t> fingerprints,
                           const QueryWindows& windows,
                           std::vector<uint32_t> blocks);

// The paper's score for every row: popcount(query filter AND row), the
// query filter being the distinct bit positions of `fingerprints`, whose
// number is the trials. No chunks.
RowCounts CountAndPopcount(const RowMatrix& matrix,
                           const BloomGeometry& geometry,
                           std::span<const uint64_t> fingerprints);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_MEMBERSHIP_COUNTER_H_
