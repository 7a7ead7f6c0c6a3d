#include "cli/commands/scan_output.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/commands/command_line.h"
#include "cli/commands/exit_codes.h"
#include "cli/commands/json_text.h"
#include "cli/records/masked_value.h"

namespace leakhound {
namespace {

constexpr size_t kSnippetBytes = 110;

// The passage's text on one line: white space collapsed, cut at a UTF-8
// boundary after kSnippetBytes.
std::string Snippet(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  out = Printable(out);
  if (out.size() > kSnippetBytes) {
    size_t cut = kSnippetBytes;
    while (cut > 0 && (static_cast<uint8_t>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "…";
  }
  return out;
}

// Line numbers of byte offsets in one text: the newlines are found once,
// then each lookup is a binary search (a large file may show thousands of
// passages).
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) : size_(text.size()) {
    for (size_t i = text.find('\n'); i != std::string_view::npos;
         i = text.find('\n', i + 1)) {
      newlines_.push_back(i);
    }
  }
  // The 1-based line holding `byte` (a newline ends its own line).
  uint32_t LineAt(size_t byte) const {
    byte = std::min(byte, size_);
    return 1 + static_cast<uint32_t>(
                   std::lower_bound(newlines_.begin(), newlines_.end(), byte) -
                   newlines_.begin());
  }

 private:
  size_t size_;
  std::vector<size_t> newlines_;
};

std::string Percent(double share) {
  return absl::StrFormat("%.1f%%", share * 100);
}

}  // namespace

bool FileOutcome::leak() const {
  if (!error.ok()) return false;
  for (const PartOutcome& p : parts) {
    if (!p.report.matches.empty() || !p.report.locations.empty() ||
        !p.data.records.empty()) {
      return true;
    }
  }
  return false;
}

size_t FileOutcome::records() const {
  size_t n = 0;
  for (const PartOutcome& p : parts) n += p.data.records.size();
  return n;
}

uint32_t FileOutcome::words() const {
  uint32_t n = 0;
  for (const PartOutcome& p : parts) n += p.report.words;
  return n;
}

size_t FileOutcome::candidates() const {
  size_t n = 0;
  for (const PartOutcome& p : parts) n += p.report.candidates.size();
  return n;
}

uint64_t FileOutcome::false_candidates() const {
  uint64_t n = 0;
  for (const PartOutcome& p : parts) n += p.report.false_candidates;
  return n;
}

uint64_t FileOutcome::allowed_fingerprints() const {
  uint64_t n = 0;
  for (const PartOutcome& p : parts) n += p.report.allowed_fingerprints;
  return n;
}

uint64_t FileOutcome::boilerplate_shingles() const {
  uint64_t n = 0;
  for (const PartOutcome& p : parts) n += p.report.boilerplate_shingles;
  return n;
}

namespace {

// The "matches" array's entries of one part: documents with their
// passages, protected locations, rows of protected tables.
void AppendPartMatches(const PartOutcome& part, bool& first, std::string& out) {
  const std::string part_json = JsonString(part.name);
  const auto separator = [&first] { return std::exchange(first, false) ? "" : ","; };
  for (const DocumentMatch& m : part.report.matches) {
    absl::StrAppend(
        &out, separator(),
        "{\"kind\":\"document\",\"doc_id\":", JsonString(m.external_id),
        ",\"part\":", part_json, ",\"matched_words\":", m.matched_words,
        ",\"coverage_of_source\":",
        absl::StrFormat("%.4f", m.coverage_of_source),
        ",\"coverage_of_scanned\":",
        absl::StrFormat("%.4f", m.coverage_of_scanned),
        ",\"group_words\":", m.group_words,
        ",\"distinctive_words\":", m.distinctive_words, ",\"passages\":[");
    for (size_t j = 0; j < m.passages.size(); ++j) {
      const Passage& p = m.passages[j];
      absl::StrAppend(&out, j ? "," : "", "{\"part\":", part_json,
                      ",\"start\":", p.byte_begin, ",\"end\":", p.byte_end,
                      ",\"source_start\":", p.source_byte_begin,
                      ",\"source_end\":", p.source_byte_end,
                      ",\"words\":", p.words,
                      ",\"covered_words\":", p.covered_words, "}");
    }
    out += "]}";
  }
  for (const LocationFinding& f : part.report.locations) {
    absl::StrAppend(&out, separator(),
                    "{\"kind\":\"location\",\"part\":", part_json,
                    ",\"start\":", f.byte_begin, ",\"end\":", f.byte_end,
                    ",\"location\":", JsonString(f.key),
                    ",\"prefix\":", JsonString(f.prefix), "}");
  }
  for (const RecordMatch& r : part.data.records) {
    absl::StrAppend(&out, separator(),
                    "{\"kind\":\"record\",\"part\":", part_json,
                    ",\"table\":", JsonString(r.table),
                    ",\"row_key\":\"", r.row_key, "\",\"columns\":[");
    for (size_t j = 0; j < r.columns.size(); ++j) {
      absl::StrAppend(&out, j ? "," : "", "{\"column\":",
                      JsonString(r.columns[j]), ",\"start\":",
                      r.spans[j].first, ",\"end\":", r.spans[j].second, "}");
    }
    out += "]}";
  }
}

// The "identifiers" object: per data identifier, its matches and distinct
// values summed over the parts.
void AppendIdentifiers(const FileOutcome& o, std::string& out) {
  out += ",\"identifiers\":{";
  std::map<std::string, std::pair<uint32_t, uint32_t>> identifiers;
  for (const PartOutcome& part : o.parts) {
    for (const IdentifierCount& c : part.data.identifiers) {
      identifiers[c.name].first += c.matches;
      identifiers[c.name].second += c.distinct;
    }
  }
  bool first = true;
  for (const auto& [name, counts] : identifiers) {
    absl::StrAppend(&out, std::exchange(first, false) ? "" : ",",
                    JsonString(name), ":{\"matches\":", counts.first,
                    ",\"distinct\":", counts.second, "}");
  }
  out += "}";
}

// The policy's severity, action and rules (scan --policy).
void AppendPolicy(const FileOutcome& o, std::string& out) {
  if (!o.policy) return;
  absl::StrAppend(&out, ",\"severity\":", JsonString(o.policy->severity),
                  ",\"action\":", JsonString(o.policy->action),
                  ",\"rules\":[");
  for (size_t i = 0; i < o.policy->rules.size(); ++i) {
    const IncidentRule& r = o.policy->rules[i];
    absl::StrAppend(&out, i ? "," : "", "{\"rule\":", JsonString(r.rule),
                    ",\"severity\":", JsonString(r.severity),
                    ",\"action\":", JsonString(r.action),
                    ",\"monitor\":", r.monitor ? "true" : "false", "}");
  }
  out += "]";
}

// ,"labels":[{"part":..,"id":..,"name":..}]: the sensitivity labels the
// parts carry (docs/labels.md).
void AppendLabels(const FileOutcome& o, std::string& out) {
  out += ",\"labels\":[";
  bool first = true;
  for (const PartFacts& p : o.part_facts) {
    for (const LabelFact& l : p.labels) {
      absl::StrAppend(&out, std::exchange(first, false) ? "" : ",",
                      "{\"part\":", JsonString(p.name),
                      ",\"id\":", JsonString(l.id),
                      ",\"name\":", JsonString(l.name), "}");
    }
  }
  out += "]";
}

// "       labels: Confidential (report.docx)\n", or "" when none.
std::string LabelsLine(const FileOutcome& o) {
  std::vector<std::string> shown;
  for (const PartFacts& p : o.part_facts) {
    for (const LabelFact& l : p.labels) {
      shown.push_back(absl::StrCat(
          Printable(l.name.empty() ? l.id : l.name), p.name.empty() ? "" : " (",
          Printable(p.name), p.name.empty() ? "" : ")"));
    }
  }
  if (shown.empty()) return "";
  return absl::StrCat("       labels: ", absl::StrJoin(shown, ", "), "\n");
}

}  // namespace

std::string FormatJson(const FileOutcome& o, bool candidates) {
  std::string out = absl::StrCat(
      "{\"path\":", JsonString(o.path), ",\"verdict\":\"",
      !o.error.ok() ? "error" : (o.leak() ? "leak" : "clean"), "\"");
  if (!o.error.ok()) {
    absl::StrAppend(&out,
                    ",\"error\":", JsonString(std::string(o.error.message())));
  }
  if (!o.format.empty()) {
    absl::StrAppend(&out, ",\"format\":", JsonString(o.format));
  }
  absl::StrAppend(&out, ",\"bytes\":", o.bytes, ",\"words\":", o.words(),
                  ",\"elapsed_ms\":", absl::StrFormat("%.3f", o.elapsed_ms),
                  ",\"candidates\":", o.candidates(),
                  ",\"parts\":", o.parts.size(), ",\"skipped\":[");
  for (size_t i = 0; i < o.skipped.size(); ++i) {
    absl::StrAppend(&out, i ? "," : "",
                    "{\"part\":", JsonString(o.skipped[i].name),
                    ",\"class\":\"", UnreadableName(o.skipped[i].kind),
                    "\",\"reason\":", JsonString(o.skipped[i].reason), "}");
  }
  if (candidates) {
    out += "],\"candidate_ids\":[";
    bool first = true;
    for (const PartOutcome& part : o.parts) {
      for (const std::string& id : part.candidate_ids) {
        absl::StrAppend(&out, std::exchange(first, false) ? "" : ",",
                        JsonString(id));
      }
    }
  }
  out += "],\"matches\":[";
  bool first_match = true;
  for (const PartOutcome& part : o.parts) {
    AppendPartMatches(part, first_match, out);
  }
  out += "]";
  AppendLabels(o, out);
  AppendIdentifiers(o, out);
  AppendPolicy(o, out);
  out += "}";
  return out;
}

namespace {

// `s` in an ANSI color when `color`.
std::string Paint(bool color, const char* code, const std::string& s) {
  return color ? absl::StrCat("\033[", code, "m", s, "\033[0m") : s;
}

// "2 protected documents, 1 protected location".
std::string WhatLeaked(const FileOutcome& o) {
  size_t documents = 0, locations = 0;
  for (const PartOutcome& part : o.parts) {
    documents += part.report.matches.size();
    locations += part.report.locations.size();
  }
  std::string what;
  if (documents > 0) {
    absl::StrAppend(
        &what, documents,
        documents == 1 ? " protected document" : " protected documents");
  }
  if (locations > 0) {
    absl::StrAppend(
        &what, what.empty() ? "" : ", ", locations,
        locations == 1 ? " protected location" : " protected locations");
  }
  if (const size_t records = o.records(); records > 0) {
    absl::StrAppend(&what, what.empty() ? "" : ", ", records,
                    records == 1 ? " protected record" : " protected records");
  }
  return what;
}

// The longest kShownPassages passages of `m`, in text order, each with
// its lines and a snippet; then how many more there are.
void AppendPassages(const DocumentMatch& m, const PartOutcome& part,
                    const LineIndex& lines_of, std::string* out) {
  std::vector<const Passage*> shown;
  for (const Passage& p : m.passages) shown.push_back(&p);
  std::stable_sort(
      shown.begin(), shown.end(),
      [](const Passage* a, const Passage* b) { return a->words > b->words; });
  const size_t hidden =
      shown.size() > kShownPassages ? shown.size() - kShownPassages : 0;
  shown.resize(shown.size() - hidden);
  std::sort(shown.begin(), shown.end(), [](const Passage* a, const Passage* b) {
    return a->byte_begin < b->byte_begin;
  });
  for (const Passage* p : shown) {
    const uint32_t first = lines_of.LineAt(p->byte_begin);
    const uint32_t last = lines_of.LineAt(p->byte_end);
    const std::string lines = first == last
                                  ? absl::StrCat("line ", first)
                                  : absl::StrCat("lines ", first, "-", last);
    absl::StrAppend(out, "         ", lines, ", ", p->words, " words: \"",
                    Snippet(std::string_view(part.text).substr(
                        p->byte_begin, p->byte_end - p->byte_begin)),
                    "\"\n");
  }
  if (hidden > 0) {
    absl::StrAppend(out, "         (", hidden, " more passages)\n");
  }
}

// One part's rows of protected tables, in record terms: per table "3 rows
// of table customers (columns card, phone, name)", then the first
// kShownPassages rows with their lines and masked values, then how many
// more there are.
void AppendRecords(const PartOutcome& part, const std::string& where,
                   bool color, std::string* out) {
  const std::string_view data_text =
      part.layout_text.empty() ? part.text : part.layout_text;
  const LineIndex data_lines(data_text);
  std::map<std::string, std::vector<const RecordMatch*>> by_table;
  for (const RecordMatch& r : part.data.records) by_table[r.table].push_back(&r);
  for (const auto& [table, rows] : by_table) {
    std::set<std::string> columns;
    for (const RecordMatch* r : rows) columns.insert(r->columns.begin(), r->columns.end());
    absl::StrAppend(out, "       ", Paint(color, "1", "records"), ": ",
                    Plural(rows.size(), "row"), " of table ", Printable(table),
                    " in ", where, " (columns ",
                    Printable(absl::StrJoin(columns, ", ")), ")\n");
    for (size_t k = 0; k < rows.size() && k < kShownPassages; ++k) {
      const RecordMatch& r = *rows[k];
      std::vector<std::string> masked;
      for (size_t c = 0; c < r.spans.size(); ++c) {
        const auto [begin, end] = r.spans[c];
        masked.push_back(Printable(
            MaskedValue(data_text.substr(begin, end - begin),
                        c < r.types.size() ? r.types[c] : CellType::kText)));
      }
      absl::StrAppend(out, "         row ", r.row_key, ", line ",
                      data_lines.LineAt(r.spans.front().first), ": ",
                      Printable(absl::StrJoin(r.columns, ", ")), ": ",
                      absl::StrJoin(masked, " | "), "\n");
    }
    if (rows.size() > kShownPassages) {
      absl::StrAppend(out, "         (", rows.size() - kShownPassages,
                      " more rows)\n");
    }
  }
}

// One part's matches and location findings.
void AppendPart(const PartOutcome& part, const std::string& path, bool color,
                std::string* out) {
  const LineIndex lines_of(part.text);
  const std::string where =
      part.name.empty()
          ? "this file"
          : absl::StrCat(path, kPartSeparator, Printable(part.name));
  for (const DocumentMatch& m : part.report.matches) {
    absl::StrAppend(out, "       ", Paint(color, "1", Printable(m.external_id)),
                    ": ", m.matched_words, " words matched, ",
                    Percent(m.coverage_of_source), " of the document, ",
                    Percent(m.coverage_of_scanned), " of ", where, "\n");
    AppendPassages(m, part, lines_of, out);
  }
  AppendRecords(part, where, color, out);
  for (const LocationFinding& f : part.report.locations) {
    absl::StrAppend(out, "       ", Paint(color, "1", "location"), " under ",
                    f.prefix, ": line ", lines_of.LineAt(f.byte_begin), " of ",
                    where, ": \"",
                    Snippet(std::string_view(part.text).substr(
                        f.byte_begin, f.byte_end - f.byte_begin)),
                    "\"\n");
  }
}

// "       identifiers: card 12 (10 distinct), iban 1\n", or "".
std::string IdentifiersLine(const FileOutcome& o) {
  std::map<std::string, std::pair<uint32_t, uint32_t>> counts;
  for (const PartOutcome& part : o.parts) {
    for (const IdentifierCount& c : part.data.identifiers) {
      counts[c.name].first += c.matches;
      counts[c.name].second += c.distinct;
    }
  }
  if (counts.empty()) return "";
  std::vector<std::string> items;
  for (const auto& [name, n] : counts) {
    items.push_back(n.first == n.second
                        ? absl::StrCat(name, " ", n.first)
                        : absl::StrCat(name, " ", n.first, " (", n.second,
                                       " distinct)"));
  }
  return absl::StrCat("       identifiers: ", absl::StrJoin(items, ", "),
                      "\n");
}

}  // namespace

namespace {

// "       policy: severity ..., action ..., rules ...\n" when a rule
// matched, else "".
std::string PolicyLine(const FileOutcome& o) {
  if (!o.policy || o.policy->rules.empty()) return "";
  std::vector<std::string> rules;
  for (const IncidentRule& r : o.policy->rules) {
    rules.push_back(absl::StrCat(r.rule, r.monitor ? " (monitor)" : ""));
  }
  return absl::StrCat("       policy: severity ", o.policy->severity,
                      ", action ", o.policy->action, ", rules ",
                      Printable(absl::StrJoin(rules, ", ")), "\n");
}

}  // namespace

std::string FormatHuman(const FileOutcome& o, bool color) {
  const std::string path = Printable(o.path);
  if (!o.error.ok()) {
    return absl::StrCat(Paint(color, "1;33", "ERROR"), "  ", path, ": ",
                        Printable(std::string(o.error.message())), "\n");
  }
  std::string skipped;
  for (const SkippedPart& s : o.skipped) {
    absl::StrAppend(&skipped, "       skipped ", path,
                    s.name.empty() ? "" : kPartSeparator, Printable(s.name),
                    " (", UnreadableName(s.kind), "): ", Printable(s.reason),
                    "\n");
  }
  if (!o.leak()) {
    // Nothing to compare is not the same as nothing found: say so.
    return absl::StrCat(Paint(color, "32", "clean"), "  ", path,
                        o.words() == 0 ? "  (no text to scan)" : "", "\n",
                        LabelsLine(o), IdentifiersLine(o), PolicyLine(o),
                        skipped);
  }
  std::string out = absl::StrCat(Paint(color, "1;31", "LEAK "), "  ", path,
                                 "  (", WhatLeaked(o), ")\n");
  for (const PartOutcome& part : o.parts) AppendPart(part, path, color, &out);
  out += LabelsLine(o) + IdentifiersLine(o) + PolicyLine(o);
  return out + skipped;
}

}  // namespace leakhound
