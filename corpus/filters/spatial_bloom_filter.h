// SpatialBloomFilter: the spatial scheme of Gøytil and Lundberg's thesis
// (seed 003): F seeded Bloom filters (seeded_bloom_filter.h) with distinct
// seeds, each of m bits and k hashes, holding the same elements; an element
// is contained only if every filter says so. Reseed re-seeds all of them:
// the spatio-temporal scheme. Since the filters are independent, the false
// positives of F filters of k hashes and m bits each are those of one
// filter of F*k hashes and F*m bits, the same memory: the thesis's own
// finding, tested in tests/corpus/filters/spatial_bloom_filter_test.cc and
// measured in docs/seed-003-spatio-temporal.md.
//
// Thread-safety: not thread-safe; const methods may run concurrently with
// each other.
#ifndef LEAKHOUND_CORPUS_FILTERS_SPATIAL_BLOOM_FILTER_H_
#define LEAKHOUND_CORPUS_FILTERS_SPATIAL_BLOOM_FILTER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "corpus/filters/seeded_bloom_filter.h"

namespace leakhound {

class SpatialBloomFilter {
 public:
  struct Options {
    uint32_t filters = 2;     // F, in [1, 16]
    uint64_t bits = 1 << 20;  // m per filter
    uint32_t hashes = 3;      // k per filter
    uint64_t seed = 0;
  };

  // InvalidArgument for a parameter out of range.
  static absl::StatusOr<SpatialBloomFilter> Create(const Options& options);

  void Insert(std::string_view element);
  bool Contains(std::string_view element) const;
  // Re-seeds and empties every filter (the spatio-temporal scheme).
  void Reseed(uint64_t seed);

  size_t MemoryBytes() const;

 private:
  explicit SpatialBloomFilter(std::vector<SeededBloomFilter> filters)
      : filters_(std::move(filters)) {}

  std::vector<SeededBloomFilter> filters_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_FILTERS_SPATIAL_BLOOM_FILTER_H_
