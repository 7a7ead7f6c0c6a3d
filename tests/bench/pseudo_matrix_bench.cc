// Query cost of the pseudo-matrix Bloom filter, side by side in one run:
//  - Paper: the paper's layout and score, a full AND-popcount scan of every
//    row (RowMajorMatrix::CountAndPopcount), per query.
//  - Sliced: leakhound's default, bit-sliced membership counting
//    (BitSlicedMatrix::CountMembership) including the fingerprints' bit
//    positions.
//  - SideBySide: the two interleaved query by query, with their ratio.
//  - ReadFloor: the bytes each must read, read without computing.
// Rows hold random bits at the density random fingerprints leave,
// f = 1 - exp(-k fill n / m), loaded with RowMatrix::SetRows: the cost of a
// query depends only on that density, and inserting 552M fingerprints bit
// by bit would dominate the run.
// Also: memory per stored fingerprint of a real PseudoMatrix (Add path),
// and the cost of adding documents as the matrix fills.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>
#include <memory>
#include <random>
#include <utility>
#include <vector>

#include "engine/filter/bloom_geometry.h"
#include "engine/filter/matrix_bytes.h"
#include "engine/filter/pseudo_matrix.h"
#include "engine/filter/row_matrix.h"

namespace leakhound {
namespace {

struct Setup {
  BloomGeometry geometry;
  std::unique_ptr<RowMatrix> matrix;
};

// Matrices are cached by (layout, rows, capacity) for the whole run.
const Setup& GetSetup(bool sliced, uint32_t rows, double fpr,
                      uint32_t capacity) {
  static std::map<std::tuple<bool, uint32_t, uint32_t>, Setup> cache;
  auto key = std::make_tuple(sliced, rows, capacity);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  Setup s{*BloomGeometry::FromParams({fpr, capacity, 1.0}), nullptr};
  s.matrix = sliced ? NewBitSlicedMatrix(s.geometry.bits)
                    : NewRowMajorMatrix(s.geometry.bits);
  s.matrix->Reserve(rows);
  for (uint32_t r = 0; r < rows; ++r) s.matrix->AddRow();
  // Each bit set with probability f, as random fingerprints would leave it.
  const double f = 1 - std::exp(-static_cast<double>(s.geometry.hashes) *
                                capacity / s.geometry.bits);
  const uint32_t row_words = (s.geometry.bits + 63) / 64;
  std::mt19937_64 rng(rows);
  std::bernoulli_distribution coin(f);
  const uint32_t batch = 64;
  std::vector<uint64_t> words(size_t{batch} * row_words);
  for (uint32_t first = 0; first < rows; first += batch) {
    const uint32_t count = std::min(batch, rows - first);
    // f is close to 1/2 for the geometries below: combine random words to
    // the nearest of 1/2 (a), 1/4 (a & b) or 3/4 (a | b).
    for (size_t i = 0; i < size_t{count} * row_words; ++i) {
      const uint64_t a = rng(), b = rng();
      words[i] = f < 0.375 ? (a & b) : f > 0.625 ? (a | b) : a;
    }
    s.matrix->SetRows(first, count,
                      std::span<const uint64_t>(words.data(),
                                                size_t{count} * row_words));
  }
  return cache[key] = std::move(s);
}

// Each iteration runs the next of kQueries different queries: one query
// repeated would find its few MB of slices in the L3 cache after the first
// run, which a gateway scanning different mails never does. 64 queries of
// 500 fingerprints already read more slice data than the 32 MB L3 holds.
constexpr size_t kQueries = 64;

std::vector<std::vector<uint64_t>> RandomQueries(size_t q) {
  std::mt19937_64 rng(q * 7919);
  std::vector<std::vector<uint64_t>> queries(kQueries,
                                             std::vector<uint64_t>(q));
  for (auto& query : queries) {
    for (auto& x : query) x = rng();
  }
  return queries;
}


using Clock = std::chrono::steady_clock;

// Sets counters `base` and `other` to the mean milliseconds per iteration of
// two timed parts, and `ratio` to other / base.
void ReportPair(benchmark::State& state, const char* base_name,
                Clock::duration base, const char* other_name,
                Clock::duration other, const char* ratio_name) {
  const auto ms = [&](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count() /
           static_cast<double>(state.iterations());
  };
  state.counters[base_name] = ms(base);
  state.counters[other_name] = ms(other);
  state.counters[ratio_name] = ms(other) / ms(base);
}

// Runs queries of state.range(0) fingerprints: bit-sliced membership
// counting, or the paper's AND-popcount score (`paper`).
void RunQueries(benchmark::State& state, const Setup& s, bool paper) {
  const auto q = static_cast<size_t>(state.range(0));
  const std::vector<std::vector<uint64_t>> queries = RandomQueries(q);
  size_t next = 0;
  const uint32_t k = s.geometry.hashes;
  std::vector<uint32_t> positions(q * k);
  std::vector<uint32_t> counts(s.matrix->rows());
  for (auto _ : state) {
    BitPositions(queries[next++ % kQueries], s.geometry, positions);
    std::fill(counts.begin(), counts.end(), 0);
    if (paper) {
      s.matrix->CountAndPopcount(positions, counts);  // builds the query filter
    } else {
      s.matrix->CountMembership(positions, k, counts);
    }
    benchmark::DoNotOptimize(counts.data());
  }
  state.counters["rows"] = s.matrix->rows();
  state.counters["matrix_MB"] = s.matrix->MemoryBytes() / 1e6;
}

// The paper's Table 1: p = 0.05, n = 123,000 -> m = 766,933, k = 4, d = 4,489.
void BM_Table1_Paper_AndPopcountScan(benchmark::State& state) {
  RunQueries(state, GetSetup(false, 4489, 0.05, 123000), /*paper=*/true);
}
void BM_Table1_Sliced_Membership(benchmark::State& state) {
  RunQueries(state, GetSetup(true, 4489, 0.05, 123000), /*paper=*/false);
}
BENCHMARK(BM_Table1_Paper_AndPopcountScan)
    ->Arg(2000)->Arg(38000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Table1_Sliced_Membership)
    ->Arg(500)->Arg(2000)->Arg(10000)->Arg(38000)
    ->Unit(benchmark::kMillisecond);

// The two above interleaved: each iteration runs the next query through the
// paper's scan and then through bit-sliced membership counting, timing
// each, so both see the same moment of this shared machine's memory
// bandwidth (which drifts by up to 1.6x between runs). Counters: mean
// milliseconds of each and `ratio`, total sliced time over total scan time.
void BM_Table1_SideBySide(benchmark::State& state) {
  const Setup& paper = GetSetup(false, 4489, 0.05, 123000);
  const Setup& sliced = GetSetup(true, 4489, 0.05, 123000);
  const auto q = static_cast<size_t>(state.range(0));
  const std::vector<std::vector<uint64_t>> queries = RandomQueries(q);
  const uint32_t k = paper.geometry.hashes;
  std::vector<uint32_t> positions(q * k);
  std::vector<uint32_t> counts(paper.matrix->rows());
  Clock::duration scan{}, membership{};
  size_t next = 0;
  for (auto _ : state) {
    const std::vector<uint64_t>& fps = queries[next++ % kQueries];
    const auto t0 = Clock::now();
    BitPositions(fps, paper.geometry, positions);
    std::fill(counts.begin(), counts.end(), 0);
    paper.matrix->CountAndPopcount(positions, counts);
    benchmark::DoNotOptimize(counts.data());
    const auto t1 = Clock::now();
    BitPositions(fps, sliced.geometry, positions);
    std::fill(counts.begin(), counts.end(), 0);
    sliced.matrix->CountMembership(positions, k, counts);
    benchmark::DoNotOptimize(counts.data());
    const auto t2 = Clock::now();
    scan += t1 - t0;
    membership += t2 - t1;
  }
  ReportPair(state, "scan_ms", scan, "sliced_ms", membership, "ratio");
}
BENCHMARK(BM_Table1_SideBySide)
    ->Arg(2000)->Arg(38000)->Unit(benchmark::kMillisecond);

// The memory floor behind the ratio above, without computing anything: in
// a block laid out as the Table 1 bit-sliced matrix (m slices of 562
// bytes, random bits, 2 MiB pages), each iteration reads the whole block in
// order (what any full scan must read) and then only the distinct slices
// of the next query, in ascending address order (the least any bit-sliced
// query must read, in its most favourable order; the sort is not timed).
// Counters: mean milliseconds of each read and `floor_ratio`, their ratio.
void BM_Table1_ReadFloor(benchmark::State& state) {
  const BloomGeometry& g = GetSetup(true, 4489, 0.05, 123000).geometry;
  const size_t stride = (4489 + 7) / 8;
  const size_t bytes = size_t{g.bits} * stride;
  static const MatrixBytes block = [&] {
    // + 64: the last slice's last line ends past its last byte.
    MatrixBytes b = AllocateMatrixBytes(bytes + 64);
    std::mt19937_64 rng(3);
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
      const uint64_t w = rng();
      std::memcpy(b.get() + i, &w, 8);
    }
    return b;
  }();
  const auto q = static_cast<size_t>(state.range(0));
  const std::vector<std::vector<uint64_t>> queries = RandomQueries(q);
  std::vector<uint32_t> positions(q * g.hashes);
  auto xor_words = [](const unsigned char* p, size_t n, uint64_t* acc) {
    for (size_t i = 0; i + 64 <= n; i += 64) {
      for (size_t j = 0; j < 8; ++j) {
        uint64_t w;
        std::memcpy(&w, p + i + 8 * j, 8);
        acc[j] ^= w;
      }
    }
  };
  Clock::duration whole{}, slices{};
  size_t next = 0;
  uint64_t acc[8] = {};
  for (auto _ : state) {
    BitPositions(queries[next++ % kQueries], g, positions);
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()),
                    positions.end());
    const auto t0 = Clock::now();
    xor_words(block.get(), bytes, acc);
    benchmark::DoNotOptimize(acc);
    const auto t1 = Clock::now();
    for (size_t i = 0; i < positions.size(); ++i) {
      // Whole slices, 4 ahead. CountMembership prefetches whole slices 2
      // fingerprints (8 slices) ahead; other distances, up to 16
      // fingerprints, gained nothing (docs/engine.md).
      if (i + 4 < positions.size()) {
        const unsigned char* s =
            block.get() + size_t{positions[i + 4]} * stride;
        for (size_t b = 0; b < stride + 63; b += 64) __builtin_prefetch(s + b);
      }
      // The 64-byte lines covering the slice.
      const size_t begin = size_t{positions[i]} * stride / 64 * 64;
      const size_t end = (size_t{positions[i]} + 1) * stride;
      xor_words(block.get() + begin, (end - begin + 63) / 64 * 64, acc);
    }
    benchmark::DoNotOptimize(acc);
    const auto t2 = Clock::now();
    whole += t1 - t0;
    slices += t2 - t1;
    positions.resize(q * g.hashes);
  }
  ReportPair(state, "whole_read_ms", whole, "slices_read_ms", slices,
             "floor_ratio");
}
BENCHMARK(BM_Table1_ReadFloor)->Arg(38000)->Unit(benchmark::kMillisecond);

// The whole filter query of the product, PseudoMatrix::Query, at the
// Table 1 scale: membership counts plus the per-row statistics, without
// windows (window 0) and with the default windows of 256 fingerprints
// (state.range(1)), which count every half window separately. Every row
// holds one document filled to capacity; bits as in GetSetup.
void BM_Table1_Query(benchmark::State& state) {
  static std::unique_ptr<PseudoMatrix> pm = [] {
    PseudoMatrixOptions o;
    o.filter = {0.05, 123000, 1.0};
    // The row-major setup holds the same bits (same seed) and copies rows
    // out cheaply.
    const Setup& bits = GetSetup(false, 4489, 0.05, 123000);
    const uint32_t row_words = (bits.geometry.bits + 63) / 64;
    std::vector<RowInfo> rows(4489);
    std::vector<uint64_t> words(size_t{4489} * row_words);
    for (uint32_t r = 0; r < rows.size(); ++r) {
      const std::span<uint64_t> row(words.data() + size_t{r} * row_words,
                                    row_words);
      bits.matrix->GetRow(r, row);
      rows[r].segments = {Segment{r, 0, 123000}};
      rows[r].fingerprints = 123000;
      for (uint64_t w : row) {
        rows[r].bits_set += static_cast<uint32_t>(std::popcount(w));
      }
    }
    auto restored = *PseudoMatrix::Restore(o, std::move(rows), -1);
    restored->LoadRowBits(0, 4489, words);
    return restored;
  }();
  const auto q = static_cast<size_t>(state.range(0));
  QueryOptions options;
  options.window = static_cast<uint32_t>(state.range(1));
  const std::vector<std::vector<uint64_t>> queries = RandomQueries(q);
  size_t next = 0, candidates = 0;
  for (auto _ : state) {
    QueryResult result = pm->Query(queries[next++ % kQueries], options);
    candidates += result.candidates.size();
    benchmark::DoNotOptimize(result);
  }
  state.counters["candidates"] =
      static_cast<double>(candidates) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_Table1_Query)
    ->Args({2000, 0})->Args({2000, 256})->Args({38000, 0})->Args({38000, 256})
    ->Unit(benchmark::kMillisecond);

// Growth with d at leakhound's default p = 1e-3 and a 4,096-fingerprint row
// (m = 58,891 bits, k = 10), q = 2,000.
void BM_Rows_Sliced_Membership(benchmark::State& state) {
  RunQueries(state,
             GetSetup(true, static_cast<uint32_t>(state.range(1)), 1e-3, 4096),
             /*paper=*/false);
}
BENCHMARK(BM_Rows_Sliced_Membership)
    ->Args({2000, 1000})->Args({2000, 10000})->Args({2000, 100000})
    ->Unit(benchmark::kMillisecond);

// Query cost as the protected set grows, one level against two (row
// groups), at the default geometry (p = 1e-3, n = 4,096: m = 58,891, k = 10)
// and default windows, on one matrix per size: rows 1k, 10k, 100k, 1M.
// Documents of 3,000 fingerprints packed back to back, so most span two
// rows (the pseudo-matrix packing of typical text); row and group bits are
// random at about the density n fingerprints leave, f = 1 - e^(-kn/m) =
// 0.501, taken as 1/2 (a group holds G n fingerprints in G m bits: the
// same f). The last row
// is left free and then holds one added document of 3,000 real
// fingerprints, the "leak" a query can quote. Counters: ms per query,
// groups descended into, candidates, and the matrix's memory.
constexpr uint32_t kGroupRows = 256;

struct ScaleSetup {
  uint32_t rows = 0;
  std::unique_ptr<PseudoMatrix> pm;
  std::vector<uint64_t> leaked;  // the added document's fingerprints
};

// Fills `words` with random bits (probability 1/2 each) from splitmix64
// (gigabytes of bits: mt19937_64 took a third of the setup).
void RandomWords(uint64_t& state, std::span<uint64_t> words) {
  for (uint64_t& w : words) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    w = z ^ (z >> 31);
  }
}

ScaleSetup& GetScale(uint32_t rows) {
  static ScaleSetup s;
  if (s.rows == rows) return s;
  s.pm.reset();  // at 1M rows two matrices would not fit in memory
  PseudoMatrixOptions o;
  o.group_rows = kGroupRows;
  const BloomGeometry g = *BloomGeometry::FromParams(o.filter);
  const uint64_t per_row = g.fill_limit, per_doc = 3000;
  std::vector<RowInfo> infos(rows);
  for (uint32_t r = 0; r + 1 < rows; ++r) {  // the last row stays free
    const uint64_t begin = r * per_row, end = begin + per_row;
    for (uint64_t d = begin / per_doc; d * per_doc < end; ++d) {
      const uint64_t from = std::max(begin, d * per_doc);
      const uint64_t to = std::min(end, (d + 1) * per_doc);
      infos[r].segments.push_back(Segment{
          static_cast<DocId>(d), static_cast<uint32_t>(from - d * per_doc),
          static_cast<uint32_t>(to - d * per_doc)});
    }
    infos[r].fingerprints = static_cast<uint32_t>(per_row);
  }
  uint64_t rng = rows;
  const uint32_t row_words = (g.bits + 63) / 64;
  std::vector<uint64_t> words(size_t{64} * row_words);
  for (uint32_t first = 0; first + 1 < rows; first += 64) {
    const uint32_t count = std::min<uint32_t>(64, rows - 1 - first);
    RandomWords(rng,
                std::span<uint64_t>(words.data(), size_t{count} * row_words));
    for (uint32_t i = 0; i < count; ++i) {
      for (uint32_t w = 0; w < row_words; ++w) {
        infos[first + i].bits_set += static_cast<uint32_t>(
            std::popcount(words[size_t{i} * row_words + w]));
      }
    }
  }
  auto pm = *PseudoMatrix::Restore(o, std::move(infos), -1);
  rng = rows;  // the same words again, now loaded
  for (uint32_t first = 0; first + 1 < rows; first += 64) {
    const uint32_t count = std::min<uint32_t>(64, rows - 1 - first);
    const std::span<uint64_t> batch(words.data(), size_t{count} * row_words);
    RandomWords(rng, batch);
    pm->LoadRowBits(first, count, batch);
  }
  const uint32_t groups = (rows + kGroupRows - 1) / kGroupRows;
  const size_t group_words = (size_t{kGroupRows} * g.bits + 63) / 64;
  for (uint32_t first = 0; first < groups; first += 64) {  // whole transposes
    const uint32_t count = std::min<uint32_t>(64, groups - first);
    words.resize(count * group_words);
    RandomWords(rng, words);
    pm->LoadGroupBits(first, count, words);
  }
  s.leaked.resize(per_doc);
  RandomWords(rng, s.leaked);  // any distinct values do
  pm->Add(static_cast<DocId>(rows * per_row / per_doc + 1), s.leaked);
  s.pm = std::move(pm);
  s.rows = rows;
  return s;
}

// state.range: rows, two levels (1) or one (0), a leak (1: each query
// quotes 100 consecutive fingerprints of the added document) or none.
void BM_Scale_Query(benchmark::State& state) {
  ScaleSetup& s = GetScale(static_cast<uint32_t>(state.range(0)));
  QueryOptions options;
  options.use_groups = state.range(1) == 1;
  std::vector<std::vector<uint64_t>> queries = RandomQueries(2000);
  if (state.range(2) == 1) {
    for (size_t i = 0; i < queries.size(); ++i) {
      std::copy_n(s.leaked.begin() + static_cast<ptrdiff_t>(i * 40), 100,
                  queries[i].begin() + 900);
    }
  }
  size_t next = 0, candidates = 0, descended = 0;
  for (auto _ : state) {
    QueryResult result = s.pm->Query(queries[next++ % kQueries], options);
    candidates += result.candidates.size();
    descended += result.groups_descended;
    benchmark::DoNotOptimize(result);
  }
  const auto per = [&](size_t x) {
    return static_cast<double>(x) / static_cast<double>(state.iterations());
  };
  state.counters["candidates"] = per(candidates);
  state.counters["groups_descended"] = per(descended);
  state.counters["groups"] = (state.range(0) + kGroupRows - 1) / kGroupRows;
  state.counters["memory_MB"] = static_cast<double>(s.pm->MemoryBytes()) / 1e6;
  state.counters["row_bits_MB"] =
      static_cast<double>(s.pm->matrix().MemoryBytes()) / 1e6;
}
// Size by size (one matrix in memory at a time), each query kind on both.
BENCHMARK(BM_Scale_Query)
    ->Apply([](benchmark::internal::Benchmark* b) {
      for (int64_t rows : {1000, 10000, 100000, 1000000}) {
        for (int64_t leak : {0, 1}) {
          for (int64_t two_levels : {1, 0}) b->Args({rows, two_levels, leak});
        }
      }
    })
    ->Iterations(64)
    ->Unit(benchmark::kMillisecond);

// Bits per stored fingerprint of a real PseudoMatrix filled through Add:
// the bits, and the bits plus the row and document indexes.
void BM_MemoryPerFingerprint(benchmark::State& state) {
  const auto capacity = static_cast<uint32_t>(state.range(0));
  const auto target_rows = static_cast<size_t>(state.range(1));
  PseudoMatrixOptions o;
  o.filter = {1e-3, capacity, 1.0};
  std::mt19937_64 rng(5);
  std::unique_ptr<PseudoMatrix> pm;
  size_t stored = 0;
  for (auto _ : state) {
    pm = std::move(*PseudoMatrix::Create(o));
    stored = 0;
    std::vector<uint64_t> doc;
    for (DocId d = 0; stored < target_rows * capacity; ++d) {
      // Paper-like lengths: many short documents, a few long ones.
      const size_t n = (d % 20 == 0) ? 3 * capacity : 200 + rng() % 2000;
      doc.resize(n);
      for (auto& f : doc) f = rng();
      stored += pm->Add(d, doc);
    }
  }
  const double bits = pm->matrix().MemoryBytes() * 8.0;
  state.counters["bits_per_fp"] = bits / stored;
  state.counters["bits_per_fp_with_index"] = pm->MemoryBytes() * 8.0 / stored;
  state.counters["theory"] = -std::log(1e-3) / (std::log(2) * std::log(2));
  state.counters["rows"] = pm->rows().size();
}
// About 200 rows (the 64-row word granularity of the sliced layout shows)
// and about 2,000 rows.
BENCHMARK(BM_MemoryPerFingerprint)
    ->Args({4096, 200})->Args({16384, 200})->Args({4096, 2000})
    ->Iterations(1)->Unit(benchmark::kMillisecond);

// Adding many small documents (50 random fingerprints each, leakhound's
// default geometry) to an empty matrix, timed per document: the cost per
// document must not grow with the number already held.
void BM_AddDocuments(benchmark::State& state) {
  const auto documents = static_cast<DocId>(state.range(0));
  std::mt19937_64 rng(9);
  std::vector<uint64_t> doc(50);
  Clock::duration adding{};
  for (auto _ : state) {
    auto pm = std::move(*PseudoMatrix::Create(PseudoMatrixOptions{}));
    const auto t0 = Clock::now();
    for (DocId d = 0; d < documents; ++d) {
      for (auto& f : doc) f = rng();
      pm->Add(d, doc);
    }
    adding += Clock::now() - t0;
    benchmark::DoNotOptimize(pm->rows_in_use());
  }
  state.counters["us_per_doc"] =
      std::chrono::duration<double, std::micro>(adding).count() /
      static_cast<double>(state.iterations() * documents);
}
BENCHMARK(BM_AddDocuments)
    ->Arg(10000)->Arg(40000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
