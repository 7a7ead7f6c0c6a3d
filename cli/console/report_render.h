// The desk's report (desk_report.h) as a person reads it: an HTML page
// whose charts are HTML tables with proportional bars (they render in
// mail clients, which show no scripts and seldom SVG), a CSV of the same
// figures, and the MIME mail that carries both (docs/console.md,
// "Reports"). Every value escaped.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_CONSOLE_REPORT_RENDER_H_
#define LEAKHOUND_CLI_CONSOLE_REPORT_RENDER_H_

#include <string>

#include "cli/incidents/desk_report.h"

namespace leakhound {

std::string ReportHtml(const DeskReport& report);

// "section,name,count" rows (RFC 4180, fields a spreadsheet would read
// as formulas defused), then "override,REFERENCE,..." rows.
std::string ReportCsv(const DeskReport& report);

// The mail to `to`: multipart/mixed, the HTML, and the CSV attached as
// "leakhound-report.csv" (base64).
std::string ReportMail(const DeskReport& report, const std::string& from,
                       const std::string& to);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_REPORT_RENDER_H_
