#include "engine/filter/pseudo_matrix.h"

#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "engine/filter/chance_threshold.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace leakhound {
namespace {

using ::testing::ElementsAre;

// Documents of random fingerprints, kept so rows can be rebuilt.
class Corpus {
 public:
  explicit Corpus(uint64_t seed) : rng_(seed) {}
  const std::vector<uint64_t>& Make(DocId doc, size_t n) {
    std::vector<uint64_t>& fps = docs_[doc];
    fps.resize(n);
    for (auto& f : fps) f = rng_();
    return fps;
  }
  FingerprintSource Source() const {
    return [this](DocId d) {
      const std::vector<uint64_t>& f = docs_.at(d);
      return std::span<const uint64_t>(f);
    };
  }
  const std::vector<uint64_t>& operator[](DocId d) const { return docs_.at(d); }
  std::mt19937_64& rng() { return rng_; }

 private:
  std::mt19937_64 rng_;
  std::map<DocId, std::vector<uint64_t>> docs_;
};

std::unique_ptr<PseudoMatrix> Make(
    PackingMode packing, MatrixLayout layout = MatrixLayout::kBitSliced,
    uint32_t capacity = 1000, double fill = 1.0) {
  PseudoMatrixOptions o;
  o.filter = {1e-3, capacity, fill};
  o.packing = packing;
  o.layout = layout;
  auto m = PseudoMatrix::Create(o);
  EXPECT_TRUE(m.ok()) << m.status();
  return std::move(*m);
}

TEST(PseudoMatrixTest, PacksSeveralDocumentsPerRowAndSpansLongOnes) {
  Corpus c(1);
  auto pm = Make(PackingMode::kPseudoMatrix);
  pm->Add(1, c.Make(1, 300));
  pm->Add(2, c.Make(2, 500));
  pm->Add(3, c.Make(3, 1700));  // 200 in row 0, 1000 in row 1, 500 in row 2
  ASSERT_EQ(pm->rows().size(), 3u);
  EXPECT_THAT(pm->rows()[0].segments,
              ElementsAre(Segment{1, 0, 300}, Segment{2, 0, 500},
                          Segment{3, 0, 200}));
  EXPECT_THAT(pm->rows()[1].segments, ElementsAre(Segment{3, 200, 1200}));
  EXPECT_THAT(pm->rows()[2].segments, ElementsAre(Segment{3, 1200, 1700}));
  EXPECT_THAT(pm->RowsOf(3), ElementsAre(0u, 1u, 2u));
  EXPECT_EQ(pm->rows()[0].fingerprints, 1000u);
}

TEST(PseudoMatrixTest, FillTargetLimitsFingerprintsPerRow) {
  Corpus c(2);
  auto pm =
      Make(PackingMode::kPseudoMatrix, MatrixLayout::kBitSliced, 1000, 0.5);
  pm->Add(1, c.Make(1, 1200));
  ASSERT_EQ(pm->rows().size(), 3u);
  EXPECT_EQ(pm->rows()[0].fingerprints, 500u);
  EXPECT_EQ(pm->rows()[2].fingerprints, 200u);
}

TEST(PseudoMatrixTest, OneDocumentPerRowTruncatesLikeTheMatrixBloomFilter) {
  Corpus c(3);
  auto pm = Make(PackingMode::kOneDocumentPerRow);
  EXPECT_EQ(pm->Add(1, c.Make(1, 10)), 10u);
  EXPECT_EQ(pm->Add(2, c.Make(2, 2500)), 1000u);
  EXPECT_EQ(pm->rows().size(), 2u);
  EXPECT_THAT(pm->rows()[1].segments, ElementsAre(Segment{2, 0, 1000}));
}

TEST(PseudoMatrixTest, SingleFilterHasNoLocalization) {
  Corpus c(4);
  auto pm = Make(PackingMode::kSingleFilter, MatrixLayout::kBitSliced, 5000);
  pm->Add(1, c.Make(1, 400));
  pm->Add(2, c.Make(2, 400));
  EXPECT_EQ(pm->rows().size(), 1u);
  std::vector<uint64_t> q(c[1].begin(), c[1].begin() + 50);
  auto r = pm->Query(q, {});
  EXPECT_EQ(r.candidates.size(), 2u);  // both documents: no localization
}

TEST(PseudoMatrixTest, RemovalRebuildsOnlyTheRowsHoldingTheDocument) {
  Corpus c(5);
  auto pm = Make(PackingMode::kPseudoMatrix);
  for (DocId d = 1; d <= 12; ++d) pm->Add(d, c.Make(d, 450));
  // 5,400 fingerprints: rows 0-5; document 3 spans rows 0 and 1.
  EXPECT_THAT(pm->RowsOf(3), ElementsAre(0u, 1u));
  const uint32_t bits_row4 = pm->rows()[4].bits_set;
  auto stats = pm->Remove(3, c.Source());
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->rows_rebuilt(), 2u);
  EXPECT_EQ(stats->rows_freed, 0u);
  EXPECT_TRUE(pm->RowsOf(3).empty());
  EXPECT_EQ(pm->rows()[4].bits_set, bits_row4);
  // The rebuilt rows equal rows built from scratch without document 3.
  auto fresh = Make(PackingMode::kPseudoMatrix);
  for (DocId d = 1; d <= 12; ++d) fresh->Add(d, c[d]);
  ASSERT_TRUE(fresh->Remove(3, c.Source()).ok());
  for (uint32_t pos = 0; pos < pm->geometry().bits; ++pos) {
    ASSERT_EQ(pm->matrix().Test(0, pos), fresh->matrix().Test(0, pos));
  }
  EXPECT_EQ(pm->Remove(3, c.Source()).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(PseudoMatrixTest, CompactionRepacksUnderfilledRowsIntoFewer) {
  Corpus c(6);
  auto pm = Make(PackingMode::kPseudoMatrix);
  for (DocId d = 1; d <= 20; ++d) pm->Add(d, c.Make(d, 500));  // 10 rows
  for (DocId d = 1; d <= 20; d += 2)
    ASSERT_TRUE(pm->Remove(d, c.Source()).ok());
  EXPECT_EQ(pm->rows_in_use(), 10u);  // each row half empty
  auto stats = pm->Compact(c.Source());
  EXPECT_EQ(stats.rows_rebuilt(), 0u);  // at exactly half: not under-filled
  stats = pm->Compact(c.Source(), 0.6);
  EXPECT_EQ(stats.rows_rebuilt(), 10u);
  EXPECT_EQ(stats.rows_freed, 5u);
  EXPECT_EQ(pm->rows_in_use(), 5u);
  // New documents reuse the freed rows before growing the matrix.
  pm->Add(100, c.Make(100, 1000));
  EXPECT_EQ(pm->rows().size(), 10u);
  EXPECT_EQ(pm->rows_in_use(), 6u);
}

// Rows in use and documents spanning rows (the Bonferroni family) are kept
// up to date edit by edit; they must equal a recount from the rows after
// any mix of adds, removals and compactions, and what Restore counts.
TEST(PseudoMatrixTest, TestFamilyStaysEqualToARecountThroughEdits) {
  Corpus c(13);
  auto pm = Make(PackingMode::kPseudoMatrix);
  std::vector<DocId> live;
  const std::vector<uint64_t> query(1, 42);  // one fingerprint: no windows
  for (int step = 0; step < 300; ++step) {
    const auto action = c.rng()() % 10;
    if (action < 6 || live.size() < 3) {
      const auto doc = static_cast<DocId>(step + 1);
      pm->Add(doc, c.Make(doc, 50 + c.rng()() % 2500));
      live.push_back(doc);
    } else if (action < 9) {
      const size_t i = c.rng()() % live.size();
      ASSERT_TRUE(pm->Remove(live[i], c.Source()).ok());
      live.erase(live.begin() + static_cast<ptrdiff_t>(i));
    } else {
      pm->Compact(c.Source(), 0.7);
    }
    uint32_t used = 0;
    for (const RowInfo& r : pm->rows()) used += r.segments.empty() ? 0u : 1u;
    uint32_t spanning = 0;
    for (DocId doc : live) spanning += pm->RowsOf(doc).size() > 1 ? 1u : 0u;
    ASSERT_EQ(pm->rows_in_use(), used) << "step " << step;
    ASSERT_EQ(pm->Query(query, {}).tests, used + spanning) << "step " << step;
  }
  auto restored =
      PseudoMatrix::Restore(pm->options(), pm->rows(), pm->open_row());
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ((*restored)->rows_in_use(), pm->rows_in_use());
  EXPECT_EQ((*restored)->Query(query, {}).tests, pm->Query(query, {}).tests);
}

// No false negatives by construction: a query sharing t fingerprints with a
// document, t at or above what the threshold needs, always makes it a
// candidate, across packing modes, layouts, removals and compaction.
TEST(PseudoMatrixTest, NoFalseNegativesForQueriesAboveTheThreshold) {
  for (PackingMode packing :
       {PackingMode::kPseudoMatrix, PackingMode::kOneDocumentPerRow,
        PackingMode::kSingleFilter}) {
    for (MatrixLayout layout :
         {MatrixLayout::kBitSliced, MatrixLayout::kRowMajor}) {
      Corpus c(7);
      auto pm = Make(packing, layout, 2000);
      std::uniform_int_distribution<size_t> size(5, 3000);
      DocId next = 0;
      for (; next < 40; ++next) pm->Add(next, c.Make(next, size(c.rng())));
      for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 5; ++i) {
          DocId victim = static_cast<DocId>(c.rng()() % next);
          if (!pm->RowsOf(victim).empty()) {
            ASSERT_TRUE(pm->Remove(victim, c.Source()).ok());
          }
        }
        pm->Compact(c.Source(), 0.7);
        for (int i = 0; i < 5; ++i, ++next) {
          pm->Add(next, c.Make(next, size(c.rng())));
        }
        for (int trial = 0; trial < 40; ++trial) {
          const auto doc = static_cast<DocId>(c.rng()() % next);
          if (pm->RowsOf(doc).empty()) continue;
          // Share fingerprints the filter stored (MBF keeps a prefix).
          const size_t stored =
              packing == PackingMode::kOneDocumentPerRow
                  ? std::min<size_t>(c[doc].size(), pm->geometry().fill_limit)
                  : c[doc].size();
          const size_t q = 500;
          std::vector<uint64_t> query(q);
          for (auto& f : query) f = c.rng()();
          // Threshold for this document at this query size.
          double lambda = 0;
          for (uint32_t row : pm->RowsOf(doc)) {
            const double f = pm->rows()[row].bits_set /
                             static_cast<double>(pm->geometry().bits);
            lambda += q * std::pow(f, pm->geometry().hashes);
          }
          QueryOptions options;
          auto first = pm->Query(query, options);
          const uint32_t needed =
              std::max(options.min_count,
                       MinSignificantCount(
                           lambda, options.family_false_alarm / first.tests));
          if (needed > std::min(stored, q)) continue;
          for (size_t i = 0; i < needed; ++i) {
            query[i] = c[doc][c.rng()() % stored];
          }
          auto result = pm->Query(query, options);
          bool found = false;
          for (const Candidate& cand : result.candidates)
            found |= cand.doc == doc;
          ASSERT_TRUE(found) << "doc " << doc << " needed " << needed
                             << " packing " << static_cast<int>(packing)
                             << " layout " << static_cast<int>(layout);
        }
      }
    }
  }
}

TEST(PseudoMatrixTest, ChanceHitRateOfNonMembersMatchesFillToTheK) {
  // Rows filled with random fingerprints; random non-members hit a row at
  // rate f^k where f is its measured fraction of set bits. Tolerance: four
  // standard deviations of the binomial sampling error of 1M queries
  // (about 9 % of f^k per row, 3 % over all rows).
  Corpus c(8);
  auto pm = Make(PackingMode::kPseudoMatrix, MatrixLayout::kBitSliced, 2000);
  for (DocId d = 0; d < 10; ++d) pm->Add(d, c.Make(d, 2000));
  const uint32_t k = pm->geometry().hashes;
  const size_t n = 1000000;
  std::vector<uint32_t> positions(n * k);
  for (size_t i = 0; i < n; ++i) {
    BitPositions(c.rng()(), pm->geometry(),
                 std::span<uint32_t>(positions.data() + i * k, k));
  }
  std::vector<uint32_t> counts(pm->rows().size(), 0);
  pm->matrix().CountMembership(positions, k, counts);
  double total_measured = 0, total_expected = 0;
  for (uint32_t r = 0; r < pm->rows().size(); ++r) {
    const double f = pm->rows()[r].bits_set /
                     static_cast<double>(pm->geometry().bits);
    const double p = std::pow(f, k);
    const double sigma = std::sqrt(p * (1 - p) / n);
    EXPECT_NEAR(counts[r] / static_cast<double>(n), p, 4 * sigma)
        << "row " << r;
    total_measured += counts[r];
    total_expected += p * n;
  }
  EXPECT_NEAR(total_measured, total_expected, 4 * std::sqrt(total_expected));
}

TEST(PseudoMatrixTest, RandomQueriesRaiseNoCandidates) {
  Corpus c(9);
  auto pm = Make(PackingMode::kPseudoMatrix, MatrixLayout::kBitSliced, 2000);
  for (DocId d = 0; d < 60; ++d) pm->Add(d, c.Make(d, 700));
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<uint64_t> query(2000);
    for (auto& f : query) f = c.rng()();
    EXPECT_TRUE(pm->Query(query, {}).candidates.empty());
  }
}

TEST(PseudoMatrixTest, WindowsFindAShortExcerptInsideALongQuery) {
  Corpus c(12);
  auto pm = Make(PackingMode::kPseudoMatrix, MatrixLayout::kBitSliced, 2000);
  for (DocId d = 0; d < 40; ++d) pm->Add(d, c.Make(d, 900));
  // 12 fingerprints of document 21 in the middle of 30,000 random ones:
  // about 30 chance hits per full row over the whole query drown them, a
  // window of 256 expects about 0.26.
  std::vector<uint64_t> query;
  for (int i = 0; i < 15000; ++i) query.push_back(c.rng()());
  query.insert(query.end(), c[21].begin() + 100, c[21].begin() + 112);
  for (int i = 0; i < 15000; ++i) query.push_back(c.rng()());
  auto docs_of = [&](const QueryOptions& options) {
    std::vector<DocId> docs;
    for (const Candidate& cand : pm->Query(query, options).candidates) {
      docs.push_back(cand.doc);
    }
    return docs;
  };
  QueryOptions whole;
  whole.window = 0;
  EXPECT_THAT(docs_of(whole), ::testing::Not(::testing::Contains(21u)));
  EXPECT_THAT(docs_of(QueryOptions{}), ::testing::Contains(21u));
  // Windows do not make chance hits significant: random queries of the
  // same length name nothing.
  for (int trial = 0; trial < 20; ++trial) {
    for (auto& f : query) f = c.rng()();
    EXPECT_TRUE(pm->Query(query, {}).candidates.empty());
  }
}

TEST(PseudoMatrixTest, AndPopcountScoringFindsLargeExcerpts) {
  Corpus c(10);
  auto pm = Make(PackingMode::kPseudoMatrix, MatrixLayout::kRowMajor, 2000);
  for (DocId d = 0; d < 30; ++d) pm->Add(d, c.Make(d, 800));
  std::vector<uint64_t> query(c[17].begin(), c[17].begin() + 400);
  for (int i = 0; i < 400; ++i) query.push_back(c.rng()());
  QueryOptions options;
  options.scoring = ScoringMode::kAndPopcount;
  auto result = pm->Query(query, options);
  // The excerpt lies in row 6, which 17 shares with 15 and 16: the filter
  // cannot tell row-mates apart (the second stage does), and nothing else
  // may be a candidate.
  ASSERT_THAT(pm->RowsOf(17), ElementsAre(6u, 7u));
  std::vector<DocId> docs;
  for (const Candidate& cand : result.candidates) docs.push_back(cand.doc);
  EXPECT_THAT(docs, ::testing::UnorderedElementsAre(15u, 16u, 17u));
}

TEST(PseudoMatrixTest, LayoutsGiveIdenticalResults) {
  Corpus c(11);
  auto sliced = Make(PackingMode::kPseudoMatrix, MatrixLayout::kBitSliced);
  auto major = Make(PackingMode::kPseudoMatrix, MatrixLayout::kRowMajor);
  for (DocId d = 0; d < 25; ++d) {
    sliced->Add(d, c.Make(d, 300));
    major->Add(d, c[d]);
  }
  std::vector<uint64_t> query(c[5].begin(), c[5].begin() + 40);
  for (int i = 0; i < 300; ++i) query.push_back(c.rng()());
  for (ScoringMode mode :
       {ScoringMode::kMembership, ScoringMode::kAndPopcount}) {
    QueryOptions o;
    o.scoring = mode;
    auto a = sliced->Query(query, o);
    auto b = major->Query(query, o);
    ASSERT_EQ(a.candidates.size(), b.candidates.size());
    for (size_t i = 0; i < a.candidates.size(); ++i) {
      EXPECT_EQ(a.candidates[i].doc, b.candidates[i].doc);
      EXPECT_EQ(a.candidates[i].count, b.candidates[i].count);
    }
  }
}

// Rows of 200 fingerprints (p = 1e-3) in groups of 64: small, so that a
// few hundred documents fill several groups.
PseudoMatrixOptions GroupedOptions() {
  PseudoMatrixOptions o;
  o.filter = {1e-3, 200, 1.0};
  o.group_rows = 64;
  return o;
}

// The two-level query, through additions, removals and compactions, with
// and without windows, with documents spanning groups: every document
// sharing at least the threshold's number of stored fingerprints with the
// query is listed, and every candidate is one of the one-level query with
// the same count, expectation and threshold. It may miss a one-level
// candidate whose count leans on chance hits; how many is reported.
TEST(PseudoMatrixTest, RowGroupsFindWhatOneLevelFindsFromSharedFingerprints) {
  for (MatrixLayout layout :
       {MatrixLayout::kBitSliced, MatrixLayout::kRowMajor}) {
    Corpus c(23);
    PseudoMatrixOptions o = GroupedOptions();
    o.layout = layout;
    auto pm = PseudoMatrix::Create(o);
    ASSERT_TRUE(pm.ok());
    QueryOptions one_level;
    one_level.use_groups = false;
    std::vector<DocId> live;
    DocId next = 0;
    size_t planted = 0, one_level_candidates = 0, missed = 0;
    for (int step = 0; step < 240; ++step) {
      const auto action = c.rng()() % 10;
      if (action < 6 || live.size() < 5) {
        // Mostly short documents, now and then one spanning many groups.
        const size_t n = c.rng()() % 25 == 0 ? 15000 + c.rng()() % 20000
                                            : 5 + c.rng()() % 1500;
        (*pm)->Add(next, c.Make(next, n));
        live.push_back(next++);
      } else if (action < 9) {
        const size_t i = c.rng()() % live.size();
        ASSERT_TRUE((*pm)->Remove(live[i], c.Source()).ok());
        live.erase(live.begin() + static_cast<ptrdiff_t>(i));
      } else {
        (*pm)->Compact(c.Source(), 0.7);
      }
      if (step % 4 != 0) continue;
      for (int trial = 0; trial < 6; ++trial) {
        const size_t q = std::vector<size_t>{20, 200, 700, 3000}[trial % 4];
        std::vector<uint64_t> query(q);
        for (auto& f : query) f = c.rng()();
        const DocId doc = live[c.rng()() % live.size()];
        size_t shared = 0;
        if (trial % 3 != 0) {  // plant a run of the document's fingerprints
          shared = std::min({q, c[doc].size(), 3 + c.rng()() % 38});
          const size_t at = c.rng()() % (q - shared + 1);
          const size_t from = c.rng()() % (c[doc].size() - shared + 1);
          for (size_t i = 0; i < shared; ++i) query[at + i] = c[doc][from + i];
        }
        const QueryResult a = (*pm)->Query(query, one_level);
        QueryOptions two_levels;
        two_levels.max_block_share = 1;  // never fall back to one level
        const QueryResult b = (*pm)->Query(query, two_levels);
        ASSERT_EQ(a.tests, b.tests);
        ASSERT_TRUE(b.two_level);
        for (const Candidate& cand : b.candidates) {
          const auto it = std::find_if(
              a.candidates.begin(), a.candidates.end(),
              [&](const Candidate& x) { return x.doc == cand.doc; });
          ASSERT_NE(it, a.candidates.end()) << "step " << step;
          EXPECT_EQ(it->count, cand.count);
          EXPECT_EQ(it->expected, cand.expected);
          EXPECT_EQ(it->threshold, cand.threshold);
        }
        // The planted document, if its shared fingerprints alone reach the
        // whole query's threshold.
        double lambda = 0;
        for (uint32_t row : (*pm)->RowsOf(doc)) {
          const double f = (*pm)->rows()[row].bits_set /
                           static_cast<double>((*pm)->geometry().bits);
          lambda += q * std::pow(f, (*pm)->geometry().hashes);
        }
        const uint32_t needed = std::max(
            3u, MinSignificantCount(lambda, 1e-6 / a.tests));
        if (shared >= needed) {
          ++planted;
          EXPECT_TRUE(std::any_of(
              b.candidates.begin(), b.candidates.end(),
              [&](const Candidate& x) { return x.doc == doc; }))
              << "step " << step << " shared " << shared;
        }
        one_level_candidates += a.candidates.size();
        missed += a.candidates.size() - b.candidates.size();
      }
    }
    EXPECT_GT((*pm)->rows().size(), 5u * 64);  // several groups
    EXPECT_GT(planted, 100u);
    std::printf(
        "layout %d: %zu planted found; %zu of %zu one-level candidates "
        "not listed by the two-level query\n",
        static_cast<int>(layout), planted, missed, one_level_candidates);
  }
}

// A document across a group boundary whose hits split between its groups,
// neither group significant alone: found through the sum of its groups.
TEST(PseudoMatrixTest, RowGroupsFindADocumentWhoseHitsSplitAcrossGroups) {
  Corpus c(31);
  PseudoMatrixOptions o = GroupedOptions();
  auto pm = PseudoMatrix::Create(o);
  ASSERT_TRUE(pm.ok());
  // Rows 0..62 hold one document each, the straddler holds rows 63 and
  // 64, then one document per row again: no group has a document in two
  // of its rows.
  DocId d = 0;
  for (; d < 63; ++d) (*pm)->Add(d, c.Make(d, 200));
  const DocId straddler = d++;
  (*pm)->Add(straddler, c.Make(straddler, 400));
  for (; d < 100; ++d) (*pm)->Add(d, c.Make(d, 200));
  ASSERT_THAT((*pm)->RowsOf(straddler), ElementsAre(63u, 64u));
  std::vector<uint64_t> query(20);
  for (auto& f : query) f = c.rng()();
  // Four hits in each row: eight are significant for the document's two
  // rows; four are not for one group (tail bound 3e-8 against 1e-8).
  for (size_t i = 0; i < 4; ++i) {
    query[i] = c[straddler][i];             // row 63, group 0
    query[4 + i] = c[straddler][399 - i];   // row 64, group 1
  }
  QueryOptions two_levels;
  two_levels.max_block_share = 1;  // never fall back to one level
  const QueryResult r = (*pm)->Query(query, two_levels);
  ASSERT_EQ(r.candidates.size(), 1u);
  EXPECT_EQ(r.candidates[0].doc, straddler);
  EXPECT_EQ(r.candidates[0].count, 8u);
  EXPECT_EQ(r.groups_descended, 2u);
}

// Rows of 200 fingerprints in groups of 64, holding 400 documents of 5 to
// 1,504 fingerprints (about 25 groups).
absl::StatusOr<std::unique_ptr<PseudoMatrix>> GroupedMatrixOf400Documents(
    Corpus& c) {
  PseudoMatrixOptions o = GroupedOptions();
  auto pm = PseudoMatrix::Create(o);
  if (!pm.ok()) return pm;
  for (DocId d = 0; d < 400; ++d)
    (*pm)->Add(d, c.Make(d, 5 + c.rng()() % 1500));
  return pm;
}

// A query that shares nothing with the protected set reads the rows of
// few groups: the point of the second level.
TEST(PseudoMatrixTest, RowGroupsLetALeakFreeQuerySkipMostGroups) {
  Corpus c(29);
  auto pm = GroupedMatrixOf400Documents(c);
  ASSERT_TRUE(pm.ok());
  const uint32_t groups = ((*pm)->matrix().rows() + 63) / 64;
  ASSERT_GE(groups, 20u);
  uint32_t descended = 0;
  for (int i = 0; i < 50; ++i) {
    std::vector<uint64_t> query(2000);
    for (auto& f : query) f = c.rng()();
    const QueryResult r = (*pm)->Query(query, {});
    EXPECT_TRUE(r.candidates.empty());
    EXPECT_TRUE(r.two_level);
    descended += r.groups_descended;
  }
  // The bound is the family-wise alpha per group, except for the group of
  // the open row (filled least, so tested at the lowest chance).
  EXPECT_LE(descended, 50u * groups / 20) << descended << " of " << 50 * groups;
  std::printf("descended %u of %u group visits\n", descended, 50 * groups);
}

// A query with hits in most groups would read most blocks one by one: it
// runs as the one-level query instead, with the same result.
TEST(PseudoMatrixTest, RowGroupsFallBackToOneLevelWhenMostGroupsAreHit) {
  Corpus c(41);
  auto pm = GroupedMatrixOf400Documents(c);
  ASSERT_TRUE(pm.ok());
  const uint32_t groups = ((*pm)->matrix().rows() + 63) / 64;
  std::vector<uint64_t> query;
  for (DocId d = 0; d < 400; d += 4) {  // 20 fingerprints of every 4th
    const size_t n = std::min<size_t>(20, c[d].size());
    query.insert(query.end(), c[d].begin(),
                 c[d].begin() + static_cast<ptrdiff_t>(n));
  }
  QueryOptions one_level;
  one_level.use_groups = false;
  const QueryResult a = (*pm)->Query(query, one_level);
  const QueryResult b = (*pm)->Query(query, {});
  EXPECT_GT(b.groups_descended, groups / 8);  // past the default share
  EXPECT_FALSE(b.two_level);
  EXPECT_EQ(a.candidate_rows, b.candidate_rows);
  ASSERT_EQ(a.candidates.size(), b.candidates.size());
  for (size_t i = 0; i < a.candidates.size(); ++i) {
    EXPECT_EQ(a.candidates[i].doc, b.candidates[i].doc);
  }
  EXPECT_GT(a.candidates.size(), 50u);
}

TEST(PseudoMatrixTest, RowGroupsMustBeWholeWords) {
  PseudoMatrixOptions o;
  o.group_rows = 100;
  EXPECT_FALSE(PseudoMatrix::Create(o).ok());
  o.group_rows = 64;
  EXPECT_TRUE(PseudoMatrix::Create(o).ok());
}

// Restore computes the groups' values from the row index; with the row
// and group bits loaded, queries answer as on the original, and the
// one-level query on the same matrix agrees.
TEST(PseudoMatrixTest, RestoredRowGroupsAnswerLikeTheOriginal) {
  Corpus c(37);
  PseudoMatrixOptions o = GroupedOptions();
  auto original = PseudoMatrix::Create(o);
  ASSERT_TRUE(original.ok());
  for (DocId d = 0; d < 300; ++d) {
    (*original)->Add(d, c.Make(d, d % 50 == 0 ? 20000 : 5 + c.rng()() % 1500));
  }
  ASSERT_TRUE((*original)->Remove(7, c.Source()).ok());
  const PseudoMatrix& pm = **original;
  auto restored = PseudoMatrix::Restore(o, pm.rows(), pm.open_row());
  ASSERT_TRUE(restored.ok()) << restored.status();
  const uint32_t row_words = (pm.geometry().bits + 63) / 64;
  std::vector<uint64_t> words(row_words);
  for (uint32_t r = 0; r < pm.rows().size(); ++r) {
    pm.RowBits(r, words);
    (*restored)->LoadRowBits(r, 1, words);
  }
  const uint32_t groups = (static_cast<uint32_t>(pm.rows().size()) + 63) / 64;
  words.resize((64 * size_t{pm.geometry().bits} + 63) / 64);
  for (uint32_t g = 0; g < groups; ++g) {
    pm.GroupBits(g, words);
    (*restored)->LoadGroupBits(g, 1, words);
  }
  size_t found = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<uint64_t> query(1000);
    for (auto& f : query) f = c.rng()();
    const auto doc = static_cast<DocId>(c.rng()() % 300);
    if (doc != 7) {
      for (size_t i = 0; i < 30; ++i) query[500 + i] = c[doc][i];
    }
    QueryOptions one_level;
    one_level.use_groups = false;
    QueryOptions two_levels;
    two_levels.max_block_share = 1;
    const QueryResult a = pm.Query(query, two_levels);
    const QueryResult b = (*restored)->Query(query, two_levels);
    const QueryResult flat = (*restored)->Query(query, one_level);
    ASSERT_EQ(a.candidates.size(), b.candidates.size());
    ASSERT_EQ(a.candidates.size(), flat.candidates.size());
    for (size_t i = 0; i < a.candidates.size(); ++i) {
      EXPECT_EQ(a.candidates[i].doc, b.candidates[i].doc);
      EXPECT_EQ(a.candidates[i].doc, flat.candidates[i].doc);
      EXPECT_EQ(a.candidates[i].count, b.candidates[i].count);
    }
    EXPECT_EQ(a.groups_descended, b.groups_descended);
    found += a.candidates.size();
  }
  EXPECT_GE(found, 35u);
}

}  // namespace
}  // namespace leakhound
