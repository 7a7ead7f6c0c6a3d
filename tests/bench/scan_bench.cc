// One large text scanned on one thread (LeakScanner::Scan: shingling, the
// filter stage and the second stage) against the plain ICU pipeline of the
// field notes on the same bytes, in the same process:
//   UTF-8 -> icu::UnicodeString, NFKC_Casefold, the root word
//   BreakIterator, XXH3-64 of each word's UTF-8.
// The baseline calls ICU directly on purpose: it is the yardstick, not
// leakhound code (which keeps ICU inside shingler/).
//
// Inputs (corpus/prepare_corpora.sh DIR; LEAKHOUND_BENCH_TEXT_DIR=DIR):
//   protected: the Linux documentation files of even rank (file name
//              order), added to an index in a temporary directory;
//   scanned:   the Python documentation concatenated (no protected text),
//              and the Linux files of odd rank concatenated (same domain as
//              the protected set, sharing its boilerplate).
// The same sets as corpus/throughput.sh, which measures the command.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unicode/brkiter.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/scan/leak_scanner.h"
#include "engine/protected_index.h"

namespace leakhound {
namespace {

namespace fs = std::filesystem;

fs::path TextDir() {
  const char* root = std::getenv("LEAKHOUND_BENCH_TEXT_DIR");
  return fs::path(root ? root : "/tmp/leakhound-bench");
}

std::vector<fs::path> SortedFiles(const fs::path& dir) {
  std::vector<fs::path> paths;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".txt") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Setup {
  std::string dir;
  std::unique_ptr<ProtectedIndex> index;
  std::string clean, same_domain;
  ~Setup() {
    index.reset();
    if (!dir.empty()) fs::remove_all(fs::path(dir).parent_path());
  }
};

Setup* GetSetup() {
  static Setup* setup = [] {
    auto* s = new Setup;
    const std::vector<fs::path> kernel = SortedFiles(TextDir() / "kernel");
    const std::vector<fs::path> python = SortedFiles(TextDir() / "python");
    if (kernel.empty() || python.empty()) return s;
    std::string tmpl =
        (fs::temp_directory_path() / "leakhound-scan-bench-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    s->dir = tmpl + "/idx";
    auto index = ProtectedIndex::Create(s->dir, IndexOptions{});
    if (!index.ok()) std::abort();
    auto shingler = (*index)->NewShingler();
    for (size_t i = 0; i < kernel.size(); ++i) {
      const std::string text = ReadAll(kernel[i]);
      if (i % 2 == 1) {
        s->same_domain += text;
        continue;
      }
      auto prepared = ProtectedIndex::Prepare(
          **shingler,
          DocumentInput{kernel[i].filename().string(), "", {}, text});
      if (prepared.ok()) (void)(*index)->Stage(std::move(*prepared));
    }
    if (!(*index)->Commit().ok()) std::abort();
    s->index = std::move(*index);
    for (const fs::path& p : python) s->clean += ReadAll(p);
    return s;
  }();
  return setup;
}

const std::string& Text(bool same_domain) {
  Setup* s = GetSetup();
  return same_domain ? s->same_domain : s->clean;
}

void Report(benchmark::State& state, size_t bytes) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
  state.counters["input_MB"] = static_cast<double>(bytes) / 1e6;
}

void BM_PlainIcuPipeline(benchmark::State& state, bool same_domain) {
  const std::string& text = Text(same_domain);
  if (text.empty()) {
    state.SkipWithError("no input text; run corpus/prepare_corpora.sh");
    return;
  }
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf =
      icu::Normalizer2::getNFKCCasefoldInstance(status);
  std::unique_ptr<icu::BreakIterator> words(
      icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  if (U_FAILURE(status)) std::abort();
  uint64_t tokens = 0, sum = 0;
  for (auto _ : state) {
    tokens = 0;
    const icu::UnicodeString utf16 = icu::UnicodeString::fromUTF8(text);
    const icu::UnicodeString folded = nfkc_cf->normalize(utf16, status);
    words->setText(folded);
    std::string utf8;
    int32_t p = words->first();
    for (int32_t q = words->next(); q != icu::BreakIterator::DONE;
         p = q, q = words->next()) {
      if (words->getRuleStatus() < UBRK_WORD_NONE_LIMIT) continue;
      utf8.clear();
      folded.tempSubStringBetween(p, q).toUTF8String(utf8);
      sum += XXH3_64bits(utf8.data(), utf8.size());
      ++tokens;
    }
    benchmark::DoNotOptimize(sum);
  }
  Report(state, text.size());
  state.counters["tokens"] = static_cast<double>(tokens);
}

void BM_Shingle(benchmark::State& state, bool same_domain) {
  const std::string& text = Text(same_domain);
  if (text.empty()) {
    state.SkipWithError("no input text; run corpus/prepare_corpora.sh");
    return;
  }
  auto shingler = GetSetup()->index->NewShingler();
  size_t shingles = 0;
  for (auto _ : state) {
    shingles = (*shingler)->Shingle(text)->shingles.size();
    benchmark::DoNotOptimize(shingles);
  }
  Report(state, text.size());
  state.counters["shingles"] = static_cast<double>(shingles);
}

ScanOptions Issue36Query() {
  ScanOptions o;
  o.query.family_false_alarm = 1e-6;
  return o;
}

ScanOptions NoWordChecks() {
  ScanOptions o;
  o.word_checks = false;
  return o;
}

// `options` defaults to the scanner's; the *_issue36 cases run the filter
// threshold of before issue 37 (family-wise false alarm 1e-6) and the
// *_no_word_checks cases the second stage without word checks, as
// baselines of the same process.
void BM_Scan(benchmark::State& state, bool same_domain,
             ScanOptions options = ScanOptions{}) {
  const std::string& text = Text(same_domain);
  if (text.empty()) {
    state.SkipWithError("no input text; run corpus/prepare_corpora.sh");
    return;
  }
  auto scanner = LeakScanner::Create(*GetSetup()->index, options);
  if (!scanner.ok()) std::abort();
  ScanReport report;
  for (auto _ : state) {
    report = *(*scanner)->Scan(text);
    benchmark::DoNotOptimize(report.matches.size());
  }
  Report(state, text.size());
  state.counters["candidates"] = static_cast<double>(report.candidates.size());
  state.counters["matches"] = static_cast<double>(report.matches.size());
  state.counters["shingle_ms"] = static_cast<double>(report.shingle_ns) / 1e6;
  state.counters["filter_ms"] = static_cast<double>(report.filter_ns) / 1e6;
  state.counters["verify_ms"] = static_cast<double>(report.verify_ns) / 1e6;
}

BENCHMARK_CAPTURE(BM_PlainIcuPipeline, python_clean, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Shingle, python_clean, false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Scan, python_clean, false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Scan, python_clean_issue36, false, Issue36Query())
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Scan, python_clean_no_word_checks, false, NoWordChecks())
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_PlainIcuPipeline, kernel_same_domain, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Shingle, kernel_same_domain, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Scan, kernel_same_domain, true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Scan, kernel_same_domain_issue36, true, Issue36Query())
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Scan, kernel_same_domain_no_word_checks, true,
                  NoWordChecks())
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
