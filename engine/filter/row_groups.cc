#include "engine/filter/row_groups.h"

#include <algorithm>

namespace leakhound {

RowGroups::RowGroups(uint32_t rows_per_group, const BloomGeometry& row_geometry)
    : rows_per_group_(rows_per_group),
      geometry_{rows_per_group * row_geometry.bits, row_geometry.hashes,
                rows_per_group * row_geometry.fill_limit},
      filter_(NewBitSlicedMatrix(geometry_.bits)) {}

void RowGroups::Cover(uint32_t rows) {
  while (size_t{filter_->rows()} * rows_per_group_ < rows) {
    filter_->AddRow();
    min_bits_.push_back(kNoRowsInUse);
  }
}

void RowGroups::Add(uint32_t row, std::span<const uint64_t> fingerprints) {
  std::vector<uint32_t> positions;
  BitPositions(fingerprints, geometry_, positions);
  filter_->SetBits(GroupOf(row), positions);
}

void RowGroups::Clear(uint32_t g) { filter_->ClearRow(g); }

void RowGroups::CountMembership(std::span<const uint64_t> fingerprints,
                                std::span<uint32_t> counts) const {
  if (filter_->rows() == 0) return;
  const uint32_t k = geometry_.hashes;
  constexpr size_t kBlock = 4096;  // positions of a block at a time
  std::vector<uint32_t> positions;
  for (size_t b = 0; b < fingerprints.size(); b += kBlock) {
    BitPositions(
        fingerprints.subspan(b, std::min(kBlock, fingerprints.size() - b)),
        geometry_, positions);
    filter_->CountMembership(positions, k, counts);
  }
}

size_t RowGroups::MemoryBytes() const {
  return filter_->MemoryBytes() + min_bits_.capacity() * sizeof(uint32_t);
}

}  // namespace leakhound
