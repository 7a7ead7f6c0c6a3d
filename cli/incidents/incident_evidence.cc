#include "cli/incidents/incident_evidence.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/records/masked_value.h"
#include "index/index_store.h"

namespace leakhound {

void AppendEvidence(const ProtectedIndex& index, std::string_view part,
                    std::string_view text, const DocumentMatch& match,
                    bool snippets, std::vector<IncidentMatch>* out) {
  IncidentMatch base;
  base.document = match.external_id;
  base.part = std::string(part);
  base.coverage = match.coverage_of_source;
  if (auto record = index.store().ReadDocument(match.doc);
      record.ok() && *record) {
    base.source = (*record)->source;
    base.labels = (*record)->labels;
  }
  const size_t n = std::min(match.passages.size(), kEvidencePerDocument);
  for (size_t i = 0; i < n; ++i) {
    const Passage& p = match.passages[i];
    IncidentMatch e = base;
    e.byte_begin = p.byte_begin;
    e.byte_end = p.byte_end;
    e.words = p.words;
    if (snippets && p.byte_begin <= p.byte_end && p.byte_end <= text.size()) {
      FillSnippet(text, p.byte_begin, p.byte_end, &e);
    }
    out->push_back(std::move(e));
  }
}

void AppendRecordEvidence(std::string_view part, std::string_view text,
                          const RecordMatch& match, bool snippets,
                          std::vector<IncidentMatch>* out) {
  IncidentMatch e;
  e.document = "table " + match.table;
  e.source = "row " + match.row_key;
  e.labels = match.columns;
  e.part = std::string(part);
  e.byte_begin = match.spans.front().first;
  e.byte_end = match.spans.front().second;
  e.words = static_cast<uint32_t>(match.columns.size());
  if (snippets) {
    for (size_t k = 0; k < match.spans.size(); ++k) {
      const auto [begin, end] = match.spans[k];
      if (begin > end || end > text.size()) continue;
      if (!e.snippet.empty()) e.snippet += " | ";
      e.snippet += MaskedValue(text.substr(begin, end - begin),
                               k < match.types.size() ? match.types[k]
                                                      : CellType::kText);
    }
  }
  out->push_back(std::move(e));
}

void AppendLocationEvidence(std::string_view part, std::string_view text,
                            const LocationFinding& finding, bool snippets,
                            std::vector<IncidentMatch>* out) {
  IncidentMatch e;
  e.document = "location " + finding.prefix;
  e.part = std::string(part);
  e.byte_begin = finding.byte_begin;
  e.byte_end = finding.byte_end;
  if (snippets && finding.byte_begin <= finding.byte_end &&
      finding.byte_end <= text.size()) {
    FillSnippet(text, finding.byte_begin, finding.byte_end, &e);
  }
  out->push_back(std::move(e));
}

std::vector<std::string> RecordTerms(
    const std::vector<IncidentMatch>& matches) {
  struct Table {
    uint32_t rows = 0;
    std::set<std::string> columns;
  };
  std::map<std::string, Table> tables;
  for (const IncidentMatch& m : matches) {
    if (!m.document.starts_with(kTableFactPrefix)) continue;
    Table& t = tables[m.document.substr(std::size(kTableFactPrefix) - 1)];
    ++t.rows;
    t.columns.insert(m.labels.begin(), m.labels.end());
  }
  std::vector<std::string> out;
  for (const auto& [name, t] : tables) {
    out.push_back(absl::StrCat(t.rows, t.rows == 1 ? " row" : " rows",
                               " of table ", name, " (columns ",
                               absl::StrJoin(t.columns, ", "), ")"));
  }
  return out;
}

}  // namespace leakhound
