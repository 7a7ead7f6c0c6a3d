// IncidentField: the table of an incident's descriptive fields (what the
// message or file was), one row each, read by every view of an incident:
// the console's incident page, `leakhound incidents show`, the JSON
// (`--json`, `export --format jsonl`) and the CSV export. A field added
// here shows everywhere. The fields of the verdict (time, source, kind,
// action), of the review (status, mail state, reviewer) and the matches
// are laid out by each view itself.
//
// Thread-safety: constant data.
#ifndef LEAKHOUND_CLI_INCIDENTS_INCIDENT_FIELDS_H_
#define LEAKHOUND_CLI_INCIDENTS_INCIDENT_FIELDS_H_

#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "cli/incidents/incident.h"

namespace leakhound {

struct IncidentField {
  enum class Type { kText, kList, kNumber };

  const char* key;    // JSON key and CSV column (a contract: docs/console.md)
  const char* label;  // the console's row heading
  const char* short_label;  // `incidents show`
  Type type;
  // Shown only for incidents of `leakhound scan` (the file's size).
  bool scan_only = false;
  // What the console writes after a number ("bytes").
  const char* unit = nullptr;
  // The value: kText and kNumber as text, kList item by item.
  std::string (*text)(const Incident&) = nullptr;
  const std::vector<std::string>& (*list)(const Incident&) = nullptr;

  // Whether `i` has this field: not a scan-only field of a mail incident.
  bool AppliesTo(const Incident& i) const {
    return !scan_only || i.source == "scan";
  }
  // The value as one text, a list's items joined by `separator`.
  std::string Text(const Incident& i, const char* separator) const;
};

// A CSV field (RFC 4180), defused for spreadsheets: a field a spreadsheet
// would read as a formula (= + - @ tab CR at its start) gets a leading
// quote. For exports and reports.
std::string CsvField(std::string_view value);

// In the order every view lists them.
std::span<const IncidentField> IncidentFields();

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_INCIDENT_FIELDS_H_
