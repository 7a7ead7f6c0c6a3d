#include "engine/filter/skip_bloom_filter.h"

#include <algorithm>
#include <array>

namespace leakhound {

absl::StatusOr<SkipBloomFilter> SkipBloomFilter::Create(
    const Options& options) {
  if (options.counters == 0 || options.window == 0 || options.hashes == 0 ||
      options.hashes > kMaxHashes) {
    return absl::InvalidArgumentError(
        "SKIP Bloom filter needs counters >= 1, window >= 1 and hashes in "
        "[1, 32]");
  }
  return SkipBloomFilter(options);
}

SkipBloomFilter::SkipBloomFilter(const Options& options)
    : options_(options),
      geometry_{options.counters, options.hashes, 0},
      old_(options.counters, 0),
      new_(options.counters, 0) {}

bool SkipBloomFilter::Contains(uint64_t hash) const {
  std::array<uint32_t, kMaxHashes> positions;
  BitPositions(hash, geometry_, positions);
  const auto k = static_cast<std::ptrdiff_t>(options_.hashes);
  const bool in_new = std::all_of(positions.begin(), positions.begin() + k,
                                  [&](uint32_t i) { return new_[i] > 0; });
  if (in_new) return true;
  // Written at pointer q in the previous period, an element lies
  // (w - q) + (p - 1) insertions back: within the window iff q >= p.
  return std::all_of(positions.begin(), positions.begin() + k,
                     [&](uint32_t i) { return old_[i] >= pointer_; });
}

void SkipBloomFilter::Insert(uint64_t hash) {
  std::array<uint32_t, kMaxHashes> positions;
  BitPositions(hash, geometry_, positions);
  for (uint32_t i = 0; i < options_.hashes; ++i) new_[positions[i]] = pointer_;
  if (++pointer_ > options_.window) {
    old_.swap(new_);
    std::fill(new_.begin(), new_.end(), 0);
    pointer_ = 1;
  }
}

}  // namespace leakhound
