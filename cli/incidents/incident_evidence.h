// IncidentEvidence: an incident's matches from a scan's findings: per
// matched passage the protected document (its id, source path and labels,
// read from the index) and, with snippets, the outbound text around it.
// Used by the milter (message_verdict.cc) and `scan --record`.
//
// Thread-safety: pure functions of their arguments; the index is only
// read (ProtectedIndex's reads are thread-safe).
#ifndef LEAKHOUND_CLI_INCIDENTS_INCIDENT_EVIDENCE_H_
#define LEAKHOUND_CLI_INCIDENTS_INCIDENT_EVIDENCE_H_

#include <string_view>
#include <vector>

#include "cli/incidents/incident.h"
#include "cli/records/data_scanner.h"
#include "engine/protected_index.h"
#include "engine/scan/leak_scanner.h"

namespace leakhound {

// Passages kept per matched document and part, at most (the strongest
// come first in a DocumentMatch).
inline constexpr size_t kEvidencePerDocument = 10;

// Appends up to kEvidencePerDocument passages of `match`, found in `text`
// (part `part`). A failed read of the document's record leaves its source
// and labels empty: evidence never decides a verdict.
void AppendEvidence(const ProtectedIndex& index, std::string_view part,
                    std::string_view text, const DocumentMatch& match,
                    bool snippets, std::vector<IncidentMatch>* out);

// Appends a row of a protected table found in `text` (docs/records.md),
// named "table NAME": its source is "row KEY" (the row's key hash), its
// labels the columns found, its words their number, its range the primary
// cell's; with snippets, the snippet is the cells as found in `text`,
// masked (MaskedValue), never the table's values.
void AppendRecordEvidence(std::string_view part, std::string_view text,
                          const RecordMatch& match, bool snippets,
                          std::vector<IncidentMatch>* out);

// Appends a protected location found in `text`, named "location PREFIX".
void AppendLocationEvidence(std::string_view part, std::string_view text,
                            const LocationFinding& finding, bool snippets,
                            std::vector<IncidentMatch>* out);

// The rows of protected tables among `matches` (document "table NAME", as
// AppendRecordEvidence makes them) in record terms, one per table in name
// order: "3 rows of table customers (columns card, name)". Never a value.
std::vector<std::string> RecordTerms(const std::vector<IncidentMatch>& matches);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_INCIDENT_EVIDENCE_H_
