// PseudoMatrix::Query and its two paths: the candidates of a query, in
// three steps each (count the memberships, compute the evidence per row
// and per window, pick the candidates). The statistics are in
// query_windows.h and candidate_picker.h, the counting in
// membership_counter.h; this file only decides which rows to read.
#include <algorithm>
#include <cmath>

#include "engine/filter/membership_counter.h"
#include "engine/filter/pseudo_matrix.h"

namespace leakhound {

QueryResult PseudoMatrix::Query(std::span<const uint64_t> fingerprints,
                                const QueryOptions& options) const {
  QueryResult result;
  if (matrix_->rows() == 0 || fingerprints.empty()) return result;
  // The Bonferroni family: every row in use and every document spanning
  // rows is tested over the whole query and in each window.
  const QueryWindows windows(fingerprints.size(), options);
  const uint64_t tests = std::max<uint64_t>(rows_in_use_ + spanning_.size(), 1);
  result.tests = static_cast<uint32_t>(
      std::min<uint64_t>(tests * (1 + windows.windows()), UINT32_MAX));
  const double alpha = options.family_false_alarm / result.tests;
  if (groups_ && options.use_groups &&
      options.scoring == ScoringMode::kMembership &&
      QueryTwoLevel(fingerprints, windows, options, alpha, result)) {
    return result;
  }
  QueryOneLevel(fingerprints, windows, options, alpha, result);
  return result;
}

void PseudoMatrix::QueryOneLevel(std::span<const uint64_t> fingerprints,
                                 const QueryWindows& windows,
                                 const QueryOptions& options, double alpha,
                                 QueryResult& result) const {
  const RowCounts counts =
      options.scoring == ScoringMode::kMembership
          ? CountMemberships(*matrix_, geometry_, fingerprints, windows, {})
          : CountAndPopcount(*matrix_, geometry_, fingerprints);
  const RowEvidence evidence(windows, counts, rows_, geometry_,
                             options.scoring, std::log(alpha));
  CandidatePicker picker(result, alpha, options.min_count, spanning_);
  // A row with fewer hits than the minimum count has no evidence: it is
  // not asked.
  const uint32_t least = std::max(options.min_count, 1u);
  const uint32_t d = matrix_->rows();
  for (uint32_t r = 0; r < d; ++r) {
    if (counts.whole[r] < least || rows_[r].segments.empty()) continue;
    picker.PickRow(r, rows_[r], evidence);
  }
  for (DocId doc : spanning_) {
    picker.PickSpanning(doc, doc_rows_.at(doc), evidence);
  }
  picker.Finish();
}

// A group's filter holds every fingerprint of its rows, so a query
// fingerprint stored in a row is counted by the row's group (and one in a
// document's rows, by one of the document's groups), and the group's
// chance rate is at least that of its least-filled row in use. A group is
// descended into when its counts are significant at that least rate: then
// no document loses a hit it shares with the query, and every document
// whose shared fingerprints alone are significant is in a group read.
// Documents across groups are tested on the sum of their groups' counts
// against their rows' least rates. What can differ from the one-level
// query is a document whose significance leans on chance hits the groups
// do not see (docs/engine.md, "Row groups"). Rounding is kept from
// deciding against a group by a looser alpha.
std::vector<char> PseudoMatrix::GroupsToDescend(
    std::span<const uint64_t> fingerprints, const QueryWindows& windows,
    const QueryOptions& options, double log_alpha) const {
  const uint32_t ng = groups_->groups();
  std::vector<uint32_t> group_chunks(windows.chunks() * ng, 0);
  std::vector<uint32_t> group_counts(ng, 0);
  for (size_t c = 0; c < windows.chunks(); ++c) {
    const std::span<uint32_t> out(group_chunks.data() + c * ng, ng);
    groups_->CountMembership(
        fingerprints.subspan(windows.ChunkBegin(c),
                             windows.ChunkEnd(c) - windows.ChunkBegin(c)),
        out);
    for (uint32_t g = 0; g < ng; ++g) group_counts[g] += out[g];
  }
  const double loose_log_alpha = log_alpha * (1 - 1e-9);
  const double trials = static_cast<double>(fingerprints.size());
  auto group_chance = [&](uint32_t g) {
    return ChancePerTrial(groups_->min_bits(g), geometry_.bits,
                          geometry_.hashes, options.scoring);
  };
  // The evidence of the groups `groups` together.
  auto significant = [&](std::span<const uint32_t> groups, double p) {
    uint32_t sum = 0;
    for (uint32_t g : groups) sum += group_counts[g];
    if (sum == 0) return false;
    return windows
        .Test(loose_log_alpha, sum, p, trials,
              [&](size_t w) {
                uint32_t hits = 0;
                for (uint32_t g : groups) {
                  hits += group_chunks[w * ng + g] +
                          group_chunks[(w + 1) * ng + g];
                }
                return hits;
              })
        .has_value();
  };
  std::vector<char> descend(ng, 0);
  for (uint32_t g = 0; g < ng; ++g) {
    if (group_counts[g] == 0 ||
        groups_->min_bits(g) == RowGroups::kNoRowsInUse) {
      continue;
    }
    const uint32_t one[] = {g};
    descend[g] = significant(one, group_chance(g));
  }
  std::vector<uint32_t> doc_groups;
  for (DocId doc : cross_group_) {
    doc_groups.clear();
    double p = 0;
    for (uint32_t r : doc_rows_.at(doc)) {
      const uint32_t g = groups_->GroupOf(r);
      if (doc_groups.empty() || doc_groups.back() != g) doc_groups.push_back(g);
      p += group_chance(g);
    }
    if (significant(doc_groups, p)) {
      for (uint32_t g : doc_groups) descend[g] = 1;
    }
  }
  return descend;
}

bool PseudoMatrix::QueryTwoLevel(std::span<const uint64_t> fingerprints,
                                 const QueryWindows& windows,
                                 const QueryOptions& options, double alpha,
                                 QueryResult& result) const {
  const double log_alpha = std::log(alpha);
  const std::vector<char> descend =
      GroupsToDescend(fingerprints, windows, options, log_alpha);
  // Second level: the rows of the groups descended into, and every row of
  // a spanning document with a row there, counted exactly.
  const uint32_t d = matrix_->rows();
  const uint32_t per = groups_->rows_per_group();
  std::vector<uint32_t> blocks;
  std::vector<DocId> spanning;
  for (uint32_t g = 0; g < groups_->groups(); ++g) {
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
  spanning.erase(std::unique(spanning.begin(), spanning.end()), spanning.end());
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
  const RowCounts counts = CountMemberships(*matrix_, geometry_, fingerprints,
                                            windows, std::move(blocks));
  const RowEvidence evidence(windows, counts, rows_, geometry_,
                             options.scoring, log_alpha);
  CandidatePicker picker(result, alpha, options.min_count, spanning_);
  const uint32_t least = std::max(options.min_count, 1u);
  for (uint32_t g = 0; g < groups_->groups(); ++g) {
    if (!descend[g]) continue;
    for (uint32_t r = g * per; r < (g + 1) * per && r < d; ++r) {
      if (counts.Whole(r) < least || rows_[r].segments.empty()) continue;
      picker.PickRow(r, rows_[r], evidence);
    }
  }
  for (DocId doc : spanning) {
    picker.PickSpanning(doc, doc_rows_.at(doc), evidence);
  }
  picker.Finish();
  return true;
}

}  // namespace leakhound
