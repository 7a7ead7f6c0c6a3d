// The transposed layout: byte b of slice p holds bit p of rows
// [8b, 8b + 8). Slices are `stride_` bytes long and stored one after the
// other, so a fingerprint's k slices are k contiguous, prefetchable runs,
// and a matrix of d rows costs ceil(d / 8) bytes per slice. Queries read
// slices as little-endian 64-bit words: bit i of word w is row 64w + i.
#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <memory>

#include "engine/filter/bloom_geometry.h"
#include "engine/filter/matrix_bytes.h"
#include "engine/filter/row_matrix.h"
#include "engine/filter/vertical_counter.h"

namespace leakhound {
namespace {

static_assert(std::endian::native == std::endian::little,
              "slices are read as little-endian words");

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

// A 64-bit load from any byte address (slices start at byte boundaries):
// memcpy, which compiles to one unaligned load (and vectorizes), where a
// cast pointer would be undefined behaviour (UBSan reported it).
inline uint64_t LoadWord(const unsigned char* p) {
  uint64_t w;
  std::memcpy(&w, p, sizeof(w));
  return w;
}

// For one fingerprint: hits[w] = AND of word w of its k slices. Branch-free
// so it vectorizes; the clones let the loader pick the widest vectors.
__attribute__((target_clones("avx512f", "avx2", "default")))
void AndSlices(const unsigned char* const* slice, uint32_t k, uint32_t words,
               uint64_t* hits) {
  for (uint32_t w = 0; w < words; ++w)
    hits[w] = LoadWord(slice[0] + 8 * size_t{w});
  for (uint32_t j = 1; j < k; ++j) {
    const unsigned char* s = slice[j];
    for (uint32_t w = 0; w < words; ++w) hits[w] &= LoadWord(s + 8 * size_t{w});
  }
}

class BitSlicedMatrix final : public RowMatrix {
 public:
  // Fingerprints whose slices are prefetched before they are read.
  static constexpr size_t kPrefetchAhead = 2;

  explicit BitSlicedMatrix(uint32_t bits) : bits_(bits) {}

  uint32_t rows() const override { return rows_; }
  uint32_t bits() const override { return bits_; }

  void Reserve(uint32_t rows) override {
    const uint32_t stride = (rows + 7) / 8;
    if (stride > stride_) Relayout(stride);
  }

  uint32_t AddRow() override {
    if (rows_ == stride_ * 8) {
      // Grow by 1/8 (at least one byte): amortized O(1) per row, at most
      // 12.5 % slack. Callers that know d call Reserve and get none.
      Relayout(std::max(stride_ + 1, stride_ + stride_ / 8));
    }
    return rows_++;
  }

  bool Set(uint32_t row, uint32_t pos) override {
    unsigned char& byte = data_[size_t{pos} * stride_ + row / 8];
    const auto bit = static_cast<unsigned char>(1u << (row % 8));
    const bool was_clear = (byte & bit) == 0;
    byte |= bit;
    return was_clear;
  }

  uint32_t SetBits(uint32_t row, std::span<const uint32_t> positions) override {
    // Each position is another slice: a cache miss; prefetching a few
    // ahead overlaps them.
    constexpr size_t kAhead = 16;
    unsigned char* const base = data_.get() + row / 8;
    const auto bit = static_cast<unsigned char>(1u << (row % 8));
    uint32_t newly = 0;
    for (size_t i = 0; i < positions.size(); ++i) {
      if (i + kAhead < positions.size()) {
        __builtin_prefetch(base + size_t{positions[i + kAhead]} * stride_, 1);
      }
      unsigned char& byte = base[size_t{positions[i]} * stride_];
      newly += (byte & bit) == 0 ? 1u : 0u;
      byte |= bit;
    }
    return newly;
  }

  bool Test(uint32_t row, uint32_t pos) const override {
    return (data_[size_t{pos} * stride_ + row / 8] >> (row % 8)) & 1;
  }

  void ClearRow(uint32_t row) override {
    const auto keep = static_cast<unsigned char>(~(1u << (row % 8)));
    for (size_t i = row / 8; i < size_t{bits_} * stride_; i += stride_) {
      data_[i] &= keep;
    }
  }

  void SetRows(uint32_t first, uint32_t count,
               std::span<const uint64_t> words) override {
    const uint32_t row_words = (bits_ + 63) / 64;
    uint64_t block[64];
    // Chunk by chunk, then group by group: the groups of one chunk write
    // adjacent bytes of the same 64 slices, so a slice's cache line is
    // filled while it is in cache.
    for (uint32_t chunk = 0; chunk < row_words; ++chunk) {
      for (uint32_t group = first / 64; group * 64 < first + count; ++group) {
        // The group's bytes of a slice; the slice may end inside the group.
        const uint32_t bytes = std::min<uint32_t>(8, stride_ - group * 8);
        for (uint32_t i = 0; i < 64; ++i) {
          const uint32_t row = group * 64 + i;
          block[i] = (row >= first && row < first + count)
                         ? words[size_t{row - first} * row_words + chunk]
                         : 0;
        }
        Transpose64(block);  // block[j] bit i = row group*64+i, bit chunk*64+j
        const uint32_t limit = std::min<uint32_t>(64, bits_ - chunk * 64);
        for (uint32_t j = 0; j < limit; ++j) {
          unsigned char* out =
              data_.get() + size_t{chunk * 64 + j} * stride_ + group * 8;
          if (bytes == 8) {  // a whole word of the slice (little-endian)
            uint64_t w;
            std::memcpy(&w, out, 8);
            w |= block[j];
            std::memcpy(out, &w, 8);
            continue;
          }
          for (uint32_t b = 0; b < bytes; ++b) {
            out[b] |= static_cast<unsigned char>(block[j] >> (8 * b));
          }
        }
      }
    }
  }

  void GetRow(uint32_t row, std::span<uint64_t> words) const override {
    std::fill(words.begin(), words.end(), 0);
    const unsigned char* p = data_.get() + row / 8;
    const uint32_t shift = row % 8;
    for (uint32_t pos = 0; pos < bits_; ++pos, p += stride_) {
      words[pos / 64] |= uint64_t{(*p >> shift) & 1u} << (pos % 64);
    }
  }

  void CountMembership(std::span<const uint32_t> positions, uint32_t k,
                       std::span<uint32_t> counts) const override {
    const size_t fingerprints = positions.size() / k;
    const uint32_t words = Words();
    std::array<const unsigned char*, kMaxHashes> slice{};
    VerticalCounter counter(words);
    for (size_t f = 0; f < fingerprints; ++f) {
      const uint32_t* p = positions.data() + f * k;
      for (uint32_t j = 0; j < k; ++j) {
        slice[j] = data_.get() + size_t{p[j]} * stride_;
      }
      if (f + kPrefetchAhead < fingerprints) {  // whole slices, ahead
        const uint32_t* next = p + kPrefetchAhead * k;
        for (uint32_t j = 0; j < k; ++j) {
          const unsigned char* s = data_.get() + size_t{next[j]} * stride_;
          for (uint32_t b = 0; b < stride_; b += 64) __builtin_prefetch(s + b);
          // An unaligned slice's last line is one more than the loop's.
          __builtin_prefetch(s + size_t{words} * 8 - 1);
        }
      }
      // The last word of a slice may run into the next slice: those bits
      // are rows >= 8 * stride_ >= rows(), which Finish drops.
      AndSlices(slice.data(), k, words, counter.NextInput());
    }
    counter.Finish(counts);
  }

  void CountMembershipInBlocks(std::span<const uint32_t> positions,
                               uint32_t k, std::span<const uint32_t> blocks,
                               std::span<uint32_t> counts) const override {
    const size_t fingerprints = positions.size() / k;
    for (size_t f = 0; f < fingerprints; ++f) {
      const uint32_t* p = positions.data() + f * k;
      if (f + kPrefetchAhead < fingerprints) {
        const uint32_t* next = p + kPrefetchAhead * k;
        for (uint32_t j = 0; j < k; ++j) {
          const unsigned char* s = data_.get() + size_t{next[j]} * stride_;
          for (uint32_t b : blocks) __builtin_prefetch(s + 8 * size_t{b});
        }
      }
      for (size_t i = 0; i < blocks.size(); ++i) {
        const size_t offset = 8 * size_t{blocks[i]};
        uint64_t hits = LoadWord(data_.get() + size_t{p[0]} * stride_ + offset);
        for (uint32_t j = 1; j < k && hits != 0; ++j) {
          hits &= LoadWord(data_.get() + size_t{p[j]} * stride_ + offset);
        }
        // A block's last word may run into the next slice: those bits are
        // rows >= rows().
        const uint32_t first = 64 * blocks[i];
        if (rows_ - first < 64) hits &= (uint64_t{1} << (rows_ - first)) - 1;
        for (; hits != 0; hits &= hits - 1) {
          ++counts[64 * i + static_cast<size_t>(std::countr_zero(hits))];
        }
      }
    }
  }

  void CountAndPopcount(std::span<const uint32_t> filter,
                        std::span<uint32_t> counts) const override {
    const uint32_t words = Words();
    VerticalCounter counter(words);
    for (uint32_t pos : filter) {
      std::memcpy(counter.NextInput(), data_.get() + size_t{pos} * stride_,
                  size_t{words} * 8);  // the tail past the slice: see above
    }
    counter.Finish(counts);
  }

  size_t MemoryBytes() const override {
    return stride_ == 0 ? 0 : AllocatedMatrixBytes(Size(stride_));
  }

 private:
  // 64-bit words covering a slice.
  uint32_t Words() const { return (stride_ + 7) / 8; }

  // Bytes of the layout with slices of `stride` bytes, plus the 8 bytes the
  // last slice's last word may read past its end.
  size_t Size(uint32_t stride) const { return size_t{bits_} * stride + 8; }

  void Relayout(uint32_t stride) {
    MatrixBytes grown = AllocateMatrixBytes(Size(stride));
    for (size_t pos = 0; pos < bits_ && stride_ > 0; ++pos) {
      std::memcpy(grown.get() + pos * stride, data_.get() + pos * stride_,
                  stride_);
    }
    data_ = std::move(grown);
    stride_ = stride;
  }

  const uint32_t bits_;
  uint32_t rows_ = 0;
  uint32_t stride_ = 0;  // bytes per slice: capacity is 8 * stride_ rows
  MatrixBytes data_;
};

}  // namespace

std::unique_ptr<RowMatrix> NewBitSlicedMatrix(uint32_t bits) {
  return std::make_unique<BitSlicedMatrix>(bits);
}

}  // namespace leakhound
