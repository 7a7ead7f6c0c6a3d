// MultiLayerBloomFilter: the multi-layer Bloom filter (MLBF) of Cen, Xu and
// Sun, "A Multi-Layer Bloom Filter for Duplicated URL Detection" (seed 000):
// a URL a_1/a_2/.../a_L is split into segments, segment i goes into the
// Bloom filter of layer i (k hashes, m bits each), and an XOR layer L+1 of
// m bits holds, for j in [1, k], the bit at the XOR of the segment's j-th
// positions over all layers: it ties the segments of one URL together, so
// a/b' does not pass merely because a and b' were each inserted with other
// URLs. With one layer and no XOR layer it is a classic Bloom filter.
//
// As in the paper, every layer uses the same k hash functions (double
// hashing, BitPositions). What the paper leaves open: a key has 1 to L
// segments (the caller joins segments past L into the last one) and
// layers past a key's depth are not touched; the XOR of positions in
// [0, m) can reach the next power of two and is reduced mod m.
//
// Elements are given as 64-bit hashes of their segments (the caller hashes,
// keyed or not). No false negatives: every inserted key is contained.
//
// Thread-safety: not thread-safe; const methods may run concurrently with
// each other.
#ifndef LEAKHOUND_ENGINE_FILTER_MULTI_LAYER_BLOOM_FILTER_H_
#define LEAKHOUND_ENGINE_FILTER_MULTI_LAYER_BLOOM_FILTER_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/filter/bloom_geometry.h"

namespace leakhound {

class MultiLayerBloomFilter {
 public:
  struct Options {
    uint32_t layers = 4;          // L, in [1, 64]
    uint32_t hashes = 3;          // k, in [1, kMaxHashes]
    uint32_t bits = 16'829'152;   // m per layer (the paper's), >= 1
    bool xor_layer = true;        // the paper's layer L+1
  };

  // InvalidArgument for a parameter out of range.
  static absl::StatusOr<MultiLayerBloomFilter> Create(const Options& options);

  // Inserts the key whose segments hash to `segments`.
  // REQUIRES: 1 <= segments.size() <= layers.
  void Insert(std::span<const uint64_t> segments);

  // Whether the key may have been inserted: true for every inserted key,
  // sometimes true for others. REQUIRES: as Insert.
  bool Contains(std::span<const uint64_t> segments) const;

  const Options& options() const { return options_; }
  // Bytes of bit arrays: (L + 1) * m / 8 with the XOR layer, L * m / 8
  // without.
  size_t MemoryBytes() const { return words_.size() * sizeof(uint64_t); }
  // Fraction of layer `layer`'s bits set (layer == layers: the XOR layer).
  // REQUIRES: layer < layers, or layer == layers with the XOR layer.
  double Fill(uint32_t layer) const;

  // Splits a URL or path into at most `layers` segments, as the paper
  // does: the scheme ("https://") is left out, segments are separated by
  // '/', empty segments are skipped, and segments past `layers` are left
  // joined (with their '/') in the last one. The views point into `url`.
  // REQUIRES: layers >= 1.
  static std::vector<std::string_view> Split(std::string_view url,
                                             uint32_t layers);

 private:
  explicit MultiLayerBloomFilter(const Options& options);

  size_t LayerWords() const { return (size_t{options_.bits} + 63) / 64; }
  bool Test(uint32_t layer, uint32_t bit) const {
    return (words_[layer * LayerWords() + bit / 64] >> (bit % 64)) & 1u;
  }
  void Set(uint32_t layer, uint32_t bit) {
    words_[layer * LayerWords() + bit / 64] |= uint64_t{1} << (bit % 64);
  }
  // The XOR layer's k addresses for `segments` into `out`.
  void XorAddresses(std::span<const uint64_t> segments,
                    std::span<uint32_t> out) const;

  Options options_;
  BloomGeometry geometry_;
  std::vector<uint64_t> words_;  // layer after layer, XOR layer last
};

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_MULTI_LAYER_BLOOM_FILTER_H_
