// The paper's layout: row r is words [r * W, (r + 1) * W), W = ceil(m / 64).
// Its AND-popcount scan reads every bit of the matrix for every query.
#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "engine/filter/matrix_bytes.h"
#include "engine/filter/row_matrix.h"

namespace leakhound {
namespace {

// popcount(a AND b) over n words. Multiversioned: Debian builds for baseline
// x86-64, where std::popcount is a slow bit trick; the loader picks the
// POPCNT / AVX2 clone on CPUs that have them.
__attribute__((target_clones("avx2", "popcnt", "default")))
uint64_t AndPopcount(const uint64_t* a, const uint64_t* b, uint32_t n) {
  // Four independent sums, so the scan waits on memory, not on one chain
  // of additions (with one sum a Table 1 scan took as long with its rows
  // in cache as from memory).
  uint64_t total[4] = {};
  uint32_t w = 0;
  for (; w + 4 <= n; w += 4) {
    for (uint32_t j = 0; j < 4; ++j) {
      total[j] += static_cast<uint64_t>(
          __builtin_popcountll(a[w + j] & b[w + j]));
    }
  }
  for (; w < n; ++w) {
    total[0] += static_cast<uint64_t>(__builtin_popcountll(a[w] & b[w]));
  }
  return total[0] + total[1] + total[2] + total[3];
}

class RowMajorMatrix final : public RowMatrix {
 public:
  explicit RowMajorMatrix(uint32_t bits)
      : bits_(bits), words_((bits + 63) / 64) {}

  uint32_t rows() const override { return rows_; }
  uint32_t bits() const override { return bits_; }

  void Reserve(uint32_t rows) override {
    if (rows > capacity_) Regrow(rows);
  }

  uint32_t AddRow() override {
    if (rows_ == capacity_) {
      // Grow by 1/8 (at least one row), as the bit-sliced layout does.
      Regrow(std::max(capacity_ + 1, capacity_ + capacity_ / 8));
    }
    return rows_++;
  }

  bool Set(uint32_t row, uint32_t pos) override {
    uint64_t& word = Row(row)[pos / 64];
    const uint64_t bit = uint64_t{1} << (pos % 64);
    const bool was_clear = (word & bit) == 0;
    word |= bit;
    return was_clear;
  }

  uint32_t SetBits(uint32_t row, std::span<const uint32_t> positions) override {
    uint32_t newly = 0;
    for (uint32_t pos : positions) newly += Set(row, pos) ? 1u : 0u;
    return newly;
  }

  bool Test(uint32_t row, uint32_t pos) const override {
    return (Row(row)[pos / 64] >> (pos % 64)) & 1;
  }

  void ClearRow(uint32_t row) override {
    std::fill_n(Row(row), words_, 0);
  }

  void GetRow(uint32_t row, std::span<uint64_t> words) const override {
    std::copy_n(Row(row), words_, words.begin());
  }

  void SetRows(uint32_t first, uint32_t count,
               std::span<const uint64_t> words) override {
    uint64_t* out = Row(first);
    for (size_t i = 0; i < size_t{count} * words_; ++i) out[i] |= words[i];
    if (bits_ % 64 != 0) {  // keep bits past m clear
      const uint64_t keep = (uint64_t{1} << (bits_ % 64)) - 1;
      for (uint32_t r = first; r < first + count; ++r) {
        Row(r)[words_ - 1] &= keep;
      }
    }
  }

  void CountMembership(std::span<const uint32_t> positions, uint32_t k,
                       std::span<uint32_t> counts) const override {
    const size_t fingerprints = positions.size() / k;
    for (uint32_t r = 0; r < rows_; ++r) {
      const uint64_t* row = Row(r);
      uint32_t hits = 0;
      for (size_t f = 0; f < fingerprints; ++f) {
        bool all = true;
        for (uint32_t j = 0; j < k && all; ++j) {
          const uint32_t pos = positions[f * k + j];
          all = (row[pos / 64] >> (pos % 64)) & 1;
        }
        hits += all ? 1 : 0;
      }
      counts[r] += hits;
    }
  }

  void CountMembershipInBlocks(std::span<const uint32_t> positions,
                               uint32_t k, std::span<const uint32_t> blocks,
                               std::span<uint32_t> counts) const override {
    const size_t fingerprints = positions.size() / k;
    for (size_t i = 0; i < blocks.size(); ++i) {
      for (uint32_t j = 0; j < 64 && 64 * blocks[i] + j < rows_; ++j) {
        const uint64_t* row = Row(64 * blocks[i] + j);
        for (size_t f = 0; f < fingerprints; ++f) {
          bool all = true;
          for (uint32_t h = 0; h < k && all; ++h) {
            const uint32_t pos = positions[f * k + h];
            all = (row[pos / 64] >> (pos % 64)) & 1;
          }
          counts[64 * i + j] += all ? 1 : 0;
        }
      }
    }
  }

  void CountAndPopcount(std::span<const uint32_t> filter,
                        std::span<uint32_t> counts) const override {
    std::vector<uint64_t> query(words_, 0);
    for (uint32_t pos : filter) query[pos / 64] |= uint64_t{1} << (pos % 64);
    for (uint32_t r = 0; r < rows_; ++r) {
      counts[r] += static_cast<uint32_t>(
          AndPopcount(Row(r), query.data(), words_));
    }
  }

  size_t MemoryBytes() const override {
    return capacity_ == 0 ? 0 : AllocatedMatrixBytes(Bytes(capacity_));
  }

 private:
  size_t Bytes(uint32_t rows) const { return size_t{rows} * words_ * 8; }

  uint64_t* Row(uint32_t row) {
    return reinterpret_cast<uint64_t*>(data_.get()) + size_t{row} * words_;
  }
  const uint64_t* Row(uint32_t row) const {
    return reinterpret_cast<const uint64_t*>(data_.get()) +
           size_t{row} * words_;
  }

  void Regrow(uint32_t capacity) {
    MatrixBytes grown = AllocateMatrixBytes(Bytes(capacity));
    if (rows_ > 0) std::memcpy(grown.get(), data_.get(), Bytes(rows_));
    data_ = std::move(grown);
    capacity_ = capacity;
  }

  const uint32_t bits_;
  const uint32_t words_;
  uint32_t rows_ = 0;
  uint32_t capacity_ = 0;  // rows data_ has room for
  MatrixBytes data_;  // row r is words [r * words_, (r + 1) * words_)
};

}  // namespace

std::unique_ptr<RowMatrix> NewRowMajorMatrix(uint32_t bits) {
  return std::make_unique<RowMajorMatrix>(bits);
}

}  // namespace leakhound
