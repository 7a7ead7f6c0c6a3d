// Shingler throughput on real documents: the fast path against the plain
// ICU reference path (Shingler::ShingleReference) in the same process.
// Inputs: LEAKHOUND_BENCH_TEXT_DIR/{python,zh}/*, one file per document
// (corpus/prepare_corpora.sh); each iteration shingles every document of
// the language, in file name order, up to 16 MiB in all.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "shingler/shingler.h"

namespace leakhound {
namespace {

constexpr size_t kMaxBytes = size_t{16} << 20;

const std::vector<std::string>& Documents(const std::string& language) {
  static std::map<std::string, std::vector<std::string>> cache;
  auto it = cache.find(language);
  if (it != cache.end()) return it->second;
  const char* root = std::getenv("LEAKHOUND_BENCH_TEXT_DIR");
  const std::filesystem::path dir =
      std::filesystem::path(root ? root : "/tmp/leakhound-bench") / language;
  std::vector<std::filesystem::path> paths;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> docs;
  size_t total = 0;
  for (const auto& path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    total += ss.str().size();
    if (total > kMaxBytes) break;
    docs.push_back(ss.str());
  }
  return cache[language] = std::move(docs);
}

std::unique_ptr<Shingler> MakeShingler() {
  std::array<uint8_t, 32> key{};
  return std::move(*Shingler::Create({}, *FingerprintKey::FromBytes(key)));
}

void BM_Shingle(benchmark::State& state, const std::string& language,
                bool reference) {
  const std::vector<std::string>& docs = Documents(language);
  if (docs.empty()) {
    state.SkipWithError("no input text; run corpus/prepare_corpora.sh");
    return;
  }
  auto shingler = MakeShingler();
  size_t bytes = 0;
  for (const std::string& d : docs) bytes += d.size();
  size_t shingles = 0;
  for (auto _ : state) {
    shingles = 0;
    for (const std::string& d : docs) {
      ShingledText result =
          reference ? shingler->ShingleReference(d) : *shingler->Shingle(d);
      shingles += result.shingles.size();
    }
    benchmark::DoNotOptimize(shingles);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
  state.counters["documents"] = static_cast<double>(docs.size());
  state.counters["input_MiB"] = static_cast<double>(bytes) / (1 << 20);
  state.counters["shingles"] = static_cast<double>(shingles);
}

BENCHMARK_CAPTURE(BM_Shingle, en_reference_icu, std::string("python"), true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Shingle, en_fast, std::string("python"), false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Shingle, zh_reference_icu, std::string("zh"), true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Shingle, zh_fast, std::string("zh"), false)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
