// leakhound-spatiotemporal-experiment: the tables of Gøytil and Lundberg's
// thesis (seed 003) on real URLs (docs/seed-003-spatio-temporal.md):
//
//  - Table 5.9: one seeded Bloom filter, non-incremental (insert n URLs,
//    query n others), k = 3..10 hashes, bit-size multiplier M = 1.7..5.0
//    (m = n k M bits);
//  - Table 5.16: the temporal scheme, non-incremental: a query is a false
//    positive only if it is one in two filters of different seeds;
//  - Table 5.17: the spatial scheme, incremental (each URL queried, then
//    inserted): 1, 2 and 3 filters ANDed, M = 1.7 and 2.0, k = 3..6;
//  - Table 5.20: the spatio-temporal scheme (two spatial pairs of different
//    seeds), non-incremental;
//  - the thesis's finding that F filters of k hashes equal one filter of
//    F*k hashes at equal memory, non-incremental.
//
// Usage: leakhound-spatiotemporal-experiment URLS OUT_DIR
//   URLS: one URL per line (corpus/collect_urls.py); the first half is
//         inserted and the second half queried (the thesis: 1M and 1M).
// Writes OUT_DIR/report.md, temporal.dat and plots.gp (gnuplot:
// temporal.png).
#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "corpus/filters/seeded_bloom_filter.h"
#include "corpus/filters/spatial_bloom_filter.h"

namespace leakhound {
namespace {

constexpr double kMultipliers[] = {1.7, 2.0, 2.5, 3.0, 4.0, 5.0};

std::string Percent(double share) {
  return share == 0 ? "0.0%" : absl::StrFormat("%.6g%%", share * 100);
}

// Non-incremental: inserts `inserted`, marks which of `queries` it claims.
template <typename Filter>
std::vector<bool> Claims(Filter& filter,
                         const std::vector<std::string>& inserted,
                         const std::vector<std::string>& queries) {
  for (const std::string& u : inserted) filter.Insert(u);
  std::vector<bool> out(queries.size());
  for (size_t i = 0; i < queries.size(); ++i)
    out[i] = filter.Contains(queries[i]);
  return out;
}

double Share(const std::vector<bool>& a, const std::vector<bool>* b = nullptr) {
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] && (b == nullptr || (*b)[i]);
  return static_cast<double>(n) / static_cast<double>(a.size());
}

int Run(const std::string& path, const std::string& out) {
  std::vector<std::string> urls;
  {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) urls.push_back(std::move(line));
    }
  }
  if (urls.size() < 20000) {
    std::cerr << "leakhound-spatiotemporal-experiment: " << path
              << " has too few URLs\n";
    return 2;
  }
  const size_t n = urls.size() / 2;
  const std::vector<std::string> inserted(urls.begin(), urls.begin() + n);
  const std::vector<std::string> queries(urls.begin() + n,
                                         urls.begin() + 2 * n);
  std::string md = absl::StrFormat(
      "# Spatio-temporal schemes (seed 003) on real URLs\n\n"
      "%d URLs inserted, %d others queried (%s); one run each, so a rate "
      "below %s reads as 0. Seeded XXH3-64; m = n k M bits per filter.\n\n",
      n, n, path, Percent(1.0 / static_cast<double>(n)));
  auto header = [&](const std::string& title, size_t columns) {
    absl::StrAppend(&md, "## ", title, "\n\n|  |");
    for (size_t c = 0; c < columns; ++c) {
      absl::StrAppend(&md, " ", kMultipliers[c], " M |");
    }
    absl::StrAppend(&md, "\n|---|");
    for (size_t c = 0; c < columns; ++c) absl::StrAppend(&md, "---:|");
    absl::StrAppend(&md, "\n");
  };

  // Tables 5.9 and 5.16 share the first generation.
  std::string temporal;
  header("Table 5.9: one seeded filter, non-incremental", 6);
  std::string table516 = "";
  // The plot: rates against M for 3 and 6 hashes, one filter and temporal.
  std::vector<std::vector<double>> plotted(std::size(kMultipliers));
  for (uint32_t k = 3; k <= 10; ++k) {
    std::string row = absl::StrCat("| ", k, " HF |");
    std::string row16 = row;
    for (size_t c = 0; c < std::size(kMultipliers); ++c) {
      const double m = kMultipliers[c];
      const uint64_t bits = SeededBloomFilter::ThesisBits(n, k, m);
      auto first = SeededBloomFilter::Create({bits, k, 1});
      auto second = SeededBloomFilter::Create({bits, k, 2});
      if (!first.ok() || !second.ok()) return 2;
      const std::vector<bool> a = Claims(*first, inserted, queries);
      const std::vector<bool> b = Claims(*second, inserted, queries);
      absl::StrAppend(&row, " ", Percent(Share(a)), " |");
      absl::StrAppend(&row16, " ", Percent(Share(a, &b)), " |");
      if (k == 3 || k == 6) {
        plotted[c].push_back(Share(a));
        plotted[c].push_back(Share(a, &b));
      }
    }
    absl::StrAppend(&md, row, "\n");
    absl::StrAppend(&table516, row16, "\n");
  }
  absl::StrAppend(&md, "\n");
  header("Table 5.16: the temporal scheme (false positive under both seeds), "
         "non-incremental",
         6);
  absl::StrAppend(&md, table516, "\n");

  // Table 5.17: incremental, the stream of the inserted URLs.
  absl::StrAppend(&md,
                  "## Table 5.17: the spatial scheme, incremental (each URL "
                  "queried, then inserted)\n\n"
                  "|  | 1 filter, 1.7 M | 1 filter, 2.0 M | 2 filters, 1.7 M | "
                  "2 filters, 2.0 M | 3 filters, 1.7 M | 3 filters, 2.0 M |\n"
                  "|---|---:|---:|---:|---:|---:|---:|\n");
  for (uint32_t k = 3; k <= 6; ++k) {
    absl::StrAppend(&md, "| ", k, " HF |");
    for (uint32_t f = 1; f <= 3; ++f) {
      for (double m : {1.7, 2.0}) {
        auto filter = SpatialBloomFilter::Create(
            {f, SeededBloomFilter::ThesisBits(n, k, m), k, 3});
        if (!filter.ok()) return 2;
        size_t fp = 0;
        for (const std::string& u : inserted) {
          fp += filter->Contains(u);
          filter->Insert(u);
        }
        absl::StrAppend(
            &md, " ", Percent(static_cast<double>(fp) / static_cast<double>(n)),
            " |");
      }
    }
    absl::StrAppend(&md, "\n");
  }

  // Table 5.20: two spatial pairs under different seeds.
  absl::StrAppend(&md, "\n");
  header("Table 5.20: the spatio-temporal scheme, two filters, "
         "non-incremental",
         4);
  for (uint32_t k = 2; k <= 4; ++k) {
    absl::StrAppend(&md, "| ", k, " HF |");
    for (size_t c = 0; c < 4; ++c) {
      const uint64_t bits =
          SeededBloomFilter::ThesisBits(n, k, kMultipliers[c]);
      auto first = SpatialBloomFilter::Create({2, bits, k, 4});
      auto second = SpatialBloomFilter::Create({2, bits, k, 5});
      if (!first.ok() || !second.ok()) return 2;
      const std::vector<bool> a = Claims(*first, inserted, queries);
      const std::vector<bool> b = Claims(*second, inserted, queries);
      absl::StrAppend(&md, " ", Percent(Share(a, &b)), " |");
    }
    absl::StrAppend(&md, "\n");
  }

  // The finding: F filters x k hashes = 1 filter x F*k hashes, same memory.
  absl::StrAppend(
      &md,
      "\n## F filters of k hashes against one filter of F*k hashes, equal "
      "memory, non-incremental\n\n"
      "| F × k, M | spatial: F filters of n k M bits | one filter, F k "
      "hashes, n F k M bits | (1 - e^(-1/M))^(F k) |\n|---|---:|---:|---:|\n");
  struct Case {
    uint32_t f, k;
    double m;
  };
  for (const Case& c : {Case{2, 3, 1.7}, Case{2, 3, 2.0}, Case{3, 3, 1.7},
                        Case{2, 4, 1.7}, Case{3, 4, 1.7}, Case{2, 6, 2.0}}) {
    const uint64_t bits = SeededBloomFilter::ThesisBits(n, c.k, c.m);
    auto spatial = SpatialBloomFilter::Create({c.f, bits, c.k, 6});
    auto single = SeededBloomFilter::Create({c.f * bits, c.f * c.k, 6});
    if (!spatial.ok() || !single.ok()) return 2;
    const double a = Share(Claims(*spatial, inserted, queries));
    const double b = Share(Claims(*single, inserted, queries));
    absl::StrAppend(&md, absl::StrFormat(
                             "| %d × %d, %.1f | %s | %s | %s |\n", c.f, c.k,
                             c.m, Percent(a), Percent(b),
                             Percent(std::pow(1 - std::exp(-1 / c.m),
                                              c.f * c.k))));
  }
  std::string dat =
      "M\t\"1 filter, 3 HF\"\t\"temporal, 3 HF\"\t\"1 filter, 6 HF\"\t"
      "\"temporal, 6 HF\"\n";
  for (size_t c = 0; c < std::size(kMultipliers); ++c) {
    absl::StrAppend(&dat, kMultipliers[c]);
    for (double r : plotted[c]) absl::StrAppend(&dat, "\t", r);
    absl::StrAppend(&dat, "\n");
  }
  std::ofstream(out + "/temporal.dat") << dat;
  std::ofstream(out + "/plots.gp")
      << "set terminal pngcairo size 900,560 font \",10\" noenhanced\n"
         "set output 'temporal.png'\n"
         "set title 'One seeded filter (Table 5.9) and the temporal scheme "
         "(Table 5.16)'\n"
         "set xlabel 'bit-size multiplier M (m = n k M)'\n"
         "set ylabel 'false-positive rate'\nset logscale y\nset key top right\n"
         "plot for [c=2:5] 'temporal.dat' using 1:c with linespoints "
         "title columnheader(c)\n";
  std::ofstream(out + "/report.md") << md;
  std::cout << md;
  return 0;
}

}  // namespace
}  // namespace leakhound

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: leakhound-spatiotemporal-experiment URLS OUT_DIR\n";
    return 2;
  }
  return leakhound::Run(argv[1], argv[2]);
}
