#include "engine/filter/membership_counter.h"

#include <algorithm>

namespace leakhound {
namespace {

// Adds to `out` the memberships of `fingerprints` in the rows of `blocks`
// (all rows if empty), their bit positions computed a block at a time (a
// large text's would otherwise take k * 4 bytes per fingerprint at once).
void CountRange(const RowMatrix& matrix, const BloomGeometry& geometry,
                std::span<const uint64_t> fingerprints,
                std::span<const uint32_t> blocks, std::span<uint32_t> out,
                std::vector<uint32_t>& positions) {
  constexpr size_t kBlock = 4096;
  for (size_t b = 0; b < fingerprints.size(); b += kBlock) {
    BitPositions(
        fingerprints.subspan(b, std::min(kBlock, fingerprints.size() - b)),
        geometry, positions);
    if (blocks.empty()) {
      matrix.CountMembership(positions, geometry.hashes, out);
    } else {
      matrix.CountMembershipInBlocks(positions, geometry.hashes, blocks, out);
    }
  }
}

}  // namespace

size_t RowCounts::BlockSlot(uint32_t row) const {
  return static_cast<size_t>(
             std::lower_bound(blocks.begin(), blocks.end(), row / 64) -
             blocks.begin()) * 64 + row % 64;
}

RowCounts CountMemberships(const RowMatrix& matrix,
                           const BloomGeometry& geometry,
                           std::span<const uint64_t> fingerprints,
                           const QueryWindows& windows,
                           std::vector<uint32_t> blocks) {
  RowCounts counts;
  counts.blocks = std::move(blocks);
  counts.trials = static_cast<double>(fingerprints.size());
  const size_t slots =
      counts.blocks.empty() ? matrix.rows() : counts.blocks.size() * 64;
  counts.whole.assign(slots, 0);
  std::vector<uint32_t> positions;
  if (windows.windows() == 0) {
    CountRange(matrix, geometry, fingerprints, counts.blocks, counts.whole,
               positions);
    return counts;
  }
  counts.chunks.assign(windows.chunks() * slots, 0);
  counts.fullest.assign(slots, 0);
  for (size_t c = 0; c < windows.chunks(); ++c) {
    uint32_t* out = counts.chunks.data() + c * slots;
    CountRange(
        matrix, geometry,
        fingerprints.subspan(windows.ChunkBegin(c),
                             windows.ChunkEnd(c) - windows.ChunkBegin(c)),
        counts.blocks, std::span<uint32_t>(out, slots), positions);
    for (size_t i = 0; i < slots; ++i) counts.whole[i] += out[i];
    // Window c - 1 (chunks c - 1 and c) counts toward the fullest unless
    // it is the last.
    if (c >= 1 && c < windows.windows()) {
      const uint32_t* before = out - slots;
      for (size_t i = 0; i < slots; ++i) {
        counts.fullest[i] = std::max(counts.fullest[i], before[i] + out[i]);
      }
    }
  }
  return counts;
}

RowCounts CountAndPopcount(const RowMatrix& matrix,
                           const BloomGeometry& geometry,
                           std::span<const uint64_t> fingerprints) {
  RowCounts counts;
  counts.whole.assign(matrix.rows(), 0);
  std::vector<uint32_t> positions;
  BitPositions(fingerprints, geometry, positions);
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()),
                  positions.end());
  matrix.CountAndPopcount(positions, counts.whole);
  counts.trials = static_cast<double>(positions.size());
  return counts;
}

}  // namespace leakhound
