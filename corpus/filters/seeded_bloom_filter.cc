#include "corpus/filters/seeded_bloom_filter.h"

#include <xxhash.h>

#include <algorithm>
#include <cmath>

#include "engine/filter/bloom_geometry.h"

namespace leakhound {

absl::StatusOr<SeededBloomFilter> SeededBloomFilter::Create(
    const Options& options) {
  if (options.bits == 0 || options.hashes == 0 || options.hashes > 64) {
    return absl::InvalidArgumentError(
        "seeded Bloom filter needs bits >= 1 and hashes in [1, 64]");
  }
  return SeededBloomFilter(options);
}

uint64_t SeededBloomFilter::ThesisBits(uint64_t elements, uint32_t hashes,
                                       double multiplier) {
  return static_cast<uint64_t>(std::llround(static_cast<double>(elements) *
                                            hashes * multiplier));
}

SeededBloomFilter::SeededBloomFilter(const Options& options)
    : options_(options), words_((options.bits + 63) / 64, 0) {
  Reseed(options.seed);
}

void SeededBloomFilter::Reseed(uint64_t seed) {
  options_.seed = seed;
  seeds_.resize(options_.hashes);
  for (uint32_t i = 0; i < options_.hashes; ++i) {
    seeds_[i] = Fmix64(seed + 0x9e3779b97f4a7c15ull * (i + 1));
  }
  std::fill(words_.begin(), words_.end(), 0);
}

uint64_t SeededBloomFilter::Position(std::string_view element,
                                     uint64_t seed) const {
  __extension__ using Wide = unsigned __int128;
  const uint64_t h = XXH3_64bits_withSeed(element.data(), element.size(), seed);
  return static_cast<uint64_t>((Wide{h} * options_.bits) >> 64);
}

void SeededBloomFilter::Insert(std::string_view element) {
  for (uint64_t seed : seeds_) {
    const uint64_t bit = Position(element, seed);
    words_[bit / 64] |= uint64_t{1} << (bit % 64);
  }
}

bool SeededBloomFilter::Contains(std::string_view element) const {
  for (uint64_t seed : seeds_) {
    const uint64_t bit = Position(element, seed);
    if (((words_[bit / 64] >> (bit % 64)) & 1u) == 0) return false;
  }
  return true;
}

}  // namespace leakhound
