// The cost of reading a page by OCR (cli/formats/ocr_engine.h) against
// extracting the same page from a PDF with a text layer, in the same
// process, one thread, through ExtractBytes as `leakhound scan` calls it.
//
// Inputs (bash tests/bench/ocr_bench_inputs.sh DIR;
// LEAKHOUND_BENCH_OCR_DIR=DIR): one page of the sample corpus's merger
// memo (385 words) as a text PDF, as gray PNGs rendered by pdftoppm at 150
// and 300 dpi and as a PDF of the 150 dpi page image (read at 300 dpi, as
// every PDF page without text); one page of the Chinese supplier contract
// at 150 dpi.
//
// Run with OMP_THREAD_LIMIT=1, as the leakhound command runs Tesseract
// (ocr_engine.h: LimitOcrThreads).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/formats/extraction.h"

namespace leakhound {
namespace {

std::string Input(const std::string& name) {
  const char* dir = std::getenv("LEAKHOUND_BENCH_OCR_DIR");
  std::ifstream in(std::string(dir ? dir : "/tmp/leakhound-ocr-bench") + "/" +
                       name,
                   std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void Extract(benchmark::State& state, const std::string& name,
             const std::string& languages) {
  const std::string bytes = Input(name);
  if (bytes.empty()) {
    state.SkipWithError(("missing input " + name).c_str());
    return;
  }
  ExtractionLimits limits;
  limits.ocr.languages = languages;
  size_t words = 0;
  for (auto _ : state) {
    auto out = ExtractBytes(name, bytes, limits);
    if (!out.ok()) {
      state.SkipWithError(std::string(out.status().message()).c_str());
      return;
    }
    words = out->JoinedText().size();
    benchmark::DoNotOptimize(words);
  }
  state.counters["text_bytes"] = static_cast<double>(words);
}

// The baseline: the page's text layer.
void BM_TextPdfPage(benchmark::State& state) {
  Extract(state, "page.pdf", "eng+chi_sim");
}
void BM_OcrPng150(benchmark::State& state) {
  Extract(state, "page-150.png", "eng+chi_sim");
}
void BM_OcrPng150EnglishOnly(benchmark::State& state) {
  Extract(state, "page-150.png", "eng");
}
void BM_OcrPng300(benchmark::State& state) {
  Extract(state, "page-300.png", "eng+chi_sim");
}
void BM_OcrChinesePng150(benchmark::State& state) {
  Extract(state, "page-zh-150.png", "eng+chi_sim");
}
void BM_OcrScannedPdfPageAt300(benchmark::State& state) {
  Extract(state, "scan.pdf", "eng+chi_sim");
}

BENCHMARK(BM_TextPdfPage)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OcrPng150)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_OcrPng150EnglishOnly)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10);
BENCHMARK(BM_OcrPng300)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_OcrChinesePng150)->Unit(benchmark::kMillisecond)->Iterations(10);
BENCHMARK(BM_OcrScannedPdfPageAt300)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(10);

}  // namespace
}  // namespace leakhound

BENCHMARK_MAIN();
