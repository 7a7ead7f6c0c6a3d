#include "engine/filter/row_table.h"

#include "engine/filter/bloom_geometry.h"

namespace leakhound {

uint64_t RowHash(uint32_t row, const RowInfo& info) {
  if (info.segments.empty()) return 0;
  uint64_t h = Fmix64(kRowsDigestSeed ^ row);
  for (const Segment& s : info.segments) {
    h = Fmix64(h ^ s.doc);
    h = Fmix64(h ^ s.begin);
    h = Fmix64(h ^ s.end);
  }
  h = Fmix64(h ^ info.fingerprints);
  return Fmix64(h ^ info.bits_set);
}

uint64_t RowsDigest(std::span<const RowInfo> rows,
                    std::vector<uint64_t>* hashes) {
  if (hashes != nullptr) hashes->assign(rows.size(), 0);
  uint64_t digest = kRowsDigestSeed;
  for (size_t r = 0; r < rows.size(); ++r) {
    const uint64_t h = RowHash(static_cast<uint32_t>(r), rows[r]);
    if (hashes != nullptr) (*hashes)[r] = h;
    digest ^= h;
  }
  return digest;
}

}  // namespace leakhound
