#include "cli/console/console_pages.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/console/case_pages.h"
#include "cli/console/story_pages.h"
#include "cli/console/fleet_pages.h"
#include "cli/console/page_layout.h"
#include "cli/console/svg_chart.h"
#include "cli/gateway/html_text.h"
#include "cli/incidents/incident_fields.h"

namespace leakhound {
namespace {

std::string Select(const std::string& name, const std::string& chosen,
                   std::initializer_list<const char*> options) {
  std::string out = absl::StrCat("<select name=\"", name, "\" id=\"f-", name,
                                 "\"><option value=\"\">any</option>");
  for (const char* o : options) {
    absl::StrAppend(&out, "<option", chosen == o ? " selected" : "", ">", o,
                    "</option>");
  }
  return out + "</select>";
}

std::string Get(const std::map<std::string, std::string>& query,
                const std::string& key) {
  auto it = query.find(key);
  return it == query.end() ? "" : it->second;
}

std::string QueryString(const std::map<std::string, std::string>& query,
                        size_t page) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : query) {
    if (!v.empty() && k != "page") parts.push_back(Url(k) + "=" + Url(v));
  }
  if (page > 0) parts.push_back(absl::StrCat("page=", page));
  return parts.empty() ? "" : "?" + absl::StrJoin(parts, "&");
}

std::string DayText(int64_t day) {
  return FormatTime(day * 86'400'000).substr(0, 10);
}

}  // namespace

std::string LoginPage(const std::string& csrf, const std::string& error,
                      const std::string& next) {
  std::string body;
  if (!error.empty()) {
    absl::StrAppend(&body, "<p class=\"error\" role=\"alert\">", Html(error),
                    "</p>");
  }
  absl::StrAppend(
      &body,
      "<form method=\"post\" action=\"/login\" class=\"login\">"
      "<input type=\"hidden\" name=\"csrf\" value=\"",
      Html(csrf),
      "\">"
      "<input type=\"hidden\" name=\"next\" value=\"",
      Html(next),
      "\">"
      "<label>User <input name=\"user\" id=\"user\" autocomplete=\"username\" "
      "required></label><label>Password <input name=\"password\" "
      "id=\"password\" type=\"password\" autocomplete=\"current-password\" "
      "required></label><button id=\"login\" type=\"submit\">Log in</button>"
      "</form>");
  return Layout(nullptr, "Log in", body);
}

namespace {

// The list's To cell: the first recipient (a web request's: the
// destination host) and how many more.
std::string RecipientsCell(const Incident& i) {
  if (i.recipients.empty()) return "";
  if (i.recipients.size() == 1) return i.recipients[0];
  return absl::StrCat(i.recipients[0], " (+", i.recipients.size() - 1, ")");
}

// The list's filter form, echoing the filter `q` as typed.
std::string FilterForm(const std::map<std::string, std::string>& q) {
  return absl::StrCat(
      "<form method=\"get\" action=\"/incidents\" class=\"filters\">"
      "<label>Status ",
      Select("status", Get(q, "status"),
             {"open", "confirmed", "false-positive", "authorised"}),
      "</label><label>Case ",
      Select("workflow", Get(q, "workflow"),
             {"new", "in-review", "escalated", "resolved"}),
      "</label><label>Owner <input name=\"owner\" id=\"f-owner\" value=\"",
      Html(Get(q, "owner")), "\">", "</label><label>Action ",
      Select("action", Get(q, "action"),
             {"reject", "quarantine", "tag", "log", "accept", "tempfail",
              "remove-external-recipients", "redirect", "reported"}),
      "</label><label>Severity ",
      Select("severity", Get(q, "severity"), {"info", "low", "medium", "high"}),
      "</label><label>Rule <input name=\"rule\" id=\"f-rule\" value=\"",
      Html(Get(q, "rule")), "\">", "</label><label>Source ",
      Select("source", Get(q, "source"), {"milter", "scan", "web", "discover"}),
      "</label><label>Kind ",
      Select("kind", Get(q, "kind"), {"leak", "error", "unread"}),
      "</label><label>Sender <input name=\"sender\" id=\"f-sender\" value=\"",
      Html(Get(q, "sender")),
      "\"></label><label>Document <input "
      "name=\"document\" id=\"f-document\" value=\"",
      Html(Get(q, "document")),
      "\"></label><label>Since <input name=\"since\" id=\"f-since\" "
      "placeholder=\"7d or 2026-11-01\" value=\"",
      Html(Get(q, "since")),
      "\"></label><label>Until <input name=\"until\" id=\"f-until\" value=\"",
      Html(Get(q, "until")),
      "\"></label><button id=\"filter\" "
      "type=\"submit\">Filter</button> <a "
      "href=\"/incidents\">clear</a></form>");
}

}  // namespace

std::string IncidentListPage(const PageContext& ctx,
                             const IncidentListView& view) {
  const auto& q = view.query;
  std::string body;
  if (!view.done.empty()) {
    absl::StrAppend(&body, "<p class=\"notice\" role=\"status\" id=\"notice\">",
                    Html(view.done), "</p>");
  }
  body += FilterForm(q);
  if (view.rows.empty()) {
    body += "<p class=\"empty\">No incidents match.</p>";
  } else {
    absl::StrAppend(
        &body,
        "<table class=\"incidents\"><thead><tr><th>#</th><th>Time (UTC)</th>"
        "<th>Source</th><th>Kind</th><th>Action</th><th>Severity</th>"
        "<th>Status</th><th>Case</th><th>Mail"
        "</th><th>From / file</th><th>To</th><th>Subject</th><th>Documents"
        "</th></tr>"
        "</thead><tbody>");
    for (const Incident& i : view.rows) {
      absl::StrAppend(
          &body, "<tr><td>", BulkBox(ctx, i.id),
          "<a class=\"incident-link\" href=\"/incidents/", i.id, "\">", i.id,
          "</a></td><td>", Html(FormatTime(i.time_ms)), "</td><td>",
          Html(i.source), "</td><td>", Html(i.kind), "</td><td>",
          Html(i.action), "</td><td class=\"severity-", Html(i.severity), "\">",
          Html(i.severity), "</td><td class=\"status-", Html(i.status), "\">",
          Html(i.status), "</td><td class=\"case\">", Html(i.workflow),
          i.owner.empty() ? "" : " (" + Html(i.owner) + ")", "</td><td>",
          Html(i.mail_state), "</td><td>", Html(IncidentOrigin(i)), "</td><td>",
          Html(RecipientsCell(i)), "</td><td>",
          // A web request has no subject: its method and URL stand there.
          Html(i.source == "web" ? absl::StrCat(i.method, " ", i.url)
                                 : i.subject),
          "</td><td>", Html(absl::StrJoin(i.documents, ", ")), "</td></tr>");
    }
    body += "</tbody></table>";
    body += BulkForm(ctx);
  }
  body += "<p class=\"paging\">";
  if (view.page > 0) {
    absl::StrAppend(&body, "<a rel=\"prev\" href=\"/incidents",
                    Html(QueryString(q, view.page - 1)),
                    "\">&larr; newer</a> ");
  }
  absl::StrAppend(&body, "page ", view.page + 1);
  if (view.more) {
    absl::StrAppend(&body, " <a rel=\"next\" href=\"/incidents",
                    Html(QueryString(q, view.page + 1)), "\">older &rarr;</a>");
  }
  body += "</p>";
  return Layout(&ctx, "Incidents", body);
}

namespace {

// The incident page's table of fields.
void AppendIncidentFields(const Incident& i, std::string* out) {
  std::string& body = *out;
  body += "<table class=\"fields\">";
  auto row = [&](const char* name, const std::string& value) {
    if (!value.empty()) {
      absl::StrAppend(&body, "<tr><th>", name, "</th><td>", Html(value),
                      "</td></tr>");
    }
  };
  row("Time (UTC)", FormatTime(i.time_ms));
  row("Source", i.source);
  row("Kind", i.kind);
  row("Action", i.action);
  absl::StrAppend(&body, "<tr><th>Status</th><td id=\"status\">",
                  Html(i.status), "</td></tr>");
  absl::StrAppend(&body, "<tr><th>Mail</th><td id=\"mail-state\">",
                  Html(i.mail_state.empty() ? "-" : i.mail_state),
                  "</td></tr>");
  for (const IncidentField& f : IncidentFields()) {
    if (!f.AppliesTo(i)) continue;
    std::string value = f.Text(i, ", ");
    if (f.unit != nullptr) absl::StrAppend(&value, " ", f.unit);
    row(f.label, value);
  }
  if (!i.reviewed_by.empty()) {
    row("Reviewed",
        absl::StrCat(i.reviewed_by, ", ", FormatTime(i.reviewed_ms)));
  }
  body += "</table>";
}

// One matched passage, `n`th of the incident, with its allow-list button.
void AppendMatchSection(const PageContext& ctx, const Incident& i, size_t n,
                        std::string* out) {
  std::string& body = *out;
  const IncidentMatch& m = i.matches[n];
  absl::StrAppend(&body, "<section class=\"match\"><h3>", Html(m.document),
                  m.part.empty() ? "" : absl::StrCat(" in ", Html(m.part)),
                  "</h3><p class=\"meta\">");
  if (m.document.starts_with(kTableFactPrefix)) {
    // A row of a protected table, in record terms: which row, which
    // columns; its values masked in the snippet.
    absl::StrAppend(&body, Html(m.source), " matched: ",
                    m.labels.size() == 1 ? "column " : "columns ",
                    Html(absl::StrJoin(m.labels, ", ")));
  } else {
    if (m.words > 0) {
      absl::StrAppend(&body, m.words, " words, ",
                      absl::StrFormat("%.0f", 100 * m.coverage),
                      " % of the document");
    }
    if (!m.source.empty())
      absl::StrAppend(&body, "; protected from ", Html(m.source));
    if (!m.labels.empty()) {
      absl::StrAppend(&body, "; labels ", Html(absl::StrJoin(m.labels, ", ")));
    }
  }
  body += "</p>";
  if (!m.snippet.empty()) {
    const std::string_view s(m.snippet);
    absl::StrAppend(
        &body, "<blockquote class=\"snippet\">",
        Html(s.substr(0, m.snippet_begin)), "<mark>",
        Html(s.substr(m.snippet_begin, m.snippet_end - m.snippet_begin)),
        "</mark>", Html(s.substr(m.snippet_end)), "</blockquote>");
    if (RoleAtLeast(ctx.role, "reviewer") &&
        !m.document.starts_with("location ")) {
      absl::StrAppend(
          &body, "<form method=\"post\" action=\"/incidents/", i.id,
          "/allow\" class=\"inline\">", CsrfField(ctx),
          "<input type=\"hidden\" name=\"match\" value=\"", n, "\">",
          ConfirmField(absl::StrCat("allow-confirm-", n)),
          "<button type=\"submit\">Allow-list this passage as benign"
          "</button></form>");
    }
  } else {
    absl::StrAppend(&body, "<p class=\"meta\">bytes ", m.byte_begin, "-",
                    m.byte_end, " (no snippet stored)</p>");
  }
  body += "</section>";
}

// The review form and, for held mail, its release and delete buttons.
void AppendReviewForms(const PageContext& ctx, const Incident& i,
                       std::string* out) {
  std::string& body = *out;
  absl::StrAppend(
      &body, "<h2>Review</h2><form method=\"post\" action=\"/incidents/", i.id,
      "/resolve\" class=\"review\">", CsrfField(ctx),
      "<label>Verdict <select name=\"status\" id=\"resolve-status\">");
  for (const char* s : {"confirmed", "false-positive", "authorised", "open"}) {
    absl::StrAppend(&body, "<option", i.status == s ? " selected" : "", ">", s,
                    "</option>");
  }
  absl::StrAppend(&body,
                  "</select></label><label>Note <input name=\"note\" "
                  "id=\"resolve-note\" value=\"",
                  Html(i.note),
                  "\"></label><button id=\"resolve\" type=\"submit\">Save"
                  "</button></form>");
  if (i.mail_state != "held") return;
  body += "<h2>Held message</h2>";
  // A confirmed leak is not offered for release (the server refuses it
  // too): its review must be set back to open first.
  if (i.status != "confirmed") {
    absl::StrAppend(&body, "<form method=\"post\" action=\"/incidents/", i.id,
                    "/release\" class=\"inline\">", CsrfField(ctx),
                    ConfirmField("release-confirm"),
                    "<button id=\"release\" type=\"submit\">Release and deliver"
                    "</button></form> ");
  } else {
    body +=
        "<p class=\"meta\">Resolved as a confirmed leak: set the verdict "
        "back to open to release it.</p>";
  }
  absl::StrAppend(
      &body, "<form method=\"post\" action=\"/incidents/", i.id,
      "/delete-mail\" class=\"inline\">", CsrfField(ctx),
      ConfirmField("delete-confirm"),
      "<button id=\"delete-mail\" type=\"submit\">Delete</button></form>");
}

// The override offered with the incident (docs/overrides.md): its state,
// the justification once used, and for a reviewer the revoke button
// while it is pending.
void AppendOverride(const PageContext& ctx, const Incident& i,
                    std::string* out) {
  const IncidentOverride& o = i.override_offer;
  if (o.kind.empty()) return;
  std::string& body = *out;
  absl::StrAppend(&body,
                  "<h2>Override</h2><table class=\"fields\" "
                  "id=\"override\"><tr><th>Offered</th><td>",
                  Html(o.kind), " by rule ", Html(o.rule), ", until ",
                  Html(FormatTime(o.until_ms)),
                  "</td></tr><tr><th>State</th><td id=\"override-state\">",
                  Html(o.state), "</td></tr>");
  if (o.state == "used") {
    absl::StrAppend(
        &body, "<tr><th>By</th><td id=\"override-by\">", Html(o.used_by),
        "</td></tr><tr><th>When</th><td>", Html(FormatTime(o.time_ms)),
        "</td></tr><tr><th>From</th><td>", Html(o.address),
        "</td></tr><tr><th>Justification</th><td id=\"override-text\">",
        Html(o.text), "</td></tr>");
  } else if (o.state == "revoked") {
    absl::StrAppend(&body, "<tr><th>Revoked by</th><td>", Html(o.revoked_by),
                    " at ", Html(FormatTime(o.time_ms)), "</td></tr>");
  }
  body += "</table>";
  if (o.state == "offered" && RoleAtLeast(ctx.role, "reviewer")) {
    absl::StrAppend(&body, "<form method=\"post\" action=\"/incidents/", i.id,
                    "/revoke-override\" class=\"inline\">", CsrfField(ctx),
                    "<button id=\"revoke-override\" type=\"submit\">Revoke "
                    "the sender's override</button></form>");
  }
}

}  // namespace

std::string IncidentPage(const PageContext& ctx, const Incident& i,
                         const std::vector<AuditEntry>& audit,
                         const std::string& done, const HeldMailView& mail,
                         const std::vector<CaseComment>& comments) {
  std::string body;
  if (!done.empty()) {
    absl::StrAppend(&body, "<p class=\"notice\" role=\"status\" id=\"notice\">",
                    Html(done), "</p>");
  }
  AppendIncidentFields(i, &body);
  if (!i.matches.empty()) body += "<h2>Passages</h2>";
  for (size_t n = 0; n < i.matches.size(); ++n) {
    AppendMatchSection(ctx, i, n, &body);
  }
  AppendLabelsAndStory(i, &body);
  AppendCaseSection(ctx, i, comments, &body);
  if (RoleAtLeast(ctx.role, "reviewer")) AppendReviewForms(ctx, i, &body);
  AppendOverride(ctx, i, &body);
  AppendMailRequests(i, mail, &body);
  if (!audit.empty()) {
    body += "<h2>History</h2><ul class=\"audit\">";
    for (const AuditEntry& a : audit) {
      absl::StrAppend(&body, "<li>", Html(FormatTime(a.time_ms)), " ",
                      Html(a.user), ": ", Html(a.action),
                      a.detail.empty() ? "" : " - ", Html(a.detail), "</li>");
    }
    body += "</ul>";
  }
  return Layout(&ctx, absl::StrCat("Incident ", i.id), body);
}

namespace {

// One row of the documents page; an admin's has the labels form and the
// remove button.
void AppendDocumentRow(const PageContext& ctx, const DocumentRow& d,
                       std::string& out) {
  absl::StrAppend(&out, "<tr><td>", Html(d.id), "</td><td>", Html(d.source),
                  "</td><td>");
  if (RoleAtLeast(ctx.role, "admin")) {
    // Labels edited in place: a form per row, CSRF-protected.
    absl::StrAppend(&out,
                    "<form method=\"post\" action=\"/documents/labels\" "
                    "class=\"inline labels\">",
                    CsrfField(ctx),
                    "<input type=\"hidden\" name=\"id\" value=\"",
                    Html(d.id), "\"><input name=\"labels\" value=\"",
                    Html(absl::StrJoin(d.labels, ", ")),
                    "\" aria-label=\"labels of ", Html(d.id),
                    "\"><button type=\"submit\">Save</button></form>");
  } else {
    out += Html(absl::StrJoin(d.labels, ", "));
  }
  absl::StrAppend(&out, "</td><td>", Html(absl::StrJoin(d.sensitivity, ", ")),
                  "</td><td>", d.bytes, "</td><td>",
                  Html(FormatTime(d.added_ms)), "</td>");
  if (RoleAtLeast(ctx.role, "admin")) {
    absl::StrAppend(&out,
                    "<td><form method=\"post\" action=\"/documents/remove\" "
                    "class=\"inline\">",
                    CsrfField(ctx),
                    "<input type=\"hidden\" name=\"id\" value=\"", Html(d.id),
                    "\">", ConfirmField(""),
                    "<button type=\"submit\">Remove</button></form></td>");
  }
  out += "</tr>";
}

}  // namespace

std::string DocumentsPage(const PageContext& ctx, const DocumentsView& view,
                          const std::string& done) {
  std::string body;
  if (!done.empty()) {
    absl::StrAppend(&body, "<p class=\"notice\" role=\"status\">", Html(done),
                    "</p>");
  }
  if (!view.index_available) {
    body += "<p class=\"error\">The console was started without --index.</p>";
    return Layout(&ctx, "Protected documents", body);
  }
  absl::StrAppend(&body, "<p>", view.total,
                  " documents protected, index generation ", view.generation,
                  ".</p><form method=\"get\" action=\"/documents\">"
                  "<label>Search <input name=\"q\" id=\"doc-search\" value=\"",
                  Html(view.query),
                  "\"></label><button type=\"submit\">Search"
                  "</button></form>");
  if (RoleAtLeast(ctx.role, "admin")) {
    absl::StrAppend(
        &body,
        "<form method=\"post\" action=\"/documents/add\" "
        "enctype=\"multipart/form-data\" class=\"upload\">",
        CsrfField(ctx),
        "<label>File <input type=\"file\" name=\"file\" required></label>"
        "<label>Id <input name=\"id\" placeholder=\"the file's name\"></label>"
        "<label>Labels <input name=\"labels\" placeholder=\"a, b\"></label>"
        "<button type=\"submit\">Protect</button></form>");
  }
  if (!view.query.empty()) {
    absl::StrAppend(&body, "<p>Documents whose id contains &ldquo;",
                    Html(view.query), "&rdquo;",
                    view.from.empty() ? "" : ", continued", ":</p>");
  }
  absl::StrAppend(&body,
                  "<table "
                  "class=\"documents\"><thead><tr><th>Id</th><th>Source</th>"
                  "<th>Labels</th><th>Sensitivity</th><th>Bytes</th>"
                  "<th>Added (UTC)</th>",
                  RoleAtLeast(ctx.role, "admin") ? "<th></th>" : "",
                  "</tr></thead><tbody>");
  for (const DocumentRow& d : view.rows) AppendDocumentRow(ctx, d, body);
  body += "</tbody></table><p class=\"paging\">";
  if (view.rows.empty()) body += "No documents. ";
  if (!view.from.empty()) {
    absl::StrAppend(&body, "<a href=\"/documents",
                    Html(QueryString({{"q", view.query}}, 0)),
                    "\">&larr; first page</a> ");
  }
  if (!view.next.empty()) {
    absl::StrAppend(
        &body, " <a href=\"/documents",
        Html(QueryString({{"q", view.query}, {"from", view.next}}, 0)),
        "\">next &rarr;</a>");
  }
  body += "</p>";
  return Layout(&ctx, "Protected documents", body);
}

namespace {

// The outbox per destination: what waits, since when, and what went wrong.
std::string OutboxTable(const DashboardView& view) {
  if (view.outbox.empty()) {
    return "<h2>Outbox</h2><p class=\"empty\">No SIEM or webhook "
           "destination (docs/siem.md).</p>";
  }
  std::string rows;
  for (const OutboxDestinationState& d : view.outbox) {
    const bool late =
        d.oldest_pending_ms != 0 && view.now_ms - d.oldest_pending_ms > 300'000;
    absl::StrAppend(
        &rows, "<tr", late || d.dropped > 0 ? " class=\"alert\"" : "", "><td>",
        Html(d.name), "</td><td>", d.pending, "</td><td>",
        d.oldest_pending_ms == 0
            ? std::string("-")
            : absl::StrCat((view.now_ms - d.oldest_pending_ms) / 1000, " s"),
        "</td><td>", d.delivered, "</td><td>", d.failed, "</td><td>", d.dropped,
        "</td><td>", d.retried, "</td><td>",
        d.last_delivery_ms == 0 ? std::string("-")
                                : FormatTime(d.last_delivery_ms),
        "</td><td>", Html(d.current_error()), "</td></tr>");
  }
  return absl::StrCat(
      "<h2>Outbox</h2><table class=\"outbox\"><thead><tr><th>Destination"
      "</th><th>Pending</th><th>Oldest</th><th>Delivered</th><th>Failed</th>"
      "<th>Dropped</th><th>Retried</th><th>Last delivery (UTC)</th>"
      "<th>Last error</th></tr></thead><tbody>",
      rows, "</tbody></table>");
}

}  // namespace

std::string DashboardPage(const PageContext& ctx, const DashboardView& view) {
  static constexpr struct {
    const char* action;
    const char* color;
  } kPalette[] = {{"reject", "#c0392b"},   {"quarantine", "#e67e22"},
                  {"tag", "#f1c40f"},      {"accept", "#7f8c8d"},
                  {"tempfail", "#8e44ad"}, {"reported", "#2980b9"}};
  std::vector<std::string> columns;
  for (int d = 0; d < view.days; ++d)
    columns.push_back(DayText(view.first_day + d));
  std::vector<ChartSeries> series;
  for (const auto& p : kPalette) {
    series.push_back(
        {p.action, p.color, std::vector<int64_t>(columns.size(), 0)});
  }
  int64_t total = 0;
  for (const DayCount& c : view.per_day) {
    const int64_t col = c.day - view.first_day;
    if (col < 0 || col >= view.days) continue;
    auto it =
        std::find_if(series.begin(), series.end(),
                     [&](const ChartSeries& s) { return s.name == c.action; });
    if (it == series.end()) {
      series.push_back(
          {c.action, "#555", std::vector<int64_t>(columns.size(), 0)});
      it = series.end() - 1;
    }
    it->values[static_cast<size_t>(col)] += c.count;
    total += c.count;
  }
  std::erase_if(series, [](const ChartSeries& s) {
    return std::all_of(s.values.begin(), s.values.end(),
                       [](int64_t v) { return v == 0; });
  });
  auto pairs = [](const std::vector<NamedCount>& v) {
    std::vector<std::pair<std::string, int64_t>> out;
    for (const NamedCount& c : v) out.emplace_back(c.name, c.count);
    return out;
  };
  std::string body = absl::StrCat(
      "<form method=\"get\" action=\"/dashboard\"><label>Days <input "
      "name=\"days\" type=\"number\" min=\"1\" max=\"366\" value=\"",
      view.days, "\"></label><button type=\"submit\">Show</button></form><p>",
      total, " incidents in the last ", view.days, " days.</p>",
      StackedBarChart("Incidents per day, by action", columns, series),
      RankingChart("Incidents by severity", pairs(view.per_severity)),
      RankingChart("Top protected documents", pairs(view.top_documents)),
      RankingChart("Top senders", pairs(view.top_senders)), OutboxTable(view));
  return Layout(&ctx, "Dashboard", body);
}

std::string PolicyPage(const PageContext& ctx, const PolicyView& view) {
  std::string body;
  AppendPolicyVersions(view.versions, view.nodes, &body);
  if (view.path.empty()) {
    absl::StrAppend(&body,
                    "<p class=\"empty\">No policy file: the console was "
                    "started without --policy (docs/policy.md).</p>");
    return Layout(&ctx, "Policy", body);
  }
  absl::StrAppend(&body, "<h2 id=\"policy-name\">", Html(view.path), "</h2>");
  if (!view.error.empty()) {
    absl::StrAppend(&body, "<p class=\"error\" role=\"alert\">",
                    Html(view.error), "</p>");
  }
  for (const std::string& w : view.warnings) {
    absl::StrAppend(&body, "<p class=\"warning\" role=\"alert\">", Html(w),
                    "</p>");
  }
  if (!view.rules.empty()) {
    body +=
        "<table class=\"rules\"><thead><tr><th>Rule</th><th>Line</th>"
        "<th>Mode</th><th>Action</th><th>Severity</th><th>Incidents</th>"
        "</tr></thead><tbody>";
    for (const PolicyView::Rule& r : view.rules) {
      absl::StrAppend(&body, "<tr><td>", Html(r.name), "</td><td>", r.line,
                      "</td><td>", Html(r.mode), "</td><td>", Html(r.action),
                      "</td><td>", Html(r.severity),
                      "</td><td><a class=\"rule-incidents\" "
                      "href=\"/incidents",
                      Html(QueryString({{"rule", r.name}}, 0)), "\">",
                      r.incidents, "</a></td></tr>");
    }
    body += "</tbody></table>";
    body += BulkForm(ctx);
  }
  absl::StrAppend(&body, "<pre class=\"policy\">", Html(view.text), "</pre>");
  return Layout(&ctx, "Policy", body);
}

std::string MessagePage(const PageContext* ctx, const std::string& title,
                        const std::string& message) {
  return Layout(
      ctx, title,
      absl::StrCat("<p class=\"error\" role=\"alert\">", Html(message),
                   "</p><p><a href=\"/incidents\">Incidents</a></p>"));
}

const char kConsoleCss[] = R"css(
body { font: 15px/1.4 system-ui, sans-serif; margin: 0; color: #222; }
header { display: flex; gap: 1.5em; align-items: center; background: #1f3a5a;
  color: #fff; padding: .5em 1em; }
header a { color: #fff; text-decoration: none; margin-right: 1em; }
header .brand { font-weight: bold; }
.tree, .tree ul { list-style: none; padding-left: 1.2em; margin: .1em 0; }
header .who { margin-left: auto; }
main { padding: 1em 2em; }
form.inline { display: inline; }
form.filters label, form.review label, form.upload label { margin-right: .8em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border-bottom: 1px solid #ddd; padding: .25em .6em; text-align: left;
  vertical-align: top; }
table.fields th, table.case-fields th { width: 9em; }
.snippet { white-space: pre-wrap; background: #f6f6f6; border-left: 4px solid
  #3b6ea5; padding: .5em 1em; font-family: ui-monospace, monospace; }
mark { background: #ffe08a; }
.error { color: #a00; } .notice { color: #064; }
tr.alert td { background: #fdecea; }
.status-open { font-weight: bold; }
svg.chart { display: block; margin: 1em 0; }
svg .chart-title { font-weight: bold; font-size: 14px; }
svg .axis, svg .legend { font-size: 11px; }
form.login label { display: block; margin: .5em 0; }
)css";

}  // namespace leakhound
