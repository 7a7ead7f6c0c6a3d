#include "corpus/detection_report.h"

#include <algorithm>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace leakhound {
namespace {

constexpr uint32_t kSweepMinWords[] = {8, 10, 12, 15, 20, 25, 30};

// Found / total over (case, source) pairs or documents.
struct Rate {
  uint64_t hits = 0;
  uint64_t total = 0;
  double value() const {
    return total == 0 ? 0
                      : static_cast<double>(hits) / static_cast<double>(total);
  }
  std::string Cell() const {
    if (total == 0) return "";
    return absl::StrFormat("%.1f %% (%d/%d)", 100 * value(), hits, total);
  }
};

using CaseFilter = std::function<bool(const OutboundCase&)>;

// Recall over the positive pairs of the cases `keep` accepts.
Rate Recall(const TestSet& set, const std::vector<CaseResult>& results,
            const MatchRule& rule, const CaseFilter& keep) {
  Rate rate;
  for (size_t i = 0; i < set.cases.size(); ++i) {
    const OutboundCase& c = set.cases[i];
    if (c.klass != CaseClass::kPositive || !keep(c)) continue;
    for (const Insert& insert : c.inserts) {
      ++rate.total;
      rate.hits += Found(results[i], insert.source_id, rule);
    }
  }
  return rate;
}

// Documents of a negative class with a match.
Rate FalseAlarms(const TestSet& set, const std::vector<CaseResult>& results,
                 const MatchRule& rule, CaseClass klass) {
  Rate rate;
  for (size_t i = 0; i < set.cases.size(); ++i) {
    if (set.cases[i].klass != klass) continue;
    ++rate.total;
    rate.hits += AnyMatch(results[i], rule);
  }
  return rate;
}

constexpr CaseClass kNegatives[] = {CaseClass::kCleanHost, CaseClass::kHeldOut,
                                    CaseClass::kBoilerplate};

}  // namespace

bool Found(const CaseResult& r, const std::string& source,
           const MatchRule& rule) {
  for (const DocumentMatch& m : r.matches) {
    if (m.external_id == source && rule.Matches(m)) return true;
  }
  return false;
}

bool AnyMatch(const CaseResult& r, const MatchRule& rule) {
  for (const DocumentMatch& m : r.matches) {
    if (rule.Matches(m)) return true;
  }
  return false;
}

Quantiles QuantilesOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  Quantiles q;
  q.median = values[values.size() / 2];
  q.p99 = values[std::min(values.size() - 1, values.size() * 99 / 100)];
  double sum = 0;
  for (double v : values) sum += v;
  q.mean = sum / static_cast<double>(values.size());
  return q;
}

DetectionSummary Summarize(const TestSet& set,
                           const std::vector<CaseResult>& results,
                           const MatchRule& rule) {
  DetectionSummary s;
  s.verbatim_recall_30 = Recall(set, results, rule, [](const OutboundCase& c) {
                           return c.group == "size" && c.size_words >= 30 &&
                                  c.obfuscation == Obfuscation::kNone;
                         }).value();
  for (Obfuscation o : kAllObfuscations) {
    s.obfuscation_recall_30[std::string(ObfuscationName(o))] =
        Recall(set, results, rule, [o](const OutboundCase& c) {
          return c.group == "size" && c.size_words >= 30 && c.obfuscation == o;
        }).value();
  }
  s.chinese_recall_30 = Recall(set, results, rule, [](const OutboundCase& c) {
                          return c.group == "chinese" && c.size_words >= 30;
                        }).value();
  s.han_variant_recall_30 =
      Recall(set, results, rule, [](const OutboundCase& c) {
        return c.group == "chinese" && c.size_words >= 30 &&
               c.obfuscation == Obfuscation::kHanVariant;
      }).value();
  for (CaseClass klass : kNegatives) {
    s.false_alarm_rate[std::string(CaseClassName(klass))] =
        FalseAlarms(set, results, rule, klass).value();
  }
  for (const CaseResult& r : results) s.scan_errors += !r.error.empty();
  return s;
}

ReportSection DetectionSection(
    const TestSet& set, const std::vector<CaseResult>& results,
    const MatchRule& rule,
    const std::map<size_t, CaseResult>& allowed_boilerplate) {
  ReportSection out;
  std::string& md = out.markdown;
  absl::StrAppend(
      &md, "## Detection\n\n",
      absl::StrFormat(
          "Match rule: a protected document matches when a group of passages "
          "(one passage, or passages adjacent in the outbound text from one "
          "stretch of the source in any order) has at least %d words inside "
          "its matched shingles or the passages cover at least %.0f %% of it "
          "(`--min-words %d --min-coverage %.2f`), boilerplate fingerprints "
          "(held by more than 10 protected documents) not counting. Recall "
          "counts (outbound document, true source) pairs.\n\n",
          rule.min_words, 100 * rule.min_coverage, rule.min_words,
          rule.min_coverage));

  // Recall by size and obfuscation.
  absl::StrAppend(&md,
                  "### Recall by excerpt size and obfuscation (English)\n\n",
                  "| obfuscation |");
  for (uint32_t size : kExcerptWords)
    absl::StrAppend(&md, " ", size, " words |");
  absl::StrAppend(&md, "\n|---|");
  for (size_t i = 0; i < std::size(kExcerptWords); ++i) md += "---:|";
  md += "\n";
  std::string dat = "size";  // a header row: gnuplot's columnheader
  for (Obfuscation o : kAllObfuscations)
    absl::StrAppend(&dat, " ", ObfuscationName(o));
  for (Obfuscation o : kChineseObfuscations) {
    absl::StrAppend(&dat, " zh_", ObfuscationName(o));
  }
  dat += "\n";
  std::map<uint32_t, std::string> dat_rows;
  for (Obfuscation o : kAllObfuscations) {
    absl::StrAppend(&md, "| ", ObfuscationName(o), " |");
    for (uint32_t size : kExcerptWords) {
      const Rate r = Recall(set, results, rule, [&](const OutboundCase& c) {
        return c.group == "size" && c.size_words == size && c.obfuscation == o;
      });
      absl::StrAppend(&md, " ", r.Cell(), " |");
      absl::StrAppend(&dat_rows[size], " ", 100 * r.value());
    }
    md += "\n";
  }
  absl::StrAppend(&md, "\n### Recall of Chinese excerpts\n\n| obfuscation |");
  for (uint32_t size : kExcerptWords)
    absl::StrAppend(&md, " ", size, " words |");
  absl::StrAppend(&md, "\n|---|");
  for (size_t i = 0; i < std::size(kExcerptWords); ++i) md += "---:|";
  md += "\n";
  for (Obfuscation o : kChineseObfuscations) {
    absl::StrAppend(&md, "| ", ObfuscationName(o), " |");
    for (uint32_t size : kExcerptWords) {
      const Rate r = Recall(set, results, rule, [&](const OutboundCase& c) {
        return c.group == "chinese" && c.size_words == size &&
               c.obfuscation == o;
      });
      absl::StrAppend(&md, " ", r.Cell(), " |");
      absl::StrAppend(&dat_rows[size], " ", 100 * r.value());
    }
    md += "\n";
  }
  for (const auto& [size, row] : dat_rows)
    absl::StrAppend(&dat, size, row, "\n");
  out.data_files["recall_vs_size.dat"] = std::move(dat);
  absl::StrAppend(&md,
                  "\n![Recall against excerpt size](recall_vs_size.png)\n\n");

  // Shares, formats, split, two sources.
  absl::StrAppend(&md,
                  "### Recall by share of the source, format, split and "
                  "two-source excerpts (verbatim)\n\n| excerpt | recall |\n"
                  "|---|---:|\n");
  for (uint32_t percent : kSourcePercents) {
    absl::StrAppend(&md, "| ", percent, " % of the source | ",
                    Recall(set, results, rule, [&](const OutboundCase& c) {
                      return c.group == "percent" && c.size_percent == percent;
                    }).Cell(),
                    " |\n");
  }
  for (uint32_t size : kFormatWords) {
    for (Format f : {Format::kText, Format::kMarkdown, Format::kHtml}) {
      absl::StrAppend(&md, "| ", size, " words in ", FormatName(f), " | ",
                      Recall(set, results, rule, [&](const OutboundCase& c) {
                        return c.group == "format" && c.size_words == size &&
                               c.format == f;
                      }).Cell(),
                      " |\n");
    }
  }
  for (auto [size, pieces] : kSplits) {
    absl::StrAppend(&md, "| ", size, " words split in ", pieces, " pieces of ",
                    size / pieces, " | ",
                    // Copies: clang 14 cannot capture structured bindings.
                    Recall(set, results, rule,
                           [&, size = size, pieces = pieces](
                               const OutboundCase& c) {
                             return c.group == "split" &&
                                    c.size_words == size && c.pieces == pieces;
                           })
                        .Cell(),
                    " |\n");
  }
  absl::StrAppend(&md, "| 50 words from each of two sources (per source) | ",
                  Recall(set, results, rule, [](const OutboundCase& c) {
                    return c.group == "two_sources";
                  }).Cell(),
                  " |\n");
  absl::StrAppend(&md, "| Figure 2 set: 5 % to 50 % of one source | ",
                  Recall(set, results, rule, [](const OutboundCase& c) {
                    return c.group == "figure2";
                  }).Cell(),
                  " |\n\n");

  // False alarms.
  absl::StrAppend(&md, "### False alarms\n\nDocuments with at least one match. "
                       "Boilerplate-only documents are lines found verbatim "
                       "in at least ", kBoilerplateMinDocs,
                  " protected documents. Hosts and held-out documents "
                  "that hold a near-copy of a protected document by the "
                  "evaluation's referee (corpus/near_copy_referee.h, apart "
                  "from the engine: ", MatchRule{}.min_words,
                  " or more words aligned, at most one "
                  "in five substituted or inserted, boilerplate not "
                  "counting; judged before the scan) "
                  "are their own class, flagged correctly when flagged and "
                  "never counted as false alarms: ", set.near_copy_hosts,
                  " hosts and ", set.near_copy_held_out,
                  " held-out documents.\n\n",
                  "| negative class | automatic boilerplate suppression | "
                  "with the boilerplate allow-listed |\n|---|---:|---:|\n");
  for (CaseClass klass : kNegatives) {
    std::string allowed;
    if (klass == CaseClass::kBoilerplate) {
      Rate r;
      for (const auto& [i, result] : allowed_boilerplate) {
        ++r.total;
        r.hits += AnyMatch(result, rule);
      }
      allowed = r.Cell();
    }
    absl::StrAppend(&md, "| ", CaseClassName(klass), " | ",
                    FalseAlarms(set, results, rule, klass).Cell(), " | ",
                    allowed, " |\n");
  }
  absl::StrAppend(&md, "| near_copy (flagged: correct, not a false alarm) | ",
                  FalseAlarms(set, results, rule, CaseClass::kNearCopy).Cell(),
                  " |  |\n");
  uint32_t errors = 0;
  for (const CaseResult& r : results) errors += !r.error.empty();
  absl::StrAppend(&md, "\nScan errors: ", errors, ".\n\n");

  // The min_words sweep.
  absl::StrAppend(
      &md, "### Choosing min_words\n\nThe same scans under other rules "
           "(min_coverage ",
      absl::StrFormat("%.2f", rule.min_coverage),
      "): recall of 15-word verbatim excerpts, of 30+ word verbatim "
      "excerpts, of 30+ word excerpts over every obfuscation but 15 % "
      "substitution, and false alarms. Counted: the longest passage's span; "
      "its words inside its matched shingles (\"covered\": the gaps the "
      "second stage bridged do not count); or the covered words of the "
      "largest group of passages adjacent in the outbound text and from one "
      "stretch of the source in any order (\"group\", the default).\n\n"
      "| min_words | counted | verbatim 15 | verbatim 30+ | obfuscated 30+ | "
      "substitute_15 30+ | clean hosts | held out | boilerplate |\n"
      "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const WordCount count :
       {WordCount::kSpan, WordCount::kCovered, WordCount::kGroup})
  for (uint32_t min_words : kSweepMinWords) {
    MatchRule r = rule;
    r.min_words = min_words;
    r.count = count;
    auto cell = [&](const CaseFilter& f) {
      return absl::StrFormat("%.1f %%",
                             100 * Recall(set, results, r, f).value());
    };
    absl::StrAppend(
        &md, "| ", min_words, " | ",
        count == WordCount::kSpan      ? "span"
        : count == WordCount::kCovered ? "covered"
                                       : "group",
        " | ",
        cell([](const OutboundCase& c) {
          return c.group == "size" && c.size_words == 15 &&
                 c.obfuscation == Obfuscation::kNone;
        }),
        " | ",
        cell([](const OutboundCase& c) {
          return c.group == "size" && c.size_words >= 30 &&
                 c.obfuscation == Obfuscation::kNone;
        }),
        " | ",
        cell([](const OutboundCase& c) {
          return c.group == "size" && c.size_words >= 30 &&
                 c.obfuscation != Obfuscation::kSubstitute15;
        }),
        " | ",
        cell([](const OutboundCase& c) {
          return c.group == "size" && c.size_words >= 30 &&
                 c.obfuscation == Obfuscation::kSubstitute15;
        }));
    for (CaseClass klass : kNegatives) {
      absl::StrAppend(&md, " | ",
                      absl::StrFormat("%.2f %%", 100 * FalseAlarms(set, results,
                                                                  r, klass)
                                                         .value()));
    }
    md += " |\n";
  }

  // Candidates and cost.
  std::vector<double> latency, candidates, verified, shingle, filter, verify;
  uint64_t bytes = 0;
  double total_ms = 0;
  for (const CaseResult& r : results) {
    if (!r.error.empty()) continue;
    latency.push_back(r.latency_ms);
    total_ms += r.latency_ms;
    bytes += r.input_bytes;
    candidates.push_back(static_cast<double>(r.candidates.size()));
    double matched = 0;
    for (const DocumentMatch& m : r.matches) matched += rule.Matches(m);
    verified.push_back(matched);
    shingle.push_back(r.shingle_ms);
    filter.push_back(r.filter_ms);
    verify.push_back(r.verify_ms);
  }
  if (!latency.empty()) {
    const Quantiles l = QuantilesOf(latency), c = QuantilesOf(candidates),
                    v = QuantilesOf(verified), s = QuantilesOf(shingle),
                    f = QuantilesOf(filter), w = QuantilesOf(verify);
    const double steps = s.mean + f.mean + w.mean;
    absl::StrAppend(
        &md, "\n## Scan cost\n\n",
        absl::StrFormat(
            "%d outbound documents, %.1f MB, scanned one after another on one "
            "thread (extraction, shingling, filter, second stage).\n\n"
            "| | median | 99th percentile | mean |\n|---|---:|---:|---:|\n"
            "| latency per document (ms) | %.2f | %.2f | %.2f |\n"
            "| candidates per document, filter stage | %.0f | %.0f | %.2f |\n"
            "| matches per document, after the second stage | %.0f | %.0f | "
            "%.2f |\n\n"
            "Throughput: %.1f MB/s, %.0f documents/s. Mean time per document: "
            "shingling %.2f ms (%.0f %%), filter %.3f ms (%.1f %%), second "
            "stage %.2f ms (%.0f %%).\n\n",
            latency.size(), static_cast<double>(bytes) / 1e6, l.median, l.p99,
            l.mean, c.median, c.p99, c.mean, v.median, v.p99, v.mean,
            static_cast<double>(bytes) / 1e3 / total_ms,
            1e3 * static_cast<double>(latency.size()) / total_ms, s.mean,
            100 * s.mean / steps, f.mean, 100 * f.mean / steps, w.mean,
            100 * w.mean / steps));
  }
  return out;
}

}  // namespace leakhound
