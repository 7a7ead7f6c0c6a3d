// The second stage's hottest step: probing a scanned text for every
// fingerprint of a candidate document's stored list (most are absent).
//  - ScannedText: ShinglesWith, a bit array in front of the hash map.
//  - MapOnly: the same hash map probed directly (the layout before the bit
//    array), the baseline in the same process.
// The text has state.range(0) distinct fingerprints; the list holds
// kListSize fingerprints of which 1 % are in the text, the rest random
// (keyed fingerprints are uniform 64-bit values).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "engine/scan/passage_matcher.h"

namespace leakhound {
namespace {

constexpr size_t kListSize = 200'000;

struct Probe {
  ShingledText text;
  std::vector<uint64_t> list;
};

Probe MakeProbe(size_t distinct) {
  std::mt19937_64 rng(distinct);
  Probe p;
  for (uint32_t i = 0; i < distinct; ++i) {
    p.text.shingles.push_back(Shingle{rng(), i, i + 1, i, i + 5});
  }
  p.text.token_count = static_cast<uint32_t>(distinct + 4);
  p.text.word_units.resize(p.text.token_count + 1);
  for (size_t i = 0; i < kListSize; ++i) {
    p.list.push_back(
        i % 100 == 0 ? p.text.shingles[rng() % distinct].fingerprint : rng());
  }
  return p;
}

void BM_ProbeList_ScannedText(benchmark::State& state) {
  Probe p = MakeProbe(static_cast<size_t>(state.range(0)));
  const ScannedText scanned(p.text);
  size_t found = 0;
  for (auto _ : state) {
    for (uint64_t fp : p.list) found += scanned.ShinglesWith(fp).size();
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kListSize));
}

void BM_ProbeList_MapOnly(benchmark::State& state) {
  Probe p = MakeProbe(static_cast<size_t>(state.range(0)));
  absl::flat_hash_map<uint64_t, std::vector<uint32_t>> map;
  for (uint32_t i = 0; i < p.text.shingles.size(); ++i) {
    map[p.text.shingles[i].fingerprint].push_back(i);
  }
  size_t found = 0;
  for (auto _ : state) {
    for (uint64_t fp : p.list) {
      auto it = map.find(fp);
      if (it != map.end()) found += it->second.size();
    }
    benchmark::DoNotOptimize(found);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kListSize));
}

BENCHMARK(BM_ProbeList_MapOnly)->Arg(500)->Arg(5000)->Arg(50000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ProbeList_ScannedText)->Arg(500)->Arg(5000)->Arg(50000)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
