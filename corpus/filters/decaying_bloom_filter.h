// DecayingBloomFilter: duplicate detection over a sliding window of the
// last w elements of a stream (Shen and Zhang, "Improved approximate
// detection of duplicates for data streams over sliding windows", 2008),
// the baseline the SKIP Bloom filter paper (seed 004) compares with: one
// array of m counters; inserting an element first decrements every
// non-zero counter by one (O(m) per element), then sets the element's k
// counters to w. An element was seen within the last w insertions iff all
// its counters are non-zero. No false negatives within the window; false
// positives about (1 - e^(-kw/m))^k.
//
// Thread-safety: not thread-safe; const methods may run concurrently with
// each other.
#ifndef LEAKHOUND_CORPUS_FILTERS_DECAYING_BLOOM_FILTER_H_
#define LEAKHOUND_CORPUS_FILTERS_DECAYING_BLOOM_FILTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/filter/bloom_geometry.h"

namespace leakhound {

class DecayingBloomFilter {
 public:
  struct Options {
    uint32_t counters = 65536;  // m, >= 1
    uint32_t hashes = 4;        // k, in [1, kMaxHashes]
    uint32_t window = 10000;    // w, elements; in [1, 65535]
  };

  // InvalidArgument for a parameter out of range.
  static absl::StatusOr<DecayingBloomFilter> Create(const Options& options);

  // Whether `hash` (a 64-bit hash of the element) was inserted within the
  // last `window` insertions: never false for one that was.
  bool Contains(uint64_t hash) const;

  // Ages every counter by one insertion, then inserts `hash` as the newest
  // element.
  void Insert(uint64_t hash);

  bool TestAndInsert(uint64_t hash) {
    const bool seen = Contains(hash);
    Insert(hash);
    return seen;
  }

  const Options& options() const { return options_; }
  size_t MemoryBytes() const { return counters_.size() * sizeof(uint16_t); }

 private:
  explicit DecayingBloomFilter(const Options& options);

  Options options_;
  BloomGeometry geometry_;
  std::vector<uint16_t> counters_;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CORPUS_FILTERS_DECAYING_BLOOM_FILTER_H_
