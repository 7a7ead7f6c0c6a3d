// Exact data match and data identifiers (docs/records.md, "Measured"):
//   BM_PrimaryFind/N   one lookup in a primary set of N entries (half of
//                      them hits): the cost must not grow with the table.
//   BM_DataScan/...    DataScanner::Scan over number-dense text (orders,
//                      dates, phone numbers, card and IBAN numbers, none in
//                      the table), with the built-in identifiers only and
//                      with a table of 100,000 rows; BM_ShingleSameText
//                      shingles the same text, as document scanning does,
//                      for the side-by-side figure.
//   BM_FoldSpaces      the white-space folding each records scan does first.
// Run: build/tests/bench/records_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <fstream>
#include <random>
#include <string>

#include "cli/records/data_scanner.h"
#include "cli/records/folded_spaces.h"
#include "cli/records/record_schema.h"
#include "cli/records/table_loader.h"
#include "engine/protected_index.h"
#include "engine/record_tables.h"
#include "tests/temp_dir.h"

namespace leakhound {
namespace {

uint64_t Mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void BM_PrimaryFind(benchmark::State& state) {
  const auto n = static_cast<uint32_t>(state.range(0));
  std::vector<std::pair<uint64_t, uint32_t>> entries;
  entries.reserve(n);
  for (uint32_t i = 0; i < n; ++i) entries.emplace_back(Mix(i), i);
  const PrimarySet set = PrimarySet::Build(std::move(entries));
  std::vector<uint32_t> rows;
  uint64_t probe = 0, found = 0;
  for (auto _ : state) {
    // Even probes are in the set, odd ones are not.
    const uint64_t hash =
        (probe & 1) ? Mix(probe + (uint64_t{1} << 40)) : Mix((probe >> 1) % n);
    rows.clear();
    set.Find(hash, &rows);
    found += rows.size();
    ++probe;
  }
  benchmark::DoNotOptimize(found);
  state.counters["set_MiB"] =
      static_cast<double>(set.MemoryBytes()) / (1 << 20);
}
BENCHMARK(BM_PrimaryFind)->Arg(1000000)->Arg(10000000);

std::string Luhn(std::string body) {
  int sum = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    int d = body[body.size() - 1 - i] - '0';
    if (i % 2 == 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return body + static_cast<char>('0' + (10 - sum % 10) % 10);
}

std::string Digits(std::mt19937_64& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>('0' + rng() % 10));
  return s;
}

// About `bytes` of order lines full of numbers.
std::string NumberDenseText(size_t bytes) {
  std::mt19937_64 rng(42);
  std::string text;
  while (text.size() < bytes) {
    const std::string card = Luhn("4" + Digits(rng, 14));
    text += "2026-" + std::to_string(1 + rng() % 12) + "-" +
            std::to_string(1 + rng() % 28) + ";INV-" + Digits(rng, 6) + ";" +
            card.substr(0, 4) + " " + card.substr(4, 4) + " " +
            card.substr(8, 4) + " " + card.substr(12) + ";+49 30 " +
            Digits(rng, 7) + ";EUR " + Digits(rng, 4) + "," + Digits(rng, 2) +
            ";qty " + std::to_string(rng() % 100) + ";ref " + Digits(rng, 11) +
            ";DE" + Digits(rng, 20) + "\n";
  }
  return text;
}

constexpr char kSchema[] = R"(table = "customers"
[[column]]
name = "card"
type = "card"
primary = true
[[column]]
name = "email"
type = "email"
primary = true
[[column]]
name = "phone"
type = "phone"
[[column]]
name = "name"
type = "name"
)";

// An index with a 100,000-row table, made once.
struct Fixture {
  TempDir tmp;
  std::unique_ptr<ProtectedIndex> index;
  Fixture() {
    std::mt19937_64 rng(7);
    const std::string csv = tmp.Sub("t.csv");
    {
      std::ofstream out(csv);
      out << "card,email,phone,name\n";
      for (int i = 0; i < 100000; ++i) {
        out << Luhn("5" + Digits(rng, 14)) << ",user" << i
            << "@example.com,+44 20 " << Digits(rng, 8) << ",Name" << i
            << " Surname\n";
      }
    }
    index = *ProtectedIndex::Create(tmp.Sub("idx"), IndexOptions());
    TableLoadOptions options;
    options.name = "customers";
    options.path = csv;
    if (!LoadTable(*index, *ParseRecordSchema(kSchema, "s"), options).ok()) {
      std::abort();
    }
  }
};

void BM_DataScan(benchmark::State& state, bool with_table) {
  static Fixture* fixture = new Fixture();
  static const std::string text = NumberDenseText(size_t{4} << 20);
  ProtectedIndex& index = *fixture->index;
  auto scanner = DataScanner::Create(
      BuiltInIdentifiers(),
      with_table ? index.record_tables() : std::make_shared<RecordTables>(),
      &index.store(), index.store().key());
  auto session = (*scanner)->NewSession();
  size_t cards = 0;
  for (auto _ : state) {
    auto found = (*scanner)->Scan(text, **session);
    cards += found->IdentifierDistinct("card");
  }
  benchmark::DoNotOptimize(cards);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK_CAPTURE(BM_DataScan, identifiers_only, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_DataScan, with_100k_row_table, true)
    ->Unit(benchmark::kMillisecond);

// The white-space folding every records scan does first (issue 67): its
// share of BM_DataScan on the same text is what reading wrapped numbers
// costs.
void BM_FoldSpaces(benchmark::State& state) {
  static const std::string text = NumberDenseText(size_t{4} << 20);
  for (auto _ : state) {
    const FoldedSpaces folded(text);
    benchmark::DoNotOptimize(folded.text().data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_FoldSpaces)->Unit(benchmark::kMillisecond);

void BM_ShingleSameText(benchmark::State& state) {
  static const std::string text = NumberDenseText(size_t{4} << 20);
  auto shingler =
      Shingler::Create(ShinglerOptions(), *FingerprintKey::Generate());
  for (auto _ : state) {
    auto shingled = (*shingler)->Shingle(text);
    benchmark::DoNotOptimize(shingled->token_count);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(text.size()));
}
BENCHMARK(BM_ShingleSameText)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
