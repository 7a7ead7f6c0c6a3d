// DeskReport: what the desk's reports say of a period (docs/console.md,
// "Reports"): the incidents by severity, rule, channel, sender and
// document, the overrides used with their justifications, and the time
// to review. Read from the store; rendered by cli/console/report_render.h.
//
// Thread-safety: BuildDeskReport uses the store on the caller's thread.
#ifndef LEAKHOUND_CLI_INCIDENTS_DESK_REPORT_H_
#define LEAKHOUND_CLI_INCIDENTS_DESK_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/incidents/incident_store.h"

namespace leakhound {

struct ReportSpec {
  std::string title = "leakhound report";
  int64_t since_ms = 0;
  int64_t until_ms = 0;
  std::vector<std::string> channels;    // "mail", "web", "scan"; empty any
  std::vector<std::string> severities;  // "info" ... "high"; empty any
  // PERSISTED names (policy.h kReportSections); empty: all.
  std::vector<std::string> sections;
  bool Wants(const std::string& section) const;
};

struct DeskReport {
  ReportSpec spec;
  int64_t incidents = 0;  // matching the spec's filters in the period
  // Most first; senders and documents the 20 most frequent. A severity of
  // "none" is an incident no rule matched.
  std::vector<NamedCount> by_severity, by_rule, by_channel, by_sender,
      by_document;
  std::vector<UsedOverride> overrides;  // used in the period (its filters)
  // Time to review: of the incidents of the period resolved (a verdict
  // other than open), the median and 90th percentile of reviewed - made;
  // and how many are still open.
  int64_t resolved = 0;
  int64_t still_open = 0;
  int64_t review_p50_ms = 0;
  int64_t review_p90_ms = 0;
};

// The report of `spec`'s period from `store`.
absl::StatusOr<DeskReport> BuildDeskReport(IncidentStore& store,
                                           const ReportSpec& spec);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_INCIDENTS_DESK_REPORT_H_
