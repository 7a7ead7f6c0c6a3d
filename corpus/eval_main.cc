// leakhound-eval: generates a test set from real documents, runs every
// measurement of docs/evaluation.md against the real engine and index, and
// writes a report with its data and plot scripts.
//
//   leakhound-eval --corpus DIR --out DIR [--config small|full] [--seed N]
//                  [--label TEXT] [--assert-floors] [--shingle-words N]
//                  [--winnow W] [--filter-winnow W] [--fpr P]
//                  [--row-capacity N]
//                  [--query-window N] [--family-false-alarm A]
//                  [--boilerplate-docs N] [--min-distinctive-words N]
//                  [--distinctive-docs N] [--no-word-checks]
//                  [--detection-only] [--floors-only]
//
// DIR for --corpus is what corpus/prepare_corpora.sh prepared. --out is
// created; OUT/report.md is the report, OUT/*.dat and OUT/plots.gp its
// figures (corpus/evaluate.sh runs gnuplot), OUT/set the generated outbound
// documents with truth.tsv, OUT/indexes the indexes built. With
// --assert-floors the exit code is 1 when a regression floor is not met.
// --shingle-words, --winnow, --filter-winnow, --fpr and --row-capacity set
// the indexes' parameters, --query-window and --family-false-alarm the
// filter stage's, --boilerplate-docs, --min-distinctive-words,
// --distinctive-docs and --no-word-checks the scan's (`scan`'s options of the
// same names; defaults: the product's); --detection-only skips the format
// variants and the sweeps, to compare settings' detection and cost;
// --floors-only skips what no regression floor reads (the filter
// experiments and the row-capacity and corpus-size sweeps): the suite's
// run (ctest evaluation_small_meets_floors).
#include <getopt.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "corpus/detection_report.h"
#include "corpus/document_pool.h"
#include "corpus/filter_experiments.h"
#include "cli/formats/ocr_engine.h"
#include "corpus/format_variants.h"
#include "corpus/index_run.h"
#include "corpus/test_set.h"

namespace leakhound {
namespace {

struct EvalConfig {
  std::string name;
  PoolLimits pool;
  TestSetConfig test_set;
  // Outbound documents scanned per point of the row-capacity and
  // corpus-size sweeps (every k-th case of the set).
  size_t sweep_sample = 0;
  // Every k-th eligible document is written in every format
  // (format_variants.h).
  size_t format_sample_every = 1;
  // Every k-th eligible document is saved by LibreOffice and pandoc
  // (kLegacyVariantFormats), and rendered as page images and read by OCR
  // (kOcrVariantFormats: about 1.5 s a page on one core).
  size_t legacy_sample_every = 2;
  size_t ocr_sample_every = 8;
  // The indexes' shingler and filter (--shingle-words, --winnow,
  // --filter-winnow, --fpr, --row-capacity); the key is the evaluation's.
  IndexOptions index;
  // --detection-only: the main index and the text scans only (no format
  // variants, no sweeps), for comparing index settings' detection.
  bool detection_only = false;
  // --floors-only: no filter experiments and no sweeps, whose figures no
  // floor reads (the suite's run; corpus/evaluate.sh runs them all).
  bool floors_only = false;
  // The scan's options (--query-window, --family-false-alarm,
  // --boilerplate-docs).
  ScanOptions scan;
};

EvalConfig ConfigNamed(const std::string& name) {
  EvalConfig c;
  c.name = name;
  if (name == "small") {
    c.pool.per_collection_role = 40;
    c.test_set.cases_per_cell = 8;
    c.test_set.negatives_per_class = 60;
    c.sweep_sample = 150;
    c.format_sample_every = 2;
    c.legacy_sample_every = 8;
    c.ocr_sample_every = 32;
  } else {
    c.test_set.cases_per_cell = 60;
    c.test_set.negatives_per_class = 400;
    c.sweep_sample = 1500;
  }
  return c;
}

// Regression floors for --assert-floors: well below the targets of
// docs/evaluation.md, so that they catch breakage, not noise.
struct Floor {
  std::string what;
  double value;
  bool at_least;  // else at most
  double limit;
};

std::vector<Floor> Floors(const DetectionSummary& s) {
  std::vector<Floor> floors = {
      {"verbatim recall, 30+ words", s.verbatim_recall_30, true, 0.90},
      {"Chinese recall, 30+ words", s.chinese_recall_30, true, 0.85},
      {"Chinese in the other script (han_variant) recall, 30+ words",
       s.han_variant_recall_30, true, 0.85},
      {"false alarms, clean hosts", s.false_alarm_rate.at("clean_host"), false,
       0.05},
      {"false alarms, held out", s.false_alarm_rate.at("held_out"), false,
       0.15},
      {"scan errors", static_cast<double>(s.scan_errors), false, 0},
  };
  for (const auto& [name, recall] : s.obfuscation_recall_30) {
    // 15 % of words replaced: 87 % in the full run since issue 37 (78 %
    // before), its target 90 %.
    const double floor = name == "substitute_15" ? 0.75 : 0.85;
    floors.push_back({absl::StrCat(name, " recall, 30+ words"), recall, true,
                      floor});
  }
  return floors;
}

std::string Today() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%d", std::gmtime(&now));
  return buffer;
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      return line.substr(line.find(':') + 2);
    }
  }
  return "unknown CPU";
}

std::vector<const OutboundCase*> Sample(const TestSet& set, size_t n) {
  std::vector<const OutboundCase*> out;
  const size_t step =
      std::max<size_t>(1, set.cases.size() / std::max<size_t>(n, 1));
  for (size_t i = 0; i < set.cases.size(); i += step)
    out.push_back(&set.cases[i]);
  return out;
}

struct SweepPoint {
  std::string label;
  BuiltIndex built;
  Quantiles latency;
  double candidates = 0;
  double verify_share = 0;
};

absl::StatusOr<SweepPoint> Measure(
    std::string label, BuiltIndex built,
    const std::vector<const OutboundCase*>& sample) {
  auto results = ScanCases(built, sample);
  if (!results.ok()) return results.status();
  std::vector<double> latency;
  double candidates = 0, verify = 0, total = 0;
  for (const CaseResult& r : *results) {
    if (!r.error.empty()) continue;
    latency.push_back(r.latency_ms);
    candidates += static_cast<double>(r.candidates.size());
    verify += r.verify_ms;
    total += r.latency_ms;
  }
  SweepPoint p;
  p.label = std::move(label);
  p.built = std::move(built);
  p.latency = QuantilesOf(latency);
  p.candidates = candidates / static_cast<double>(latency.size());
  p.verify_share = verify / total;
  return p;
}

std::string CostLine(const SweepPoint& p) {
  const double mb = static_cast<double>(p.built.protected_bytes) / 1e6;
  return absl::StrFormat(
      "| %s | %d | %.1f | %d | %.1f | %.2f | %.2f | %.2f | %.2f | %.0f %% |\n",
      p.label, p.built.documents, mb, p.built.index->matrix().rows_in_use(),
      static_cast<double>(p.built.index->matrix().MemoryBytes()) / 1e6,
      p.built.build_seconds, p.latency.median, p.latency.p99, p.candidates,
      100 * p.verify_share);
}

// Row capacities of the sweep that chooses the default (FilterParams).
constexpr uint32_t kRowCapacities[] = {1024, 4096, 16384, 65536};

constexpr char kCostHeader[] =
    "| index | documents | protected MB | rows | filter in RAM (MB) | build "
    "(s) | median latency (ms) | p99 latency (ms) | candidates per document "
    "| second stage share of scan time |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";

constexpr char kPlots[] =
    R"(# gnuplot script for the evaluation report's figures (corpus/evaluate.sh)
set terminal pngcairo size 900,560 font ",10" noenhanced
set grid
set key outside right

set output 'recall_vs_size.png'
set title 'Recall against excerpt size, per obfuscation'
set xlabel 'excerpt size (words)'
set ylabel 'recall (%)'
set logscale x
set xtics (15, 30, 50, 100, 250)
set yrange [0:102]
plot for [i=2:14] 'recall_vs_size.dat' using 1:i with linespoints title columnheader(i)
unset logscale x
set xtics autofreq

set output 'latency_vs_corpus.png'
set title 'Scan latency against the protected corpus size'
set xlabel 'protected text (MB)'
set ylabel 'latency per outbound document (ms)'
set yrange [0:*]
plot 'latency_vs_corpus.dat' using 1:2 with linespoints title 'median', \
     '' using 1:3 with linespoints title '99th percentile'

set output 'figure2.png'
set multiplot layout 2,1 title 'Similarity of every outbound document to one source (MBF row)'
set key inside left top
set xlabel 'outbound document'
set ylabel 'popcount(query AND row)'
set yrange [0:*]
plot 'figure2.dat' using 1:($4 == 0 ? $2 : 1/0) with points pt 7 ps 0.3 title 'other documents', \
     '' using 1:($4 > 0 ? $2 : 1/0) with impulses lw 2 title 'quotes 5-50 % of the source'
set ylabel 'share of fingerprints in the row'
set yrange [0:1]
plot 'figure2.dat' using 1:($4 == 0 ? $3 : 1/0) with points pt 7 ps 0.3 title 'other documents', \
     '' using 1:($4 > 0 ? $3 : 1/0) with impulses lw 2 title 'quotes 5-50 % of the source'
unset multiplot
)";

int Run(const std::string& corpus, const std::string& out_dir,
        const EvalConfig& config, uint64_t seed, const std::string& label,
        bool assert_floors) {
  namespace fs = std::filesystem;
  auto fail = [](const absl::Status& s) {
    std::cerr << "leakhound-eval: " << s.message() << "\n";
    return 2;
  };
  auto say = [](const std::string& what) {
    std::cerr << "leakhound-eval: " << what << "\n";
  };
  std::error_code error;
  fs::remove_all(fs::path(out_dir) / "indexes", error);
  fs::remove_all(fs::path(out_dir) / "set", error);
  fs::create_directories(fs::path(out_dir) / "indexes", error);
  if (error) return fail(absl::InternalError(error.message()));

  auto pool = LoadDocumentPool(corpus, seed, config.pool);
  if (!pool.ok()) return fail(pool.status());
  say(absl::StrCat("pool: ", pool->protected_docs.size(), " protected, ",
                   pool->hosts.size(), " hosts, ", pool->held_out.size(),
                   " held out"));
  auto set = GenerateTestSet(*pool, config.test_set, seed);
  if (!set.ok()) return fail(set.status());
  if (auto s = WriteTestSet(*set, (fs::path(out_dir) / "set").string());
      !s.ok()) {
    return fail(s);
  }
  say(absl::StrCat("test set: ", set->cases.size(), " outbound documents"));

  const FilterParams defaults = config.index.filter;
  auto key = EvaluationKey(seed);
  if (!key.ok()) return fail(key.status());
  IndexOptions options = config.index;
  options.key = *key;
  auto built = BuildIndex(pool->protected_docs, pool->protected_docs.size(),
                          options,
                          (fs::path(out_dir) / "indexes" / "main").string());
  if (!built.ok()) return fail(built.status());
  built->scan = config.scan;
  say(absl::StrFormat("index: %d documents in %.1f s", built->documents,
                      built->build_seconds));
  std::vector<const OutboundCase*> all;
  for (const OutboundCase& c : set->cases) all.push_back(&c);
  auto results = ScanCases(*built, all);
  if (!results.ok()) return fail(results.status());
  say("scanned the test set");
  absl::StatusOr<FilterExperimentResults> filter = FilterExperimentResults{};
  if (!config.floors_only) {
    filter = RunFilterExperiments(*built, *set, *results);
    if (!filter.ok()) return fail(filter.status());
    say("filter experiments done");
  }

  // The boilerplate allow-listed, as an administrator would.
  std::string boilerplate;
  for (const std::string& line : set->boilerplate_lines) {
    absl::StrAppend(&boilerplate, line, "\n");
  }
  std::map<size_t, CaseResult> allowed;
  if (!boilerplate.empty()) {
    auto added = built->index->AddAllowed("boilerplate", "evaluation",
                                          boilerplate);
    if (!added.ok()) return fail(added.status());
    std::vector<const OutboundCase*> cases;
    std::vector<size_t> at;
    for (size_t i = 0; i < set->cases.size(); ++i) {
      if (set->cases[i].klass == CaseClass::kBoilerplate) {
        cases.push_back(&set->cases[i]);
        at.push_back(i);
      }
    }
    auto rescanned = ScanCases(*built, cases);
    if (!rescanned.ok()) return fail(rescanned.status());
    for (size_t j = 0; j < at.size(); ++j) allowed[at[j]] = (*rescanned)[j];
    if (auto s = built->index->RemoveAllowed("boilerplate"); !s.ok()) {
      return fail(s);
    }
  }

  MatchRule rule;
  rule.min_distinctive_words = config.scan.min_distinctive_words;
  // Skipped with --detection-only: empty runs, and no floors of theirs.
  FormatRun formats, legacy, ocr;
  // A page image holds at most 16 KiB of text: about 12 pages at 150 dpi
  // stacked (Cairo's images end at 32,767 pixels, 18 pages; the product
  // refuses images over 40 megapixels by default, 18 pages too).
  constexpr size_t kMaxOcrTextBytes = 16 * 1024;
  const struct {
    size_t sample_every;
    size_t max_text_bytes;
    std::span<const char* const> formats;
    const char* title;
    const char* done;
    FormatRun* out;
  } variant_runs[] = {
      {config.format_sample_every, 0, kVariantFormats, "Formats",
       "format variants scanned", &formats},
      {config.legacy_sample_every, 0, kLegacyVariantFormats,
       "Legacy formats (LibreOffice, pandoc)",
       "legacy format variants scanned", &legacy},
      {config.ocr_sample_every, kMaxOcrTextBytes, kOcrVariantFormats,
       "Page images read by OCR", "OCR variants scanned", &ocr},
  };
  for (const auto& v : variant_runs) {
    if (config.detection_only) break;
    auto run = RunFormatVariants(*set, *results, *built, rule,
                                 (fs::path(out_dir) / "set").string(),
                                 v.sample_every, v.max_text_bytes, v.formats,
                                 v.title);
    if (!run.ok()) return fail(run.status());
    *v.out = std::move(*run);
    say(v.done);
  }
  ReportSection detection = DetectionSection(*set, *results, rule, allowed);
  const DetectionSummary summary = Summarize(*set, *results, rule);

  // Sweeps: row capacity at equal memory per fingerprint, then corpus size.
  const std::vector<const OutboundCase*> sample =
      Sample(*set, config.sweep_sample);
  std::vector<SweepPoint> capacity_points;
  for (uint32_t n : kRowCapacities) {
    if (config.detection_only || config.floors_only) break;
    IndexOptions params = options;
    params.filter.row_capacity = n;
    auto b = BuildIndex(pool->protected_docs, pool->protected_docs.size(),
                        params,
                        (fs::path(out_dir) / "indexes" / absl::StrCat("n", n))
                            .string());
    if (!b.ok()) return fail(b.status());
    b->scan = config.scan;
    auto p = Measure(absl::StrCat("n = ", n), std::move(*b), sample);
    if (!p.ok()) return fail(p.status());
    capacity_points.push_back(std::move(*p));
  }
  say("row-capacity sweep done");
  std::vector<SweepPoint> size_points;
  std::string latency_dat = "# protected_MB median_ms p99_ms documents\n";
  for (double share : {0.125, 0.25, 0.5, 1.0}) {
    if (config.detection_only || config.floors_only) break;
    const auto count = static_cast<size_t>(
        share * static_cast<double>(pool->protected_docs.size()));
    auto b = BuildIndex(pool->protected_docs, count, options,
                        (fs::path(out_dir) / "indexes" /
                         absl::StrCat("share", static_cast<int>(share * 1000)))
                            .string());
    if (!b.ok()) return fail(b.status());
    b->scan = config.scan;
    auto p = Measure(absl::StrFormat("%.1f %% of the documents", 100 * share),
                     std::move(*b), sample);
    if (!p.ok()) return fail(p.status());
    absl::StrAppend(&latency_dat,
                    static_cast<double>(p->built.protected_bytes) / 1e6, " ",
                    p->latency.median, " ", p->latency.p99, " ",
                    p->built.documents, "\n");
    size_points.push_back(std::move(*p));
  }
  say("corpus-size sweep done");

  // The report.
  std::string md = absl::StrCat(
      "# leakhound evaluation report\n\n",
      absl::StrFormat(
          "Date %s, commit %s, %s (%d hardware threads), configuration "
          "`%s`, seed %d. Produced by `leakhound-eval` (docs/evaluation.md); "
          "every figure below comes from this one run.\n\n",
          Today(), label, CpuModel(), std::thread::hardware_concurrency(),
          config.name, seed),
      "## Corpus and test set\n\n");
  std::map<std::string, std::map<std::string, int>> roles;
  for (const auto& d : pool->protected_docs) ++roles[d.collection]["protected"];
  for (const auto& d : pool->hosts) ++roles[d.collection]["hosts"];
  for (const auto& d : pool->held_out) ++roles[d.collection]["held out"];
  absl::StrAppend(&md, "| collection | protected | hosts | held out |\n"
                       "|---|---:|---:|---:|\n");
  for (auto& [collection, n] : roles) {
    absl::StrAppend(&md, "| ", collection, " | ", n["protected"], " | ",
                    n["hosts"], " | ", n["held out"], " |\n");
  }
  std::map<std::string, int> groups;
  for (const OutboundCase& c : set->cases) ++groups[c.group];
  absl::StrAppend(
      &md,
      "\nCollections (corpus/prepare_corpora.sh): `python` = Python 3.11 "
      "documentation sources (python3.11-doc), `kernel` = Linux 6.1 "
      "documentation sources (linux-doc-6.1), `perl` = the Perl manual "
      "(perl-doc, pod2text), `man` = the Linux man-pages project "
      "(manpages, manpages-dev, groff), each one document per section "
      "of at least ",
      config.pool.section_bytes,
      " bytes; `pg` = "
      "PostgreSQL 15 manual pages (postgresql-doc-15, HTML rendered as "
      "text), `zh` and `zh_tw` = simplified and traditional Chinese manual "
      "pages (manpages-zh, groff), one "
      "document per page; `gnu` = nodes of the GNU coreutils, grep, "
      "sed, gzip, diffutils and findutils manuals (hosts only). Outbound "
      "documents per group:");
  for (const auto& [group, n] : groups)
    absl::StrAppend(&md, " ", group, " ", n, ";");
  md.back() = '.';
  absl::StrAppend(
      &md, " Ground truth: `set/truth.tsv`. Excerpts are passages of one "
           "document: ", set->excerpts_redrawn,
      " excerpts were drawn again from another start for being more than "
      "a quarter boilerplate (words only in shingles held by more than ",
      kCommonDocuments, " protected documents); ",
      set->excerpts_left_boilerplate,
      " stayed so after every attempt and were used as drawn.\n\n");
  md += detection.markdown;
  md += formats.section.markdown;
  md += legacy.section.markdown;
  md += ocr.section.markdown;
  const BuiltIndex& b = *built;
  const double mb = static_cast<double>(b.protected_bytes) / 1e6;
  absl::StrAppend(
      &md, "## Index cost\n\n",
      absl::StrFormat(
          "Building the index of %d documents (%.1f MB of text, %d "
          "fingerprints in the filter; p = %g, n = %d, winnowing window %d, "
          "filter winnowing window %d) on one thread, staged and committed in "
          "one batch "
          "(`ProtectedIndex::Stage`, `Commit`): %.1f s, %.2f MB/s. Filter in "
          "RAM: %.1f MB (%.2f MB per protected MB, %.1f bits per "
          "fingerprint). On disk (RocksDB, fingerprint lists included): "
          "%.1f MB (%.2f MB per protected MB, %.1f bytes per "
          "fingerprint).\n\n",
          b.documents, mb, b.fingerprints, defaults.fpr, defaults.row_capacity,
          config.index.shingler.winnow_window,
          config.index.shingler.filter_winnow_window, b.build_seconds,
          mb / b.build_seconds,
          static_cast<double>(b.index->matrix().MemoryBytes()) / 1e6,
          static_cast<double>(b.index->matrix().MemoryBytes()) / 1e6 / mb,
          8.0 * static_cast<double>(b.index->matrix().MemoryBytes()) /
              static_cast<double>(b.fingerprints),
          static_cast<double>(b.disk_bytes) / 1e6,
          static_cast<double>(b.disk_bytes) / 1e6 / mb,
          static_cast<double>(b.disk_bytes) /
              static_cast<double>(b.fingerprints)));
  if (!capacity_points.empty()) {
    absl::StrAppend(
        &md, "### Row capacity at equal memory\n\n",
        absl::StrFormat(
            "Indexes of every protected document at p = %g (so the same bits "
            "per fingerprint) and row capacities %s; %d outbound documents "
            "(every k-th of the set) scanned on each.\n\n",
            defaults.fpr, absl::StrJoin(kRowCapacities, ", "), sample.size()),
        kCostHeader);
    const SweepPoint* fastest = &capacity_points[0];
    for (const SweepPoint& p : capacity_points) {
      md += CostLine(p);
      if (p.latency.mean < fastest->latency.mean) fastest = &p;
    }
    absl::StrAppend(&md, "\nLowest mean latency: ", fastest->label,
                    absl::StrFormat(" (%.2f ms).\n\n", fastest->latency.mean),
                    "### Latency against corpus size\n\n", kCostHeader);
    for (const SweepPoint& p : size_points) md += CostLine(p);
    absl::StrAppend(
        &md, "\n![Latency against corpus size](latency_vs_corpus.png)\n\n");
  }
  md += filter->section.markdown;
  if (config.floors_only) {
    md +=
        "## Not measured in this run\n\n`--floors-only`: the filter "
        "experiments and the row-capacity and corpus-size sweeps were "
        "skipped; no regression floor reads them (`corpus/evaluate.sh` runs "
        "them).\n\n";
  }

  std::vector<Floor> floors = Floors(summary);
  if (!config.detection_only) {
    floors.push_back({"formats: largest 30+ word recall drop below text (pp)",
                      formats.summary.worst_recall_gap_pp, false, 5});
    floors.push_back({"formats: negatives flagged only in a format",
                      static_cast<double>(formats.summary.new_false_alarms),
                      false, 0});
    floors.push_back({"formats: scan errors",
                      static_cast<double>(formats.summary.scan_errors), false,
                      0});
    floors.push_back({"legacy formats: largest 30+ word recall drop below "
                      "text (pp)",
                      legacy.summary.worst_recall_gap_pp, false, 5});
    floors.push_back({"legacy formats: negatives flagged only in a format",
                      static_cast<double>(legacy.summary.new_false_alarms),
                      false, 0});
    floors.push_back({"legacy formats: scan errors",
                      static_cast<double>(legacy.summary.scan_errors), false,
                      0});
    // OCR: the targets of issue 31 (docs/evaluation.md), 95 % English and
    // 90 % Chinese, as floors a few points lower: the small configuration
    // reads about 30 documents.
    floors.push_back({"OCR: lowest English 30+ word recall (%)",
                      ocr.summary.lowest_english_30, true, 90});
    floors.push_back({"OCR: lowest Chinese 30+ word recall (%)",
                      ocr.summary.lowest_chinese_30, true, 85});
    floors.push_back({"OCR: negatives flagged only in page images",
                      static_cast<double>(ocr.summary.new_false_alarms), false,
                      0});
    floors.push_back({"OCR: scan errors",
                      static_cast<double>(ocr.summary.scan_errors), false, 0});
  }
  absl::StrAppend(&md,
                  "## Regression floors (`--assert-floors`)\n\n"
                  "| measure | value | floor | met |\n|---|---:|---:|---|\n");
  bool all_met = true;
  for (const Floor& f : floors) {
    const bool met = f.at_least ? f.value >= f.limit : f.value <= f.limit;
    all_met = all_met && met;
    absl::StrAppend(&md, "| ", f.what, " | ", absl::StrFormat("%.4g", f.value),
                    " | ", f.at_least ? ">= " : "<= ",
                    absl::StrFormat("%.4g", f.limit), " | ",
                    met ? "yes" : "**no**", " |\n");
    if (!met && assert_floors) {
      std::cerr << "leakhound-eval: floor not met: " << f.what << " = "
                << f.value << (f.at_least ? " < " : " > ") << f.limit << "\n";
    }
  }

  std::map<std::string, std::string> files = detection.data_files;
  std::string per_case =
      "file\terror\tlatency_ms\tcandidates\tmatches (id:longest "
      "passage words:its covered words:largest group's covered words:"
      "coverage of source:distinctive words:passages, "
      "comma-separated, each as covered words@scanned tokens/source tokens, "
      "e.g. 12@40-55/300-315)\n";
  for (size_t i = 0; i < set->cases.size(); ++i) {
    const CaseResult& r = (*results)[i];
    absl::StrAppend(&per_case, set->cases[i].file, "\t", r.error, "\t",
                    absl::StrFormat("%.3f", r.latency_ms), "\t",
                    absl::StrJoin(r.candidates, ","), "\t");
    for (const DocumentMatch& m : r.matches) {
      absl::StrAppend(&per_case, m.external_id, ":", m.longest_passage_words,
                      ":", m.longest_covered_words, ":", m.group_words, ":",
                      absl::StrFormat("%.3f", m.coverage_of_source), ":",
                      m.distinctive_words, ":",
                      absl::StrJoin(m.passages, ",",
                                    [](std::string* out, const Passage& p) {
                                      absl::StrAppend(
                                          out, p.covered_words, "@",
                                          p.token_begin, "-", p.token_end, "/",
                                          p.source_token_begin, "-",
                                          p.source_token_end);
                                    }),
                      " ");
    }
    per_case += "\n";
  }
  files["results.tsv"] = std::move(per_case);
  files.insert(filter->section.data_files.begin(),
               filter->section.data_files.end());
  files["latency_vs_corpus.dat"] = latency_dat;
  files["plots.gp"] = kPlots;
  files["report.md"] = md;
  for (const auto& [name, content] : files) {
    std::ofstream f(fs::path(out_dir) / name, std::ios::binary);
    f << content;
    if (!f)
      return fail(absl::InternalError(absl::StrCat("cannot write ", name)));
  }
  say(absl::StrCat("report: ", (fs::path(out_dir) / "report.md").string()));
  return assert_floors && !all_met ? 1 : 0;
}

}  // namespace
}  // namespace leakhound

int main(int argc, char** argv) {
  leakhound::LimitOcrThreads(argv);
  std::string corpus, out, config = "full", label = "unknown";
  uint64_t seed = 1;
  bool assert_floors = false;
  leakhound::IndexOptions index;
  leakhound::ScanOptions eval_scan;
  bool detection_only = false, floors_only = false;
  static const option kOptions[] = {
      {"corpus", required_argument, nullptr, 'c'},
      {"out", required_argument, nullptr, 'o'},
      {"config", required_argument, nullptr, 'f'},
      {"seed", required_argument, nullptr, 's'},
      {"label", required_argument, nullptr, 'l'},
      {"assert-floors", no_argument, nullptr, 'a'},
      {"shingle-words", required_argument, nullptr, 'S'},
      {"winnow", required_argument, nullptr, 'w'},
      {"filter-winnow", required_argument, nullptr, 'F'},
      {"row-capacity", required_argument, nullptr, 'n'},
      {"query-window", required_argument, nullptr, 'W'},
      {"family-false-alarm", required_argument, nullptr, 'A'},
      {"boilerplate-docs", required_argument, nullptr, 'B'},
      {"min-distinctive-words", required_argument, nullptr, 'D'},
      {"distinctive-docs", required_argument, nullptr, 'E'},
      {"no-word-checks", no_argument, nullptr, 'K'},
      {"fpr", required_argument, nullptr, 'p'},
      {"detection-only", no_argument, nullptr, 'd'},
      {"floors-only", no_argument, nullptr, 'R'},
      {"help", no_argument, nullptr, 'h'},
      {nullptr, 0, nullptr, 0}};
  constexpr char kUsage[] =
      "usage: leakhound-eval --corpus DIR --out DIR [--config small|full] "
      "[--seed N] [--label TEXT] [--assert-floors] [--shingle-words N] "
      "[--winnow W] [--filter-winnow W] [--fpr P] [--row-capacity N] "
      "[--query-window N] "
      "[--family-false-alarm A] [--boilerplate-docs N] "
      "[--min-distinctive-words N] [--distinctive-docs N] [--no-word-checks] "
      "[--detection-only] [--floors-only]\n";
  auto unsigned_arg = [] {
    return static_cast<uint32_t>(std::strtoul(optarg, nullptr, 10));
  };
  int opt;
  while ((opt = getopt_long(argc, argv, "", kOptions, nullptr)) != -1) {
    switch (opt) {
      case 'c': corpus = optarg; break;
      case 'o': out = optarg; break;
      case 'f': config = optarg; break;
      case 's': seed = std::strtoull(optarg, nullptr, 10); break;
      case 'l': label = optarg; break;
      case 'a': assert_floors = true; break;
      case 'S': index.shingler.shingle_words = std::atoi(optarg); break;
      case 'w': index.shingler.winnow_window = std::atoi(optarg); break;
      case 'F':
        index.shingler.filter_winnow_window = std::atoi(optarg);
        break;
      case 'W': eval_scan.query.window = unsigned_arg(); break;
      case 'A':
        eval_scan.query.family_false_alarm = std::strtod(optarg, nullptr);
        break;
      case 'B': eval_scan.boilerplate_documents = unsigned_arg(); break;
      case 'D': eval_scan.min_distinctive_words = unsigned_arg(); break;
      case 'E': eval_scan.distinctive_documents = unsigned_arg(); break;
      case 'K': eval_scan.word_checks = false; break;
      case 'n': index.filter.row_capacity = unsigned_arg(); break;
      case 'p': index.filter.fpr = std::strtod(optarg, nullptr); break;
      case 'd': detection_only = true; break;
      case 'R': floors_only = true; break;
      case 'h': std::cout << kUsage; return 0;
      default: std::cerr << kUsage; return 2;
    }
  }
  if (corpus.empty() || out.empty() || optind != argc ||
      (config != "small" && config != "full")) {
    std::cerr << kUsage;
    return 2;
  }
  leakhound::EvalConfig eval = leakhound::ConfigNamed(config);
  eval.index = index;
  eval.detection_only = detection_only;
  eval.floors_only = floors_only;
  eval.scan = eval_scan;
  return leakhound::Run(corpus, out, eval, seed, label, assert_floors);
}
