#include "engine/protected_index.h"

#include <signal.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <array>
#include <bit>
#include <functional>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "engine/content_digest.h"
#include "engine/index_verifier.h"
#include "gtest/gtest.h"
#include "index/io_faults.h"
#include "shingler/shingler.h"
#include "shingler/winnower.h"
#include "tests/engine/real_documents.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::vector<uint64_t> FingerprintsOf(const ProtectedIndex& index,
                                     const std::string& text) {
  auto key = FingerprintKey::FromBytes(std::span<const uint8_t>(
      reinterpret_cast<const uint8_t*>(index.store().key().data()),
      index.store().key().size()));
  auto shingler = Shingler::Create(index.shingler_options(), *key);
  auto shingled = (*shingler)->Shingle(text);
  std::vector<uint64_t> fps;
  for (const Shingle& s : shingled->shingles) fps.push_back(s.fingerprint);
  std::sort(fps.begin(), fps.end());
  fps.erase(std::unique(fps.begin(), fps.end()), fps.end());
  return fps;
}

// Whether the filter must find `d` by its own text: below the minimum
// count of QueryOptions (3) plus margin no document can be a candidate.
bool Findable(const ProtectedIndex& index, const TextDoc& d) {
  return FingerprintsOf(index, d.text).size() >= 10;
}

std::set<std::string> CandidateIds(const ProtectedIndex& index,
                                   const std::string& text) {
  std::set<std::string> ids;
  QueryResult r = index.matrix().Query(FingerprintsOf(index, text), {});
  for (const Candidate& c : r.candidates) {
    auto doc = index.store().ReadDocument(c.doc);
    if (doc.ok() && doc->has_value()) ids.insert((*doc)->external_id);
  }
  return ids;
}

std::vector<std::string> Problems(const ProtectedIndex& index) {
  auto report = VerifyIndex(index.store());
  EXPECT_TRUE(report.ok()) << report.status();
  return report.ok() ? report->problems : std::vector<std::string>{"error"};
}

// Rows, segments and bits of two filters are identical.
void ExpectSameFilter(const PseudoMatrix& a, const PseudoMatrix& b) {
  ASSERT_EQ(a.rows().size(), b.rows().size());
  const uint32_t words = (a.geometry().bits + 63) / 64;
  std::vector<uint64_t> wa(words), wb(words);
  for (uint32_t r = 0; r < a.rows().size(); ++r) {
    EXPECT_EQ(a.rows()[r].segments, b.rows()[r].segments) << "row " << r;
    EXPECT_EQ(a.rows()[r].bits_set, b.rows()[r].bits_set) << "row " << r;
    a.RowBits(r, wa);
    b.RowBits(r, wb);
    EXPECT_EQ(wa, wb) << "row " << r;
  }
  EXPECT_EQ(a.open_row(), b.open_row());
  EXPECT_EQ(a.documents(), b.documents());
  // The row groups' filters, when there are groups.
  const uint32_t per = a.options().group_rows;
  ASSERT_EQ(per, b.options().group_rows);
  if (per == 0) return;
  std::vector<uint64_t> ga((size_t{per} * a.geometry().bits + 63) / 64);
  std::vector<uint64_t> gb(ga.size());
  for (uint32_t g = 0; g * per < a.rows().size(); ++g) {
    a.GroupBits(g, ga);
    b.GroupBits(g, gb);
    EXPECT_EQ(ga, gb) << "group " << g;
  }
}

TEST(ProtectedIndexTest, ReopenedIndexHasTheSameFilterAndFindsDocuments) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  ASSERT_GE(docs.size(), 60u);
  auto writer = CreateWith(dir, docs.size());
  ASSERT_TRUE(writer.ok()) << writer.status();
  EXPECT_GT((*writer)->matrix().rows().size(), 10u);
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok()) << reader.status();
  ExpectSameFilter((*writer)->matrix(), (*reader)->matrix());
  for (size_t i = 0; i < docs.size(); i += 7) {
    if (!Findable(**reader, docs[i])) continue;
    EXPECT_TRUE(CandidateIds(**reader, docs[i].text).contains(docs[i].id))
        << docs[i].id;
  }
  EXPECT_THAT(Problems(**reader), IsEmpty());
}

// Two indexes of the same documents share their filter bits only when
// they share the key: a given key makes a build repeatable, and the
// default draws a fresh one each time.
TEST(ProtectedIndexTest, GivenKeyRepeatsTheFilterAndTheDefaultKeyDiffers) {
  TempDir tmp;
  const auto& docs = RealDocuments();
  std::array<uint8_t, FingerprintKey::kKeyBytes> bytes{};
  bytes[0] = 7;
  auto key = FingerprintKey::FromBytes(bytes);
  ASSERT_TRUE(key.ok()) << key.status();
  auto build = [&](const std::string& name,
                   bool given) -> std::unique_ptr<ProtectedIndex> {
    IndexOptions options = SmallRows();
    if (given) options.key = *key;
    auto index = ProtectedIndex::Create(tmp.Sub(name), options);
    EXPECT_TRUE(index.ok()) << index.status();
    if (!index.ok()) return nullptr;
    for (size_t i = 0; i < 20; ++i) {
      EXPECT_TRUE(AddDoc(**index, docs[i]).ok()) << docs[i].id;
    }
    return std::move(*index);
  };
  auto a = build("a", true), b = build("b", true);
  auto c = build("c", false), d = build("d", false);
  ASSERT_TRUE(a && b && c && d);
  ExpectSameFilter(a->matrix(), b->matrix());
  const uint32_t words = (a->matrix().geometry().bits + 63) / 64;
  std::vector<uint64_t> wa(words), wc(words), wd(words);
  a->matrix().RowBits(0, wa);
  c->matrix().RowBits(0, wc);
  d->matrix().RowBits(0, wd);
  EXPECT_NE(wa, wc);
  EXPECT_NE(wc, wd);
}

TEST(ProtectedIndexTest, ReAddingIsUnchangedReplacedOrReportedAsDuplicate) {
  TempDir tmp;
  auto index = ProtectedIndex::Create(tmp.Sub("idx"), SmallRows());
  ASSERT_TRUE(index.ok());
  const auto& docs = RealDocuments();
  ASSERT_EQ(AddDoc(**index, docs[0])->outcome, AddOutcome::kAdded);
  EXPECT_EQ(AddDoc(**index, docs[0])->outcome, AddOutcome::kUnchanged);
  auto dup = AddDoc(**index, TextDoc{"copy", docs[0].text});
  EXPECT_EQ(dup->outcome, AddOutcome::kDuplicateContent);
  EXPECT_EQ(dup->existing_id, docs[0].id);
  auto replaced = AddDoc(**index, TextDoc{docs[0].id, docs[1].text});
  ASSERT_TRUE(replaced.ok());
  EXPECT_EQ(replaced->outcome, AddOutcome::kReplaced);
  EXPECT_EQ((*index)->matrix().documents(), 1u);
  EXPECT_TRUE(CandidateIds(**index, docs[1].text).contains(docs[0].id));
  EXPECT_FALSE(CandidateIds(**index, docs[0].text).contains(docs[0].id));
  EXPECT_THAT(Problems(**index), IsEmpty());
}

TEST(ProtectedIndexTest, EmptyTextAndEmptyIdAreRefused) {
  TempDir tmp;
  auto index = ProtectedIndex::Create(tmp.Sub("idx"), SmallRows());
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(AddDoc(**index, TextDoc{"x", " \n\t"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AddDoc(**index, TextDoc{"", "some words here"}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*index)->matrix().documents(), 0u);
}

TEST(ProtectedIndexTest, RemovalRebuildsOnlyTheDocumentsRowsAndPersists) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  {
    auto index = CreateWith(dir, docs.size());
    ASSERT_TRUE(index.ok()) << index.status();
    for (size_t i = 0; i < docs.size(); i += 3) {
      const size_t spans = (*index)->matrix().RowsOf(
          *(*index)->store().FindExternalId(docs[i].id).value()).size();
      auto stats = (*index)->Remove(docs[i].id);
      ASSERT_TRUE(stats.ok()) << stats.status();
      EXPECT_EQ(stats->rows_rebuilt(), spans);
    }
    EXPECT_EQ((*index)->Remove(docs[0].id).status().code(),
              absl::StatusCode::kNotFound);
  }
  auto index = ProtectedIndex::Open(dir, OpenMode::kWrite);
  ASSERT_TRUE(index.ok()) << index.status();
  for (size_t i = 0; i < docs.size(); ++i) {
    const bool removed = i % 3 == 0;
    EXPECT_EQ((*index)->store().FindExternalId(docs[i].id)->has_value(),
              !removed);
    if (!removed && i % 5 == 1 && Findable(**index, docs[i])) {
      EXPECT_TRUE(CandidateIds(**index, docs[i].text).contains(docs[i].id))
          << docs[i].id;
    }
  }
  EXPECT_THAT(Problems(**index), IsEmpty());
}

TEST(ProtectedIndexTest, CompactionRepacksRowsAndPersists) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  auto index = CreateWith(dir, docs.size());
  ASSERT_TRUE(index.ok()) << index.status();
  for (size_t i = 0; i < docs.size(); ++i) {
    if (i % 4 != 0) {
      ASSERT_TRUE((*index)->Remove(docs[i].id).ok());
    }
  }
  const uint32_t before = (*index)->matrix().rows_in_use();
  auto stats = (*index)->Compact();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_GT(stats->rows_freed, 0u);
  EXPECT_EQ((*index)->matrix().rows_in_use(), before - stats->rows_freed);
  EXPECT_THAT(Problems(**index), IsEmpty());
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  ExpectSameFilter((*index)->matrix(), (*reader)->matrix());
  for (size_t i = 0; i < docs.size(); i += 4) {
    if (!Findable(**reader, docs[i])) continue;
    EXPECT_TRUE(CandidateIds(**reader, docs[i].text).contains(docs[i].id));
  }
  // Freed rows are reused by the next additions.
  const size_t rows = (*index)->matrix().rows().size();
  ASSERT_TRUE(AddDoc(**index, docs[1]).ok());
  EXPECT_EQ((*index)->matrix().rows().size(), rows);
}

TEST(ProtectedIndexTest, ReaderPicksUpTheWritersCommits) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  auto writer = ProtectedIndex::Create(dir, SmallRows());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(AddDoc(**writer, docs[0]).ok());
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  ASSERT_TRUE(AddDoc(**writer, docs[1]).ok());
  EXPECT_FALSE(CandidateIds(**reader, docs[1].text).contains(docs[1].id));
  auto refreshed = (*reader)->Refresh();
  ASSERT_TRUE(refreshed.ok()) << refreshed.status();
  EXPECT_TRUE(*refreshed);
  EXPECT_TRUE(CandidateIds(**reader, docs[1].text).contains(docs[1].id));
  EXPECT_FALSE(*(*reader)->Refresh());
  EXPECT_EQ((*reader)->Add(DocumentInput{"x", "", {}, "a b c d e f"})
                .status()
                .code(),
            absl::StatusCode::kFailedPrecondition);
}

// A reader that has loaded a view catches up with a commit by reading only
// the rows the commit changed (an addition, a removal: a few rows of
// hundreds), and ends with the filter a writer holds: rows, bits, row
// group filters, every document's rows. With and without row groups.
class ReaderCatchUpTest : public ::testing::TestWithParam<uint32_t> {};

// The rows of `now` that differ from `before` (or are new).
size_t ChangedRows(const std::vector<RowInfo>& before,
                   const std::vector<RowInfo>& now) {
  size_t changed = 0;
  for (size_t r = 0; r < now.size(); ++r) {
    changed += r >= before.size() || before[r].segments != now[r].segments ||
                       before[r].bits_set != now[r].bits_set
                   ? 1
                   : 0;
  }
  return changed;
}

TEST_P(ReaderCatchUpTest, ReadsOnlyTheChangedRowsAndEndsWithTheWritersFilter) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  IndexOptions options = SmallRows();
  options.group_rows = GetParam();
  auto writer = ProtectedIndex::Create(dir, options);
  ASSERT_TRUE(writer.ok());
  const auto& docs = RealDocuments();
  const size_t n = std::min<size_t>(docs.size(), 400) - 1;
  for (size_t i = 0; i < n; ++i) ASSERT_TRUE(AddDoc(**writer, docs[i]).ok());
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok()) << reader.status();
  const size_t rows = (*writer)->matrix().rows().size();
  ASSERT_GT(rows, 100u);
  EXPECT_EQ((*reader)->rows_read(), rows);  // the first view: every row

  auto expect_caught_up = [&](const char* what, size_t changed) {
    auto refreshed = (*reader)->Refresh();
    ASSERT_TRUE(refreshed.ok()) << refreshed.status();
    EXPECT_TRUE(*refreshed) << what;
    EXPECT_EQ((*reader)->rows_read(), changed) << what;
    const PseudoMatrix& w = (*writer)->matrix();
    const PseudoMatrix& r = (*reader)->matrix();
    ExpectSameFilter(w, r);
    EXPECT_EQ(w.rows_in_use(), r.rows_in_use()) << what;
    for (size_t i = 0; i <= n; ++i) {
      auto id = (*writer)->store().FindExternalId(docs[i].id);
      ASSERT_TRUE(id.ok());
      if (!id->has_value()) continue;
      const std::span<const uint32_t> a = w.RowsOf(**id), b = r.RowsOf(**id);
      EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end()))
          << what << ": " << docs[i].id;
    }
    EXPECT_EQ((*reader)->torn_views(), 0u);
  };

  std::vector<RowInfo> before = (*writer)->matrix().rows();
  ASSERT_TRUE(AddDoc(**writer, docs[n]).ok());
  size_t changed = ChangedRows(before, (*writer)->matrix().rows());
  ASSERT_GE(changed, 1u);
  ASSERT_LT(changed, rows / 4);
  expect_caught_up("addition", changed);
  if (Findable(**writer, docs[n])) {
    EXPECT_TRUE(CandidateIds(**reader, docs[n].text).contains(docs[n].id));
  }

  before = (*writer)->matrix().rows();
  const TextDoc& gone = docs[n / 2];
  ASSERT_TRUE((*writer)->Remove(gone.id).ok());
  changed = ChangedRows(before, (*writer)->matrix().rows());
  ASSERT_GE(changed, 1u);
  expect_caught_up("removal", changed);
  EXPECT_FALSE(CandidateIds(**reader, gone.text).contains(gone.id));
  auto fresh = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(fresh.ok());
  ExpectSameFilter((*fresh)->matrix(), (*reader)->matrix());
}

INSTANTIATE_TEST_SUITE_P(GroupRows, ReaderCatchUpTest,
                         ::testing::Values(0u, 64u));

// A refresh that fails part way (here: the n-th read of the reader's
// files fails, for every n the refresh does) must not leave the reader
// believing it is up to date: the next refresh loads the writer's last
// commit. (RocksDB reads small table files whole when it opens them, so
// the failures land in the open; IndexHolderTest.AViewThatFailedItsCheck...
// covers a load that fails its check.)
TEST(ProtectedIndexTest, ARefreshThatFailedIsMadeGoodByTheNext) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  auto writer = ProtectedIndex::Create(dir, SmallRows());
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(AddDoc(**writer, docs[0]).ok());
  IoFaults faults;
  auto reader = ProtectedIndex::OpenWithFaults(dir, OpenMode::kRead, &faults);
  ASSERT_TRUE(reader.ok()) << reader.status();
  size_t added = 1, failed_refreshes = 0;
  for (uint64_t nth = 1;; ++nth) {
    ASSERT_LT(added, docs.size());
    ASSERT_TRUE(AddDoc(**writer, docs[added++]).ok());
    faults.Arm(IoMask(IoKind::kRead), nth, /*sticky=*/false);
    auto first = (*reader)->Refresh();
    faults.Disarm();
    const bool injected = faults.injected() > 0;
    failed_refreshes += first.ok() ? 0 : 1;
    auto second = (*reader)->Refresh();
    ASSERT_TRUE(second.ok()) << second.status() << " (read " << nth << ")";
    EXPECT_EQ((*reader)->generation(), (*writer)->generation())
        << "read " << nth << " failed";
    EXPECT_EQ((*reader)->matrix().documents(), added) << "read " << nth;
    if (!injected) break;  // past the last read a refresh does
  }
  EXPECT_GT(failed_refreshes, 3u);
  std::printf("%zu refreshes failed by an injected read error, each made "
              "good by the next\n", failed_refreshes);
}

// How many documents hold each fingerprint, as the full table on disk
// says; the counts in memory (shared ones only) must agree.
std::vector<uint32_t> Frequencies(const ProtectedIndex& index,
                                  const std::vector<uint64_t>& fps) {
  std::vector<uint32_t> buckets;
  for (uint64_t fp : fps) buckets.push_back(CountBucketOf(fp));
  auto read = index.store().ReadCountBuckets(buckets);
  EXPECT_TRUE(read.ok()) << read.status();
  if (!read.ok()) return {};
  std::vector<uint32_t> out;
  for (size_t i = 0; i < fps.size(); ++i) {
    uint32_t count = 0;
    for (const FingerprintCount& e : (*read)[i].entries) {
      if (e.fingerprint == fps[i]) count = e.documents;
    }
    EXPECT_EQ(index.frequency().SharedCount(fps[i]), count >= 2 ? count : 0);
    out.push_back(count);
  }
  return out;
}

TEST(ProtectedIndexTest, DocumentFrequenciesFollowAddReplaceAndRemove) {
  TempDir tmp;
  auto index = ProtectedIndex::Create(tmp.Sub("idx"), SmallRows());
  ASSERT_TRUE(index.ok());
  const std::string shared =
      "This message and its attachments are confidential and intended only "
      "for the named recipient.";
  const std::string a = RealDocuments()[0].text + "\n" + shared;
  const std::string b = RealDocuments()[1].text + "\n" + shared;
  const std::vector<uint64_t> shared_fps = FingerprintsOf(**index, shared);
  ASSERT_GT(shared_fps.size(), 5u);
  ASSERT_TRUE((*index)->Add(DocumentInput{"a", "", {}, a}).ok());
  EXPECT_EQ(Frequencies(**index, shared_fps),
            std::vector<uint32_t>(shared_fps.size(), 1));
  ASSERT_TRUE((*index)->Add(DocumentInput{"b", "", {}, b}).ok());
  EXPECT_EQ(Frequencies(**index, shared_fps),
            std::vector<uint32_t>(shared_fps.size(), 2));
  // Replacing "a" by text without the shared paragraph takes one away.
  ASSERT_TRUE(
      (*index)->Add(DocumentInput{"a", "", {}, RealDocuments()[0].text}).ok());
  EXPECT_EQ(Frequencies(**index, shared_fps),
            std::vector<uint32_t>(shared_fps.size(), 1));
  ASSERT_TRUE((*index)->Remove("b").ok());
  EXPECT_EQ(Frequencies(**index, shared_fps),
            std::vector<uint32_t>(shared_fps.size(), 0));
  EXPECT_THAT(Problems(**index), IsEmpty());
}

TEST(ProtectedIndexTest, AllowListedFingerprintsAreKnownToWriterAndReaders) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  auto writer = CreateWith(dir, 2);
  ASSERT_TRUE(writer.ok());
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  const std::string disclaimer =
      "This e-mail may contain privileged information. If you are not the "
      "intended recipient, delete it.";
  const std::vector<uint64_t> fps = FingerprintsOf(**writer, disclaimer);
  auto added = (*writer)->AddAllowed("disclaimer", "d.txt", disclaimer);
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->outcome, AddOutcome::kAdded);
  EXPECT_EQ(added->fingerprints, fps.size());
  EXPECT_EQ((*writer)->AddAllowed("disclaimer", "d.txt", disclaimer)->outcome,
            AddOutcome::kUnchanged);
  for (uint64_t fp : fps) EXPECT_TRUE((*writer)->IsAllowed(fp));
  EXPECT_FALSE((*reader)->IsAllowed(fps[0]));
  ASSERT_TRUE(*(*reader)->Refresh());
  for (uint64_t fp : fps) EXPECT_TRUE((*reader)->IsAllowed(fp));

  EXPECT_EQ((*writer)->RemoveAllowed("nope").code(),
            absl::StatusCode::kNotFound);
  ASSERT_TRUE((*writer)->RemoveAllowed("disclaimer").ok());
  EXPECT_FALSE((*writer)->IsAllowed(fps[0]));
  ASSERT_TRUE(*(*reader)->Refresh());
  EXPECT_FALSE((*reader)->IsAllowed(fps[0]));
  EXPECT_THAT(Problems(**writer), IsEmpty());
}

TEST(ProtectedIndexTest, LocationsAreAtomicPersistedAndKnownToReaders) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  auto writer = CreateWith(dir, 1);
  ASSERT_TRUE(writer.ok());
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  const std::string text = "see https://wiki.corp.example/finance/q3 now";
  // One bad location: nothing is written.
  const std::vector<std::string> with_bad = {
      "https://wiki.corp.example/finance", "finance"};
  EXPECT_EQ((*writer)->AddLocations(with_bad).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE((*writer)->ListLocations()->empty());

  const std::vector<std::string> given = {"https://wiki.corp.example/finance/",
                                          "WIKI.corp.example/Finance"};
  auto added = (*writer)->AddLocations(given);
  ASSERT_TRUE(added.ok()) << added.status();
  ASSERT_EQ(added->size(), 2u);
  EXPECT_EQ((*added)[0],
            std::make_pair(std::string("//wiki.corp.example/finance"), true));
  EXPECT_EQ((*added)[1],
            std::make_pair(std::string("//wiki.corp.example/finance"), false));
  EXPECT_EQ((*writer)->locations().Find(text).size(), 1u);
  EXPECT_TRUE((*reader)->locations().Find(text).empty());
  ASSERT_TRUE(*(*reader)->Refresh());
  EXPECT_EQ((*reader)->locations().Find(text).size(), 1u);

  const std::vector<std::string> missing = {"wiki.corp.example/finance",
                                            "/srv/none"};
  EXPECT_EQ((*writer)->RemoveLocations(missing).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ((*writer)->ListLocations()->size(), 1u);
  writer->reset();
  auto reopened = ProtectedIndex::Open(dir, OpenMode::kWrite);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  auto listed = (*reopened)->ListLocations();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].second.given, "https://wiki.corp.example/finance/");
  EXPECT_EQ((*reopened)->locations().Find(text).size(), 1u);
  const std::vector<std::string> present = {
      "https://wiki.corp.example/finance"};
  ASSERT_TRUE((*reopened)->RemoveLocations(present).ok());
  EXPECT_TRUE((*reopened)->locations().Find(text).empty());
  ASSERT_TRUE(*(*reader)->Refresh());
  EXPECT_TRUE((*reader)->locations().Find(text).empty());
}

TEST(ProtectedIndexTest, IndexFilesHoldNoProtectedPlaintext) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  {
    auto index = CreateWith(dir, docs.size());
    ASSERT_TRUE(index.ok()) << index.status();
    ASSERT_TRUE((*index)->Compact().ok());  // flush into table files too
  }
  std::string all;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) all += ReadAll(e.path());
  }
  ASSERT_GT(all.size(), 10000u);
  int probes = 0;
  for (const TextDoc& d : docs) {
    // A 24-byte run from the middle of each document.
    if (d.text.size() < 80) continue;
    const std::string probe = d.text.substr(d.text.size() / 2, 24);
    EXPECT_EQ(all.find(probe), std::string::npos) << d.id << ": " << probe;
    ++probes;
  }
  EXPECT_GT(probes, 50);
}

// Removes every third of the real documents (0, 3, 6, ...) from `index`
// and compacts it; the index must then verify clean, and a reader opened on
// `dir` must hold the writer's filter. Returns that reader (null if it
// failed to open).
std::unique_ptr<ProtectedIndex> RemoveEveryThirdAndReopen(
    ProtectedIndex& index, const std::string& dir) {
  const auto& docs = RealDocuments();
  for (size_t i = 0; i < docs.size(); i += 3) {
    EXPECT_TRUE(index.Remove(docs[i].id).ok()) << docs[i].id;
  }
  EXPECT_TRUE(index.Compact().ok());
  EXPECT_THAT(Problems(index), IsEmpty());
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return nullptr;
  ExpectSameFilter(index.matrix(), (*reader)->matrix());
  return std::move(*reader);
}

// Row groups of 64 rows (several groups at this row size): what a reader
// opens equals the writer's filter, groups included, after removals and a
// compaction; queries through the groups find every findable document and
// list what the one-level query lists for the document's own text.
TEST(ProtectedIndexTest, RowGroupsPersistThroughRemovalAndCompaction) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  IndexOptions options = SmallRows();
  options.group_rows = 64;
  auto index = ProtectedIndex::Create(dir, options);
  ASSERT_TRUE(index.ok()) << index.status();
  const auto& docs = RealDocuments();
  for (const TextDoc& d : docs) ASSERT_TRUE(AddDoc(**index, d).ok());
  ASSERT_GT((*index)->matrix().rows().size(), 2u * 64);  // three groups
  auto reader = RemoveEveryThirdAndReopen(**index, dir);
  ASSERT_NE(reader, nullptr);
  QueryOptions one_level;
  one_level.use_groups = false;
  size_t checked = 0;
  for (size_t i = 1; i < docs.size(); i += 3) {
    if (!Findable(*reader, docs[i])) continue;
    const std::vector<uint64_t> fps = FingerprintsOf(*reader, docs[i].text);
    EXPECT_TRUE(CandidateIds(*reader, docs[i].text).contains(docs[i].id));
    const QueryResult a = reader->matrix().Query(fps, {});
    const QueryResult b = reader->matrix().Query(fps, one_level);
    ASSERT_EQ(a.candidates.size(), b.candidates.size()) << docs[i].id;
    ++checked;
  }
  EXPECT_GT(checked, 20u);
}

// The first view's check reads the external ids and the documents in two
// scans: a document whose external id does not map back to it is refused
// as a torn (or damaged) view, as when every id was looked up one by one.
TEST(ProtectedIndexTest, AReaderRefusesADocumentWhoseIdDoesNotMapBack) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  ASSERT_TRUE(CreateWith(dir, 10).ok());
  {
    auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
    ASSERT_TRUE(store.ok());
    auto record = (*store)->ReadDocument(3);
    ASSERT_TRUE(record.ok() && record->has_value());
    DocumentRecord renamed = **record;
    renamed.external_id = "a name no id entry has";
    IndexBatch batch;
    batch.PutDocumentRecord(3, renamed);
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(reader.status().message(), HasSubstr("run leakhound verify"));
}

// With a filter winnowing window the rows hold each document's winnowed
// sample, and removal, compaction and a reader's load all derive the same
// sample from the stored lists (which keep every shingle).
TEST(ProtectedIndexTest, AFilterWinnowingWindowSamplesEveryDocumentTheSameWay) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  IndexOptions options = SmallRows();
  options.shingler.filter_winnow_window = 4;
  auto index = ProtectedIndex::Create(dir, options);
  ASSERT_TRUE(index.ok()) << index.status();
  const auto& docs = RealDocuments();
  auto shingler = (*index)->NewShingler();
  ASSERT_TRUE(shingler.ok());
  uint64_t sampled = 0, distinct = 0;
  for (const TextDoc& d : docs) {
    auto added = AddDoc(**index, d);
    ASSERT_TRUE(added.ok()) << added.status();
    auto shingled = (*shingler)->Shingle(d.text);
    std::vector<uint64_t> in_order;
    for (const Shingle& s : shingled->shingles)
      in_order.push_back(s.fingerprint);
    EXPECT_EQ(added->fingerprints, WinnowedDistinct(in_order, 4).size())
        << d.id;
    sampled += added->fingerprints;
    distinct += FingerprintsOf(**index, d.text).size();
  }
  // Window 4 keeps about 2/5 of the shingles.
  EXPECT_LT(sampled, distinct / 2);
  EXPECT_GT(sampled, distinct / 4);
  auto reader = RemoveEveryThirdAndReopen(**index, dir);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->metadata().filter_winnow_window, 4u);
  // What `leakhound rekey` creates the rebuilt index with.
  EXPECT_EQ(reader->options().shingler.filter_winnow_window, 4);
}

// A reader whose view stays torn while the files do not change (damage,
// not a writer at work) says so at once instead of retrying.
TEST(ProtectedIndexTest, AReaderRefusesRecordsTheRowTableDoesNotName) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  ASSERT_TRUE(CreateWith(dir, 10).ok());
  {
    auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
    ASSERT_TRUE(store.ok());
    DocumentRecord orphan;
    orphan.external_id = "orphan";
    orphan.digest = std::string(32, 'x');
    IndexBatch batch;
    batch.PutDocument(999, orphan, FingerprintsRecord{});
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(reader.status().message(), HasSubstr("run leakhound verify"));
  EXPECT_EQ(
      (*ProtectedIndex::Open(dir, OpenMode::kWrite))->matrix().documents(),
      10u);  // the writer does not check; verify reports it
}

TEST(ProtectedIndexTest, OtherShinglerVersionIsRefusedWithAdvice) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  ASSERT_TRUE(ProtectedIndex::Create(dir, SmallRows()).ok());
  {
    auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
    ASSERT_TRUE(store.ok());
    MetadataRecord meta = (*store)->metadata();
    meta.shingler_version = kShinglerVersion + 1;
    IndexBatch batch;
    batch.PutMetadata(meta);
    ASSERT_TRUE((*store)->Commit(batch).ok());
  }
  auto index = ProtectedIndex::Open(dir, OpenMode::kRead);
  EXPECT_EQ(index.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(index.status().message()),
              HasSubstr("shingler version"));
  EXPECT_THAT(std::string(index.status().message()), HasSubstr("rekey"));
  // Opened to be rebuilt, it reads and refuses every change.
  auto rebuild = ProtectedIndex::Open(dir, OpenMode::kRebuild);
  ASSERT_TRUE(rebuild.ok()) << rebuild.status();
  EXPECT_EQ(AddDoc(**rebuild, RealDocuments()[0]).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ((*rebuild)->Compact().status().code(),
            absl::StatusCode::kFailedPrecondition);
}

PreparedDocument Prepared(ProtectedIndex& index, const TextDoc& d) {
  auto shingler = index.NewShingler();
  EXPECT_TRUE(shingler.ok());
  auto prepared = ProtectedIndex::Prepare(
      **shingler, DocumentInput{d.id, "test/" + d.id, {}, d.text});
  EXPECT_TRUE(prepared.ok()) << prepared.status();
  return std::move(*prepared);
}

TEST(ProtectedIndexTest, StagedDocumentsAreInvisibleToReadersUntilCommit) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  auto writer = ProtectedIndex::Create(dir, SmallRows());
  ASSERT_TRUE(writer.ok());
  const auto& docs = RealDocuments();
  for (size_t i = 0; i < 5; ++i) {
    auto staged = (*writer)->Stage(Prepared(**writer, docs[i]));
    ASSERT_TRUE(staged.ok()) << staged.status();
    EXPECT_EQ(staged->outcome, AddOutcome::kAdded);
  }
  EXPECT_EQ((*writer)->pending(), 5u);
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->matrix().documents(), 0u);
  ASSERT_TRUE((*writer)->Commit().ok());
  EXPECT_EQ((*writer)->pending(), 0u);
  ASSERT_TRUE(*(*reader)->Refresh());
  EXPECT_EQ((*reader)->matrix().documents(), 5u);
  EXPECT_TRUE(CandidateIds(**reader, docs[3].text).contains(docs[3].id));
  EXPECT_THAT(Problems(**writer), IsEmpty());
}

TEST(ProtectedIndexTest, OneBatchEqualsOneCommitPerDocument) {
  TempDir tmp;
  const auto& docs = RealDocuments();
  IndexOptions options = SmallRows();
  const std::array<uint8_t, 32> key_bytes{7};
  options.key = *FingerprintKey::FromBytes(key_bytes);
  auto one_by_one = ProtectedIndex::Create(tmp.Sub("a"), options);
  auto batched = ProtectedIndex::Create(tmp.Sub("b"), options);
  ASSERT_TRUE(one_by_one.ok() && batched.ok());
  for (size_t i = 0; i < 40; ++i) {
    ASSERT_TRUE(AddDoc(**one_by_one, docs[i]).ok());
    ASSERT_TRUE((*batched)->Stage(Prepared(**batched, docs[i])).ok());
  }
  ASSERT_TRUE((*batched)->Commit().ok());
  ExpectSameFilter((*one_by_one)->matrix(), (*batched)->matrix());
  EXPECT_EQ((*one_by_one)->frequency().shared_size(),
            (*batched)->frequency().shared_size());
  EXPECT_THAT(Problems(**batched), IsEmpty());
}

TEST(ProtectedIndexTest, RepeatedIdOrTextInABatchCommitsTheBatchFirst) {
  TempDir tmp;
  auto index = ProtectedIndex::Create(tmp.Sub("idx"), SmallRows());
  ASSERT_TRUE(index.ok());
  const auto& docs = RealDocuments();
  ASSERT_TRUE((*index)->Stage(Prepared(**index, docs[0])).ok());
  ASSERT_TRUE((*index)->Stage(Prepared(**index, docs[1])).ok());
  // The same text under another id: a duplicate of the pending document.
  TextDoc copy{"copy", docs[0].text};
  auto duplicate = (*index)->Stage(Prepared(**index, copy));
  ASSERT_TRUE(duplicate.ok()) << duplicate.status();
  EXPECT_EQ(duplicate->outcome, AddOutcome::kDuplicateContent);
  EXPECT_EQ(duplicate->existing_id, docs[0].id);
  EXPECT_EQ((*index)->pending(), 0u);  // committed to find it
  // The same id with new text: a replacement of the committed document.
  ASSERT_TRUE((*index)->Stage(Prepared(**index, docs[2])).ok());
  TextDoc changed{docs[1].id, docs[3].text};
  auto replaced = (*index)->Stage(Prepared(**index, changed));
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(replaced->outcome, AddOutcome::kReplaced);
  ASSERT_TRUE((*index)->Commit().ok());
  EXPECT_EQ((*index)->matrix().documents(), 3u);
  EXPECT_THAT(Problems(**index), IsEmpty());
}

TEST(ProtectedIndexTest, TextReplacedAwayInABatchCanBeStagedUnderAnotherId) {
  TempDir tmp;
  auto index = ProtectedIndex::Create(tmp.Sub("idx"), SmallRows());
  ASSERT_TRUE(index.ok());
  const auto& docs = RealDocuments();
  ASSERT_TRUE(AddDoc(**index, docs[0]).ok());
  // In one batch, docs[0]'s id gets docs[1]'s text and its old text moves
  // to a new id (a file renamed and another written in its place).
  TextDoc changed{docs[0].id, docs[1].text};
  auto replaced = (*index)->Stage(Prepared(**index, changed));
  ASSERT_TRUE(replaced.ok()) << replaced.status();
  EXPECT_EQ(replaced->outcome, AddOutcome::kReplaced);
  TextDoc moved{"moved", docs[0].text};
  auto added = (*index)->Stage(Prepared(**index, moved));
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(added->outcome, AddOutcome::kAdded);
  ASSERT_TRUE((*index)->Commit().ok());
  EXPECT_EQ((*index)->matrix().documents(), 2u);
  EXPECT_TRUE(CandidateIds(**index, docs[0].text).contains("moved"));
  EXPECT_TRUE(CandidateIds(**index, docs[1].text).contains(docs[0].id));
  EXPECT_THAT(Problems(**index), IsEmpty());
}

TEST(ProtectedIndexTest, DestroyingAWriterDropsWhatIsStaged) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  {
    auto index = ProtectedIndex::Create(dir, SmallRows());
    ASSERT_TRUE(index.ok());
    ASSERT_TRUE(AddDoc(**index, docs[0]).ok());
    ASSERT_TRUE((*index)->Stage(Prepared(**index, docs[1])).ok());
  }
  auto reopened = ProtectedIndex::Open(dir, OpenMode::kWrite);
  ASSERT_TRUE(reopened.ok());
  EXPECT_EQ((*reopened)->matrix().documents(), 1u);
  EXPECT_THAT(Problems(**reopened), IsEmpty());
  // The id the dropped document had is free to use again.
  ASSERT_TRUE(AddDoc(**reopened, docs[1]).ok());
  EXPECT_THAT(Problems(**reopened), IsEmpty());
}

// The crash test's child (RunCrashTest below execs it): adds, removes and
// compacts real documents and adds and removes allow-list entries, writing
// a line to the parent after each operation returned, until killed.
TEST(ProtectedIndexCrashChild, RunsOperationsUntilKilled) {
  const char* spec = std::getenv("LEAKHOUND_CRASH_CHILD");
  if (spec == nullptr) GTEST_SKIP() << "the crash tests run this";
  std::istringstream fields(spec);
  std::string dir;
  uint64_t seed = 0;
  int fd = -1;
  int operations = 400;
  std::getline(fields, dir);
  fields >> seed >> fd >> operations;
  const auto& docs = RealDocuments();
  auto index = ProtectedIndex::Open(dir, OpenMode::kWrite);
  if (!index.ok()) ::_exit(3);
  std::mt19937_64 r(seed);
  for (int op = 0; op < operations; ++op) {
    const TextDoc& d = docs[r() % docs.size()];
    std::string line;
    const uint64_t what = r() % 20;
    if (what < 11) {
      auto res = AddDoc(**index, d);
      if (!res.ok()) ::_exit(4);
      line = "+" + d.id;
    } else if (what < 17) {
      auto res = (*index)->Remove(d.id);
      if (!res.ok() && res.status().code() != absl::StatusCode::kNotFound) {
        ::_exit(5);
      }
      line = "-" + d.id;
    } else if (what < 18) {
      if (!(*index)->Compact().ok()) ::_exit(6);
      line = "=";
    } else if (what < 19) {
      const std::string name = "allow" + std::to_string(r() % 8);
      if (!(*index)->AddAllowed(name, "test", d.text).ok()) ::_exit(8);
      line = "a" + name;
    } else {
      const std::string name = "allow" + std::to_string(r() % 8);
      absl::Status res = (*index)->RemoveAllowed(name);
      if (!res.ok() && res.code() != absl::StatusCode::kNotFound) ::_exit(9);
      line = "r" + name;
    }
    line += "\n";
    if (::write(fd, line.data(), line.size()) < 0) ::_exit(7);
  }
  ::_exit(0);
}

// Starts the writer child (ProtectedIndexCrashChild) on `dir` doing
// `operations` operations from `seed`, acknowledging each on pipe_fd[1];
// closes pipe_fd[1] in the parent. The child is this binary again, run
// fresh (fork + exec): a fork alone would inherit RocksDB's background
// threads' locks in whatever state they were, and could hang in its first
// Open. Returns the child's pid, or -1.
pid_t SpawnWriter(const std::string& dir, uint64_t seed, int operations,
                  const int pipe_fd[2]) {
  const std::string spec =
      absl::StrCat("LEAKHOUND_CRASH_CHILD=", dir, "\n", seed, "\n",
                   pipe_fd[1], "\n", operations);
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) env.push_back(*e);
  env.push_back(const_cast<char*>(spec.c_str()));
  env.push_back(nullptr);
  const char* filter = "--gtest_filter=ProtectedIndexCrashChild.*";
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fd[0]);
    ::execle("/proc/self/exe", "engine_test", filter, nullptr, env.data());
    ::_exit(10);
  }
  ::close(pipe_fd[1]);
  return child;
}

// Kills of the crash test: LEAKHOUND_CRASH_KILLS, else `fallback` (the
// suite's short run; docs/reliability.md has the long one).
int CrashKills(int fallback) {
  const char* env = std::getenv("LEAKHOUND_CRASH_KILLS");
  return env != nullptr ? std::max(1, std::atoi(env)) : fallback;
}

// Crash safety: a child process adds, removes and compacts real documents
// and adds and removes allow-list entries, and reports each operation after
// it returned; the parent kills it with SIGKILL at a random moment. After
// every kill the index must open, verify clean, and agree with every
// reported operation; the one in flight may be either fully applied or
// fully absent.
void RunCrashTest(const IndexOptions& options, int kills, uint64_t seed) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  ASSERT_TRUE(ProtectedIndex::Create(dir, options).ok());
  std::mt19937_64 rng(seed);
  std::set<std::string> present;  // documents the reported operations left
  std::set<std::string> allowed;  // allow-list entries, likewise
  int killed_mid_run = 0;
  size_t acknowledged = 0, in_flight_applied = 0;
  for (int iter = 0; iter < kills; ++iter) {
    int pipe_fd[2];
    ASSERT_EQ(::pipe(pipe_fd), 0);
    const pid_t child = SpawnWriter(dir, rng(), 400, pipe_fd);
    ASSERT_GE(child, 0);
    // Kill once the child has acknowledged a random number of operations
    // (0 to 24), after a random delay of up to 8 ms: inside an operation,
    // not while it opens the index.
    const auto wait_for = static_cast<size_t>(rng() % 25);
    std::string reported;
    char buf[4096];
    while (static_cast<size_t>(std::count(reported.begin(), reported.end(),
                                          '\n')) < wait_for) {
      const ssize_t n = ::read(pipe_fd[0], buf, sizeof buf);
      if (n <= 0) break;  // the child ended
      reported.append(buf, static_cast<size_t>(n));
    }
    ::usleep(static_cast<useconds_t>(rng() % 8000));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (WIFSIGNALED(status)) ++killed_mid_run;
    ASSERT_TRUE(WIFSIGNALED(status) || WEXITSTATUS(status) == 0)
        << "child failed with exit " << WEXITSTATUS(status);
    for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) > 0;) {
      reported.append(buf, static_cast<size_t>(n));
    }
    ::close(pipe_fd[0]);
    std::istringstream lines(reported);
    for (std::string line; std::getline(lines, line);) {
      ++acknowledged;
      if (line[0] == '+') present.insert(line.substr(1));
      if (line[0] == '-') present.erase(line.substr(1));
      if (line[0] == 'a') allowed.insert(line.substr(1));
      if (line[0] == 'r') allowed.erase(line.substr(1));
    }

    auto index = ProtectedIndex::Open(dir, OpenMode::kRead);
    ASSERT_TRUE(index.ok()) << "kill " << iter << ": " << index.status();
    ASSERT_THAT(Problems(**index), IsEmpty()) << "kill " << iter;
    // Reported operations hold; the in-flight one may differ by one id or
    // one allow-list entry.
    std::set<std::string> actual, actual_allowed;
    ASSERT_TRUE((*index)
                    ->ForEachDocument([&](uint32_t, const DocumentRecord& d) {
                      actual.insert(d.external_id);
                      return absl::OkStatus();
                    })
                    .ok());
    ASSERT_TRUE((*index)
                    ->store()
                    .ForEachAllowEntry([&](std::string_view name,
                                           const AllowRecord&) {
                      actual_allowed.emplace(name);
                      return absl::OkStatus();
                    })
                    .ok());
    std::vector<std::string> diff;
    std::set_symmetric_difference(present.begin(), present.end(),
                                  actual.begin(), actual.end(),
                                  std::back_inserter(diff));
    std::set_symmetric_difference(allowed.begin(), allowed.end(),
                                  actual_allowed.begin(), actual_allowed.end(),
                                  std::back_inserter(diff));
    ASSERT_LE(diff.size(), 1u) << "kill " << iter;
    in_flight_applied += diff.size();
    present = actual;  // adopt the in-flight operation's outcome
    allowed = actual_allowed;
    // Every present document is found by its own text.
    for (const std::string& id : actual) {
      auto it = std::find_if(docs.begin(), docs.end(),
                             [&](const TextDoc& d) { return d.id == id; });
      ASSERT_NE(it, docs.end());
      if ((std::hash<std::string>{}(id) + static_cast<size_t>(iter)) % 8 == 0 &&
          Findable(**index, *it)) {
        EXPECT_TRUE(CandidateIds(**index, it->text).contains(id)) << id;
      }
    }
  }
  // Most runs must really have been cut off mid-way, or the test proves
  // nothing.
  EXPECT_GE(killed_mid_run, kills * 3 / 4);
  std::printf("%d kills, %d mid-run, %zu operations acknowledged, %zu "
              "in-flight ones found applied; %zu documents and %zu "
              "allow-list entries at the end\n",
              kills, killed_mid_run, acknowledged, in_flight_applied,
              present.size(), allowed.size());
}

TEST(ProtectedIndexCrashTest, SigkillAtRandomMomentsNeverCorruptsTheIndex) {
  RunCrashTest(SmallRows(), CrashKills(30), 2026);
}

TEST(ProtectedIndexCrashTest, SigkillNeverCorruptsAnIndexWithRowGroups) {
  IndexOptions options = SmallRows();
  options.group_rows = 64;
  RunCrashTest(options, CrashKills(15), 2027);
}

// Seconds of the concurrency test: LEAKHOUND_CONCURRENCY_SECONDS, else 4
// (the suite's; docs/reliability.md has the long run).
int ConcurrencySeconds() {
  const char* env = std::getenv("LEAKHOUND_CONCURRENCY_SECONDS");
  return env != nullptr ? std::max(1, std::atoi(env)) : 4;
}

// A reader refreshes and queries in a loop while a writer process adds,
// removes, compacts and edits the allow-list: every refresh succeeds, every
// document the reader lists is whole (its own text finds it), and once the
// writer is done the reader converges to exactly its acknowledged state.
TEST(ProtectedIndexConcurrencyTest, AReaderNeverSeesAHalfAppliedChange) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  ASSERT_TRUE(ProtectedIndex::Create(dir, SmallRows()).ok());
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  ASSERT_TRUE(reader.ok()) << reader.status();
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::seconds(ConcurrencySeconds());
  std::mt19937_64 rng(99);
  size_t refreshes = 0, changes_seen = 0, documents_checked = 0, writers = 0;
  std::set<std::string> acknowledged;
  while (std::chrono::steady_clock::now() < deadline) {
    // One writer process at a time, each doing 300 operations.
    int pipe_fd[2];
    ASSERT_EQ(::pipe(pipe_fd), 0);
    const pid_t child = SpawnWriter(dir, rng(), 300, pipe_fd);
    ASSERT_GE(child, 0);
    ++writers;
    ::fcntl(pipe_fd[0], F_SETFL, O_NONBLOCK);
    std::string reported;
    bool writer_done = false;
    while (!writer_done) {
      char buf[4096];
      for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) > 0;) {
        reported.append(buf, static_cast<size_t>(n));
      }
      int status = 0;
      if (::waitpid(child, &status, WNOHANG) == child) {
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
            << "writer failed with " << status;
        writer_done = true;
      }
      auto changed = (*reader)->Refresh();
      ASSERT_TRUE(changed.ok()) << changed.status() << " after " << refreshes;
      ++refreshes;
      changes_seen += *changed ? 1 : 0;
      std::vector<std::string> listed;
      ASSERT_TRUE((*reader)
                      ->ForEachDocument([&](uint32_t, const DocumentRecord& d) {
                        listed.push_back(d.external_id);
                        return absl::OkStatus();
                      })
                      .ok());
      // A secondary instance moves only when it catches up (in Refresh), so
      // the records listed now and the filter loaded then are one state:
      // every listed document is in the filter's rows, and a sample of
      // them is found by its own text.
      ASSERT_EQ((*reader)->matrix().documents(), listed.size());
      for (const std::string& id : listed) {
        auto doc = (*reader)->store().FindExternalId(id);
        ASSERT_TRUE(doc.ok() && doc->has_value()) << id;
        ASSERT_FALSE((*reader)->matrix().RowsOf(**doc).empty()) << id;
        auto it = std::find_if(docs.begin(), docs.end(),
                               [&](const TextDoc& d) { return d.id == id; });
        ASSERT_NE(it, docs.end());
        if (rng() % 16 != 0 || !Findable(**reader, *it)) continue;
        ++documents_checked;
        EXPECT_TRUE(CandidateIds(**reader, it->text).contains(id)) << id;
      }
    }
    ::close(pipe_fd[0]);
    std::istringstream lines(reported);
    for (std::string line; std::getline(lines, line);) {
      if (line[0] == '+') acknowledged.insert(line.substr(1));
      if (line[0] == '-') acknowledged.erase(line.substr(1));
    }
  }
  // Converged: the reader holds exactly what the writers acknowledged.
  ASSERT_TRUE((*reader)->Refresh().ok());
  std::set<std::string> final_ids;
  ASSERT_TRUE((*reader)
                  ->ForEachDocument([&](uint32_t, const DocumentRecord& d) {
                    final_ids.insert(d.external_id);
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_EQ(final_ids, acknowledged);
  EXPECT_EQ((*reader)->matrix().documents(), acknowledged.size());
  EXPECT_THAT(Problems(**reader), IsEmpty());
  EXPECT_GT(changes_seen, writers);  // the reader saw changes mid-run
  std::printf("%zu writers, %zu refreshes (%zu saw a change), %zu documents "
              "checked by their text, %zu documents at the end; %llu torn "
              "views loaded again\n",
              writers, refreshes, changes_seen, documents_checked,
              final_ids.size(),
              static_cast<unsigned long long>((*reader)->torn_views()));
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

// What an index holds, as a user sees it: each document's id and digest,
// each allow-list entry's name and digest.
struct Contents {
  std::map<std::string, std::string> documents;
  std::map<std::string, std::string> allowed;
  bool operator==(const Contents&) const = default;
};

Contents ContentsOf(const ProtectedIndex& index) {
  Contents c;
  EXPECT_TRUE(index
                  .ForEachDocument([&](uint32_t, const DocumentRecord& d) {
                    c.documents[d.external_id] = d.digest;
                    return absl::OkStatus();
                  })
                  .ok());
  EXPECT_TRUE(index.store()
                  .ForEachAllowEntry([&](std::string_view name,
                                         const AllowRecord& a) {
                    c.allowed[std::string(name)] = a.digest;
                    return absl::OkStatus();
                  })
                  .ok());
  return c;
}

// One change the fault sweep cuts short.
struct FaultedOperation {
  const char* name;
  std::function<absl::Status(ProtectedIndex&)> run;
};

std::vector<FaultedOperation> FaultedOperations() {
  const auto& docs = RealDocuments();
  return {
      {"add", [&](ProtectedIndex& i) { return AddDoc(i, docs[30]).status(); }},
      {"replace",
       [&](ProtectedIndex& i) {
         return AddDoc(i, {docs[0].id, docs[31].text}).status();
       }},
      {"add a batch",
       [&](ProtectedIndex& i) {
         auto shingler = i.NewShingler();
         if (!shingler.ok()) return shingler.status();
         for (size_t k = 32; k < 36; ++k) {
           auto prepared = ProtectedIndex::Prepare(
               **shingler, {docs[k].id, "test", {}, docs[k].text});
           if (!prepared.ok()) return prepared.status();
           auto staged = i.Stage(*std::move(prepared));
           if (!staged.ok()) return staged.status();
         }
         return i.Commit();
       }},
      {"remove",
       [&](ProtectedIndex& i) { return i.Remove(docs[3].id).status(); }},
      {"compact", [](ProtectedIndex& i) { return i.Compact(1.0).status(); }},
      {"allow",
       [&](ProtectedIndex& i) {
         return i.AddAllowed("boilerplate", "test", docs[40].text).status();
       }},
      {"unallow",
       [](ProtectedIndex& i) { return i.RemoveAllowed("disclaimer"); }},
  };
}

// The fault tests' directory: in memory where there is /dev/shm (a trial
// syncs a dozen times; the faults, not the medium, are under test).
fs::path FaultTestBase() {
  std::error_code ec;
  if (fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0) {
    return "/dev/shm";
  }
  return fs::temp_directory_path();
}

// LEAKHOUND_IO_FAULT_SWEEP=full fails every I/O of every operation in turn
// (and one past the last: no fault); the default tries the first, the
// middle and the last.
bool FullSweep() {
  const char* v = std::getenv("LEAKHOUND_IO_FAULT_SWEEP");
  return v != nullptr && std::string(v) == "full";
}

std::vector<uint64_t> FaultPoints(uint64_t total) {
  std::set<uint64_t> points;
  if (FullSweep()) {
    for (uint64_t n = 1; n <= total + 1; ++n) points.insert(n);
  } else {
    for (uint64_t n : {uint64_t{1}, (total + 1) / 2, total}) {
      if (n >= 1) points.insert(n);
    }
  }
  return {points.begin(), points.end()};
}

struct FaultTally {
  int trials = 0, completed = 0, failed_as_before = 0, failed_as_after = 0;
  int failed_open = 0;
};

// Each operation of FaultedOperations, on a copy of one index, with the
// n-th I/O of one kind failing (and, sticky, every one after it), for n
// over the I/Os the operation does unfaulted. After each: the index opens
// without faults, verify finds nothing, and it holds what it held before
// or (only) what the operation makes of it, the latter whenever the
// operation reported success; a failure is one line. Then it takes a new
// document.
TEST(ProtectedIndexIoFaultTest,
     AFailedReadWriteOrSyncLeavesTheIndexBeforeOrAfter) {
  const auto& docs = RealDocuments();
  ASSERT_GT(docs.size(), 45u);
  TempDir tmp(FaultTestBase());
  const std::string baseline = tmp.Sub("baseline");
  {
    auto index = CreateWith(baseline, 24);
    ASSERT_TRUE(index.ok()) << index.status();
    ASSERT_TRUE((*index)->Remove(docs[6].id).ok());
    ASSERT_TRUE((*index)->Remove(docs[7].id).ok());
    ASSERT_TRUE((*index)->AddAllowed("disclaimer", "test", docs[41].text).ok());
  }
  struct Kind {
    const char* name;
    uint32_t mask;
  };
  const Kind kinds[] = {{"write", IoMask(IoKind::kWrite)},
                        {"sync", IoMask(IoKind::kSync)},
                        {"metadata", IoMask(IoKind::kMetadata)},
                        {"read", IoMask(IoKind::kRead)}};
  int trial_id = 0;
  auto copy = [&] {
    const std::string dir = tmp.Sub("trial-" + std::to_string(trial_id++));
    fs::copy(baseline, dir, fs::copy_options::recursive);
    return dir;
  };
  FaultTally tally;
  for (const FaultedOperation& op : FaultedOperations()) {
    // The unfaulted run: what the operation makes of the index, and how
    // many I/Os of each kind it does.
    Contents before, after;
    IoFaults counter;
    std::array<uint64_t, 4> total{};
    {
      const std::string dir = copy();
      auto index =
          ProtectedIndex::OpenWithFaults(dir, OpenMode::kWrite, &counter);
      ASSERT_TRUE(index.ok()) << index.status();
      before = ContentsOf(**index);
      counter.Arm(0, 1, false);  // counts, fails nothing
      ASSERT_TRUE(op.run(**index).ok()) << op.name;
      for (size_t k = 0; k < 4; ++k) {
        total[k] = counter.seen(static_cast<IoKind>(k));
      }
      after = ContentsOf(**index);
      fs::remove_all(dir);
    }
    for (const Kind& kind : kinds) {
      const uint64_t ops =
          total[static_cast<size_t>(std::countr_zero(kind.mask))];
      for (bool sticky : {false, true}) {
        for (uint64_t n : FaultPoints(ops)) {
          SCOPED_TRACE(testing::Message() << op.name << ": " << kind.name
                                          << " " << n << " of " << ops
                                          << (sticky ? ", sticky" : ""));
          const std::string dir = copy();
          IoFaults faults;
          absl::Status status;
          {
            auto index =
                ProtectedIndex::OpenWithFaults(dir, OpenMode::kWrite, &faults);
            ASSERT_TRUE(index.ok()) << index.status();
            faults.Arm(kind.mask, n, sticky);
            status = op.run(**index);
            if (!sticky) faults.Disarm();
          }  // closed as the fault left it
          faults.Disarm();
          ++tally.trials;
          if (!status.ok()) {
            EXPECT_GT(faults.injected(), 0u) << status;
            EXPECT_EQ(status.message().find('\n'), std::string::npos) << status;
          }
          auto reopened = ProtectedIndex::Open(dir, OpenMode::kWrite);
          ASSERT_TRUE(reopened.ok()) << reopened.status();
          EXPECT_THAT(Problems(**reopened), IsEmpty());
          const Contents now = ContentsOf(**reopened);
          if (status.ok()) {
            ++tally.completed;
            EXPECT_TRUE(now == after);
          } else if (now == before) {
            ++tally.failed_as_before;
          } else {
            ++tally.failed_as_after;
            EXPECT_TRUE(now == after) << "neither before nor after: " << status;
          }
          for (const TextDoc& d : docs) {
            auto held = now.documents.find(d.id);
            if (held != now.documents.end() &&
                held->second == ContentDigest(d.text) &&
                Findable(**reopened, d)) {
              EXPECT_TRUE(CandidateIds(**reopened, d.text).contains(d.id))
                  << d.id;
            }
          }
          EXPECT_TRUE(AddDoc(**reopened, docs[44]).ok());
          reopened->reset();
          fs::remove_all(dir);
        }
      }
    }
  }
  std::printf("I/O fault sweep: %d trials: %d completed, %d failed leaving "
              "the index as before, %d failed with the change applied\n",
              tally.trials, tally.completed, tally.failed_as_before,
              tally.failed_as_after);
}

// Opening is cut short too: with the n-th read, write, sync or metadata
// operation of the open failing, it opens or returns one line; either way
// it opens unfaulted afterwards, whole.
TEST(ProtectedIndexIoFaultTest, AFaultWhileOpeningLeavesTheIndexWhole) {
  TempDir tmp(FaultTestBase());
  const std::string dir = tmp.Sub("index");
  Contents contents;
  {
    auto index = CreateWith(dir, 16);
    ASSERT_TRUE(index.ok()) << index.status();
    contents = ContentsOf(**index);
  }
  IoFaults counter;
  counter.Arm(0, 1, false);
  ASSERT_TRUE(
      ProtectedIndex::OpenWithFaults(dir, OpenMode::kWrite, &counter).ok());
  int failed = 0, trials = 0;
  for (IoKind kind : {IoKind::kRead, IoKind::kWrite, IoKind::kSync,
                      IoKind::kMetadata}) {
    const uint64_t ops = counter.seen(kind);
    for (uint64_t n : FaultPoints(ops)) {
      SCOPED_TRACE(testing::Message() << "kind " << static_cast<int>(kind)
                                      << ": " << n << " of " << ops);
      IoFaults faults;
      faults.Arm(IoMask(kind), n, true);
      {
        auto index =
            ProtectedIndex::OpenWithFaults(dir, OpenMode::kWrite, &faults);
        ++trials;
        if (!index.ok()) {
          ++failed;
          EXPECT_EQ(index.status().message().find('\n'), std::string::npos)
              << index.status();
        }
      }
      auto index = ProtectedIndex::Open(dir, OpenMode::kWrite);
      ASSERT_TRUE(index.ok()) << index.status();
      EXPECT_THAT(Problems(**index), IsEmpty());
      EXPECT_TRUE(ContentsOf(**index) == contents);
    }
  }
  std::printf("open under I/O faults: %d trials, %d refused\n", trials, failed);
  EXPECT_GT(failed, 0);
}

}  // namespace
}  // namespace leakhound

namespace leakhound {
namespace {

// The console's pages: a page of documents, and the documents whose id
// contains a text, are read from a cursor without walking the others.
TEST(ProtectedIndexTest, DocumentsArePagedFromACursorInIdAndTextOrder) {
  TempDir tmp;
  const std::string dir = tmp.Sub("idx");
  const auto& docs = RealDocuments();
  ASSERT_GE(docs.size(), 12u);
  auto index = CreateWith(dir, 12);
  ASSERT_TRUE(index.ok()) << index.status();
  ASSERT_TRUE((*index)->Remove(docs[3].id).ok());
  std::vector<uint32_t> every;
  ASSERT_TRUE((*index)
                  ->ForEachDocument([&](uint32_t id, const DocumentRecord&) {
                    every.push_back(id);
                    return absl::OkStatus();
                  })
                  .ok());
  ASSERT_EQ(every.size(), 11u);
  // Pages of 4 from each page's last id + 1 are every document once.
  std::vector<uint32_t> paged;
  uint32_t from = 0;
  for (int pages = 0; pages < 10; ++pages) {
    auto page = (*index)->DocumentsFrom(from, 4);
    ASSERT_TRUE(page.ok()) << page.status();
    ASSERT_LE(page->size(), 4u);
    for (const auto& [id, d] : *page) {
      paged.push_back(id);
      EXPECT_FALSE(d.external_id.empty());
    }
    if (page->size() < 4) break;
    from = page->back().first + 1;
  }
  EXPECT_EQ(paged, every);
  // The documents whose id contains a text, in id-text order, resumed from
  // the next one's id.
  std::vector<std::string> expected;
  const std::string text = docs[5].id.substr(0, 2);
  for (size_t i = 0; i < 12; ++i) {
    if (i != 3 && docs[i].id.find(text) != std::string::npos) {
      expected.push_back(docs[i].id);
    }
  }
  std::sort(expected.begin(), expected.end());
  ASSERT_FALSE(expected.empty());
  auto first = (*index)->FindDocuments(text, "", 1);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].second.external_id, expected[0]);
  auto all = (*index)->FindDocuments(text, "", 100);
  ASSERT_TRUE(all.ok()) << all.status();
  std::vector<std::string> found;
  for (const auto& [id, d] : *all) found.push_back(d.external_id);
  EXPECT_EQ(found, expected);
  if (expected.size() > 1) {
    auto rest = (*index)->FindDocuments(text, expected[1], 100);
    ASSERT_TRUE(rest.ok()) << rest.status();
    ASSERT_EQ(rest->size(), expected.size() - 1);
    EXPECT_EQ((*rest)[0].second.external_id, expected[1]);
  }
  auto none = (*index)->FindDocuments("no document has this id", "", 100);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_TRUE(none->empty());
  // A removed document is not found by its id.
  auto removed = (*index)->FindDocuments(docs[3].id, "", 100);
  ASSERT_TRUE(removed.ok()) << removed.status();
  for (const auto& [id, d] : *removed) EXPECT_NE(d.external_id, docs[3].id);
  // Searches are of the generation searched: the document added back
  // after the searches above is found.
  ASSERT_TRUE(AddDoc(**index, docs[3]).ok());
  auto back = (*index)->FindDocuments(docs[3].id, "", 100);
  ASSERT_TRUE(back.ok()) << back.status();
  std::vector<std::string> back_ids;
  for (const auto& [id, d] : *back) back_ids.push_back(d.external_id);
  EXPECT_THAT(back_ids, ::testing::Contains(docs[3].id));
  // No id holds a NUL.
  auto nul = (*index)->FindDocuments(std::string_view("a\0b", 3), "", 100);
  ASSERT_TRUE(nul.ok());
  EXPECT_TRUE(nul->empty());
}

}  // namespace
}  // namespace leakhound
