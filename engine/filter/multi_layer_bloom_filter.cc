#include "engine/filter/multi_layer_bloom_filter.h"

#include <algorithm>
#include <array>
#include <bit>

namespace leakhound {

absl::StatusOr<MultiLayerBloomFilter> MultiLayerBloomFilter::Create(
    const Options& options) {
  if (options.layers == 0 || options.layers > 64 || options.hashes == 0 ||
      options.hashes > kMaxHashes || options.bits == 0) {
    return absl::InvalidArgumentError(
        "multi-layer Bloom filter needs layers in [1, 64], hashes in [1, 32] "
        "and bits >= 1");
  }
  return MultiLayerBloomFilter(options);
}

MultiLayerBloomFilter::MultiLayerBloomFilter(const Options& options)
    : options_(options),
      geometry_{options.bits, options.hashes, 0},
      words_((options.layers + (options.xor_layer ? 1 : 0)) *
                 ((size_t{options.bits} + 63) / 64),
             0) {}

void MultiLayerBloomFilter::XorAddresses(std::span<const uint64_t> segments,
                                         std::span<uint32_t> out) const {
  std::array<uint32_t, kMaxHashes> positions;
  std::fill_n(out.begin(), options_.hashes, 0u);
  for (uint64_t segment : segments) {
    BitPositions(segment, geometry_, positions);
    for (uint32_t j = 0; j < options_.hashes; ++j) out[j] ^= positions[j];
  }
  for (uint32_t j = 0; j < options_.hashes; ++j) out[j] %= options_.bits;
}

void MultiLayerBloomFilter::Insert(std::span<const uint64_t> segments) {
  std::array<uint32_t, kMaxHashes> positions;
  for (uint32_t i = 0; i < segments.size(); ++i) {
    BitPositions(segments[i], geometry_, positions);
    for (uint32_t j = 0; j < options_.hashes; ++j) Set(i, positions[j]);
  }
  if (!options_.xor_layer) return;
  XorAddresses(segments, positions);
  for (uint32_t j = 0; j < options_.hashes; ++j) {
    Set(options_.layers, positions[j]);
  }
}

bool MultiLayerBloomFilter::Contains(
    std::span<const uint64_t> segments) const {
  std::array<uint32_t, kMaxHashes> positions;
  for (uint32_t i = 0; i < segments.size(); ++i) {
    BitPositions(segments[i], geometry_, positions);
    for (uint32_t j = 0; j < options_.hashes; ++j) {
      if (!Test(i, positions[j])) return false;
    }
  }
  if (!options_.xor_layer) return true;
  XorAddresses(segments, positions);
  for (uint32_t j = 0; j < options_.hashes; ++j) {
    if (!Test(options_.layers, positions[j])) return false;
  }
  return true;
}

double MultiLayerBloomFilter::Fill(uint32_t layer) const {
  const size_t words = LayerWords();
  uint64_t set = 0;
  for (size_t w = 0; w < words; ++w) {
    set += static_cast<uint64_t>(std::popcount(words_[layer * words + w]));
  }
  return static_cast<double>(set) / options_.bits;
}

std::vector<std::string_view> MultiLayerBloomFilter::Split(
    std::string_view url, uint32_t layers) {
  const size_t scheme = url.find("://");
  if (scheme != std::string_view::npos &&
      url.find('/') > scheme) {  // "https://host/...", not "a/b://c"
    url.remove_prefix(scheme + 3);
  }
  std::vector<std::string_view> segments;
  while (!url.empty()) {
    if (url.front() == '/') {
      url.remove_prefix(1);
      continue;
    }
    if (segments.size() + 1 == layers) {  // the rest, '/' and all
      while (!url.empty() && url.back() == '/') url.remove_suffix(1);
      segments.push_back(url);
      break;
    }
    const size_t end = std::min(url.find('/'), url.size());
    segments.push_back(url.substr(0, end));
    url.remove_prefix(end);
  }
  return segments;
}

}  // namespace leakhound
