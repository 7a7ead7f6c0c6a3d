#include "engine/pseudo_matrix.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/chance_threshold.h"

namespace leakhound {

absl::StatusOr<std::unique_ptr<PseudoMatrix>> PseudoMatrix::Create(
    const PseudoMatrixOptions& options) {
  auto geometry = BloomGeometry::FromParams(options.filter);
  if (!geometry.ok()) return geometry.status();
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
    : options_(options), geometry_(geometry), matrix_(std::move(matrix)) {}

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
  return pm;
}

void PseudoMatrix::LoadRowBits(uint32_t first, uint32_t count,
                               std::span<const uint64_t> words) {
  matrix_->SetRows(first, count, words);
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
  return matrix_->AddRow();
}

void PseudoMatrix::ClearRow(uint32_t row) {
  matrix_->ClearRow(row);
  rows_in_use_ -= rows_[row].segments.empty() ? 0u : 1u;
  rows_[row] = RowInfo{};
}

void PseudoMatrix::Insert(uint32_t row, DocId doc,
                          std::span<const uint64_t> fingerprints,
                          uint32_t begin, uint32_t end) {
  if (begin >= end) return;
  RowInfo& info = rows_[row];
  std::vector<uint32_t> positions(geometry_.hashes);
  for (uint32_t i = begin; i < end; ++i) {
    BitPositions(fingerprints[i], geometry_, positions);
    for (uint32_t pos : positions) {
      info.bits_set += matrix_->Set(row, pos) ? 1u : 0u;
    }
  }
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
    }
    ClearRow(row);
  }
  // Refill the victims lowest first; they hold everything they held.
  for (auto r = victims.rbegin(); r != victims.rend(); ++r) {
    free_rows_.push_back(*r);
  }
  open_row_ = -1;
  for (const Segment& s : moving) Pack(s.doc, source(s.doc), s.begin, s.end);
  stats.rows = victims;
  for (uint32_t row : victims) {
    if (rows_[row].segments.empty()) ++stats.rows_freed;
  }
  return stats;
}

QueryResult PseudoMatrix::Query(std::span<const uint64_t> fingerprints,
                                const QueryOptions& options) const {
  QueryResult result;
  const uint32_t d = matrix_->rows();
  if (d == 0 || fingerprints.empty()) return result;
  const uint32_t k = geometry_.hashes;
  // Adds to `out` the memberships of fingerprints [begin, end), their bit
  // positions computed a block at a time (a large text's would otherwise
  // take k * 4 bytes per fingerprint at once).
  std::vector<uint32_t> positions;
  auto count_range = [&](size_t begin, size_t end, std::span<uint32_t> out) {
    constexpr size_t kBlock = 4096;
    for (size_t b = begin; b < end; b += kBlock) {
      const size_t n = std::min(kBlock, end - b);
      positions.resize(n * k);
      for (size_t i = 0; i < n; ++i) {
        BitPositions(fingerprints[b + i], geometry_,
                     std::span<uint32_t>(positions.data() + i * k, k));
      }
      matrix_->CountMembership(positions, k, out);
    }
  };
  std::vector<uint32_t> counts(d, 0);
  double trials = static_cast<double>(fingerprints.size());
  // Windows: counts per chunk of half a window; window w is chunks w, w+1.
  const bool windowed = options.scoring == ScoringMode::kMembership &&
                        options.window >= 2 &&
                        fingerprints.size() > options.window;
  const size_t half = windowed ? options.window / 2 : fingerprints.size();
  const size_t chunks = (fingerprints.size() + half - 1) / half;
  const size_t windows = windowed ? chunks - 1 : 0;
  std::vector<uint32_t> chunk_counts;
  if (options.scoring == ScoringMode::kMembership) {
    if (windowed) {
      chunk_counts.assign(chunks * d, 0);
      for (size_t c = 0; c < chunks; ++c) {
        const size_t end = std::min(fingerprints.size(), (c + 1) * half);
        const std::span<uint32_t> out(chunk_counts.data() + c * d, d);
        count_range(c * half, end, out);
        for (uint32_t r = 0; r < d; ++r) counts[r] += out[r];
      }
    } else {
      count_range(0, fingerprints.size(), counts);
    }
  } else {
    positions.resize(fingerprints.size() * k);
    for (size_t i = 0; i < fingerprints.size(); ++i) {
      BitPositions(fingerprints[i], geometry_,
                   std::span<uint32_t>(positions.data() + i * k, k));
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()),
                    positions.end());
    matrix_->CountAndPopcount(positions, counts);
    trials = static_cast<double>(positions.size());
  }
  const double m = geometry_.bits;
  std::vector<double> chance(d);  // per trial, by row
  for (uint32_t r = 0; r < d; ++r) {
    const double f = rows_[r].bits_set / m;
    chance[r] = f;  // AND-popcount: one bit per trial
    if (options.scoring == ScoringMode::kMembership) {
      for (uint32_t j = 1; j < k; ++j) chance[r] *= f;  // f^k
    }
  }
  auto window_trials = [&](size_t w) {
    return static_cast<double>(
        std::min(fingerprints.size(), (w + 2) * half) - w * half);
  };

  // The Bonferroni family: every row in use and every document spanning
  // rows is tested over the whole query and in each window.
  const uint64_t tests = std::max<uint64_t>(rows_in_use_ + spanning_.size(), 1);
  result.tests = static_cast<uint32_t>(
      std::min<uint64_t>(tests * (1 + windows), UINT32_MAX));
  const double alpha = options.family_false_alarm / result.tests;
  const double log_alpha = std::log(alpha);
  auto significant = [&](uint32_t count, double lambda) {
    return count >= options.min_count &&
           IsSignificant(lambda, count, log_alpha);
  };
  // The evidence of `rows` (one document's): the whole query's if that is
  // significant, else the fullest significant window's; nullopt if none.
  auto evidence = [&](std::span<const uint32_t> rows)
      -> std::optional<std::pair<uint32_t, double>> {
    uint32_t sum = 0;
    double p = 0;
    for (uint32_t row : rows) {
      sum += counts[row];
      p += chance[row];
    }
    if (significant(sum, trials * p)) return std::pair{sum, trials * p};
    if (sum < options.min_count || windows == 0) return std::nullopt;
    auto in_window = [&](size_t w) {  // the hits of window w in `rows`
      uint32_t hits = 0;
      for (uint32_t row : rows) {
        hits += chunk_counts[w * d + row] + chunk_counts[(w + 1) * d + row];
      }
      return hits;
    };
    // Every window but the last has the same trials, so the same
    // significance threshold: testing the fullest of them decides them all.
    uint32_t fullest = 0;
    for (size_t w = 0; w + 1 < windows; ++w) {
      fullest = std::max(fullest, in_window(w));
    }
    if (windows > 1 && significant(fullest, window_trials(0) * p)) {
      return std::pair{fullest, window_trials(0) * p};
    }
    const size_t last = windows - 1;
    const uint32_t in_last = in_window(last);
    if (significant(in_last, window_trials(last) * p)) {
      return std::pair{in_last, window_trials(last) * p};
    }
    return std::nullopt;
  };
  auto add = [&](DocId doc, std::pair<uint32_t, double> e) {
    result.candidates.push_back(Candidate{
        doc, e.first, e.second,
        std::max(options.min_count, MinSignificantCount(e.second, alpha))});
  };

  // Documents in one row take their row's evidence; documents spanning
  // rows, that of all their rows together.
  for (uint32_t r = 0; r < d; ++r) {
    if (counts[r] == 0 || rows_[r].segments.empty()) continue;
    const uint32_t row[] = {r};
    const auto row_evidence = evidence(row);
    if (!row_evidence) continue;
    ++result.candidate_rows;
    for (const Segment& s : rows_[r].segments) {
      if (!spanning_.contains(s.doc)) add(s.doc, *row_evidence);
    }
  }
  for (DocId doc : spanning_) {
    if (const auto e = evidence(doc_rows_.at(doc))) add(doc, *e);
  }
  // A document with two segments in one row is listed once.
  std::sort(result.candidates.begin(), result.candidates.end(),
            [](const Candidate& a, const Candidate& b) { return a.doc < b.doc; });
  result.candidates.erase(
      std::unique(result.candidates.begin(), result.candidates.end(),
                  [](const Candidate& a, const Candidate& b) {
                    return a.doc == b.doc;
                  }),
      result.candidates.end());
  std::sort(result.candidates.begin(), result.candidates.end(),
            [](const Candidate& a, const Candidate& b) {
              return a.count - a.expected > b.count - b.expected;
            });
  return result;
}

std::span<const uint32_t> PseudoMatrix::RowsOf(DocId doc) const {
  auto it = doc_rows_.find(doc);
  if (it == doc_rows_.end()) return {};
  return it->second;
}

size_t PseudoMatrix::MemoryBytes() const {
  size_t bytes = matrix_->MemoryBytes();
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
