#include "engine/scan/leak_scanner.h"

#include <algorithm>
#include <chrono>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "shingler/winnower.h"

namespace leakhound {
namespace {

// The smallest query window of a filter sampled by winnowing.
constexpr uint32_t kMinSampledWindow = 16;

uint64_t NanosSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now() - start)
          .count());
}

}  // namespace

absl::StatusOr<std::unique_ptr<LeakScanner>> LeakScanner::Create(
    const ProtectedIndex& index, const ScanOptions& options) {
  if (options.min_words < 1 || options.min_words > 10000) {
    return absl::InvalidArgumentError("min_words must be in [1, 10000]");
  }
  if (!(options.min_coverage > 0 && options.min_coverage <= 1)) {
    return absl::InvalidArgumentError("min_coverage must be in (0, 1]");
  }
  if (options.distinctive_documents < 1 ||
      options.min_distinctive_words > 10000) {
    return absl::InvalidArgumentError(
        "distinctive_documents must be at least 1 and min_distinctive_words "
        "at most 10000");
  }
  auto shingler = index.NewShingler();
  if (!shingler.ok()) return shingler.status();
  // A filter sampled by winnowing holds about 2/(W+1) of each text's
  // fingerprints: the query's windows shrink by as much, so that a window
  // spans as much text as it does in an index of every fingerprint.
  ScanOptions scaled = options;
  const uint32_t w = index.metadata().filter_winnow_window;
  if (w > 1 && scaled.query.window >= 2) {
    scaled.query.window = std::max<uint32_t>(
        kMinSampledWindow, scaled.query.window * 2 / (w + 1));
  }
  return std::unique_ptr<LeakScanner>(
      new LeakScanner(index, scaled, std::move(*shingler)));
}

LeakScanner::LeakScanner(const ProtectedIndex& index,
                         const ScanOptions& options,
                         std::unique_ptr<Shingler> shingler)
    : index_(index),
      options_(options),
      passage_options_(PassageOptionsFor(index.shingler_options())),
      shingler_(std::move(shingler)) {}

LeakScanner::FilterQuery LeakScanner::BuildQuery(const ScannedText& scanned,
                                                 ScanReport& report) const {
  // Allow-listed fingerprints and boilerplate ones (held by more than
  // boilerplate_documents protected documents: the shared counts in
  // memory) count neither in the filter stage nor in the second; left in
  // the query, boilerplate would make every row holding a document of the
  // same template a candidate.
  FilterQuery out;
  const bool has_allow_list = index_.allowed_fingerprints() > 0;
  const DocumentFrequency& frequency = index_.frequency();
  const bool boilerplate_rule = options_.boilerplate_documents > 0 &&
                                frequency.shared_size() > 0;
  // Rows of an index with a filter winnowing window hold only the
  // fingerprints winnowing selects from each document; the query is the
  // same selection of the scanned text (so a shared run selects the same
  // fingerprints on both sides), while suppression covers every
  // fingerprint, because the second stage compares every shingle.
  const uint32_t window = index_.metadata().filter_winnow_window;
  std::vector<uint64_t>& query = out.fingerprints;
  query.reserve(scanned.distinct().size());
  for (uint64_t fp : scanned.distinct()) {
    if (has_allow_list && index_.IsAllowed(fp)) {
      ++report.allowed_fingerprints;
    } else if (boilerplate_rule &&
               frequency.SharedCount(fp) > options_.boilerplate_documents) {
      out.boilerplate.insert(fp);
    } else if (window <= 1) {
      query.push_back(fp);
    }
  }
  if (window > 1) {
    std::vector<uint64_t> in_order;
    in_order.reserve(scanned.text().shingles.size());
    for (const Shingle& s : scanned.text().shingles) {
      in_order.push_back(s.fingerprint);
    }
    for (uint64_t fp : WinnowedDistinct(in_order, window)) {
      if ((has_allow_list && index_.IsAllowed(fp)) ||
          out.boilerplate.contains(fp)) {
        continue;
      }
      query.push_back(fp);
    }
  }
  if (!out.boilerplate.empty()) {
    for (const Shingle& s : scanned.text().shingles) {
      report.boilerplate_shingles += out.boilerplate.contains(s.fingerprint);
    }
  }
  return out;
}

absl::StatusOr<std::vector<LeakScanner::Loaded>> LeakScanner::LoadCandidates(
    const QueryResult& filtered) const {
  std::vector<Loaded> loaded;
  loaded.reserve(filtered.candidates.size());
  for (const Candidate& c : filtered.candidates) {
    auto stored = index_.ReadStoredDocument(c.doc);
    if (absl::IsNotFound(stored.status())) {
      return absl::DataLossError(absl::StrCat(
          "the filter names document ", c.doc,
          " which the index does not hold; run leakhound verify"));
    }
    if (!stored.ok()) return stored.status();
    loaded.emplace_back(c.doc, std::move(*stored));
  }
  return loaded;
}

DocumentMatch LeakScanner::Compare(
    DocId doc, const StoredDocument& stored, const ScannedText& scanned,
    uint32_t words,
    const std::function<bool(uint64_t)>& suppressed) const {
  const ShingledText& text = scanned.text();
  std::vector<Passage> found = MatchPassages(
      scanned, stored.list.occurrences,
      options_.word_checks ? std::string_view(stored.list.word_checks)
                           : std::string_view(),
      suppressed, passage_options_);
  DocumentMatch match;
  match.doc = doc;
  match.external_id = stored.external_id;
  auto source_tokens = static_cast<uint32_t>(stored.list.word_checks.size());
  for (const Occurrence& o : stored.list.occurrences) {
    source_tokens = std::max(source_tokens, o.token_end);
  }
  std::vector<std::pair<uint32_t, uint32_t>> scanned_spans;
  for (const Passage& p : found) {
    scanned_spans.emplace_back(p.token_begin, p.token_end);
    match.longest_passage_words =
        std::max(match.longest_passage_words, p.words);
    match.longest_covered_words =
        std::max(match.longest_covered_words, p.covered_words);
  }
  match.coverage_of_source = SourceCoverage(found, source_tokens);
  match.source_tokens = source_tokens;
  const uint64_t scanned_units = UnionMeasure(
      std::move(scanned_spans), [&text](uint32_t b, uint32_t e) {
        return text.word_units[e] - text.word_units[b];
      });
  match.matched_words =
      static_cast<uint32_t>(scanned_units / text.units_per_word);
  match.coverage_of_scanned =
      words == 0 ? 0 : static_cast<double>(match.matched_words) / words;
  match.group_words = LargestGroupWords(found, passage_options_);
  match.passages = std::move(found);
  return match;
}

uint32_t LeakScanner::DistinctiveWords(
    const StoredDocument& stored, const ScannedText& scanned,
    const std::function<bool(uint64_t)>& suppressed) const {
  const DocumentFrequency& frequency = index_.frequency();
  const ShingledText& text = scanned.text();
  std::vector<std::pair<uint32_t, uint32_t>> spans;
  for (const Occurrence& o : stored.list.occurrences) {
    const std::span<const uint32_t> hits = scanned.ShinglesWith(o.fingerprint);
    if (hits.empty() || suppressed(o.fingerprint) ||
        frequency.SharedCount(o.fingerprint) > options_.distinctive_documents) {
      continue;
    }
    for (uint32_t i : hits) {
      spans.emplace_back(text.shingles[i].token_begin,
                         text.shingles[i].token_end);
    }
  }
  const uint64_t units =
      UnionMeasure(std::move(spans), [&text](uint32_t b, uint32_t e) {
        return text.word_units[e] - text.word_units[b];
      });
  return static_cast<uint32_t>(units / text.units_per_word);
}

absl::StatusOr<ScanReport> LeakScanner::Scan(std::string_view utf8) {
  auto start = std::chrono::steady_clock::now();
  auto shingled = shingler_->Shingle(utf8);
  if (!shingled.ok()) return shingled.status();
  const ScannedText scanned(std::move(*shingled));
  const ShingledText& text = scanned.text();
  ScanReport report;
  report.words = text.Words(0, text.token_count);
  report.locations = index_.locations().Find(utf8);
  report.shingle_ns = NanosSince(start);
  start = std::chrono::steady_clock::now();

  // Filter stage.
  const FilterQuery query = BuildQuery(scanned, report);
  if (query.fingerprints.empty()) return report;
  const QueryResult filtered =
      index_.matrix().Query(query.fingerprints, options_.query);
  for (const Candidate& c : filtered.candidates) {
    report.candidates.push_back(c.doc);
  }
  report.filter_ns = NanosSince(start);
  start = std::chrono::steady_clock::now();
  if (filtered.candidates.empty()) return report;

  // Second stage: each candidate's stored shingles against the text's.
  auto loaded = LoadCandidates(filtered);
  if (!loaded.ok()) return loaded.status();
  const bool has_allow_list = index_.allowed_fingerprints() > 0;
  auto suppressed = [&](uint64_t fp) {
    return (!query.boilerplate.empty() && query.boilerplate.contains(fp)) ||
           (has_allow_list && index_.IsAllowed(fp));
  };
  for (const auto& [doc, stored] : *loaded) {
    DocumentMatch match = Compare(doc, *stored, scanned, report.words,
                                  suppressed);
    if (match.group_words >= options_.min_words ||
        match.coverage_of_source >= options_.min_coverage) {
      match.distinctive_words = DistinctiveWords(*stored, scanned, suppressed);
      if (match.distinctive_words >= options_.min_distinctive_words) {
        report.matches.push_back(std::move(match));
        continue;
      }
    }
    ++report.false_candidates;
  }
  std::stable_sort(report.matches.begin(), report.matches.end(),
                   [](const DocumentMatch& a, const DocumentMatch& b) {
                     return a.matched_words > b.matched_words;
                   });
  report.verify_ns = NanosSince(start);
  return report;
}

}  // namespace leakhound
