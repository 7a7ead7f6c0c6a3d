#include "engine/filter/pseudo_matrix.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace leakhound {

namespace {

// Why Restore refuses a row record, or "" if it does not.
std::string RowRecordProblem(uint32_t r, const RowInfo& info) {
  uint32_t fingerprints = 0;
  for (const Segment& s : info.segments) {
    if (s.begin >= s.end)
      return absl::StrCat("row ", r, " has an empty segment");
    fingerprints += s.end - s.begin;
  }
  if (fingerprints != info.fingerprints) {
    return absl::StrCat("row ", r, " fingerprint count mismatch");
  }
  return "";
}

}  // namespace

absl::StatusOr<std::unique_ptr<PseudoMatrix>> PseudoMatrix::Create(
    const PseudoMatrixOptions& options) {
  auto geometry = BloomGeometry::FromParams(options.filter);
  if (!geometry.ok()) return geometry.status();
  if (options.group_rows % 64 != 0 ||
      uint64_t{options.group_rows} * geometry->bits > UINT32_MAX) {
    return absl::InvalidArgumentError(absl::StrCat(
        "group_rows ", options.group_rows,
        " must be a multiple of 64 with group_rows * m < 2^32"));
  }
  std::unique_ptr<RowMatrix> matrix =
      options.layout == MatrixLayout::kBitSliced
          ? NewBitSlicedMatrix(geometry->bits)
          : NewRowMajorMatrix(geometry->bits);
  return std::unique_ptr<PseudoMatrix>(
      new PseudoMatrix(options, *geometry, std::move(matrix)));
}

PseudoMatrix::PseudoMatrix(const PseudoMatrixOptions& options,
                           const BloomGeometry& geometry,
                           std::unique_ptr<RowMatrix> matrix)
    : options_(options), geometry_(geometry), matrix_(std::move(matrix)) {
  if (options.group_rows > 0) {
    groups_ = std::make_unique<RowGroups>(options.group_rows, geometry);
  }
}

absl::StatusOr<std::unique_ptr<PseudoMatrix>> PseudoMatrix::Restore(
    const PseudoMatrixOptions& options, std::vector<RowInfo> rows,
    int64_t open_row) {
  auto pm = Create(options);
  if (!pm.ok()) return pm.status();
  PseudoMatrix& m = **pm;
  if (open_row < -1 || open_row >= static_cast<int64_t>(rows.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("open row ", open_row, " out of range"));
  }
  m.matrix_->Reserve(static_cast<uint32_t>(rows.size()));
  for (uint32_t r = 0; r < rows.size(); ++r) {
    m.matrix_->AddRow();
    const std::string problem = RowRecordProblem(r, rows[r]);
    if (!problem.empty()) return absl::InvalidArgumentError(problem);
    for (const Segment& s : rows[r].segments) {
      m.doc_rows_[s.doc].push_back(r);  // ascending r: sorted
    }
    m.rows_in_use_ += rows[r].segments.empty() ? 0u : 1u;
  }
  for (auto& [doc, doc_rows] : m.doc_rows_) {
    doc_rows.erase(std::unique(doc_rows.begin(), doc_rows.end()),
                   doc_rows.end());
    if (doc_rows.size() > 1) m.spanning_.insert(doc);
  }
  m.rows_ = std::move(rows);
  m.FindFreeRows();
  m.open_row_ = open_row;
  if (m.groups_) {
    m.groups_->Cover(static_cast<uint32_t>(m.rows_.size()));
    for (const auto& [doc, doc_rows] : m.doc_rows_) m.UpdateCrossGroup(doc);
    for (uint32_t g = 0; g < m.groups_->groups(); ++g) {
      m.touched_groups_.push_back(g);
    }
    m.RefreshGroups(nullptr);  // no filter to rebuild: the bits come later
  }
  return pm;
}

absl::StatusOr<std::vector<DocId>> PseudoMatrix::ReplaceRows(
    std::span<const std::pair<uint32_t, RowInfo>> changed, uint32_t row_count,
    int64_t open_row) {
  if (open_row < -1 || open_row >= int64_t{row_count}) {
    return absl::InvalidArgumentError(
        absl::StrCat("open row ", open_row, " out of range"));
  }
  for (const auto& [r, info] : changed) {
    const std::string problem = RowRecordProblem(r, info);
    if (!problem.empty()) return absl::InvalidArgumentError(problem);
  }
  while (rows_.size() < row_count) {
    rows_.emplace_back();
    matrix_->AddRow();
  }
  if (groups_) groups_->Cover(row_count);
  absl::flat_hash_set<DocId> touched;
  std::vector<uint32_t> rows;
  for (const auto& [r, info] : changed) {
    rows.push_back(r);
    for (const Segment& s : rows_[r].segments) {
      std::vector<uint32_t>& held = doc_rows_[s.doc];
      held.erase(std::remove(held.begin(), held.end(), r), held.end());
      touched.insert(s.doc);
    }
    rows_in_use_ -= rows_[r].segments.empty() ? 0u : 1u;
    rows_[r] = info;
    rows_in_use_ += info.segments.empty() ? 0u : 1u;
    for (const Segment& s : info.segments) {
      std::vector<uint32_t>& held = doc_rows_[s.doc];
      auto at = std::lower_bound(held.begin(), held.end(), r);
      if (at == held.end() || *at != r) held.insert(at, r);
      touched.insert(s.doc);
    }
    matrix_->ClearRow(r);
  }
  std::vector<DocId> dropped;
  for (DocId doc : touched) {
    auto it = doc_rows_.find(doc);
    if (it->second.empty()) {
      doc_rows_.erase(it);
      spanning_.erase(doc);
      dropped.push_back(doc);
    } else if (it->second.size() > 1) {
      spanning_.insert(doc);
    } else {
      spanning_.erase(doc);
    }
    if (groups_) UpdateCrossGroup(doc);
  }
  FindFreeRows();
  open_row_ = open_row;
  if (groups_) {
    for (uint32_t g : GroupsOf(rows)) {
      groups_->Clear(g);
      touched_groups_.push_back(g);
    }
    RefreshGroups(nullptr);  // no filter to rebuild: the bits come later
  }
  return dropped;
}

void PseudoMatrix::FindFreeRows() {
  // Taken back lowest first, as after removals.
  free_rows_.clear();
  if (options_.packing == PackingMode::kSingleFilter) return;
  for (auto r = static_cast<int64_t>(rows_.size()) - 1; r >= 0; --r) {
    if (rows_[static_cast<size_t>(r)].segments.empty()) {
      free_rows_.push_back(static_cast<uint32_t>(r));
    }
  }
}

std::vector<uint32_t> PseudoMatrix::GroupsOf(
    std::span<const uint32_t> rows) const {
  std::vector<uint32_t> groups;
  if (!groups_) return groups;
  for (uint32_t r : rows) groups.push_back(groups_->GroupOf(r));
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
}

void PseudoMatrix::LoadRowBits(uint32_t first, uint32_t count,
                               std::span<const uint64_t> words) {
  matrix_->SetRows(first, count, words);
}

void PseudoMatrix::LoadGroupBits(uint32_t first, uint32_t count,
                                 std::span<const uint64_t> words) {
  groups_->SetBits(first, count, words);
}

void PseudoMatrix::GroupBits(uint32_t g, std::span<uint64_t> words) const {
  groups_->GetBits(g, words);
}

std::vector<uint32_t> PseudoMatrix::UnderfilledRows(double underfill) const {
  std::vector<uint32_t> rows;
  if (options_.packing != PackingMode::kPseudoMatrix) return rows;
  const double threshold = underfill * geometry_.fill_limit;
  for (uint32_t r = 0; r < rows_.size(); ++r) {
    if (!rows_[r].segments.empty() && rows_[r].fingerprints < threshold) {
      rows.push_back(r);
    }
  }
  if (rows.size() < 2) rows.clear();
  return rows;
}

uint32_t PseudoMatrix::TakeRow() {
  if (!free_rows_.empty()) {
    const uint32_t row = free_rows_.back();
    free_rows_.pop_back();
    return row;
  }
  rows_.emplace_back();
  if (groups_) groups_->Cover(static_cast<uint32_t>(rows_.size()));
  return matrix_->AddRow();
}

void PseudoMatrix::ClearRow(uint32_t row) {
  matrix_->ClearRow(row);
  // The group's filter keeps the row's fingerprints (a superset stays
  // correct); its least-filled row may change.
  if (groups_) touched_groups_.push_back(groups_->GroupOf(row));
  rows_in_use_ -= rows_[row].segments.empty() ? 0u : 1u;
  rows_[row] = RowInfo{};
}

void PseudoMatrix::Insert(uint32_t row, DocId doc,
                          std::span<const uint64_t> fingerprints,
                          uint32_t begin, uint32_t end) {
  if (begin >= end) return;
  RowInfo& info = rows_[row];
  std::vector<uint32_t> positions;
  BitPositions(fingerprints.subspan(begin, end - begin), geometry_, positions);
  info.bits_set += matrix_->SetBits(row, positions);
  info.fingerprints += end - begin;
  rows_in_use_ += info.segments.empty() ? 1u : 0u;
  if (!info.segments.empty() && info.segments.back().doc == doc &&
      info.segments.back().end == begin) {
    info.segments.back().end = end;
  } else {
    info.segments.push_back(Segment{doc, begin, end});
  }
  std::vector<uint32_t>& doc_rows = doc_rows_[doc];
  auto at = std::lower_bound(doc_rows.begin(), doc_rows.end(), row);
  if (at == doc_rows.end() || *at != row) doc_rows.insert(at, row);
  if (doc_rows.size() > 1) spanning_.insert(doc);
  if (groups_) {
    groups_->Add(row, fingerprints.subspan(begin, end - begin));
    touched_groups_.push_back(groups_->GroupOf(row));
    UpdateCrossGroup(doc);
  }
}

void PseudoMatrix::UpdateCrossGroup(DocId doc) {
  auto it = doc_rows_.find(doc);
  if (it != doc_rows_.end() && !it->second.empty() &&
      groups_->GroupOf(it->second.front()) !=
          groups_->GroupOf(it->second.back())) {
    cross_group_.insert(doc);
  } else {
    cross_group_.erase(doc);
  }
}

void PseudoMatrix::RefreshGroups(const FingerprintSource* source) {
  if (!groups_) return;
  const uint32_t per = groups_->rows_per_group();
  auto dedupe = [](std::vector<uint32_t>& v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
  };
  dedupe(cleared_groups_);
  for (uint32_t g : cleared_groups_) {
    groups_->Clear(g);
    for (uint32_t r = g * per; r < (g + 1) * per && r < rows_.size(); ++r) {
      for (const Segment& s : rows_[r].segments) {
        groups_->Add(r, (*source)(s.doc).subspan(s.begin, s.end - s.begin));
      }
    }
    touched_groups_.push_back(g);
  }
  cleared_groups_.clear();
  dedupe(touched_groups_);
  for (uint32_t g : touched_groups_) {
    uint32_t min_bits = RowGroups::kNoRowsInUse;
    for (uint32_t r = g * per; r < (g + 1) * per && r < rows_.size(); ++r) {
      if (!rows_[r].segments.empty()) {
        min_bits = std::min(min_bits, rows_[r].bits_set);
      }
    }
    groups_->set_min_bits(g, min_bits);
  }
  touched_groups_.clear();
}

void PseudoMatrix::Pack(DocId doc, std::span<const uint64_t> fingerprints,
                        uint32_t begin, uint32_t end) {
  const uint32_t limit = geometry_.fill_limit;
  while (begin < end) {
    if (open_row_ < 0 ||
        rows_[static_cast<size_t>(open_row_)].fingerprints >= limit) {
      open_row_ = TakeRow();
    }
    const auto row = static_cast<uint32_t>(open_row_);
    const uint32_t take =
        std::min(limit - rows_[row].fingerprints, end - begin);
    Insert(row, doc, fingerprints, begin, begin + take);
    begin += take;
  }
}

uint32_t PseudoMatrix::Add(DocId doc, std::span<const uint64_t> fingerprints) {
  const auto n = static_cast<uint32_t>(fingerprints.size());
  doc_rows_.try_emplace(doc);
  uint32_t stored = n;
  switch (options_.packing) {
    case PackingMode::kPseudoMatrix:
      Pack(doc, fingerprints, 0, n);
      break;
    case PackingMode::kOneDocumentPerRow:
      stored = std::min(n, geometry_.fill_limit);
      Insert(TakeRow(), doc, fingerprints, 0, stored);
      break;
    case PackingMode::kSingleFilter:
      if (rows_.empty()) TakeRow();
      Insert(0, doc, fingerprints, 0, n);
      break;
  }
  RefreshGroups(nullptr);  // Add clears no row
  return stored;
}

absl::StatusOr<RebuildStats> PseudoMatrix::Remove(
    DocId doc, const FingerprintSource& source) {
  auto it = doc_rows_.find(doc);
  if (it == doc_rows_.end()) {
    return absl::NotFoundError(
        absl::StrCat("document ", doc, " not in filter"));
  }
  const std::vector<uint32_t> rows = std::move(it->second);
  doc_rows_.erase(it);
  spanning_.erase(doc);
  cross_group_.erase(doc);
  RebuildStats stats;
  for (uint32_t row : rows) {
    std::vector<Segment> keep;
    for (const Segment& s : rows_[row].segments) {
      if (s.doc != doc) keep.push_back(s);
    }
    ClearRow(row);
    for (const Segment& s : keep) {
      Insert(row, s.doc, source(s.doc), s.begin, s.end);
    }
    stats.rows.push_back(row);
    if (keep.empty() && options_.packing != PackingMode::kSingleFilter) {
      free_rows_.push_back(row);
      if (open_row_ == row) open_row_ = -1;
      ++stats.rows_freed;
    }
  }
  RefreshGroups(nullptr);  // the filters keep the removed fingerprints
  return stats;
}

RebuildStats PseudoMatrix::Compact(const FingerprintSource& source,
                                   double underfill) {
  RebuildStats stats;
  const std::vector<uint32_t> victims = UnderfilledRows(underfill);
  if (victims.empty()) return stats;

  std::vector<Segment> moving;
  for (uint32_t row : victims) {
    for (const Segment& s : rows_[row].segments) {
      moving.push_back(s);
      std::vector<uint32_t>& doc_rows = doc_rows_[s.doc];
      doc_rows.erase(std::remove(doc_rows.begin(), doc_rows.end(), row),
                     doc_rows.end());
      if (doc_rows.size() < 2) spanning_.erase(s.doc);  // Pack re-adds it
      if (groups_) UpdateCrossGroup(s.doc);
    }
    ClearRow(row);
  }
  // Refill the victims lowest first; they hold everything they held.
  for (auto r = victims.rbegin(); r != victims.rend(); ++r) {
    free_rows_.push_back(*r);
  }
  open_row_ = -1;
  for (const Segment& s : moving) Pack(s.doc, source(s.doc), s.begin, s.end);
  if (groups_) {
    for (uint32_t row : victims)
      cleared_groups_.push_back(groups_->GroupOf(row));
  }
  stats.rows = victims;
  for (uint32_t row : victims) {
    if (rows_[row].segments.empty()) ++stats.rows_freed;
  }
  RefreshGroups(&source);
  return stats;
}

std::vector<uint32_t> PseudoMatrix::GroupRows(
    std::span<const uint32_t> rows) const {
  std::vector<uint32_t> out;
  if (!groups_) {
    out.assign(rows.begin(), rows.end());
  } else {
    const uint32_t per = groups_->rows_per_group();
    for (uint32_t row : rows) {
      const uint32_t first = groups_->GroupOf(row) * per;
      for (uint32_t r = first; r < first + per && r < rows_.size(); ++r) {
        out.push_back(r);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::span<const uint32_t> PseudoMatrix::RowsOf(DocId doc) const {
  auto it = doc_rows_.find(doc);
  if (it == doc_rows_.end()) return {};
  return it->second;
}

size_t PseudoMatrix::MemoryBytes() const {
  size_t bytes = matrix_->MemoryBytes();
  if (groups_) {
    bytes += groups_->MemoryBytes() +
             cross_group_.capacity() * (sizeof(DocId) + 1);
  }
  bytes += rows_.capacity() * sizeof(RowInfo);
  for (const RowInfo& r : rows_)
    bytes += r.segments.capacity() * sizeof(Segment);
  bytes += doc_rows_.capacity() *
           (sizeof(DocId) + sizeof(std::vector<uint32_t>) + 1);
  for (const auto& [doc, rows] : doc_rows_) {
    bytes += rows.capacity() * sizeof(uint32_t);
  }
  return bytes;
}

}  // namespace leakhound
