// BloomGeometry: row size m and hash count k of the pseudo-matrix Bloom
// filter, derived from a per-fingerprint false-positive target p and a row
// capacity n (Butakov eq. 2: m >= -n ln p / (ln 2)^2, k = round(m/n ln 2)),
// and the k bit positions of a fingerprint in a row.
//
// Thread-safety: value types and pure functions; safe to share.
#ifndef LEAKHOUND_ENGINE_FILTER_BLOOM_GEOMETRY_H_
#define LEAKHOUND_ENGINE_FILTER_BLOOM_GEOMETRY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {

struct FilterParams {
  // p: false-positive probability of one fingerprint against a row filled
  // to its capacity. Range (0, 0.5].
  double fpr = 1e-3;
  // n: fingerprints a row is sized for. Range [64, 2^26]. The default is
  // measured (docs/results.md, "Row capacity at equal memory").
  uint32_t row_capacity = 4096;
  // Fraction of n a row is filled to before packing moves on (the paper's
  // second approach uses 0.5). Range (0, 1].
  double fill = 1.0;
};

struct BloomGeometry {
  uint32_t bits;          // m
  uint32_t hashes;        // k, in [1, 32]
  uint32_t fill_limit;    // fingerprints a row accepts: floor(fill * n)

  // Returns InvalidArgument when a parameter is out of range.
  static absl::StatusOr<BloomGeometry> FromParams(const FilterParams& params);
};

inline constexpr uint32_t kMaxHashes = 32;

// Writes the geometry.hashes bit positions of `fingerprint` into
// positions[0, k): g_i = h1 + i*h2 (double hashing, h2 odd), each g_i
// finalized by murmur3's fmix64 and mapped to [0, m) by multiply-shift.
// Without the finalizer the positions collapse whenever h2 is small next to
// 2^64/m (probability ~2/m per fingerprint; a unit test caught it).
// Persisted: row bits on disk depend on this mapping (golden-tested).
// REQUIRES: positions.size() >= geometry.hashes.
inline uint64_t Fmix64(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

inline void BitPositions(uint64_t fingerprint, const BloomGeometry& geometry,
                         std::span<uint32_t> positions) {
  const uint64_t h1 = fingerprint;
  const uint64_t h2 = (fingerprint >> 32 | fingerprint << 32) | 1;
  uint64_t g = h1;
  for (uint32_t i = 0; i < geometry.hashes; ++i) {
    __extension__ using Wide = unsigned __int128;
    positions[i] =
        static_cast<uint32_t>((Wide{Fmix64(g)} * geometry.bits) >> 64);
    g += h2;
  }
}

// The positions of many fingerprints: positions[i * k + j] is position j
// of fingerprints[i] (`positions` is resized to fingerprints.size() * k).
inline void BitPositions(std::span<const uint64_t> fingerprints,
                         const BloomGeometry& geometry,
                         std::vector<uint32_t>& positions) {
  const uint32_t k = geometry.hashes;
  positions.resize(fingerprints.size() * k);
  for (size_t i = 0; i < fingerprints.size(); ++i) {
    BitPositions(fingerprints[i], geometry,
                 std::span<uint32_t>(positions.data() + i * k, k));
  }
}

}  // namespace leakhound

#endif  // LEAKHOUND_ENGINE_FILTER_BLOOM_GEOMETRY_H_
