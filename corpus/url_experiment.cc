// leakhound-url-experiment: the experiments of seeds 000 and 001 on real
// URLs (docs/seed-000-mlbf.md, docs/seed-001-url-lookup.md).
//
//  1. Seed 000, Fig. 5: false positives of a classic Bloom filter and of
//     the multi-layer Bloom filter (MLBF) after inserting 1, 1.5, 2, 2.5
//     and 3 million URLs, at the paper's n = 3.5M, k = 3, m = 16,829,152,
//     L = 4; the queries are the inserted URLs with their ID appended (the
//     paper's construction). Also: the MLBF without its XOR layer and a
//     classic filter of the MLBF's memory, which the paper does not show,
//     and insertion and query time per URL (its Figs. 6 and 7).
//  2. Seed 001: linear search, binary search, a hash table, a Bloom filter
//     and the MLBF on 1M URLs: build time, time per lookup, false
//     positives, memory.
//
// Usage: leakhound-url-experiment URLS OUT_DIR
//   URLS: one URL per line (corpus/collect_urls.py); 3M or more for the
//         paper's sizes, fewer (at least 30,000) to scale every count and m
//         down by the same factor.
// Writes OUT_DIR/report.md, fig5.dat, lookup.dat and plots.gp (gnuplot:
// fig5.png and lookup.png).
#include <xxhash.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/filter/multi_layer_bloom_filter.h"

namespace leakhound {
namespace {

constexpr uint32_t kPaperBits = 16'829'152;  // the paper's m
constexpr uint32_t kHashes = 3;         // k
constexpr uint32_t kLayers = 4;         // L

double Seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

// The segment hashes of `url` for a filter of `layers` layers.
std::vector<uint64_t> SegmentHashes(std::string_view url, uint32_t layers) {
  std::vector<uint64_t> out;
  for (std::string_view s : MultiLayerBloomFilter::Split(url, layers)) {
    out.push_back(XXH3_64bits(s.data(), s.size()));
  }
  if (out.empty()) out.push_back(XXH3_64bits("", 0));
  return out;
}

struct Filter {
  std::string name;
  MultiLayerBloomFilter filter;
  double insert_s = 0, query_s = 0;
};

Filter Make(std::string name, MultiLayerBloomFilter::Options options) {
  auto f = MultiLayerBloomFilter::Create(options);
  if (!f.ok()) {
    std::cerr << f.status() << "\n";
    std::exit(2);
  }
  return Filter{std::move(name), std::move(*f)};
}

// f(k, m, n) = (1 - e^(-kn/m))^k.
double Classic(double k, double m, double n) {
  return std::pow(1 - std::exp(-k * n / m), k);
}

int Run(const std::string& urls_path, const std::string& out) {
  std::vector<std::string> urls;
  {
    std::ifstream in(urls_path);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) urls.push_back(std::move(line));
    }
  }
  if (urls.size() < 30'000) {
    std::cerr << "leakhound-url-experiment: need 30,000 URLs or more, "
              << urls_path << " has " << urls.size() << "\n";
    return 2;
  }
  // Fewer than the paper's 3M URLs: every count and m scaled by the same
  // factor, so each filter is loaded as in the paper.
  const double scale = std::min(1.0, static_cast<double>(urls.size()) / 3e6);
  const auto kBits = static_cast<uint32_t>(std::lround(kPaperBits * scale));
  auto scaled = [scale](double count) {
    return static_cast<size_t>(std::llround(count * scale));
  };
  const absl::flat_hash_set<std::string> all(urls.begin(), urls.end());
  std::string md = "# URL filter experiments (seeds 000 and 001)\n\n";
  absl::StrAppend(&md, "URLs: ", urls.size(), " from ", urls_path, "\n\n");
  if (scale < 1) {
    absl::StrAppend(&md, absl::StrFormat(
        "Fewer than 3M URLs: every count and m scaled by %.4f (m = %d bits "
        "per filter).\n\n", scale, kBits));
  }

  // --- 1. Seed 000, Fig. 5 ---
  std::vector<Filter> filters;
  filters.push_back(Make("classic BF (m, k=3)", {1, kHashes, kBits, false}));
  filters.push_back(
      Make("MLBF (L=4, k=3, m per layer, XOR layer)",
           {kLayers, kHashes, kBits, true}));
  filters.push_back(
      Make("MLBF without the XOR layer", {kLayers, kHashes, kBits, false}));
  filters.push_back(Make("classic BF of the MLBF's memory (5m, k=3)",
                         {1, kHashes, 5 * kBits, false}));
  const std::vector<size_t> steps = {scaled(1e6), scaled(1.5e6), scaled(2e6),
                                     scaled(2.5e6), scaled(3e6)};
  absl::StrAppend(
      &md,
      "## Seed 000, Fig. 5: false positives against URLs inserted\n\n"
      "n = 3.5M, k = 3, m = 16,829,152 bits per filter (the paper's, from "
      "p = 0.1; scaled as said above), L = 4. After inserting the first N "
      "URLs, each of them is "
      "queried with its ID (its line number) appended; queries that are "
      "themselves inserted URLs are not counted. Predicted for the classic "
      "filter: N (1 - e^(-kN/m))^k; the paper's eq. 4 predicts f^L for the "
      "MLBF.\n\n| URLs inserted |");
  for (const Filter& f : filters) absl::StrAppend(&md, " ", f.name, " |");
  absl::StrAppend(&md, " classic, predicted | MLBF, paper's eq. 4 |\n|---|");
  for (size_t i = 0; i < filters.size() + 2; ++i) absl::StrAppend(&md, "---:|");
  absl::StrAppend(&md, "\n");
  std::string dat = "urls";
  for (const Filter& f : filters) absl::StrAppend(&dat, "\t\"", f.name, "\"");
  absl::StrAppend(&dat, "\n");
  // The queries, made once: URL i with i appended; those that are
  // themselves URLs of the list are members, not negatives.
  std::vector<std::string> id_queries(steps.back());
  std::vector<bool> is_member(steps.back());
  for (size_t i = 0; i < id_queries.size(); ++i) {
    id_queries[i] = absl::StrCat(urls[i], i);
    is_member[i] = all.contains(id_queries[i]);
  }
  size_t inserted = 0;
  std::vector<double> query_per_url(filters.size());
  for (size_t n : steps) {
    for (Filter& f : filters) {
      const auto start = std::chrono::steady_clock::now();
      for (size_t i = inserted; i < n; ++i) {
        f.filter.Insert(SegmentHashes(urls[i], f.filter.options().layers));
      }
      f.insert_s += Seconds(start);
    }
    inserted = n;
    std::vector<size_t> positives(filters.size(), 0);
    size_t queries = 0;
    for (size_t fi = 0; fi < filters.size(); ++fi) {
      Filter& f = filters[fi];
      const auto start = std::chrono::steady_clock::now();
      for (size_t i = 0; i < n; ++i) {
        if (is_member[i]) continue;
        if (fi == 0) ++queries;
        positives[fi] += f.filter.Contains(
            SegmentHashes(id_queries[i], f.filter.options().layers));
      }
      query_per_url[fi] = Seconds(start) / static_cast<double>(n);
    }
    absl::StrAppend(&md, "| ", n, " |");
    absl::StrAppend(&dat, n);
    for (size_t fi = 0; fi < filters.size(); ++fi) {
      absl::StrAppend(&md, " ", positives[fi], " |");
      absl::StrAppend(&dat, "\t", positives[fi]);
    }
    const double f = Classic(kHashes, kBits, static_cast<double>(n));
    absl::StrAppend(&md, absl::StrFormat(" %.0f | %.0f |\n",
                                         f * static_cast<double>(queries),
                                         std::pow(f, kLayers) *
                                             static_cast<double>(queries)));
    absl::StrAppend(&dat, "\n");
  }
  absl::StrAppend(
      &md,
      "\nTime per URL over all insertions, and per "
      "query at the last step (one thread, this run's "
      "machine):\n\n"
      "| filter | memory | insert | query | share of bits set per layer |\n"
      "|---|---:|---:|---:|---|\n");
  for (size_t fi = 0; fi < filters.size(); ++fi) {
    const Filter& f = filters[fi];
    std::string fill;
    const MultiLayerBloomFilter::Options& o = f.filter.options();
    for (uint32_t layer = 0; layer < o.layers + (o.xor_layer ? 1 : 0);
         ++layer) {
      absl::StrAppend(&fill, layer == 0 ? "" : ", ",
                      absl::StrFormat("%.3f", f.filter.Fill(layer)));
    }
    absl::StrAppend(
        &md,
        absl::StrFormat("| %s | %.1f MB | %.0f ns | %.0f ns | %s |\n", f.name,
                        f.filter.MemoryBytes() / 1e6,
                        f.insert_s / static_cast<double>(steps.back()) * 1e9,
                        query_per_url[fi] * 1e9, fill));
  }

  // --- 2. Seed 001: five ways on 1M URLs ---
  const size_t n = scaled(1e6);
  const std::vector<std::string> members(urls.begin(), urls.begin() + n);
  std::vector<std::string> negatives;
  for (size_t i = 0; negatives.size() < n; ++i) {
    std::string q = absl::StrCat(urls[i % n], "?id=", i);
    if (!all.contains(q)) negatives.push_back(std::move(q));
  }
  absl::StrAppend(
      &md,
      "\n## Seed 001: five ways to answer \"was this URL seen?\"\n\n"
      "N = 1M URLs (scaled as said above) inserted; N member queries (the "
      "URLs) and N non-member queries (a URL with `?id=I` appended), except "
      "linear search: 1,000 of each, its time per query measured on them. "
      "Filters: the m above per filter, k = 3.\n\n"
      "| structure | build | per member query | per non-member query | "
      "false positives | memory |\n|---|---:|---:|---:|---:|---:|\n");
  std::string lookup_dat;  // structure, member ns, non-member ns, MB
  auto row = [&](std::string_view name, double build_s, double member_s,
                 double negative_s, std::string fps, double bytes) {
    absl::StrAppend(
        &lookup_dat,
        absl::StrFormat("\"%s\"\t%.1f\t%.1f\t%.3f\n", name, member_s * 1e9,
                        negative_s * 1e9, bytes / 1e6));
    absl::StrAppend(
        &md, absl::StrFormat(
                 "| %s | %.2f s | %.0f ns | %.0f ns | %s | %.1f MB |\n", name,
                 build_s, member_s * 1e9, negative_s * 1e9, fps, bytes / 1e6));
  };
  double string_bytes = 0;
  for (const std::string& s : members) {
    string_bytes += static_cast<double>(sizeof(std::string) +
                                        (s.size() > 15 ? s.size() + 1 : 0));
  }
  {  // linear search
    const auto build = std::chrono::steady_clock::now();
    std::vector<std::string> list(members);
    const double build_s = Seconds(build);
    size_t found = 0, fps = 0;
    auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < 1000; ++i) {
      found += std::find(list.begin(), list.end(), members[i * 997 % n]) !=
               list.end();
    }
    const double member_s = Seconds(start) / 1000;
    start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < 1000; ++i) {
      fps += std::find(list.begin(), list.end(), negatives[i]) != list.end();
    }
    const double negative_s = Seconds(start) / 1000;
    if (found != 1000) std::cerr << "linear search lost members\n";
    row("linear search (vector)", build_s, member_s, negative_s,
        absl::StrCat(fps, " of 1,000"), string_bytes);
  }
  {  // binary search
    const auto build = std::chrono::steady_clock::now();
    std::vector<std::string> sorted(members);
    std::sort(sorted.begin(), sorted.end());
    const double build_s = Seconds(build);
    size_t found = 0, fps = 0;
    auto start = std::chrono::steady_clock::now();
    for (const std::string& q : members) {
      found += std::binary_search(sorted.begin(), sorted.end(), q);
    }
    const double member_s = Seconds(start) / n;
    start = std::chrono::steady_clock::now();
    for (const std::string& q : negatives) {
      fps += std::binary_search(sorted.begin(), sorted.end(), q);
    }
    const double negative_s = Seconds(start) / n;
    if (found != n) std::cerr << "binary search lost members\n";
    row("binary search (sorted vector)", build_s, member_s, negative_s,
        absl::StrCat(fps), string_bytes);
  }
  {  // hash table
    const auto build = std::chrono::steady_clock::now();
    absl::flat_hash_set<std::string> set(members.begin(), members.end());
    const double build_s = Seconds(build);
    size_t found = 0, fps = 0;
    auto start = std::chrono::steady_clock::now();
    for (const std::string& q : members) found += set.contains(q);
    const double member_s = Seconds(start) / n;
    start = std::chrono::steady_clock::now();
    for (const std::string& q : negatives) fps += set.contains(q);
    const double negative_s = Seconds(start) / n;
    if (found != n) std::cerr << "hash table lost members\n";
    row("hash table (absl::flat_hash_set)", build_s, member_s, negative_s,
        absl::StrCat(fps),
        string_bytes + static_cast<double>(set.capacity()) *
                           (sizeof(std::string) + 1));
  }
  for (const auto& [name, options] :
       std::vector<std::pair<std::string, MultiLayerBloomFilter::Options>>{
           {"Bloom filter", {1, kHashes, kBits, false}},
           {"MLBF (L=4, XOR layer)", {kLayers, kHashes, kBits, true}}}) {
    Filter f = Make(name, options);
    const auto build = std::chrono::steady_clock::now();
    for (const std::string& u : members) {
      f.filter.Insert(SegmentHashes(u, options.layers));
    }
    const double build_s = Seconds(build);
    size_t found = 0, fps = 0;
    auto start = std::chrono::steady_clock::now();
    for (const std::string& q : members) {
      found += f.filter.Contains(SegmentHashes(q, options.layers));
    }
    const double member_s = Seconds(start) / n;
    start = std::chrono::steady_clock::now();
    for (const std::string& q : negatives) {
      fps += f.filter.Contains(SegmentHashes(q, options.layers));
    }
    const double negative_s = Seconds(start) / n;
    if (found != n) std::cerr << name << " lost members\n";
    row(name, build_s, member_s, negative_s, absl::StrCat(fps),
        static_cast<double>(f.filter.MemoryBytes()));
  }

  std::ofstream(out + "/report.md") << md;
  std::ofstream(out + "/fig5.dat") << dat;
  std::ofstream(out + "/lookup.dat") << lookup_dat;
  std::ofstream(out + "/plots.gp")
      << "set terminal pngcairo size 900,560 font \",10\" noenhanced\n"
         "set output 'lookup.png'\n"
         "set title 'Time per lookup (seed 001)'\nset ylabel 'ns per query'\n"
         "set logscale y\nset style data histograms\n"
         "set style fill solid 0.8\nset key top right\nset xtics rotate by "
         "-20\n"
         "plot 'lookup.dat' using 2:xtic(1) title 'member', '' using 3 "
         "title 'non-member'\n"
         "unset style\nunset xtics\nset xtics\n"
         "set output 'fig5.png'\n"
         "set title 'False positives of URL+ID queries (seed 000, Fig. 5)'\n"
         "set xlabel 'URLs inserted'\nset ylabel 'false positives'\n"
         "set logscale y\nset key top left\n"
         "plot for [c=2:5] 'fig5.dat' using 1:c with linespoints "
         "title columnheader(c)\n";
  std::cout << md;
  return 0;
}

}  // namespace
}  // namespace leakhound

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: leakhound-url-experiment URLS OUT_DIR\n";
    return 2;
  }
  return leakhound::Run(argv[1], argv[2]);
}
