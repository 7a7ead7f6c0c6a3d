#include "engine/filter/pseudo_matrix.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/filter/chance_threshold.h"

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
    uint32_t fingerprints = 0;
    for (const Segment& s : rows[r].segments) {
      if (s.begin >= s.end) {
        return absl::InvalidArgumentError(
            absl::StrCat("row ", r, " has an empty segment"));
      }
      fingerprints += s.end - s.begin;
      m.doc_rows_[s.doc].push_back(r);  // ascending r: sorted
    }
    if (fingerprints != rows[r].fingerprints) {
      return absl::InvalidArgumentError(
          absl::StrCat("row ", r, " fingerprint count mismatch"));
    }
    m.rows_in_use_ += rows[r].segments.empty() ? 0u : 1u;
  }
  for (auto& [doc, doc_rows] : m.doc_rows_) {
    doc_rows.erase(std::unique(doc_rows.begin(), doc_rows.end()),
                   doc_rows.end());
    if (doc_rows.size() > 1) m.spanning_.insert(doc);
  }
  // Free rows are taken back lowest first, as after removals.
  for (auto r = static_cast<int64_t>(rows.size()) - 1; r >= 0; --r) {
    if (rows[static_cast<size_t>(r)].segments.empty() &&
        options.packing != PackingMode::kSingleFilter) {
      m.free_rows_.push_back(static_cast<uint32_t>(r));
    }
  }
  m.rows_ = std::move(rows);
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
    const uint32_t take = std::min(limit - rows_[row].fingerprints, end - begin);
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
    return absl::NotFoundError(absl::StrCat("document ", doc, " not in filter"));
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
    for (uint32_t row : victims) cleared_groups_.push_back(groups_->GroupOf(row));
  }
  stats.rows = victims;
  for (uint32_t row : victims) {
    if (rows_[row].segments.empty()) ++stats.rows_freed;
  }
  RefreshGroups(&source);
  return stats;
}

namespace {

// How a query of `size` fingerprints splits into half windows ("chunks";
// window w is chunks w and w + 1) and the tests of one set of rows.
class QueryTester {
 public:
  QueryTester(size_t size, const QueryOptions& options)
      : size_(size), options_(options) {
    windowed_ = options.scoring == ScoringMode::kMembership &&
                options.window >= 2 && size > options.window;
    half_ = windowed_ ? options.window / 2 : size;
    chunks_ = (size + half_ - 1) / half_;
    windows_ = windowed_ ? chunks_ - 1 : 0;
  }

  size_t chunks() const { return chunks_; }
  size_t windows() const { return windows_; }
  size_t ChunkBegin(size_t c) const { return c * half_; }
  size_t ChunkEnd(size_t c) const { return std::min(size_, (c + 1) * half_); }

  // The evidence of a set of rows (one document's), tested at log_alpha:
  // `sum` hits over the whole query of `trials` trials at chance `p` per
  // trial, and window_hits(w) hits in window w. The whole query's (count,
  // expected) if significant, else the fullest significant window's;
  // nullopt if none.
  template <typename WindowHits>
  std::optional<std::pair<uint32_t, double>> Evidence(
      double log_alpha, uint32_t sum, double p, double trials,
      WindowHits window_hits) const {
    auto significant = [&](uint32_t count, double lambda) {
      return count >= options_.min_count &&
             IsSignificant(lambda, count, log_alpha);
    };
    if (significant(sum, trials * p)) return std::pair{sum, trials * p};
    if (sum < options_.min_count || windows_ == 0) return std::nullopt;
    // Every window but the last has the same trials, so the same
    // significance threshold: testing the fullest of them decides them all.
    uint32_t fullest = 0;
    for (size_t w = 0; w + 1 < windows_; ++w) {
      fullest = std::max(fullest, window_hits(w));
    }
    if (windows_ > 1 && significant(fullest, WindowTrials(0) * p)) {
      return std::pair{fullest, WindowTrials(0) * p};
    }
    const size_t last = windows_ - 1;
    const uint32_t in_last = window_hits(last);
    if (significant(in_last, WindowTrials(last) * p)) {
      return std::pair{in_last, WindowTrials(last) * p};
    }
    return std::nullopt;
  }

 private:
  double WindowTrials(size_t w) const {
    return static_cast<double>(std::min(size_, (w + 2) * half_) - w * half_);
  }

  const size_t size_;
  const QueryOptions& options_;
  bool windowed_;
  size_t half_;
  size_t chunks_;
  size_t windows_;
};

// Chance that one fingerprint hits a row with `bits_set` of m bits set:
// f^k (membership) or f (AND-popcount).
double ChancePerTrial(uint32_t bits_set, double m, uint32_t k,
                      ScoringMode scoring) {
  const double f = bits_set / m;
  double chance = f;
  if (scoring == ScoringMode::kMembership) {
    for (uint32_t j = 1; j < k; ++j) chance *= f;
  }
  return chance;
}

// Lists each document once, by decreasing count - expected.
void SortCandidates(std::vector<Candidate>& candidates) {
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.doc < b.doc; });
  candidates.erase(std::unique(candidates.begin(), candidates.end(),
                               [](const Candidate& a, const Candidate& b) {
                                 return a.doc == b.doc;
                               }),
                   candidates.end());
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) {
              return a.count - a.expected > b.count - b.expected;
            });
}

}  // namespace

QueryResult PseudoMatrix::Query(std::span<const uint64_t> fingerprints,
                                const QueryOptions& options) const {
  QueryResult result;
  const uint32_t d = matrix_->rows();
  if (d == 0 || fingerprints.empty()) return result;
  const uint32_t k = geometry_.hashes;
  const double m = geometry_.bits;
  // The Bonferroni family: every row in use and every document spanning
  // rows is tested over the whole query and in each window.
  const QueryTester shape(fingerprints.size(), options);
  const uint64_t tests = std::max<uint64_t>(rows_in_use_ + spanning_.size(), 1);
  result.tests = static_cast<uint32_t>(
      std::min<uint64_t>(tests * (1 + shape.windows()), UINT32_MAX));
  const double alpha = options.family_false_alarm / result.tests;
  const double log_alpha = std::log(alpha);
  auto add = [&](DocId doc, std::pair<uint32_t, double> e) {
    result.candidates.push_back(Candidate{
        doc, e.first, e.second,
        std::max(options.min_count, MinSignificantCount(e.second, alpha))});
  };
  // Row r's own test (`evidence` of one row): if it passes, the row counts
  // as a candidate row and its documents that lie in no other row are
  // candidates (spanning documents are tested on all their rows).
  auto score_row = [&](uint32_t r, const auto& evidence) {
    const uint32_t row[] = {r};
    const auto row_evidence = evidence(std::span<const uint32_t>(row));
    if (!row_evidence) return;
    ++result.candidate_rows;
    for (const Segment& s : rows_[r].segments) {
      if (!spanning_.contains(s.doc)) add(s.doc, *row_evidence);
    }
  };
  // The evidence of a set of rows from the counts of a query of `trials`
  // trials: row r's whole-query count is counts[index(r)], its count in
  // chunk c chunk_counts[c * stride + index(r)].
  auto evidence_from = [&](const std::vector<uint32_t>& counts,
                           const std::vector<uint32_t>& chunk_counts,
                           size_t stride, double trials, auto index) {
    return [&, &counts = counts, &chunk_counts = chunk_counts, stride, trials,
            index](std::span<const uint32_t> rows) {
      uint32_t sum = 0;
      double p = 0;
      for (uint32_t r : rows) {
        sum += counts[index(r)];
        p += ChancePerTrial(rows_[r].bits_set, m, k, options.scoring);
      }
      return shape.Evidence(log_alpha, sum, p, trials, [&](size_t w) {
        uint32_t hits = 0;
        for (uint32_t r : rows) {
          hits += chunk_counts[w * stride + index(r)] +
                  chunk_counts[(w + 1) * stride + index(r)];
        }
        return hits;
      });
    };
  };
  // Adds to `out` the memberships of fingerprints [begin, end) in the rows
  // of `blocks` (all rows if empty), their bit positions computed a block
  // at a time (a large text's would otherwise take k * 4 bytes per
  // fingerprint at once).
  std::vector<uint32_t> positions;
  auto count_range = [&](size_t begin, size_t end,
                         std::span<const uint32_t> blocks,
                         std::span<uint32_t> out) {
    constexpr size_t kBlock = 4096;
    for (size_t b = begin; b < end; b += kBlock) {
      BitPositions(fingerprints.subspan(b, std::min(kBlock, end - b)),
                   geometry_, positions);
      if (blocks.empty()) {
        matrix_->CountMembership(positions, k, out);
      } else {
        matrix_->CountMembershipInBlocks(positions, k, blocks, out);
      }
    }
  };
  const double trials_all = static_cast<double>(fingerprints.size());

  // The two-level query (row groups); false if it declines (too many
  // groups to read), leaving `result` to the one-level query.
  auto two_level = [&]() -> bool {
    // First level: the groups. A group's filter holds every fingerprint
    // of its rows, so a query fingerprint stored in a row is counted by
    // the row's group (and one in a document's rows, by one of the
    // document's groups), and the group's chance rate is at least that of
    // its least-filled row in use. A group is descended into when its
    // counts are significant at that least rate: then no document loses a
    // hit it shares with the query, and every document whose shared
    // fingerprints alone are significant is in a group read. Documents
    // across groups are tested on the sum of their groups' counts against
    // their rows' least rates. What can differ from the one-level query is
    // a document whose significance leans on chance hits the groups do not
    // see (docs/engine.md, "Row groups"). Rounding is kept from deciding
    // against a group by a looser alpha.
    const uint32_t ng = groups_->groups();
    std::vector<uint32_t> group_chunks(shape.chunks() * ng, 0);
    std::vector<uint32_t> group_counts(ng, 0);
    for (size_t c = 0; c < shape.chunks(); ++c) {
      const std::span<uint32_t> out(group_chunks.data() + c * ng, ng);
      groups_->CountMembership(
          fingerprints.subspan(shape.ChunkBegin(c),
                               shape.ChunkEnd(c) - shape.ChunkBegin(c)),
          out);
      for (uint32_t g = 0; g < ng; ++g) group_counts[g] += out[g];
    }
    const double loose_log_alpha = log_alpha * (1 - 1e-9);
    auto group_chance = [&](uint32_t g) {
      return ChancePerTrial(groups_->min_bits(g), m, k, options.scoring);
    };
    std::vector<char> descend(ng, 0);
    for (uint32_t g = 0; g < ng; ++g) {
      if (group_counts[g] == 0 ||
          groups_->min_bits(g) == RowGroups::kNoRowsInUse) {
        continue;
      }
      descend[g] = shape
                       .Evidence(loose_log_alpha, group_counts[g],
                                 group_chance(g), trials_all,
                                 [&](size_t w) {
                                   return group_chunks[w * ng + g] +
                                          group_chunks[(w + 1) * ng + g];
                                 })
                       .has_value();
    }
    std::vector<uint32_t> doc_groups;
    for (DocId doc : cross_group_) {
      const std::vector<uint32_t>& rows = doc_rows_.at(doc);
      doc_groups.clear();
      double p = 0;
      for (uint32_t r : rows) {
        const uint32_t g = groups_->GroupOf(r);
        if (doc_groups.empty() || doc_groups.back() != g) doc_groups.push_back(g);
        p += group_chance(g);
      }
      uint32_t sum = 0;
      for (uint32_t g : doc_groups) sum += group_counts[g];
      if (sum == 0) continue;
      auto window_hits = [&](size_t w) {
        uint32_t hits = 0;
        for (uint32_t g : doc_groups) {
          hits += group_chunks[w * ng + g] + group_chunks[(w + 1) * ng + g];
        }
        return hits;
      };
      if (shape.Evidence(loose_log_alpha, sum, p, trials_all, window_hits)) {
        for (uint32_t g : doc_groups) descend[g] = 1;
      }
    }

    // Second level: the rows of the groups descended into, and every row
    // of a spanning document with a row there, counted exactly.
    const uint32_t per = groups_->rows_per_group();
    std::vector<uint32_t> blocks;
    std::vector<DocId> spanning;
    for (uint32_t g = 0; g < ng; ++g) {
      if (!descend[g]) continue;
      ++result.groups_descended;
      for (uint32_t r = g * per; r < (g + 1) * per && r < d; r += 64) {
        blocks.push_back(r / 64);
      }
      for (uint32_t r = g * per; r < (g + 1) * per && r < d; ++r) {
        for (const Segment& s : rows_[r].segments) {
          if (spanning_.contains(s.doc)) spanning.push_back(s.doc);
        }
      }
    }
    result.two_level = true;  // unless it declines below
    if (blocks.empty()) return true;
    std::sort(spanning.begin(), spanning.end());
    spanning.erase(std::unique(spanning.begin(), spanning.end()),
                   spanning.end());
    for (DocId doc : spanning) {
      for (uint32_t r : doc_rows_.at(doc)) blocks.push_back(r / 64);
    }
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    // Reading a block costs k scattered words per fingerprint where the
    // one-level count streams k slices: past a share of the blocks (a long
    // text with hits all over) the one-level query is cheaper.
    if (static_cast<double>(blocks.size()) >
        options.max_block_share * static_cast<double>((d + 63) / 64)) {
      result.two_level = false;
      return false;
    }
    const size_t slots = blocks.size() * 64;
    std::vector<uint32_t> chunk_counts(shape.chunks() * slots, 0);
    std::vector<uint32_t> counts(slots, 0);
    for (size_t c = 0; c < shape.chunks(); ++c) {
      const std::span<uint32_t> out(chunk_counts.data() + c * slots, slots);
      count_range(shape.ChunkBegin(c), shape.ChunkEnd(c), blocks, out);
      for (size_t i = 0; i < slots; ++i) counts[i] += out[i];
    }
    auto slot = [&](uint32_t r) {
      return static_cast<size_t>(
                 std::lower_bound(blocks.begin(), blocks.end(), r / 64) -
                 blocks.begin()) * 64 + r % 64;
    };
    const auto evidence =
        evidence_from(counts, chunk_counts, slots, trials_all, slot);
    for (uint32_t g = 0; g < ng; ++g) {
      if (!descend[g]) continue;
      for (uint32_t r = g * per; r < (g + 1) * per && r < d; ++r) {
        if (counts[slot(r)] == 0 || rows_[r].segments.empty()) continue;
        score_row(r, evidence);
      }
    }
    for (DocId doc : spanning) {
      if (const auto e = evidence(doc_rows_.at(doc))) add(doc, *e);
    }
    SortCandidates(result.candidates);
    return true;
  };

  if (groups_ && options.use_groups &&
      options.scoring == ScoringMode::kMembership && two_level()) {
    return result;
  }

  std::vector<uint32_t> counts(d, 0);
  double trials = trials_all;
  std::vector<uint32_t> chunk_counts;
  if (options.scoring == ScoringMode::kMembership) {
    if (shape.windows() > 0) {
      chunk_counts.assign(shape.chunks() * d, 0);
      for (size_t c = 0; c < shape.chunks(); ++c) {
        const std::span<uint32_t> out(chunk_counts.data() + c * d, d);
        count_range(shape.ChunkBegin(c), shape.ChunkEnd(c), {}, out);
        for (uint32_t r = 0; r < d; ++r) counts[r] += out[r];
      }
    } else {
      count_range(0, fingerprints.size(), {}, counts);
    }
  } else {
    BitPositions(fingerprints, geometry_, positions);
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()),
                    positions.end());
    matrix_->CountAndPopcount(positions, counts);
    trials = static_cast<double>(positions.size());
  }
  const auto evidence = evidence_from(counts, chunk_counts, d, trials,
                                      [](uint32_t r) { return size_t{r}; });

  // Documents in one row take their row's evidence; documents spanning
  // rows, that of all their rows together.
  for (uint32_t r = 0; r < d; ++r) {
    if (counts[r] == 0 || rows_[r].segments.empty()) continue;
    score_row(r, evidence);
  }
  for (DocId doc : spanning_) {
    if (const auto e = evidence(doc_rows_.at(doc))) add(doc, *e);
  }
  SortCandidates(result.candidates);
  return result;
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
  for (const RowInfo& r : rows_) bytes += r.segments.capacity() * sizeof(Segment);
  bytes += doc_rows_.capacity() *
           (sizeof(DocId) + sizeof(std::vector<uint32_t>) + 1);
  for (const auto& [doc, rows] : doc_rows_) {
    bytes += rows.capacity() * sizeof(uint32_t);
  }
  return bytes;
}

}  // namespace leakhound
