// The transposed layout: word w of slice p holds bit p of rows
// [64w, 64w + 64). Slices are `words_` words long and stored one after the
// other, so a fingerprint's k slices are k contiguous, prefetchable runs.
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "engine/bloom_geometry.h"
#include "engine/row_matrix.h"
#include "engine/vertical_counter.h"

namespace leakhound {
namespace {

// Transposes the 64x64 bit matrix a (a[i] bit j) in place, so that
// afterwards a[j] bit i holds the old a[i] bit j (Hacker's Delight 7-3).
void Transpose64(uint64_t a[64]) {
  uint64_t mask = 0x00000000FFFFFFFFull;
  for (unsigned j = 32; j != 0; j >>= 1, mask ^= mask << j) {
    for (unsigned k = 0; k < 64; k = (k + j + 1) & ~j) {
      const uint64_t t = ((a[k] >> j) ^ a[k + j]) & mask;
      a[k] ^= t << j;
      a[k + j] ^= t;
    }
  }
}

// For one fingerprint: hits[w] = AND of its k slices' word w. Branch-free
// so it vectorizes; the clones let the loader pick the widest vectors.
__attribute__((target_clones("avx512f", "avx2", "default")))
void AndSlices(const uint64_t* const* slice, uint32_t k, uint32_t words,
               uint64_t* hits) {
  for (uint32_t w = 0; w < words; ++w) hits[w] = slice[0][w];
  for (uint32_t j = 1; j < k; ++j) {
    const uint64_t* s = slice[j];
    for (uint32_t w = 0; w < words; ++w) hits[w] &= s[w];
  }
}

// Zeroed words, 2 MiB aligned and advised to be backed by transparent huge
// pages: a query touches k slices at random places of a matrix of hundreds
// of MB, and with 4 KiB pages each touch is also a TLB miss.
struct FreeDeleter {
  void operator()(uint64_t* p) const { std::free(p); }
};
using Words = std::unique_ptr<uint64_t[], FreeDeleter>;

Words AllocateWords(size_t n) {
  constexpr size_t kHugePage = size_t{2} << 20;
  const size_t bytes = std::max<size_t>(
      (n * sizeof(uint64_t) + kHugePage - 1) / kHugePage * kHugePage,
      kHugePage);
  auto* p = static_cast<uint64_t*>(std::aligned_alloc(kHugePage, bytes));
  if (p == nullptr) std::abort();  // out of memory, as operator new would
  madvise(p, bytes, MADV_HUGEPAGE);  // advisory: failure only costs speed
  std::memset(p, 0, bytes);
  return Words(p);
}

class BitSlicedMatrix final : public RowMatrix {
 public:
  // Fingerprints whose slices are prefetched before they are read.
  static constexpr size_t kPrefetchAhead = 2;

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
    for (size_t i = row / 64; i < size_; i += words_) data_[i] &= keep;
  }

  void SetRows(uint32_t first, uint32_t count,
               std::span<const uint64_t> words) override {
    const uint32_t row_words = (bits_ + 63) / 64;
    uint64_t block[64];
    for (uint32_t group = first / 64; group * 64 < first + count; ++group) {
      for (uint32_t chunk = 0; chunk < row_words; ++chunk) {
        for (uint32_t i = 0; i < 64; ++i) {
          const uint32_t row = group * 64 + i;
          block[i] = (row >= first && row < first + count)
                         ? words[size_t{row - first} * row_words + chunk]
                         : 0;
        }
        Transpose64(block);  // block[j] bit i = row group*64+i, bit chunk*64+j
        const uint32_t limit = std::min<uint32_t>(64, bits_ - chunk * 64);
        for (uint32_t j = 0; j < limit; ++j) {
          data_[size_t{chunk * 64 + j} * words_ + group] |= block[j];
        }
      }
    }
  }

  void GetRow(uint32_t row, std::span<uint64_t> words) const override {
    std::fill(words.begin(), words.end(), 0);
    const uint64_t* p = data_.get() + row / 64;
    const uint32_t shift = row % 64;
    for (uint32_t pos = 0; pos < bits_; ++pos, p += words_) {
      words[pos / 64] |= ((*p >> shift) & 1) << (pos % 64);
    }
  }

  void CountMembership(std::span<const uint32_t> positions, uint32_t k,
                       std::span<uint32_t> counts) const override {
    const size_t fingerprints = positions.size() / k;
    std::array<const uint64_t*, kMaxHashes> slice{};
    VerticalCounter counter(words_);
    for (size_t f = 0; f < fingerprints; ++f) {
      const uint32_t* p = positions.data() + f * k;
      for (uint32_t j = 0; j < k; ++j) {
        slice[j] = data_.get() + size_t{p[j]} * words_;
      }
      if (f + kPrefetchAhead < fingerprints) {  // whole slices, ahead
        const uint32_t* next = p + kPrefetchAhead * k;
        for (uint32_t j = 0; j < k; ++j) {
          const uint64_t* s = data_.get() + size_t{next[j]} * words_;
          for (uint32_t w = 0; w < words_; w += 8) __builtin_prefetch(s + w);
        }
      }
      AndSlices(slice.data(), k, words_, counter.NextInput());
    }
    counter.Finish(counts);
  }

  void CountAndPopcount(std::span<const uint32_t> filter,
                        std::span<uint32_t> counts) const override {
    VerticalCounter counter(words_);
    for (uint32_t pos : filter) {
      std::copy_n(data_.get() + size_t{pos} * words_, words_,
                  counter.NextInput());
    }
    counter.Finish(counts);
  }

  size_t MemoryBytes() const override {
    return size_ * sizeof(uint64_t);
  }

 private:
  void Relayout(uint32_t words) {
    const size_t size = size_t{bits_} * words;
    Words grown = AllocateWords(size);
    for (size_t pos = 0; pos < bits_ && words_ > 0; ++pos) {
      std::copy_n(data_.get() + pos * words_, words_, grown.get() + pos * words);
    }
    data_ = std::move(grown);
    size_ = size;
    words_ = words;
  }

  const uint32_t bits_;
  uint32_t rows_ = 0;
  uint32_t words_ = 0;  // words per slice: capacity is 64 * words_ rows
  Words data_;
  size_t size_ = 0;  // words in data_
};

}  // namespace

std::unique_ptr<RowMatrix> NewBitSlicedMatrix(uint32_t bits) {
  return std::make_unique<BitSlicedMatrix>(bits);
}

}  // namespace leakhound
