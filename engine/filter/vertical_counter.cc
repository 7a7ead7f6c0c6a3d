#include "engine/filter/vertical_counter.h"

#include <algorithm>
#include <array>
#include <bit>

namespace leakhound {
namespace {

// Carry-save adder: high:low = a + b + c, bit by bit.
inline void Csa(uint64_t& high, uint64_t& low, uint64_t a, uint64_t b,
                uint64_t c) {
  const uint64_t u = a ^ b;
  high = (a & b) | (u & c);
  low = u ^ c;
}

// Adds the 16 vectors in[0..15] (each `words` long, `stride` apart) into
// the planes and writes each position's carry out of the eights into
// sixteens. Branch-free over w, so it vectorizes; the clones let the loader
// pick the widest vectors the CPU has.
__attribute__((target_clones("avx512f", "avx2", "default")))
void AddSixteen(const uint64_t* in, size_t stride, uint32_t words,
                uint64_t* ones_p, uint64_t* twos_p, uint64_t* fours_p,
                uint64_t* eights_p, uint64_t* sixteens_p) {
  for (uint32_t w = 0; w < words; ++w) {
    const uint64_t* v = in + w;
    uint64_t ones = ones_p[w], twos = twos_p[w], fours = fours_p[w],
             eights = eights_p[w];
    uint64_t twos_a, twos_b, fours_a, fours_b, eights_a, eights_b, sixteens;
    Csa(twos_a, ones, ones, v[0 * stride], v[1 * stride]);
    Csa(twos_b, ones, ones, v[2 * stride], v[3 * stride]);
    Csa(fours_a, twos, twos, twos_a, twos_b);
    Csa(twos_a, ones, ones, v[4 * stride], v[5 * stride]);
    Csa(twos_b, ones, ones, v[6 * stride], v[7 * stride]);
    Csa(fours_b, twos, twos, twos_a, twos_b);
    Csa(eights_a, fours, fours, fours_a, fours_b);
    Csa(twos_a, ones, ones, v[8 * stride], v[9 * stride]);
    Csa(twos_b, ones, ones, v[10 * stride], v[11 * stride]);
    Csa(fours_a, twos, twos, twos_a, twos_b);
    Csa(twos_a, ones, ones, v[12 * stride], v[13 * stride]);
    Csa(twos_b, ones, ones, v[14 * stride], v[15 * stride]);
    Csa(fours_b, twos, twos, twos_a, twos_b);
    Csa(eights_b, fours, fours, fours_a, fours_b);
    Csa(sixteens, eights, eights, eights_a, eights_b);
    ones_p[w] = ones;
    twos_p[w] = twos;
    fours_p[w] = fours;
    eights_p[w] = eights;
    sixteens_p[w] = sixteens;
  }
}

// kSpread[b]: byte j is bit j of b, so the bits of four planes' bytes
// combine into eight 4-bit counts with three shifts.
constexpr std::array<uint64_t, 256> kSpread = [] {
  std::array<uint64_t, 256> spread{};
  for (uint32_t b = 0; b < 256; ++b) {
    for (uint32_t j = 0; j < 8; ++j) {
      spread[b] |= uint64_t{(b >> j) & 1} << (8 * j);
    }
  }
  return spread;
}();

}  // namespace

VerticalCounter::VerticalCounter(uint32_t words)
    : words_(words),
      inputs_(size_t{kBlock} * words),
      ones_(words),
      twos_(words),
      fours_(words),
      eights_(words),
      sixteens_(words),
      high_(size_t{words} * 64) {}

uint64_t* VerticalCounter::NextInput() {
  if (buffered_ == kBlock) AddBlock();
  return inputs_.data() + size_t{buffered_++} * words_;
}

void VerticalCounter::AddBlock() {
  std::fill(inputs_.begin() + static_cast<ptrdiff_t>(buffered_) * words_,
            inputs_.end(), 0);
  AddSixteen(inputs_.data(), words_, words_, ones_.data(), twos_.data(),
             fours_.data(), eights_.data(), sixteens_.data());
  // At most one carry per position per block: with vectors of density f a
  // sixteenth as many set bits as the block's inputs.
  for (uint32_t w = 0; w < words_; ++w) {
    for (uint64_t bits = sixteens_[w]; bits != 0; bits &= bits - 1) {
      ++high_[size_t{w} * 64 + static_cast<uint32_t>(std::countr_zero(bits))];
    }
  }
  buffered_ = 0;
}

void VerticalCounter::Finish(std::span<uint32_t> counts) {
  if (buffered_ > 0) AddBlock();
  const size_t n = std::min(counts.size(), size_t{words_} * 64);
  for (size_t i = 0; i < n; i += 8) {
    const uint32_t w = static_cast<uint32_t>(i / 64);
    const uint32_t shift = i % 64;
    auto spread = [shift](uint64_t plane) {
      return kSpread[(plane >> shift) & 0xFF];
    };
    // Byte j of `low`: the count mod 16 of position i + j.
    const uint64_t low = spread(ones_[w]) | spread(twos_[w]) << 1 |
                         spread(fours_[w]) << 2 | spread(eights_[w]) << 3;
    for (size_t j = 0; j < 8 && i + j < n; ++j) {
      counts[i + j] +=
          16 * high_[i + j] + static_cast<uint32_t>((low >> (8 * j)) & 0xF);
    }
  }
  std::fill(ones_.begin(), ones_.end(), 0);
  std::fill(twos_.begin(), twos_.end(), 0);
  std::fill(fours_.begin(), fours_.end(), 0);
  std::fill(eights_.begin(), eights_.end(), 0);
  std::fill(high_.begin(), high_.end(), 0);
}

}  // namespace leakhound
