// SkipBloomFilter: duplicate detection over a jumping window of the last w
// elements of a stream (Tang, Lin, Han, "SKIP Bloom filter", seed 004):
// two arrays of m counters, old and new, and a pointer p in [1, w]. An
// element is hashed to k counters; inserting it sets its counters in new
// to p and advances p; when p passes w, new becomes old, new is cleared
// and p restarts at 1. An element was seen within the last w insertions
// iff all its counters in new are non-zero, or all its counters in old are
// at least p. No false negatives within the window (a test checks it
// against an exact sliding buffer); false positives about
// (1 - (1 - 1/m)^(wk))^k when one array holds a whole window (measured in
// the test; the paper's (1 - (1 - 1/2m)^(wk))^k assumes the window spread
// over both arrays), two counter arrays in memory, O(k) per element
// with no scan of the arrays (the decaying Bloom filter it is compared
// with decrements all m counters per insertion).
//
// The mail gateway uses it as the fast first test of its duplicate-message
// cache, confirmed by an exact lookup before a verdict is reused.
//
// Thread-safety: not thread-safe; const methods may run concurrently with
// each other.
#ifndef LEAKHOUND_ENGINE_FILTER_SKIP_BLOOM_FILTER_H_
#define LEAKHOUND_ENGINE_FILTER_SKIP_BLOOM_FILTER_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/filter/bloom_geometry.h"

namespace leakhound {

class SkipBloomFilter {
 public:
  struct Options {
    uint32_t counters = 65536;  // m, per array; >= 1
    uint32_t hashes = 4;        // k, in [1, kMaxHashes]
    uint32_t window = 10000;    // w, elements; >= 1
  };

  // InvalidArgument for a parameter out of range.
  static absl::StatusOr<SkipBloomFilter> Create(const Options& options);

  // Whether `hash` (a 64-bit hash of the element) was inserted within the
  // last `window` insertions: never false for one that was, sometimes true
  // for one that was not.
  bool Contains(uint64_t hash) const;

  // Inserts `hash` as the newest element of the window.
  void Insert(uint64_t hash);

  // Contains, then Insert: the stream operation of the paper.
  bool TestAndInsert(uint64_t hash) {
    const bool seen = Contains(hash);
    Insert(hash);
    return seen;
  }

  const Options& options() const { return options_; }
  size_t MemoryBytes() const {
    return (old_.size() + new_.size()) * sizeof(uint32_t);
  }

 private:
  explicit SkipBloomFilter(const Options& options);

  Options options_;
  BloomGeometry geometry_;
  std::vector<uint32_t> old_, new_;
  uint32_t pointer_ = 1;  // p: the value the next insertion writes
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_SKIP_BLOOM_FILTER_H_
