// RowGroups: the upper level of a two-level pseudo-matrix Bloom filter.
//
// Rows are taken G at a time (group g is rows [gG, gG + G)) and each group
// gets one Bloom filter of G * m bits holding every fingerprint stored in
// its rows, with the rows' k hash functions: the same load per bit as a
// row, so the same chance-hit rate per fingerprint, in 1/G of the slices'
// length. A query counts its fingerprints against the groups first and
// reads rows only in groups whose counts could make one of their documents
// significant (PseudoMatrix::Query has the rule). This is the hierarchical
// idea of the Hierarchical Interleaved Bloom Filter (Mehringer et al.,
// Genome Biology 2023) with one merged level over fixed runs of rows.
//
// Also kept per group, for that rule: the fewest bits set in any of its
// rows in use (the smallest chance-hit rate). The owner keeps it current
// (PseudoMatrix does, after each mutation); a stale value must only err
// low.
//
// Thread-safety: const methods may run concurrently; any mutation needs
// exclusive access.
#ifndef LEAKHOUND_ENGINE_FILTER_ROW_GROUPS_H_
#define LEAKHOUND_ENGINE_FILTER_ROW_GROUPS_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "engine/filter/bloom_geometry.h"
#include "engine/filter/row_matrix.h"

namespace leakhound {

class RowGroups {
 public:
  // min_bits() of a group without a row in use.
  static constexpr uint32_t kNoRowsInUse = std::numeric_limits<uint32_t>::max();

  // REQUIRES: rows_per_group a positive multiple of 64, and
  // rows_per_group * row_geometry.bits < 2^32 (PseudoMatrix::Create checks).
  RowGroups(uint32_t rows_per_group, const BloomGeometry& row_geometry);

  uint32_t rows_per_group() const { return rows_per_group_; }
  uint32_t groups() const { return filter_->rows(); }
  uint32_t GroupOf(uint32_t row) const { return row / rows_per_group_; }
  // The filter of one group: G * m bits, the rows' k.
  const BloomGeometry& geometry() const { return geometry_; }

  // Adds empty groups until rows [0, rows) are covered.
  void Cover(uint32_t rows);
  // Sets the bits of `fingerprints` in the filter of `row`'s group.
  // REQUIRES: row covered.
  void Add(uint32_t row, std::span<const uint64_t> fingerprints);
  // Clears group g's filter (before rebuilding it). REQUIRES: g < groups().
  void Clear(uint32_t g);
  // ORs / copies group filters in RowMatrix::SetRows / GetRow format.
  void SetBits(uint32_t first, uint32_t count,
               std::span<const uint64_t> words) {
    filter_->SetRows(first, count, words);
  }
  void GetBits(uint32_t g, std::span<uint64_t> words) const {
    filter_->GetRow(g, words);
  }

  // Adds to counts[g] the number of `fingerprints` whose k bits are all set
  // in group g's filter. REQUIRES: counts.size() >= groups().
  void CountMembership(std::span<const uint64_t> fingerprints,
                       std::span<uint32_t> counts) const;

  uint32_t min_bits(uint32_t g) const { return min_bits_[g]; }
  void set_min_bits(uint32_t g, uint32_t bits) { min_bits_[g] = bits; }

  // Heap bytes: the group filters and the per-group values.
  size_t MemoryBytes() const;

 private:
  const uint32_t rows_per_group_;
  const BloomGeometry geometry_;
  std::unique_ptr<RowMatrix> filter_;  // one row per group
  std::vector<uint32_t> min_bits_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_ROW_GROUPS_H_
