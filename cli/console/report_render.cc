#include "cli/console/report_render.h"

#include <algorithm>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "cli/gateway/html_text.h"
#include "cli/incidents/incident.h"
#include "cli/incidents/incident_fields.h"
#include "cli/incidents/outbox_event.h"

namespace leakhound {
namespace {

// A bar chart: a row per entry, its bar as wide as its share of the
// largest.
std::string Bars(const char* title, const char* id,
                 const std::vector<NamedCount>& counts) {
  std::string out = absl::StrCat("<h2>", title, "</h2>");
  if (counts.empty()) return out + "<p>None.</p>";
  int64_t most = 1;
  for (const NamedCount& c : counts) most = std::max(most, c.count);
  absl::StrAppend(&out, "<table class=\"bars\" id=\"", id,
                  "\" cellpadding=\"3\">");
  for (const NamedCount& c : counts) {
    const int64_t width = std::max<int64_t>(1, 300 * c.count / most);
    absl::StrAppend(
        &out, "<tr><td>", Html(c.name), "</td><td class=\"n\" align=\"right\">",
        c.count,
        "</td><td><div style=\"background:#3b6ea5;height:12px;width:", width,
        "px\"></div></td></tr>");
  }
  return out + "</table>";
}

std::string Duration(int64_t ms) {
  const int64_t minutes = ms / 60'000;
  if (minutes < 120) return absl::StrCat(minutes, " min");
  return absl::StrCat(minutes / 60, " h ", minutes % 60, " min");
}

std::string OverridesTable(const DeskReport& r) {
  std::string out = "<h2>Overrides</h2>";
  if (r.overrides.empty()) return out + "<p>None.</p>";
  out +=
      "<table class=\"overrides\" id=\"overrides\" border=\"1\" "
      "cellpadding=\"3\"><tr><th>Incident</th><th>When (UTC)</th><th>"
      "By</th><th>Rule</th><th>Justification</th></tr>";
  for (const UsedOverride& u : r.overrides) {
    absl::StrAppend(&out, "<tr><td>", Html(u.reference), "</td><td>",
                    Html(FormatTime(u.override_used.time_ms)), "</td><td>",
                    Html(u.override_used.used_by), "</td><td>",
                    Html(u.override_used.rule), "</td><td>",
                    Html(u.override_used.text), "</td></tr>");
  }
  return out + "</table>";
}

}  // namespace

std::string ReportHtml(const DeskReport& r) {
  const ReportSpec& s = r.spec;
  std::string body = absl::StrCat(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>",
      Html(s.title), "</title></head><body style=\"font-family:sans-serif\">",
      "<h1>", Html(s.title), "</h1><p>From ", Html(FormatTime(s.since_ms)),
      " to ", Html(FormatTime(s.until_ms)), " UTC: <b id=\"total\">",
      r.incidents, "</b> incidents.</p>");
  if (s.Wants("severity"))
    body += Bars("By severity", "severity", r.by_severity);
  if (s.Wants("rule")) body += Bars("By rule", "rule", r.by_rule);
  if (s.Wants("channel")) body += Bars("By channel", "channel", r.by_channel);
  if (s.Wants("sender")) body += Bars("Top senders", "sender", r.by_sender);
  if (s.Wants("documents")) {
    body += Bars("Top documents", "documents", r.by_document);
  }
  if (s.Wants("overrides")) body += OverridesTable(r);
  if (s.Wants("review_time")) {
    absl::StrAppend(&body, "<h2>Time to review</h2><p id=\"review\">",
                    r.resolved, " resolved (median ", Duration(r.review_p50_ms),
                    ", 90 % within ", Duration(r.review_p90_ms), "), ",
                    r.still_open, " still open.</p>");
  }
  return body + "</body></html>\n";
}

std::string ReportCsv(const DeskReport& r) {
  std::string out = "section,name,count\r\n";
  const std::pair<const char*, const std::vector<NamedCount>*> kSections[] = {
      {"severity", &r.by_severity},
      {"rule", &r.by_rule},
      {"channel", &r.by_channel},
      {"sender", &r.by_sender},
      {"documents", &r.by_document}};
  absl::StrAppend(&out, "total,incidents,", r.incidents, "\r\n");
  for (const auto& [section, counts] : kSections) {
    if (!r.spec.Wants(section)) continue;
    for (const NamedCount& c : *counts) {
      absl::StrAppend(&out, section, ",", CsvField(c.name), ",", c.count,
                      "\r\n");
    }
  }
  if (r.spec.Wants("review_time")) {
    absl::StrAppend(&out, "review_time,resolved,", r.resolved, "\r\n",
                    "review_time,still_open,", r.still_open, "\r\n",
                    "review_time,p50_minutes,", r.review_p50_ms / 60'000,
                    "\r\n", "review_time,p90_minutes,",
                    r.review_p90_ms / 60'000, "\r\n");
  }
  if (r.spec.Wants("overrides")) {
    for (const UsedOverride& u : r.overrides) {
      absl::StrAppend(&out, "override,", CsvField(u.reference), ",",
                      CsvField(u.override_used.used_by), ",",
                      CsvField(u.override_used.text), "\r\n");
    }
  }
  return out;
}

std::string ReportMail(const DeskReport& r, const std::string& from,
                       const std::string& to) {
  const std::string boundary = "leakhound-report-" + NewEventId();
  std::string subject = r.spec.title;
  for (char& c : subject) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  auto base64 = [](const std::string& bytes) {
    const std::string b = absl::Base64Escape(bytes);
    std::string out;
    for (size_t k = 0; k < b.size(); k += 76) {
      absl::StrAppend(&out, b.substr(k, 76), "\r\n");
    }
    return out;
  };
  return absl::StrCat(
      "From: leakhound <", from, ">\r\nTo: <", to, ">\r\nSubject: ", subject,
      "\r\nAuto-Submitted: auto-generated\r\nMIME-Version: 1.0\r\n"
      "Content-Type: multipart/mixed; boundary=\"",
      boundary, "\"\r\n\r\n--", boundary,
      "\r\nContent-Type: text/html; charset=utf-8\r\n"
      "Content-Transfer-Encoding: base64\r\n\r\n",
      base64(ReportHtml(r)), "--", boundary,
      "\r\nContent-Type: text/csv; charset=utf-8\r\nContent-Disposition: "
      "attachment; filename=\"leakhound-report.csv\"\r\n"
      "Content-Transfer-Encoding: base64\r\n\r\n",
      base64(ReportCsv(r)), "--", boundary, "--\r\n");
}

}  // namespace leakhound
