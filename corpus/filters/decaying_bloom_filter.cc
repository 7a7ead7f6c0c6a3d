#include "corpus/filters/decaying_bloom_filter.h"

#include <algorithm>
#include <array>

namespace leakhound {

absl::StatusOr<DecayingBloomFilter> DecayingBloomFilter::Create(
    const Options& options) {
  if (options.counters == 0 || options.hashes == 0 ||
      options.hashes > kMaxHashes || options.window == 0 ||
      options.window > 65535) {
    return absl::InvalidArgumentError(
        "decaying Bloom filter needs counters >= 1, hashes in [1, 32] and "
        "window in [1, 65535]");
  }
  return DecayingBloomFilter(options);
}

DecayingBloomFilter::DecayingBloomFilter(const Options& options)
    : options_(options),
      geometry_{options.counters, options.hashes, 0},
      counters_(options.counters, 0) {}

bool DecayingBloomFilter::Contains(uint64_t hash) const {
  std::array<uint32_t, kMaxHashes> positions;
  BitPositions(hash, geometry_, positions);
  return std::all_of(positions.begin(), positions.begin() + options_.hashes,
                     [&](uint32_t i) { return counters_[i] > 0; });
}

void DecayingBloomFilter::Insert(uint64_t hash) {
  // The decay of every counter: the O(m) step the SKIP filter avoids.
  for (uint16_t& c : counters_)
    c = static_cast<uint16_t>(std::max<int>(c, 1) - 1);
  std::array<uint32_t, kMaxHashes> positions;
  BitPositions(hash, geometry_, positions);
  const auto window = static_cast<uint16_t>(options_.window);
  for (uint32_t i = 0; i < options_.hashes; ++i)
    counters_[positions[i]] = window;
}

}  // namespace leakhound
