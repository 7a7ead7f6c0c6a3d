#include "cli/console/case_pages.h"

#include "absl/strings/str_cat.h"
#include "cli/gateway/html_text.h"

namespace leakhound {

void AppendCaseSection(const PageContext& ctx, const Incident& i,
                       const std::vector<CaseComment>& comments,
                       std::string* out) {
  std::string& body = *out;
  absl::StrAppend(
      &body,
      "<h2>Case</h2><table class=\"case-fields\"><tr><th>Workflow</th>"
      "<td id=\"workflow\">",
      Html(i.workflow), "</td></tr><tr><th>Owner</th><td id=\"owner\">",
      Html(i.owner.empty() ? "nobody" : i.owner), "</td></tr>");
  if (!i.escalated_to.empty()) {
    absl::StrAppend(&body, "<tr><th>Escalated</th><td id=\"escalated\">to ",
                    Html(i.escalated_to), ", ",
                    Html(FormatTime(i.escalated_ms)), "</td></tr>");
  }
  body += "</table>";
  if (RoleAtLeast(ctx.role, "reviewer")) {
    const std::string base = absl::StrCat("/incidents/", i.id);
    absl::StrAppend(
        &body, "<form method=\"post\" action=\"", base,
        "/assign\" class=\"inline\">", CsrfField(ctx),
        "<input type=\"hidden\" name=\"owner\" value=\"", Html(ctx.user),
        "\"><button id=\"take\" type=\"submit\">Take</button></form> "
        "<form method=\"post\" action=\"",
        base, "/assign\" class=\"inline\">", CsrfField(ctx),
        "<label>Assign to <input name=\"owner\" id=\"assign-owner\" "
        "value=\"",
        Html(i.owner),
        "\"></label><button id=\"assign\" type=\"submit\">Assign</button>"
        "</form><form method=\"post\" action=\"",
        base, "/escalate\" class=\"escalate\">", CsrfField(ctx),
        "<label>Escalate to <input name=\"to\" id=\"escalate-to\" "
        "required></label><label>Why <input name=\"reason\" "
        "id=\"escalate-reason\"></label><button id=\"escalate\" "
        "type=\"submit\">Escalate</button></form>");
  }
  body += "<h3>Comments</h3><ul class=\"comments\" id=\"comments\">";
  for (const CaseComment& c : comments) {
    absl::StrAppend(&body, "<li>", Html(FormatTime(c.time_ms)), " ",
                    Html(c.user), ": ", Html(c.text), "</li>");
  }
  body += "</ul>";
  if (RoleAtLeast(ctx.role, "reviewer")) {
    absl::StrAppend(
        &body, "<form method=\"post\" action=\"/incidents/", i.id,
        "/comment\" class=\"comment\">", CsrfField(ctx),
        "<label>Comment <textarea name=\"text\" id=\"comment-text\" "
        "rows=\"3\" maxlength=\"4000\" required></textarea></label>"
        "<button id=\"comment\" type=\"submit\">Add</button></form>");
  }
}

std::string BulkBox(const PageContext& ctx, int64_t id) {
  if (!RoleAtLeast(ctx.role, "reviewer")) return "";
  return absl::StrCat("<input type=\"checkbox\" form=\"bulk\" name=\"id-", id,
                      "\" value=\"yes\" class=\"pick\" aria-label=\"pick ", id,
                      "\"> ");
}

std::string BulkForm(const PageContext& ctx) {
  if (!RoleAtLeast(ctx.role, "reviewer")) return "";
  return absl::StrCat(
      "<form method=\"post\" action=\"/incidents/bulk\" id=\"bulk\" "
      "class=\"bulk\">",
      CsrfField(ctx),
      "<label>With the ticked incidents <select name=\"action\" "
      "id=\"bulk-action\"><option value=\"take\">take them</option>"
      "<option value=\"assign\">assign them to</option><option "
      "value=\"resolve\">resolve them as</option><option "
      "value=\"escalate\">escalate them to</option></select></label>"
      "<label>Owner or escalation <input name=\"to\" id=\"bulk-to\"></label>"
      "<label>Verdict <select name=\"status\" id=\"bulk-status\">"
      "<option>confirmed</option><option>false-positive</option>"
      "<option>authorised</option></select></label><label>Note <input "
      "name=\"note\" id=\"bulk-note\"></label><button id=\"bulk-apply\" "
      "type=\"submit\">Apply</button></form>");
}

}  // namespace leakhound
