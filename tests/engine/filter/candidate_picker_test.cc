#include "engine/filter/candidate_picker.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

// Rows of 10,000 bits with 100 set: chance per trial 1e-2^k, negligible.
struct Fixture {
  Fixture() {
    geometry = *BloomGeometry::FromParams({1e-3, 1000, 1.0});
    rows.resize(3);
    rows[0] = RowInfo{{Segment{1, 0, 10}, Segment{2, 0, 10}}, 20, 100};
    rows[1] = RowInfo{{Segment{2, 10, 20}, Segment{3, 0, 5}}, 15, 100};
    rows[2] = RowInfo{{Segment{4, 0, 10}}, 10, 100};
    counts.whole = {12, 9, 1};
    counts.trials = 50;
  }
  // The evidence of the rows from `counts`, for a query of 50
  // fingerprints (no windows) at alpha 1e-6.
  RowEvidence Evidence() const {
    return RowEvidence(windows, counts, rows, geometry,
                       ScoringMode::kMembership, std::log(1e-6));
  }
  BloomGeometry geometry;
  std::vector<RowInfo> rows;
  RowCounts counts;
  QueryOptions options;
  QueryWindows windows{50, options};
};

TEST(CandidatePickerTest, ARowsDocumentsButTheSpanningOnesTakeItsEvidence) {
  Fixture f;
  const RowEvidence evidence = f.Evidence();
  const absl::flat_hash_set<DocId> spanning = {2};
  QueryResult result;
  CandidatePicker picker(result, 1e-6, 3, spanning);
  for (uint32_t r = 0; r < f.rows.size(); ++r) {
    picker.PickRow(r, f.rows[r], evidence);
  }
  picker.Finish();
  EXPECT_EQ(result.candidate_rows, 2u);  // row 2's single hit is not
  ASSERT_EQ(result.candidates.size(), 2u);
  EXPECT_EQ(result.candidates[0].doc, 1u);  // 12 hits before 9
  EXPECT_EQ(result.candidates[0].count, 12u);
  EXPECT_EQ(result.candidates[1].doc, 3u);
  EXPECT_GE(result.candidates[1].threshold, 3u);
}

TEST(CandidatePickerTest, ASpanningDocumentIsTestedOnItsRowsTogether) {
  Fixture f;
  f.counts.whole = {2, 2, 0};  // 2 hits in each of document 2's rows
  const RowEvidence evidence = f.Evidence();
  const absl::flat_hash_set<DocId> spanning = {2};
  QueryResult result;
  CandidatePicker picker(result, 1e-6, 3, spanning);
  for (uint32_t r = 0; r < 2; ++r) picker.PickRow(r, f.rows[r], evidence);
  const uint32_t doc_rows[] = {0, 1};
  picker.PickSpanning(2, doc_rows, evidence);
  picker.Finish();
  EXPECT_EQ(result.candidate_rows, 0u);  // 2 hits: below the minimum
  ASSERT_EQ(result.candidates.size(), 1u);
  EXPECT_EQ(result.candidates[0].doc, 2u);
  EXPECT_EQ(result.candidates[0].count, 4u);
}

TEST(CandidatePickerTest, FinishListsEachDocumentOnceByExcessOverChance) {
  Fixture f;
  // Document 1 has two segments in row 0 (as after a removal rebuilt it).
  f.rows[0].segments = {Segment{1, 0, 5}, Segment{1, 8, 10}};
  f.rows[1].segments = {Segment{3, 0, 5}};
  f.counts.whole = {12, 30, 0};
  const RowEvidence evidence = f.Evidence();
  const absl::flat_hash_set<DocId> none;
  QueryResult result;
  CandidatePicker picker(result, 1e-6, 3, none);
  picker.PickRow(0, f.rows[0], evidence);
  picker.PickRow(1, f.rows[1], evidence);
  picker.Finish();
  ASSERT_EQ(result.candidates.size(), 2u);
  EXPECT_EQ(result.candidates[0].doc, 3u);
  EXPECT_EQ(result.candidates[0].count, 30u);
  EXPECT_EQ(result.candidates[1].doc, 1u);
}

// Document 2 spans rows 0 and 1, each filled so a fingerprint hits it by
// chance with probability 0.02; the query has 1,000 fingerprints in 199
// windows of 10 (200 chunks of 5), each row 20 background hits, one in
// every tenth chunk. 5 more hits are put in each row's chunk `chunk0` and
// `chunk1`: the document's evidence is in one window only when both fall
// in it.
std::optional<Significance> SpanningEvidence(size_t chunk0, size_t chunk1) {
  Fixture f;
  f.options.window = 10;
  const QueryWindows windows(1000, f.options);
  const double f_rate = std::pow(0.02, 1.0 / f.geometry.hashes);
  for (RowInfo& row : f.rows) {
    row.bits_set = static_cast<uint32_t>(f_rate * f.geometry.bits);
  }
  const size_t slots = 3;
  f.counts.trials = 1000;
  f.counts.whole = {0, 0, 0};
  const size_t nc = windows.chunks();
  f.counts.chunks.assign(nc * slots, 0);
  for (size_t c = 0; c < nc; c += 10) {
    f.counts.chunks[c * slots + 0] = 1;
    f.counts.chunks[c * slots + 1] = 1;
  }
  f.counts.chunks[chunk0 * slots + 0] += 5;
  f.counts.chunks[chunk1 * slots + 1] += 5;
  f.counts.fullest.assign(slots, 0);
  for (size_t r = 0; r < 2; ++r) {
    for (size_t c = 0; c < nc; ++c)
      f.counts.whole[r] += f.counts.chunks[c * slots + r];
    for (size_t w = 0; w + 1 < windows.windows(); ++w) {
      f.counts.fullest[r] =
          std::max(f.counts.fullest[r], f.counts.InWindow(w, r));
    }
  }
  const RowEvidence evidence(windows, f.counts, f.rows, f.geometry,
                             ScoringMode::kMembership, std::log(1e-6));
  const uint32_t doc_rows[] = {0, 1};
  return evidence.Of(doc_rows);
}

TEST(CandidatePickerTest, ASpanningDocumentsWindowAddsItsRowsHitsInThatWindow) {
  const std::optional<Significance> together = SpanningEvidence(55, 55);
  ASSERT_TRUE(together.has_value());
  EXPECT_EQ(together->count, 10u);  // 5 + 5, no background in chunks 54-56
  // Each row's fullest window holds 5, but not the same window: their sum
  // bounds the document's fullest window, which holds 5, not enough.
  EXPECT_FALSE(SpanningEvidence(55, 125).has_value());
}

}  // namespace
}  // namespace leakhound
