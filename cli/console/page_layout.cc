#include "cli/console/page_layout.h"

#include "absl/strings/str_cat.h"
#include "cli/gateway/html_text.h"

namespace leakhound {

bool RoleAtLeast(const std::string& role, const std::string& needed) {
  auto rank = [](const std::string& r) {
    for (size_t i = 0; i < std::size(kRoles); ++i) {
      if (r == kRoles[i]) return static_cast<int>(i);
    }
    return -1;
  };
  const int have = rank(role);
  return have >= 0 && have >= rank(needed);
}

std::string Layout(const PageContext* ctx, const std::string& title,
                   const std::string& body) {
  std::string out = absl::StrCat(
      "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
      "<meta name=\"viewport\" content=\"width=device-width\">"
      "<title>",
      Html(title),
      " - leakhound</title>"
      "<link rel=\"stylesheet\" href=\"/console.css\"></head><body><header>"
      "<a class=\"brand\" href=\"/incidents\">leakhound</a>");
  if (ctx != nullptr) {
    absl::StrAppend(
        &out,
        "<nav><a href=\"/incidents\">Incidents</a><a href=\"/dashboard\">"
        "Dashboard</a><a href=\"/documents\">Protected documents</a>"
        "<a href=\"/policy\">Policy</a><a href=\"/nodes\">Nodes</a>"
        "<a href=\"/discovery\">Discovery</a></nav>"
        "<span class=\"who\">",
        Html(ctx->user), " (", Html(ctx->role),
        ")</span><form class=\"inline\" method=\"post\" action=\"/logout\">"
        "<input type=\"hidden\" name=\"csrf\" value=\"",
        Html(ctx->csrf),
        "\"><button id=\"logout\" type=\"submit\">Log out</button></form>");
  }
  absl::StrAppend(&out, "</header><main><h1>", Html(title), "</h1>", body,
                  "</main></body></html>\n");
  return out;
}

std::string CsrfField(const PageContext& ctx) {
  return absl::StrCat("<input type=\"hidden\" name=\"csrf\" value=\"",
                      Html(ctx.csrf), "\">");
}

// The tick a destructive form needs before it is sent (the browser
// enforces `required`, and the server checks "confirm=yes" too): release,
// delete, allow-list and remove take two deliberate steps, not one click.
std::string ConfirmField(const std::string& id) {
  return absl::StrCat(
      "<label class=\"confirm\"><input type=\"checkbox\" "
      "name=\"confirm\" value=\"yes\" required",
      id.empty() ? "" : absl::StrCat(" id=\"", id, "\""), "> confirm</label> ");
}

}  // namespace leakhound
