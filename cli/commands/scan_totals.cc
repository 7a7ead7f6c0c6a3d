#include "cli/commands/scan_totals.h"

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands/command_line.h"
#include "cli/commands/json_text.h"

namespace leakhound {
namespace {

// The documents' entries, most files first, then most words, then by id.
template <typename Map>
std::vector<typename Map::const_iterator> Ranked(const Map& documents) {
  std::vector<typename Map::const_iterator> out;
  for (auto it = documents.begin(); it != documents.end(); ++it) {
    out.push_back(it);
  }
  std::stable_sort(out.begin(), out.end(), [](auto a, auto b) {
    if (a->second.files != b->second.files) {
      return a->second.files > b->second.files;
    }
    return a->second.words > b->second.words;
  });
  return out;
}

}  // namespace

void ScanTotals::Add(const FileOutcome& outcome) {
  std::set<std::string> in_file;
  std::set<std::string> tables_in_file;
  for (const PartOutcome& part : outcome.parts) {
    for (const RecordMatch& r : part.data.records) {
      Table& t = tables_[r.table];
      if (tables_in_file.insert(r.table).second) ++t.files;
      ++t.rows;
    }
    if (part.report.matches.empty() && part.report.locations.empty() &&
        part.data.records.empty()) {
      continue;
    }
    ++(part.name.empty() ? text_parts_ : member_parts_);
    for (const DocumentMatch& m : part.report.matches) {
      Document& d = documents_[m.external_id];
      if (in_file.insert(m.external_id).second) ++d.files;
      d.words += m.matched_words;
      d.largest_share = std::max(d.largest_share, m.coverage_of_source);
    }
  }
  for (const SkippedPart& s : outcome.skipped) {
    ++unread_[UnreadableName(s.kind)];
  }
}

std::string ScanTotals::Human() const {
  std::string out;
  if (!documents_.empty()) {
    absl::StrAppend(&out, "Leaked documents (", documents_.size(), "):\n");
    size_t width = 0;
    for (const auto& [id, d] : documents_) width = std::max(width, id.size());
    for (auto it : Ranked(documents_)) {
      absl::StrAppend(&out,
                      absl::StrFormat("  %-*s  %s, %s, up to %.1f%% of it\n",
                                      static_cast<int>(width), it->first,
                                      Plural(it->second.files, "file"),
                                      Plural(it->second.words, "word"),
                                      100 * it->second.largest_share));
    }
  }
  if (!tables_.empty()) {
    absl::StrAppend(&out, "Protected tables matched (", tables_.size(), "):\n");
    for (const auto& [name, t] : tables_) {
      absl::StrAppend(&out, "  ", name, "  ", Plural(t.rows, "row"), " in ",
                      Plural(t.files, "file"), "\n");
    }
  }
  if (text_parts_ + member_parts_ > 0) {
    absl::StrAppend(&out, "Leaking parts: ", text_parts_,
                    " in files' own text, ", member_parts_,
                    " in members (attachments, archive entries, embedded "
                    "files)\n");
  }
  if (!unread_.empty()) {
    out += "Unread parts:";
    const char* sep = " ";
    for (const auto& [kind, n] : unread_) {
      absl::StrAppend(&out, sep, n, " ", kind);
      sep = ", ";
    }
    out += "\n";
  }
  return out;
}

std::string ScanTotals::Json() const {
  std::string out = "{\"summary\":{\"documents\":[";
  const char* sep = "";
  for (auto it : Ranked(documents_)) {
    absl::StrAppend(&out, sep, "{\"doc_id\":", JsonString(it->first),
                    ",\"files\":", it->second.files,
                    ",\"words\":", it->second.words, ",\"largest_share\":",
                    absl::StrFormat("%.4f", it->second.largest_share), "}");
    sep = ",";
  }
  out += "],\"tables\":[";
  sep = "";
  for (const auto& [name, t] : tables_) {
    absl::StrAppend(&out, sep, "{\"table\":", JsonString(name),
                    ",\"files\":", t.files, ",\"rows\":", t.rows, "}");
    sep = ",";
  }
  absl::StrAppend(&out, "],\"leaking_parts\":{\"text\":", text_parts_,
                  ",\"members\":", member_parts_, "},\"unread_parts\":{");
  sep = "";
  for (const auto& [kind, n] : unread_) {
    absl::StrAppend(&out, sep, JsonString(kind), ":", n);
    sep = ",";
  }
  out += "}}}";
  return out;
}

}  // namespace leakhound
