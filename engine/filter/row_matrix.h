// RowMatrix: the bits of the pseudo-matrix Bloom filter, d rows of m bits,
// behind one interface with two layouts:
//  - BitSlicedMatrix (default): transposed; for each bit position the bits
//    of all rows are contiguous (64 rows per word), so a query reads only
//    the k slices of each of its fingerprints (signature-file / BitFunnel /
//    COBS technique).
//  - RowMajorMatrix: the paper's layout, one m-bit vector per row; its
//    AND-popcount scan is the baseline the benchmarks compare against.
// Both layouts answer both scoring modes with identical results.
//
// Thread-safety: const methods may run concurrently; any mutation needs
// exclusive access.
#ifndef LEAKHOUND_ENGINE_FILTER_ROW_MATRIX_H_
#define LEAKHOUND_ENGINE_FILTER_ROW_MATRIX_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace leakhound {

class RowMatrix {
 public:
  virtual ~RowMatrix() = default;

  virtual uint32_t rows() const = 0;
  virtual uint32_t bits() const = 0;

  // Makes room for `rows` rows without re-layout (no effect if smaller).
  virtual void Reserve(uint32_t rows) = 0;
  // Appends an all-zero row and returns its index.
  virtual uint32_t AddRow() = 0;
  // Sets bit `pos` of `row`; returns true if it was clear.
  // REQUIRES: row < rows(), pos < bits().
  virtual bool Set(uint32_t row, uint32_t pos) = 0;
  // Sets bits `positions` of `row` (repeats allowed); returns how many
  // were clear. Faster than Set bit by bit: no call per bit, and the
  // sliced layout prefetches the bytes ahead.
  // REQUIRES: row < rows(), every position < bits().
  virtual uint32_t SetBits(uint32_t row,
                           std::span<const uint32_t> positions) = 0;
  virtual bool Test(uint32_t row, uint32_t pos) const = 0;
  // Clears every bit of `row`.
  virtual void ClearRow(uint32_t row) = 0;
  // ORs rows [first, first + count) with `words`: count rows of
  // ceil(bits() / 64) words each, row after row, bit b of a row in word
  // b / 64 at bit b % 64 (bits past bits() ignored). The bulk load for
  // opening a stored index: 64x64 block transposes, no per-bit work.
  // Calls for disjoint ranges whose bounds are multiples of 64 write
  // disjoint bytes and may run concurrently.
  // REQUIRES: first + count <= rows(), words.size() == count * row words.
  virtual void SetRows(uint32_t first, uint32_t count,
                       std::span<const uint64_t> words) = 0;

  // Copies `row` into `words` in the SetRows format (bits past bits()
  // zero). REQUIRES: row < rows(), words.size() == ceil(bits() / 64).
  virtual void GetRow(uint32_t row, std::span<uint64_t> words) const = 0;

  // positions holds k positions per fingerprint, fingerprint after
  // fingerprint. Adds to counts[r] the number of fingerprints whose k bits
  // are all set in row r. REQUIRES: counts.size() >= rows().
  virtual void CountMembership(std::span<const uint32_t> positions, uint32_t k,
                               std::span<uint32_t> counts) const = 0;
  // The same count for the rows of some 64-row blocks only (block b is rows
  // [64b, 64b + 64)): adds to counts[64i + j] the memberships of row
  // 64 * blocks[i] + j (rows past rows() count nothing). Costs k word reads
  // per fingerprint and block, whatever rows() is: the second level of a
  // grouped query (pseudo_matrix.h). REQUIRES: counts.size() >=
  // 64 * blocks.size(); every block holds a row < rows().
  virtual void CountMembershipInBlocks(std::span<const uint32_t> positions,
                                       uint32_t k,
                                       std::span<const uint32_t> blocks,
                                       std::span<uint32_t> counts) const = 0;
  // `filter` is a query filter given as its distinct set positions. Adds to
  // counts[r] popcount(row r AND filter) (the paper's similarity score).
  // REQUIRES: counts.size() >= rows().
  virtual void CountAndPopcount(std::span<const uint32_t> filter,
                                std::span<uint32_t> counts) const = 0;

  // Heap bytes held by the bits.
  virtual size_t MemoryBytes() const = 0;
};

std::unique_ptr<RowMatrix> NewBitSlicedMatrix(uint32_t bits);
std::unique_ptr<RowMatrix> NewRowMajorMatrix(uint32_t bits);

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_ROW_MATRIX_H_
