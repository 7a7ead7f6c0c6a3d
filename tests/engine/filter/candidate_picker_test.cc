#include "engine/filter/candidate_picker.h"

#include <cmath>
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

}  // namespace
}  // namespace leakhound
