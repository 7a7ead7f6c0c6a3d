// SeededBloomFilter: a Bloom filter whose k hash functions are one hash
// function (XXH3-64) applied with k different seeds, the "seeded hashing"
// of Gøytil and Lundberg's thesis on URL caching (seed 003), with their
// temporal re-seeding: Reseed empties the filter and draws new seeds, so
// the elements inserted again afterwards collide with other elements than
// before, and an element that was a false positive under the old seeds is
// one under the new seeds only by a new chance (the rates multiply).
// SpatialBloomFilter (spatial_bloom_filter.h) ANDs several of them.
//
// Thread-safety: not thread-safe; const methods may run concurrently with
// each other.
#ifndef LEAKHOUND_CORPUS_FILTERS_SEEDED_BLOOM_FILTER_H_
#define LEAKHOUND_CORPUS_FILTERS_SEEDED_BLOOM_FILTER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {

class SeededBloomFilter {
 public:
  struct Options {
    uint64_t bits = 1 << 20;  // m, >= 1
    uint32_t hashes = 3;      // k, in [1, 64]: the number of seeds
    uint64_t seed = 0;        // the k seeds are derived from it
  };

  // InvalidArgument for a parameter out of range.
  static absl::StatusOr<SeededBloomFilter> Create(const Options& options);

  // The thesis's filter size (its eq. 5.1): m = n * k * M bits for n
  // elements, k hashes and a "bit-size multiplier" M (bits per element per
  // hash function). REQUIRES: multiplier > 0.
  static uint64_t ThesisBits(uint64_t elements, uint32_t hashes,
                             double multiplier);

  void Insert(std::string_view element);
  // True for every element inserted since the last Reseed, sometimes for
  // others.
  bool Contains(std::string_view element) const;
  // Empties the filter and derives new seeds from `seed` (temporal
  // re-seeding).
  void Reseed(uint64_t seed);

  const Options& options() const { return options_; }
  size_t MemoryBytes() const { return words_.size() * sizeof(uint64_t); }

 private:
  explicit SeededBloomFilter(const Options& options);

  uint64_t Position(std::string_view element, uint64_t seed) const;

  Options options_;
  std::vector<uint64_t> seeds_;  // k
  std::vector<uint64_t> words_;  // m bits
};

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_FILTERS_SEEDED_BLOOM_FILTER_H_
