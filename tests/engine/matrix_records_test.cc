#include "engine/matrix_records.h"

#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "index/index_batch.h"
#include "index/index_store.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(MatrixRecordsTest, DistinctFingerprintsKeepsFirstOccurrenceOrder) {
  FingerprintsRecord record;
  for (uint64_t fp : {9, 4, 9, 7, 4, 1}) {
    record.occurrences.push_back(Occurrence{fp, 0, 1, 0, 1});
  }
  EXPECT_THAT(DistinctFingerprints(record), ElementsAre(9, 4, 7, 1));
}

TEST(MatrixRecordsTest, RowInfoOfCopiesEveryField) {
  RowRecord record;
  record.segments = {SegmentRecord{3, 0, 10}, SegmentRecord{5, 2, 4}};
  record.fingerprints = 12;
  record.bits_set = 77;
  const RowInfo info = RowInfoOf(record);
  EXPECT_THAT(info.segments, ElementsAre(Segment{3, 0, 10}, Segment{5, 2, 4}));
  EXPECT_EQ(info.fingerprints, 12u);
  EXPECT_EQ(info.bits_set, 77u);
}

// A store whose metadata describes `options`' matrix.
std::unique_ptr<IndexStore> NewStore(const std::string& dir,
                                     const PseudoMatrixOptions& options) {
  const BloomGeometry g = *BloomGeometry::FromParams(options.filter);
  MetadataRecord meta;
  meta.fpr = options.filter.fpr;
  meta.row_capacity = options.filter.row_capacity;
  meta.fill = options.filter.fill;
  meta.bits = g.bits;
  meta.hashes = g.hashes;
  meta.packing = static_cast<uint8_t>(options.packing);
  meta.group_rows = options.group_rows;
  auto store = IndexStore::Create(dir, meta, std::string(32, 'k'));
  EXPECT_TRUE(store.ok()) << store.status();
  return std::move(*store);
}

// Writes every row of `matrix` (and its groups, if it has them) and the
// state naming its open row, in one commit; returns that state.
StateRecord CommitEveryRow(const PseudoMatrix& matrix, IndexStore& store) {
  std::vector<uint32_t> all(matrix.rows().size());
  for (uint32_t r = 0; r < all.size(); ++r) all[r] = r;
  IndexBatch batch;
  PutRows(matrix, all, batch);
  PutGroups(matrix, all, batch);
  StateRecord state;
  state.open_row = matrix.open_row();
  batch.PutState(state);
  EXPECT_TRUE(store.Commit(batch).ok());
  return state;
}

// Stores `row` again with its record unchanged and the first bit of its
// stored bits flipped, so that they disagree with the record's count.
void FlipFirstStoredBit(const PseudoMatrix& matrix, IndexStore& store,
                        uint32_t row) {
  auto bits = store.ReadRowBits(row);
  ASSERT_TRUE(bits.ok() && bits->has_value());
  std::string flipped = **bits;
  flipped[0] = static_cast<char>(flipped[0] ^ 1);
  RowRecord record;
  for (const Segment& seg : matrix.rows()[row].segments) {
    record.segments.push_back(SegmentRecord{seg.doc, seg.begin, seg.end});
  }
  record.fingerprints = matrix.rows()[row].fingerprints;
  record.bits_set = matrix.rows()[row].bits_set;
  IndexBatch damage;
  damage.PutRow(row, record, flipped);
  ASSERT_TRUE(store.Commit(damage).ok());
}

// Rows and groups written with PutRows and PutGroups load back equal.
TEST(MatrixRecordsTest, PutRowsAndGroupsLoadBackTheSameMatrix) {
  TempDir tmp;
  PseudoMatrixOptions options;
  options.filter = {1e-3, 64, 1.0};
  options.group_rows = 64;
  auto matrix = *PseudoMatrix::Create(options);
  std::mt19937_64 rng(3);
  std::vector<std::vector<uint64_t>> docs(40);
  for (DocId d = 0; d < docs.size(); ++d) {
    docs[d].resize(10 + 7 * d);
    for (uint64_t& f : docs[d]) f = rng();
    matrix->Add(d, docs[d]);
  }
  ASSERT_GT(matrix->rows().size(), 64u);  // two groups
  auto store = NewStore(tmp.Sub("idx"), options);
  const StateRecord state = CommitEveryRow(*matrix, *store);

  auto loaded = LoadMatrix(*store, state);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ((*loaded)->rows().size(), matrix->rows().size());
  std::vector<uint64_t> a(RowWords(matrix->geometry().bits)), b(a.size());
  for (uint32_t r = 0; r < matrix->rows().size(); ++r) {
    EXPECT_EQ((*loaded)->rows()[r].segments, matrix->rows()[r].segments);
    matrix->RowBits(r, a);
    (*loaded)->RowBits(r, b);
    EXPECT_EQ(a, b) << "row " << r;
  }
  std::vector<uint64_t> ga(RowWords(64 * matrix->geometry().bits)),
      gb(ga.size());
  for (uint32_t g = 0; g < 2; ++g) {
    matrix->GroupBits(g, ga);
    (*loaded)->GroupBits(g, gb);
    EXPECT_EQ(ga, gb) << "group " << g;
  }
  EXPECT_EQ((*loaded)->open_row(), matrix->open_row());
}

TEST(MatrixRecordsTest, BitsThatDisagreeWithTheRowRecordAreDataLoss) {
  TempDir tmp;
  PseudoMatrixOptions options;
  options.filter = {1e-3, 64, 1.0};
  auto matrix = *PseudoMatrix::Create(options);
  std::vector<uint64_t> fps(30);
  std::mt19937_64 rng(5);
  for (uint64_t& f : fps) f = rng();
  matrix->Add(0, fps);
  auto store = NewStore(tmp.Sub("idx"), options);
  CommitEveryRow(*matrix, *store);
  FlipFirstStoredBit(*matrix, *store, 0);
  auto loaded = LoadMatrix(*store, StateRecord{});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(loaded.status().message(), HasSubstr("damaged bits for row 0"));
}

// From 8,192 rows on, LoadMatrix loads the bits on two threads, each half
// of the rows: every row loads back as written, and damage in the second
// half is found as in the first.
TEST(MatrixRecordsTest, ManyRowsLoadOnTwoThreadsAsWrittenAndDamageIsFound) {
  TempDir tmp;
  PseudoMatrixOptions options;
  options.filter = {1e-3, 64, 1.0};
  auto matrix = *PseudoMatrix::Create(options);
  std::mt19937_64 rng(11);
  std::vector<uint64_t> fps(64);
  for (DocId d = 0; d < 8300; ++d) {
    for (uint64_t& f : fps) f = rng();
    matrix->Add(d, fps);
  }
  ASSERT_GE(matrix->rows().size(), 8300u);
  auto store = NewStore(tmp.Sub("idx"), options);
  const StateRecord state = CommitEveryRow(*matrix, *store);
  auto loaded = LoadMatrix(*store, state);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::vector<uint64_t> a(RowWords(matrix->geometry().bits)), b(a.size());
  size_t differing = 0;
  const auto rows = static_cast<uint32_t>(matrix->rows().size());
  for (uint32_t r = 0; r < rows; ++r) {
    matrix->RowBits(r, a);
    (*loaded)->RowBits(r, b);
    differing += a != b;
  }
  EXPECT_EQ(differing, 0u);

  const uint32_t late = rows - 5;
  FlipFirstStoredBit(*matrix, *store, late);
  loaded = LoadMatrix(*store, state);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(loaded.status().message(),
              HasSubstr("damaged bits for row " + std::to_string(late)));
}

}  // namespace
}  // namespace leakhound
