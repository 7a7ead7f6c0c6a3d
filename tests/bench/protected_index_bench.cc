// The persistent index on a real RocksDB in a temporary directory, with the
// paper's length distribution (many short documents, a few long ones that
// span rows), default filter parameters (p = 1e-3, n = 4,096):
//  - RowsTouchedPerRemoval: how many rows removing each document rebuilds
//    (exactly the rows holding it), as shares of documents.
//  - Remove: removing one document and adding it back (two commits).
//  - Compact: after removing half the documents, repacking the rows.
//  - Open: opening the index as a reader (metadata, row index, row bits);
//    reported per GB of row bits. The files are in the page cache.
//  - OpenRows: the same for indexes of R rows of random bits, up to 1 GB of
//    row bits, against reading the index's files whole in the same process
//    (what `cat DIR/db/* > /dev/null` does), both from the page cache and,
//    when the process may write /proc/sys/vm/drop_caches (root), from disk.
// Documents are random words from a 5,000-word vocabulary: shingling real
// text costs the same, and a generated corpus can be made any size.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/protected_index.h"
#include "index/index_batch.h"
#include "index/index_store.h"
#include "index/record_codec.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

constexpr size_t kDocuments = 1000;

struct Corpus {
  std::string dir;
  std::vector<std::string> ids;
  std::vector<std::string> texts;
  ~Corpus() { fs::remove_all(fs::path(dir).parent_path()); }
};

std::string Words(std::mt19937_64& rng, size_t n) {
  static const std::vector<std::string> vocabulary = [] {
    std::vector<std::string> v;
    std::mt19937_64 r(7);
    for (int i = 0; i < 5000; ++i) {
      std::string w;
      const size_t len = 3 + r() % 8;
      for (size_t j = 0; j < len; ++j) w += static_cast<char>('a' + r() % 26);
      v.push_back(w);
    }
    return v;
  }();
  std::string text;
  for (size_t i = 0; i < n; ++i) {
    text += vocabulary[rng() % vocabulary.size()];
    text += (i % 15 == 14) ? ".\n" : " ";
  }
  return text;
}

// Paper-like lengths: 90 % of documents 100-3,000 words, 10 % 3,000-60,000
// (up to ~3.7 rows of 16,384 fingerprints).
Corpus& GetCorpus() {
  static Corpus* corpus = [] {
    auto* c = new Corpus;
    std::string tmpl =
        (fs::temp_directory_path() / "leakhound-bench-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    c->dir = tmpl + "/idx";
    std::mt19937_64 rng(11);
    auto index = ProtectedIndex::Create(c->dir, IndexOptions{});
    if (!index.ok()) std::abort();
    for (size_t i = 0; i < kDocuments; ++i) {
      const size_t words = (i % 10 == 0) ? 3000 + rng() % 57000
                                         : 100 + rng() % 2900;
      c->ids.push_back("doc-" + std::to_string(i));
      c->texts.push_back(Words(rng, words));
      auto added = (*index)->Add(
          DocumentInput{c->ids.back(), "", {}, c->texts.back()});
      if (!added.ok()) std::abort();
    }
    return c;
  }();
  return *corpus;
}

void BM_RowsTouchedPerRemoval(benchmark::State& state) {
  Corpus& c = GetCorpus();
  auto index = ProtectedIndex::Open(c.dir, OpenMode::kRead);
  if (!index.ok()) std::abort();
  size_t one = 0, two = 0, more = 0;
  for (auto _ : state) {
    one = two = more = 0;
    for (const std::string& id : c.ids) {
      auto doc = (*index)->store().FindExternalId(id);
      const size_t rows = (*index)->matrix().RowsOf(**doc).size();
      (rows <= 1 ? one : rows == 2 ? two : more) += 1;
    }
  }
  const double n = static_cast<double>(c.ids.size());
  state.counters["share_1_row"] = static_cast<double>(one) / n;
  state.counters["share_2_rows"] = static_cast<double>(two) / n;
  state.counters["share_3plus_rows"] = static_cast<double>(more) / n;
  state.counters["rows"] =
      static_cast<double>((*index)->matrix().rows().size());
}
BENCHMARK(BM_RowsTouchedPerRemoval)->Iterations(1);

void BM_RemoveAndReAdd(benchmark::State& state) {
  Corpus& c = GetCorpus();
  auto index = ProtectedIndex::Open(c.dir, OpenMode::kWrite);
  if (!index.ok()) std::abort();
  std::mt19937_64 rng(3);
  double rebuilt = 0;
  for (auto _ : state) {
    const size_t i = rng() % c.ids.size();
    auto stats = (*index)->Remove(c.ids[i]);
    if (!stats.ok()) std::abort();
    rebuilt += stats->rows_rebuilt();
    if (!(*index)->Add(DocumentInput{c.ids[i], "", {}, c.texts[i]}).ok()) {
      std::abort();
    }
  }
  state.counters["rows_rebuilt_per_removal"] =
      rebuilt / static_cast<double>(state.iterations());
}
BENCHMARK(BM_RemoveAndReAdd)->Iterations(50)->Unit(benchmark::kMillisecond);

void BM_Open(benchmark::State& state) {
  Corpus& c = GetCorpus();
  double bits_bytes = 0;
  for (auto _ : state) {
    auto index = ProtectedIndex::Open(c.dir, OpenMode::kRead);
    if (!index.ok()) std::abort();
    bits_bytes = static_cast<double>((*index)->matrix().rows().size()) *
                 (((*index)->metadata().bits + 63) / 64 * 8);
  }
  state.counters["row_bits_MB"] = bits_bytes / 1e6;
  state.counters["row_bits_GB_per_s"] = benchmark::Counter(
      bits_bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Open)->Unit(benchmark::kMillisecond);

uint64_t FileBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

// Reads every file under `dir` whole, as cat would.
void ReadFiles(const std::string& dir) {
  std::vector<char> buffer(size_t{1} << 20);
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::FILE* f = std::fopen(e.path().c_str(), "rb");
    if (f == nullptr) continue;
    while (std::fread(buffer.data(), 1, buffer.size(), f) > 0) {
    }
    std::fclose(f);
  }
}

template <typename Fn>
double SecondsOf(Fn fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

// Empties the page cache; false when not allowed (not root, a container).
bool DropCaches() {
  ::sync();
  std::FILE* f = std::fopen("/proc/sys/vm/drop_caches", "w");
  if (f == nullptr) return false;
  const bool ok = std::fputs("3\n", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

// Open time against the amount of row bits, separating the fixed cost
// (RocksDB's own open) from the per-byte cost: indexes of R rows of random
// bits at the default geometry, written straight through IndexStore (the
// load reads only the row table and the bits).
// A default index, empty, in a new temporary directory TMP (the index is
// TMP/idx): returns TMP, and its row size in bits in *bits.
std::string NewEmptyIndex(uint32_t* bits) {
  std::string tmpl =
      (fs::temp_directory_path() / "leakhound-bench-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
  auto index = ProtectedIndex::Create(tmpl + "/idx", IndexOptions{});
  if (!index.ok()) std::abort();
  *bits = (*index)->metadata().bits;
  return tmpl;
}

std::string SyntheticIndex(uint32_t documents, bool digest_recorded,
                           uint32_t per_row);

// Documents per row of BM_OpenRows: a row of n = 4,096 fingerprints holds
// about 6 documents of 5 KB of text (700 fingerprints each).
constexpr uint32_t kOpenRowsPerRow = 6;

void BM_OpenRows(benchmark::State& state) {
  const auto rows = static_cast<uint32_t>(state.range(0));
  const std::string tmpl =
      SyntheticIndex(rows * kOpenRowsPerRow, true, kOpenRowsPerRow);
  const std::string dir = tmpl + "/idx";
  uint32_t bits = 0;
  {
    auto store = IndexStore::Open(dir, IndexStore::Mode::kReader);
    if (!store.ok()) std::abort();
    bits = (*store)->metadata().bits;
  }
  // A writer's close leaves table files; the reads below see them all.
  double bits_bytes = 0;
  for (auto _ : state) {
    auto index = ProtectedIndex::Open(dir, OpenMode::kRead);
    if (!index.ok()) std::abort();
    bits_bytes = static_cast<double>(rows) * ((bits + 63) / 64 * 8);
  }
  state.counters["row_bits_MB"] = bits_bytes / 1e6;
  const double file_mb = static_cast<double>(FileBytes(dir)) / 1e6;
  state.counters["files_MB"] = file_mb;
  const double open_warm = SecondsOf([&] {
    if (!ProtectedIndex::Open(dir, OpenMode::kRead).ok()) std::abort();
  });
  const double read_warm = SecondsOf([&] { ReadFiles(dir); });
  state.counters["open_MB_per_s"] = file_mb / open_warm;
  state.counters["read_MB_per_s"] = file_mb / read_warm;
  if (DropCaches()) {
    const double read_cold = SecondsOf([&] { ReadFiles(dir); });
    if (!DropCaches()) std::abort();
    const double open_cold = SecondsOf([&] {
      if (!ProtectedIndex::Open(dir, OpenMode::kRead).ok()) std::abort();
    });
    state.counters["cold_open_MB_per_s"] = file_mb / open_cold;
    state.counters["cold_read_MB_per_s"] = file_mb / read_cold;
  }
  fs::remove_all(tmpl);
}
BENCHMARK(BM_OpenRows)->Arg(64)->Arg(1024)->Arg(8192)->Arg(136000)
    ->Iterations(3)->Unit(benchmark::kMillisecond);

// Writes row `row` holding documents [first, first + count), 256
// fingerprints each, over random bits, with their records and id maps;
// returns the row's RowHash (for the state's rows digest).
uint64_t PutSyntheticRow(IndexBatch& batch, std::mt19937_64& rng, uint32_t bits,
                         uint32_t row, uint32_t first, uint32_t count) {
  constexpr uint32_t kFingerprints = 256;
  std::string words(size_t{(bits + 63) / 64} * 8, '\0');
  static const std::string empty_list = EncodeRecord(FingerprintsRecord{});
  RowInfo info;
  for (size_t i = 0; i + 8 <= words.size(); i += 8) {
    const uint64_t w = rng() & rng();  // about a quarter of bits set
    info.bits_set += static_cast<uint32_t>(std::popcount(w));
    std::memcpy(words.data() + i, &w, 8);
  }
  RowRecord record;
  for (uint32_t d = first; d < first + count; ++d) {
    record.segments.push_back(SegmentRecord{d, 0, kFingerprints});
    info.segments.push_back(Segment{d, 0, kFingerprints});
    DocumentRecord doc;
    doc.external_id =
        "shares/finance/2026/document-" + std::to_string(d) + ".docx";
    doc.digest = std::string(32, '\0');
    std::memcpy(doc.digest.data(), &d, sizeof d);
    doc.fingerprints = doc.occurrences = kFingerprints;
    doc.rows = {row};
    batch.PutDocument(d, doc, empty_list);
  }
  info.fingerprints = record.fingerprints = count * kFingerprints;
  record.bits_set = info.bits_set;
  batch.PutRow(row, record, words);
  return RowHash(row, info);
}

// An index of `documents` documents written straight through IndexStore,
// `per_row` to a row (the row table, document records and id maps a reader
// loads and checks; empty fingerprint lists), its state with the rows
// digest (or, without `digest`, as a leakhound before StateRecord v2 wrote
// it). Returns the temporary directory holding DIR/idx.
constexpr uint32_t kSyntheticPerRow = 64;
std::string SyntheticIndex(uint32_t documents, bool digest_recorded,
                           uint32_t per_row = kSyntheticPerRow) {
  uint32_t bits = 0;
  const std::string tmpl = NewEmptyIndex(&bits);
  const std::string dir = tmpl + "/idx";
  auto store = IndexStore::Open(dir, IndexStore::Mode::kWriter);
  if (!store.ok()) std::abort();
  const uint32_t rows = (documents + per_row - 1) / per_row;
  std::mt19937_64 rng(documents);
  uint64_t digest = kRowsDigestSeed;
  for (uint32_t row = 0; row < rows; row += 16) {
    IndexBatch batch;
    for (uint32_t r = row; r < std::min(rows, row + 16); ++r) {
      const uint32_t first = r * per_row;
      digest ^= PutSyntheticRow(batch, rng, bits, r, first,
                                std::min(documents - first, per_row));
    }
    batch.PutState(StateRecord{std::min(documents, (row + 16) * per_row),
                               row + 1, -1, digest_recorded ? digest : 0});
    if (!(*store)->Commit(batch).ok()) std::abort();
  }
  return tmpl;
}

// Resident memory from /proc/self/status (`field`: "VmRSS:", or
// "VmHWM:", the peak since the last ResetPeakResident), in MB.
double ResidentMB(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) std::abort();
  char line[256];
  double kb = 0;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, field, std::strlen(field)) == 0) {
      kb = std::strtod(line + std::strlen(field), nullptr);
    }
  }
  std::fclose(f);
  return kb / 1e3;
}

// Sets VmHWM to the current resident size (Linux: clear_refs 5).
void ResetPeakResident() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (f == nullptr) std::abort();
  std::fputs("5", f);
  std::fclose(f);
}

// What a daemon pays on every --reload-seconds tick, and on a change, for
// an index of N documents (range(0)):
//  - RefreshUnchanged (range(1) 0): Refresh when nothing was committed
//    (reading the committed generation);
//  - RefreshAfterChange (range(1) 1): Refresh after a commit that adds a
//    row of 64 documents: a fresh store instance, the reader's filter
//    caught up in place (the row records hashed, only the changed rows
//    read: rows_read), the check limited to the rows changed since the
//    last view.
// With range(2) 0 the states record no rows digest (an index written
// before StateRecord v2): every view is checked whole, the baseline.
// full_view_check_ms: the check of every document (the first view's),
// measured apart on the last view.
void BM_Refresh(benchmark::State& state) {
  const auto documents = static_cast<uint32_t>(state.range(0));
  const bool change = state.range(1) != 0;
  const bool digest_recorded = state.range(2) != 0;
  const std::string tmpl = SyntheticIndex(documents, digest_recorded);
  const std::string dir = tmpl + "/idx";
  auto reader = ProtectedIndex::Open(dir, OpenMode::kRead);
  if (!reader.ok()) std::abort();
  auto writer = IndexStore::Open(dir, IndexStore::Mode::kWriter);
  if (!writer.ok()) std::abort();
  const uint32_t bits = (*writer)->metadata().bits;
  std::mt19937_64 rng(7);
  // The peak resident memory of the loop above the memory before it: what
  // the refreshes allocate (and the writer's commits, a few MB).
  ResetPeakResident();
  const double resident_before = ResidentMB("VmRSS:");
  for (auto _ : state) {
    if (change) {
      state.PauseTiming();
      StateRecord next = *(*writer)->ReadState();
      IndexBatch batch;
      const auto row = static_cast<uint32_t>(
          (next.next_doc_id + kSyntheticPerRow - 1) / kSyntheticPerRow);
      next.rows_digest ^= PutSyntheticRow(batch, rng, bits, row,
                                          row * kSyntheticPerRow,
                                          kSyntheticPerRow);
      next.next_doc_id = (row + 1) * kSyntheticPerRow;
      if (!digest_recorded) next.rows_digest = 0;
      ++next.generation;
      batch.PutState(next);
      if (!(*writer)->Commit(batch).ok()) std::abort();
      state.ResumeTiming();
    }
    auto refreshed = (*reader)->Refresh();
    if (!refreshed.ok() || *refreshed != change) std::abort();
  }
  const double peak_extra = ResidentMB("VmHWM:") - resident_before;
  const double check = SecondsOf([&] {
    size_t bad = 0;
    absl::Status s = (*reader)->ForEachDocument(
        [&](uint32_t id, const DocumentRecord& d) {
          if ((*reader)->matrix().RowsOf(id).empty()) ++bad;
          auto back = (*reader)->store().FindExternalId(d.external_id);
          if (!back.ok() || !back->has_value() || **back != id) ++bad;
          return absl::OkStatus();
        });
    if (!s.ok() || bad != 0) std::abort();
  });
  state.counters["full_view_check_ms"] = check * 1e3;
  state.counters["torn_views"] = static_cast<double>((*reader)->torn_views());
  const double filter_mb =
      static_cast<double>((*reader)->matrix().matrix().MemoryBytes()) / 1e6;
  state.counters["peak_per_filter"] = (filter_mb + peak_extra) / filter_mb;
  state.counters["rows_read"] = static_cast<double>((*reader)->rows_read());
  state.counters["rows"] =
      static_cast<double>((*reader)->matrix().rows().size());
  state.counters["filter_MB"] = filter_mb;
  state.counters["files_MB"] = static_cast<double>(FileBytes(dir)) / 1e6;
  reader->reset();
  writer->reset();
  fs::remove_all(tmpl);
}
BENCHMARK(BM_Refresh)
    ->Args({100000, 0, 1})->Args({100000, 1, 1})->Args({100000, 1, 0})
    ->Args({1000000, 0, 1})->Args({1000000, 1, 1})->Args({1000000, 1, 0})
    ->Iterations(5)->Unit(benchmark::kMillisecond);

// The console's documents page at N documents (range(0)), 100 rows and
// one more (which says where the next page starts):
//  - range(1) 0: a page from a random cursor (DocumentsFrom);
//  - range(1) 1: a search of the ids for a text one document holds
//    (FindDocuments): the worst case, a read of the whole catalog of ids
//    (catalog_ms: reading that catalog from the store, once per
//    generation, before the timed searches);
//  - range(1) 2: a search for a text every id holds, a page found at once;
//  - range(1) 3: the page as the console built it before (every document
//    record read and decoded per request), the baseline.
// The synthetic index is written once per N and kept for the four.
void BM_DocumentsPage(benchmark::State& state) {
  const auto documents = static_cast<uint32_t>(state.range(0));
  static std::map<uint32_t, std::string> built;
  // LEAKHOUND_BENCH_KEEP_INDEX=DIR keeps the largest index there, for
  // tests/bench/console_latency.py --index DIR.
  static struct Cleanup {
    ~Cleanup() {
      const char* keep = std::getenv("LEAKHOUND_BENCH_KEEP_INDEX");
      if (keep != nullptr && !built.empty() && !fs::exists(keep)) {
        fs::rename(built.rbegin()->second + "/idx", keep);
      }
      for (const auto& [n, tmpl] : built) fs::remove_all(tmpl);
    }
  } cleanup;
  std::string& tmpl = built[documents];
  if (tmpl.empty()) tmpl = SyntheticIndex(documents, true);
  auto reader = ProtectedIndex::Open(tmpl + "/idx", OpenMode::kRead);
  if (!reader.ok()) std::abort();
  const ProtectedIndex& index = **reader;
  // A search reads the catalog of ids once per generation (id_catalog.h):
  // measured apart, the loop times the searches after it.
  if (state.range(1) == 1 || state.range(1) == 2) {
    const double build = SecondsOf([&] {
      if (!index.FindDocuments("", "", 0).ok()) std::abort();
    });
    state.counters["catalog_ms"] = build * 1e3;
  }
  std::mt19937 rng(3);
  size_t rows = 0;
  for (auto _ : state) {
    switch (state.range(1)) {
      case 0: {
        auto page =
            index.DocumentsFrom(static_cast<uint32_t>(rng() % documents), 101);
        if (!page.ok()) std::abort();
        rows = page->size();
        break;
      }
      case 1:
      case 2: {
        auto page = index.FindDocuments(
            state.range(1) == 1 ? "/document-12345.docx" : "finance", "", 101);
        if (!page.ok() || page->empty()) std::abort();
        rows = page->size();
        break;
      }
      default: {
        const size_t first = rng() % documents;
        size_t seen = 0;
        std::vector<DocumentRecord> page;
        absl::Status s =
            index.ForEachDocument([&](uint32_t, const DocumentRecord& d) {
              if (seen++ >= first && page.size() < 101) page.push_back(d);
              return absl::OkStatus();
            });
        if (!s.ok()) std::abort();
        rows = page.size();
      }
    }
  }
  state.counters["rows"] = static_cast<double>(rows);
}
BENCHMARK(BM_DocumentsPage)
    ->Args({1000000, 0})
    ->Args({1000000, 1})
    ->Args({1000000, 2})
    ->Args({1000000, 3})
    ->Iterations(20)
    ->Unit(benchmark::kMillisecond);

// Last: it changes the corpus's index.
void BM_CompactAfterRemovingHalf(benchmark::State& state) {
  Corpus& c = GetCorpus();
  double freed = 0, rebuilt = 0, rows_before = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto index = ProtectedIndex::Open(c.dir, OpenMode::kWrite);
    if (!index.ok()) std::abort();
    for (size_t i = 0; i < c.ids.size(); i += 2) {
      if (!(*index)->Remove(c.ids[i]).ok()) std::abort();
    }
    rows_before = (*index)->matrix().rows_in_use();
    state.ResumeTiming();
    auto stats = (*index)->Compact();
    if (!stats.ok()) std::abort();
    freed = stats->rows_freed;
    rebuilt = stats->rows_rebuilt();
  }
  state.counters["rows_in_use_before"] = rows_before;
  state.counters["rows_rebuilt"] = rebuilt;
  state.counters["rows_freed"] = freed;
}
BENCHMARK(BM_CompactAfterRemovingHalf)->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
