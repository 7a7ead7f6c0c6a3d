#include "corpus/filters/spatial_bloom_filter.h"

#include <algorithm>

#include "engine/filter/bloom_geometry.h"

namespace leakhound {
namespace {

// Filter i's seed: distinct filters must have distinct seeds, or a false
// positive of one is a false positive of all.
uint64_t FilterSeed(uint64_t seed, uint32_t i) {
  return Fmix64(seed ^ (0xc2b2ae3d27d4eb4full * (i + 1)));
}

}  // namespace

absl::StatusOr<SpatialBloomFilter> SpatialBloomFilter::Create(
    const Options& options) {
  if (options.filters == 0 || options.filters > 16) {
    return absl::InvalidArgumentError(
        "spatial Bloom filter needs 1 to 16 filters");
  }
  std::vector<SeededBloomFilter> filters;
  for (uint32_t i = 0; i < options.filters; ++i) {
    auto f = SeededBloomFilter::Create(
        {options.bits, options.hashes, FilterSeed(options.seed, i)});
    if (!f.ok()) return f.status();
    filters.push_back(std::move(*f));
  }
  return SpatialBloomFilter(std::move(filters));
}

void SpatialBloomFilter::Insert(std::string_view element) {
  for (SeededBloomFilter& f : filters_) f.Insert(element);
}

bool SpatialBloomFilter::Contains(std::string_view element) const {
  return std::all_of(
      filters_.begin(), filters_.end(),
      [&](const SeededBloomFilter& f) { return f.Contains(element); });
}

void SpatialBloomFilter::Reseed(uint64_t seed) {
  for (uint32_t i = 0; i < filters_.size(); ++i) {
    filters_[i].Reseed(FilterSeed(seed, i));
  }
}

size_t SpatialBloomFilter::MemoryBytes() const {
  size_t bytes = 0;
  for (const SeededBloomFilter& f : filters_) bytes += f.MemoryBytes();
  return bytes;
}

}  // namespace leakhound
