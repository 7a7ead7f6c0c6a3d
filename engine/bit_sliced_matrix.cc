// The transposed layout: word w of slice p holds bit p of rows
// [64w, 64w + 64). Slices are `words_` words long and stored one after the
// other, so a fingerprint's k slices are k contiguous, prefetchable runs.
#include <algorithm>
#include <array>
#include <bit>

#include "engine/bloom_geometry.h"
#include "engine/row_matrix.h"

namespace leakhound {
namespace {

class BitSlicedMatrix final : public RowMatrix {
 public:
  explicit BitSlicedMatrix(uint32_t bits) : bits_(bits) {}

  uint32_t rows() const override { return rows_; }
  uint32_t bits() const override { return bits_; }

  void Reserve(uint32_t rows) override {
    const uint32_t words = (rows + 63) / 64;
    if (words > words_) Relayout(words);
  }

  uint32_t AddRow() override {
    if (rows_ == words_ * 64) {
      // Grow by 1/8 (at least one word): amortized O(1) per row, at most
      // 12.5 % slack. Callers that know d call Reserve and get none.
      Relayout(std::max(words_ + 1, words_ + words_ / 8));
    }
    return rows_++;
  }

  bool Set(uint32_t row, uint32_t pos) override {
    uint64_t& word = data_[size_t{pos} * words_ + row / 64];
    const uint64_t bit = uint64_t{1} << (row % 64);
    const bool was_clear = (word & bit) == 0;
    word |= bit;
    return was_clear;
  }

  bool Test(uint32_t row, uint32_t pos) const override {
    return (data_[size_t{pos} * words_ + row / 64] >> (row % 64)) & 1;
  }

  void ClearRow(uint32_t row) override {
    const uint64_t keep = ~(uint64_t{1} << (row % 64));
    for (size_t i = row / 64; i < data_.size(); i += words_) data_[i] &= keep;
  }

  void CountMembership(std::span<const uint32_t> positions, uint32_t k,
                       std::span<uint32_t> counts) const override {
    const size_t fingerprints = positions.size() / k;
    std::array<const uint64_t*, kMaxHashes> slice{};
    for (size_t f = 0; f < fingerprints; ++f) {
      const uint32_t* p = positions.data() + f * k;
      for (uint32_t j = 0; j < k; ++j) {
        slice[j] = data_.data() + size_t{p[j]} * words_;
      }
      if (f + 1 < fingerprints) {  // the next fingerprint's first words
        for (uint32_t j = 0; j < k; ++j) {
          __builtin_prefetch(data_.data() + size_t{p[k + j]} * words_);
        }
      }
      for (uint32_t w = 0; w < words_; ++w) {
        uint64_t all = slice[0][w];
        for (uint32_t j = 1; j < k && all != 0; ++j) all &= slice[j][w];
        while (all != 0) {
          ++counts[w * 64 + static_cast<uint32_t>(std::countr_zero(all))];
          all &= all - 1;
        }
      }
    }
  }

  void CountAndPopcount(std::span<const uint32_t> filter,
                        std::span<uint32_t> counts) const override {
    for (uint32_t pos : filter) {
      const uint64_t* slice = data_.data() + size_t{pos} * words_;
      for (uint32_t w = 0; w < words_; ++w) {
        for (uint64_t bits = slice[w]; bits != 0; bits &= bits - 1) {
          ++counts[w * 64 + static_cast<uint32_t>(std::countr_zero(bits))];
        }
      }
    }
  }

  size_t MemoryBytes() const override {
    return data_.capacity() * sizeof(uint64_t);
  }

 private:
  void Relayout(uint32_t words) {
    std::vector<uint64_t> grown(size_t{bits_} * words, 0);
    for (size_t pos = 0; pos < bits_; ++pos) {
      std::copy_n(data_.data() + pos * words_, words_,
                  grown.data() + pos * words);
    }
    data_ = std::move(grown);
    words_ = words;
  }

  const uint32_t bits_;
  uint32_t rows_ = 0;
  uint32_t words_ = 0;  // words per slice: capacity is 64 * words_ rows
  std::vector<uint64_t> data_;
};

}  // namespace

std::unique_ptr<RowMatrix> NewBitSlicedMatrix(uint32_t bits) {
  return std::make_unique<BitSlicedMatrix>(bits);
}

}  // namespace leakhound
