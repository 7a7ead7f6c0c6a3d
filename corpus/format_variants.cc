#include "corpus/format_variants.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "corpus/detection_report.h"

namespace leakhound {
namespace {

bool Chosen(const OutboundCase& c) {
  if (c.klass == CaseClass::kPositive) {
    return c.group == "size" || c.group == "chinese";
  }
  return c.klass == CaseClass::kCleanHost || c.klass == CaseClass::kHeldOut;
}

std::string Extension(std::string_view format) {
  return std::string(format.substr(0, format.find('-')));
}

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Rate {
  uint32_t hits = 0, total = 0;
  double value() const { return total == 0 ? 0 : double(hits) / total; }
  std::string Cell() const {
    if (total == 0) return "";
    return absl::StrFormat("%.1f %% (%d/%d)", 100 * value(), hits, total);
  }
};

// The figures of one format over the chosen documents.
struct Tally {
  Rate recall_30;        // English 30+ words, every obfuscation but sub 15
  Rate recall_sub15;     // English 30+ words, substitute_15
  Rate recall_15;        // English 15 words, every obfuscation
  Rate chinese_30;       // Chinese 30+ words
  Rate clean_alarms, held_out_alarms;
  uint32_t errors = 0;
  std::vector<double> latency_ms;
  std::vector<bool> alarm;  // per chosen case (negatives)
  // The targets' figure: 30+ word recall, English and Chinese pooled.
  Rate Pooled() const {
    return Rate{recall_30.hits + chinese_30.hits,
                recall_30.total + chinese_30.total};
  }
};

Tally Count(const TestSet& set, const std::vector<size_t>& chosen,
            const std::vector<const CaseResult*>& results,
            const MatchRule& rule) {
  Tally t;
  for (size_t j = 0; j < chosen.size(); ++j) {
    const OutboundCase& c = set.cases[chosen[j]];
    const CaseResult& r = *results[j];
    if (!r.error.empty()) ++t.errors;
    else t.latency_ms.push_back(r.latency_ms);
    const bool alarm = r.error.empty() && AnyMatch(r, rule);
    t.alarm.push_back(alarm);
    if (c.klass == CaseClass::kCleanHost) {
      ++t.clean_alarms.total;
      t.clean_alarms.hits += alarm;
      continue;
    }
    if (c.klass == CaseClass::kHeldOut) {
      ++t.held_out_alarms.total;
      t.held_out_alarms.hits += alarm;
      continue;
    }
    Rate* rate = nullptr;
    if (c.group == "chinese") {
      if (c.size_words >= 30) rate = &t.chinese_30;
    } else if (c.size_words < 30) {
      rate = &t.recall_15;
    } else if (c.obfuscation == Obfuscation::kSubstitute15) {
      rate = &t.recall_sub15;
    } else {
      rate = &t.recall_30;
    }
    if (rate == nullptr) continue;
    for (const Insert& insert : c.inserts) {
      ++rate->total;
      rate->hits += r.error.empty() && Found(r, insert.source_id, rule);
    }
  }
  return t;
}

std::string Row(const std::string& name, const Tally& t, const Tally& text) {
  const double change = 100 * (t.Pooled().value() - text.Pooled().value());
  const std::string median =
      t.latency_ms.empty()
          ? ""
          : absl::StrFormat("%.2f", QuantilesOf(t.latency_ms).median);
  return absl::StrCat("| ", name, " | ", t.recall_30.Cell(), " | ",
                      t.chinese_30.Cell(), " | ", t.recall_sub15.Cell(), " | ",
                      t.recall_15.Cell(), " | ", t.clean_alarms.Cell(), " | ",
                      t.held_out_alarms.Cell(), " | ", t.errors, " | ", median,
                      " | ", absl::StrFormat("%+.1f", change + 0.0), " |\n");
}

// Runs make_formats.py over `manifest` lines in two processes (two cores).
absl::Status Produce(const std::vector<std::string>& lines,
                     const std::filesystem::path& dir) {
  std::ofstream m0(dir / "manifest-0.tsv"), m1(dir / "manifest-1.tsv");
  for (size_t i = 0; i < lines.size(); ++i) (i % 2 ? m1 : m0) << lines[i];
  m0.close();
  m1.close();
  const std::string script = LEAKHOUND_MAKE_FORMATS;
  const std::string command = absl::StrCat(
      "/usr/bin/python3 '", script, "' --batch '",
      (dir / "manifest-0.tsv").string(), "' & p=$!; /usr/bin/python3 '", script,
      "' --batch '", (dir / "manifest-1.tsv").string(), "' && wait $p");
  if (std::system(command.c_str()) != 0) {
    return absl::InternalError(
        absl::StrCat("make_formats.py failed: ", command));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FormatRun> RunFormatVariants(
    const TestSet& set, const std::vector<CaseResult>& text_results,
    const BuiltIndex& built, const MatchRule& rule, const std::string& set_dir,
    size_t sample_every, size_t max_text_bytes,
    std::span<const char* const> formats, const std::string& title) {
  namespace fs = std::filesystem;
  std::vector<size_t> chosen;
  size_t seen = 0;
  for (size_t i = 0; i < set.cases.size(); ++i) {
    const OutboundCase& c = set.cases[i];
    if (max_text_bytes != 0 && c.bytes.size() > max_text_bytes) continue;
    if (Chosen(c) && seen++ % sample_every == 0) chosen.push_back(i);
  }
  std::vector<const CaseResult*> text_scans;
  for (size_t i : chosen) text_scans.push_back(&text_results[i]);
  const Tally text = Count(set, chosen, text_scans, rule);

  FormatRun run;
  std::string table = absl::StrCat(
      "| format | 30+ words, every obfuscation but substitute_15 | Chinese "
      "30+ words | substitute_15, 30+ words | 15 words | false alarms, "
      "clean hosts | false alarms, held out | errors | median latency (ms) "
      "| 30+ word recall vs text (pp) |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
      Row("text (the same documents)", text, text));
  for (const char* format : formats) {
    const fs::path dir = fs::path(set_dir) / "formats" / format;
    std::error_code error;
    fs::create_directories(dir, error);
    if (error) return absl::InternalError(error.message());
    std::vector<std::string> lines;
    std::vector<OutboundCase> variants;
    for (size_t i : chosen) {
      OutboundCase v = set.cases[i];
      v.file = absl::StrCat(fs::path(v.file).stem().string(), ".",
                            Extension(format));
      lines.push_back(absl::StrCat(format, "\t",
                                   (fs::path(set_dir) / "outbound" /
                                    set.cases[i].file).string(),
                                   "\t", (dir / v.file).string(), "\n"));
      v.bytes.clear();
      variants.push_back(std::move(v));
    }
    if (auto s = Produce(lines, dir); !s.ok()) return s;
    std::vector<const OutboundCase*> pointers;
    for (OutboundCase& v : variants) {
      v.bytes = Slurp(dir / v.file);
      pointers.push_back(&v);
    }
    auto results = ScanCases(built, pointers);
    if (!results.ok()) return results.status();
    std::vector<const CaseResult*> scans;
    for (const CaseResult& r : *results) scans.push_back(&r);
    const Tally t = Count(set, chosen, scans, rule);
    table += Row(format, t, text);
    run.summary.scan_errors += t.errors;
    run.summary.worst_recall_gap_pp =
        std::max(run.summary.worst_recall_gap_pp,
                 100 * (text.Pooled().value() - t.Pooled().value()));
    run.summary.lowest_english_30 =
        std::min(run.summary.lowest_english_30, 100 * t.recall_30.value());
    run.summary.lowest_chinese_30 =
        std::min(run.summary.lowest_chinese_30, 100 * t.chinese_30.value());
    for (size_t j = 0; j < chosen.size(); ++j) {
      run.summary.new_false_alarms += t.alarm[j] && !text.alarm[j] &&
                                      set.cases[chosen[j]].klass !=
                                          CaseClass::kPositive;
    }
  }
  run.section.markdown = absl::StrCat(
      "## ", title, "\n\n",
      absl::StrFormat(
          "The same %d outbound documents (every %d-th of the `size` and "
          "`chinese` groups and of the clean-host and held-out negatives%s) "
          "written in every format leakhound reads by "
          "`corpus/make_formats.py` (python3-docx with runs split every 7 "
          "characters, so inside words; openpyxl with 8 words per cell; "
          "PresentationML with 12 lines per slide; odfpy; Pango and Cairo "
          "for PDF; the standard library's email package for "
          "quoted-printable, base64, multipart/alternative, a .docx "
          "attachment, a text attachment and a forwarded message; zipfile; "
          "LibreOffice headless saving Word 97 and RTF from the .docx, Excel "
          "97 from the .xlsx and PowerPoint 97 from a flat OpenDocument "
          "presentation; pandoc's EPUB 3 from HTML; the PDF's pages "
          "rendered by pdftoppm at 150 dpi in gray, as one tall PNG and as "
          "a PDF of page images without text, read by OCR), "
          "then scanned as `leakhound scan` scans them, each part on its "
          "own. Recall counts (document, source) pairs under the default "
          "rule; the last column is the format's pooled 30+ word recall "
          "(English every obfuscation but substitute_15, and Chinese) minus "
          "the text recall of the same documents.\n\n",
          chosen.size(), sample_every,
          max_text_bytes == 0
              ? std::string()
              : absl::StrCat(", of at most ", max_text_bytes, " bytes")),
      table,
      absl::StrFormat(
          "\nLargest recall drop below text: %.1f percentage points "
          "(target: at most 1). Negatives flagged in a format but not as "
          "text: %d. Scan errors over every variant: %d.\n\n",
          run.summary.worst_recall_gap_pp, run.summary.new_false_alarms,
          run.summary.scan_errors));
  return run;
}

}  // namespace leakhound
