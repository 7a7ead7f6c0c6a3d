// leakhound-stream-experiment: seed 004's comparison of the SKIP Bloom
// filter with the decaying Bloom filter (docs/seed-004-skip-bloom.md), on a
// real stream: the URL occurrences of the documentation Debian packages
// install, in file order (corpus/collect_urls.py --stream), repeats
// included. The exact sliding buffer of the last w elements is the ground
// truth.
//
//  - Fig. 4: false-positive rate for m = 4,096 .. 65,536 counters, k = 4;
//  - Fig. 5: false-positive rate for k = 4 .. 16, m = 8,192;
// each for the SKIP filter (two arrays of m counters), the decaying filter
// of m counters (the paper's comparison) and of 2m (the SKIP filter's
// memory); false negatives (must be 0) and time per element.
//
// Usage: leakhound-stream-experiment STREAM OUT_DIR [WINDOW]
//   WINDOW: w, the duplicate window in elements (default 1,000).
// Writes OUT_DIR/report.md, fig4.dat, fig5.dat and plots.gp.
#include <xxhash.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "corpus/filters/decaying_bloom_filter.h"
#include "engine/filter/skip_bloom_filter.h"

namespace leakhound {
namespace {

struct Outcome {
  size_t false_positives = 0, false_negatives = 0;
  double ns_per_element = 0;
};

// Runs `filter` (TestAndInsert) over the stream against the truth.
template <typename Filter>
Outcome Run(Filter& filter, const std::vector<uint64_t>& stream,
            const std::vector<bool>& duplicate) {
  Outcome o;
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < stream.size(); ++i) {
    const bool seen = filter.TestAndInsert(stream[i]);
    if (seen && !duplicate[i]) ++o.false_positives;
    if (!seen && duplicate[i]) ++o.false_negatives;
  }
  o.ns_per_element = std::chrono::duration<double, std::nano>(
                         std::chrono::steady_clock::now() - start)
                         .count() /
                     static_cast<double>(stream.size());
  return o;
}

int Main(const std::string& path, const std::string& out, uint32_t window) {
  std::vector<uint64_t> stream;
  {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      stream.push_back(XXH3_64bits(line.data(), line.size()));
    }
  }
  if (stream.size() < 10 * size_t{window}) {
    std::cerr << "leakhound-stream-experiment: " << path << " has "
              << stream.size() << " elements; need 10 windows\n";
    return 2;
  }
  // The exact buffer: element i repeats one of the last w elements.
  std::vector<bool> duplicate(stream.size());
  size_t duplicates = 0;
  {
    absl::flat_hash_map<uint64_t, size_t> last;
    for (size_t i = 0; i < stream.size(); ++i) {
      auto [it, fresh] = last.try_emplace(stream[i], i);
      duplicate[i] = !fresh && i - it->second <= window;
      duplicates += duplicate[i];
      it->second = i;
    }
  }
  const size_t negatives = stream.size() - duplicates;
  std::string md = absl::StrFormat(
      "# SKIP Bloom filter against the decaying Bloom filter (seed 004)\n\n"
      "Stream: %d elements (%s), %d of them duplicates within the window "
      "w = %d (exact sliding buffer); false-positive rates are over the %d "
      "others. One thread; time per element includes the query and the "
      "insertion.\n\n",
      stream.size(), path, duplicates, window, negatives);
  auto rate = [&](size_t fp) {
    return static_cast<double>(fp) / static_cast<double>(negatives);
  };
  struct Config {
    uint32_t m, k;
  };
  auto table = [&](const std::string& title, const std::vector<Config>& configs,
                   const std::string& dat_path, bool by_m) {
    absl::StrAppend(
        &md, "## ", title, "\n\n",
        "| m | k | SKIP (2 × m counters) | decaying (m) | decaying (2m) | "
        "decaying ÷ SKIP | SKIP, paper's bound | decaying, "
        "(1-e^(-kw/m))^k | false negatives (SKIP, decaying) | ns per "
        "element (SKIP, decaying m) |\n"
        "|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    std::string dat = by_m ? "m" : "k";
    absl::StrAppend(&dat, "\t\"SKIP (2 x m counters)\"\t\"decaying (m)\"\t"
                          "\"decaying (2m)\"\n");
    for (const Config& c : configs) {
      auto skip = SkipBloomFilter::Create({c.m, c.k, window});
      auto decaying = DecayingBloomFilter::Create({c.m, c.k, window});
      auto decaying2 = DecayingBloomFilter::Create({2 * c.m, c.k, window});
      if (!skip.ok() || !decaying.ok() || !decaying2.ok()) std::abort();
      const Outcome s = Run(*skip, stream, duplicate);
      const Outcome d = Run(*decaying, stream, duplicate);
      const Outcome d2 = Run(*decaying2, stream, duplicate);
      const double kw = static_cast<double>(c.k) * window;
      const double skip_bound =
          std::pow(1 - std::pow(1 - 1.0 / (2.0 * c.m), kw), c.k);
      const double decaying_formula = std::pow(1 - std::exp(-kw / c.m), c.k);
      absl::StrAppend(
          &md,
          absl::StrFormat(
              "| %d | %d | %.5f | %.5f | %.5f | %.1f | %.5f | %.5f | %d, %d | "
              "%.0f, %.0f |\n",
              c.m, c.k, rate(s.false_positives), rate(d.false_positives),
              rate(d2.false_positives),
              s.false_positives == 0
                  ? 0.0
                  : static_cast<double>(d.false_positives) /
                        static_cast<double>(s.false_positives),
              skip_bound, decaying_formula, s.false_negatives,
              d.false_negatives, s.ns_per_element, d.ns_per_element));
      absl::StrAppend(&dat, by_m ? c.m : c.k, "\t", rate(s.false_positives),
                      "\t", rate(d.false_positives), "\t",
                      rate(d2.false_positives), "\n");
    }
    absl::StrAppend(&md, "\n");
    std::ofstream(out + "/" + dat_path) << dat;
  };
  table("Fig. 4: m varies, k = 4",
        {{4096, 4}, {8192, 4}, {16384, 4}, {65536, 4}}, "fig4.dat", true);
  table("Fig. 5: k varies, m = 8,192",
        {{8192, 4}, {8192, 8}, {8192, 12}, {8192, 16}}, "fig5.dat", false);
  std::ofstream(out + "/report.md") << md;
  std::ofstream(out + "/plots.gp")
      << "set terminal pngcairo size 900,560 font \",10\" noenhanced\n"
         "set ylabel 'false-positive rate'\nset logscale y\n"
         "set key top right\n"
         "set output 'fig4.png'\nset title 'm varies, k = 4 (seed 004, Fig. "
         "4)'\n"
         "set xlabel 'm (counters per array)'\nset logscale x 2\n"
         "plot for [c=2:4] 'fig4.dat' using 1:c with linespoints "
         "title columnheader(c)\n"
         "unset logscale x\n"
         "set output 'fig5.png'\nset title 'k varies, m = 8,192 (seed 004, "
         "Fig. 5)'\n"
         "set xlabel 'k (hash functions)'\n"
         "plot for [c=2:4] 'fig5.dat' using 1:c with linespoints "
         "title columnheader(c)\n";
  std::cout << md;
  return 0;
}

}  // namespace
}  // namespace leakhound

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::cerr << "usage: leakhound-stream-experiment STREAM OUT_DIR [WINDOW]\n";
    return 2;
  }
  const long window = argc == 4 ? std::atol(argv[3]) : 1000;
  if (window < 1 || window > 65535) {
    std::cerr << "leakhound-stream-experiment: WINDOW must be in [1, 65535]\n";
    return 2;
  }
  return leakhound::Main(argv[1], argv[2], static_cast<uint32_t>(window));
}
