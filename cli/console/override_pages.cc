#include "cli/console/override_pages.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/console/page_layout.h"
#include "cli/gateway/html_text.h"
#include "cli/incidents/incident.h"

namespace leakhound {
namespace {

std::string Alerts(const std::string& error, const std::string& notice) {
  std::string out;
  if (!error.empty()) {
    absl::StrAppend(&out, "<p class=\"error\" role=\"alert\">", Html(error),
                    "</p>");
  }
  if (!notice.empty()) {
    absl::StrAppend(&out, "<p class=\"done\" role=\"status\">", Html(notice),
                    "</p>");
  }
  return out;
}

std::string Hidden(const std::string& name, const std::string& value) {
  return absl::StrCat("<input type=\"hidden\" name=\"", name, "\" value=\"",
                      Html(value), "\">");
}

}  // namespace

std::string OverrideLoginPage(const std::string& reference,
                              const std::string& csrf,
                              const OverrideLoginOptions& ways,
                              const std::string& error,
                              const std::string& notice) {
  const std::string base = absl::StrCat("/override/", Url(reference));
  std::string body = Alerts(error, notice);
  absl::StrAppend(&body, "<p>A message you sent is held under reference <b>",
                  Html(reference),
                  "</b>. Prove that you sent it to see it and release it "
                  "with a business justification.</p>");
  if (ways.directory) {
    absl::StrAppend(
        &body, "<form method=\"post\" action=\"", base,
        "/login\" class=\"login\">", Hidden("csrf", csrf),
        "<label>User <input name=\"user\" id=\"user\" "
        "autocomplete=\"username\" required></label><label>Password <input "
        "name=\"password\" id=\"password\" type=\"password\" "
        "autocomplete=\"current-password\" required></label><button "
        "id=\"login\" type=\"submit\">Log in</button></form>");
  }
  if (ways.links) {
    absl::StrAppend(&body, "<form method=\"post\" action=\"", base, "/link\">",
                    Hidden("csrf", csrf),
                    "<button id=\"send-link\" type=\"submit\">Mail a one-time "
                    "link to the sender's address</button></form>");
  }
  if (!ways.directory && !ways.links) {
    body += "<p>Ask your security team to release it.</p>";
  }
  return Layout(nullptr, "Held message", body);
}

std::string OverrideFormPage(const OverrideView& v, const std::string& csrf,
                             const std::string& who, const std::string& error) {
  std::string body = Alerts(error, "");
  absl::StrAppend(
      &body, "<p class=\"who\">Logged in as ", Html(who), "</p>",
      "<table class=\"held\"><tr><th>Reference</th><td id=\"reference\">",
      Html(v.reference), "</td></tr><tr><th>Sent</th><td>",
      Html(FormatTime(v.time_ms)), "</td></tr><tr><th>Subject</th><td>",
      Html(v.subject), "</td></tr><tr><th>To</th><td id=\"recipients\">",
      Html(absl::StrJoin(v.recipients, ", ")),
      "</td></tr><tr><th>Rule</th><td id=\"rule\">", Html(v.rule),
      "</td></tr>");
  if (!v.rule_text.empty()) {
    absl::StrAppend(&body, "<tr><th>Why</th><td>", Html(v.rule_text),
                    "</td></tr>");
  }
  absl::StrAppend(
      &body, "<tr><th>Release before</th><td>", Html(FormatTime(v.until_ms)),
      "</td></tr></table>", "<form method=\"post\" action=\"/override/",
      Url(v.reference), "/justify\" id=\"justify-form\">", Hidden("csrf", csrf),
      "<label>Why must this message go? (at least ", v.min_chars,
      " characters; recorded and reviewed by your security team)"
      "<textarea name=\"justification\" id=\"justification\" rows=\"5\" "
      "minlength=\"",
      v.min_chars,
      "\" maxlength=\"2000\" required></textarea></label>"
      "<button id=\"release\" type=\"submit\">Release my message</button>"
      "</form>");
  return Layout(nullptr, "Release a held message", body);
}

std::string CoachPage(const std::string& reference, const std::string& token,
                      const std::string& kind, uint32_t min_chars,
                      int64_t minutes) {
  const bool justify = kind == "justify";
  std::string body = absl::StrCat(
      "<p>Your upload was blocked under reference <b>", Html(reference),
      "</b>. If it is part of your work, ",
      justify ? "write why it must go" : "confirm it",
      ": you may then send the same upload again, once, within ", minutes,
      " minutes. This is recorded and reviewed by your security team.</p>",
      "<form method=\"post\" action=\"/coach/", Url(reference),
      "?t=", Url(token), "\" id=\"coach-form\">");
  if (justify) {
    absl::StrAppend(&body, "<label>Why must this upload go? (at least ",
                    min_chars,
                    " characters)<textarea name=\"justification\" "
                    "id=\"justification\" rows=\"5\" minlength=\"",
                    min_chars,
                    "\" maxlength=\"2000\" required></textarea>"
                    "</label>");
  }
  absl::StrAppend(&body, "<button id=\"grant\" type=\"submit\">",
                  justify ? "Send my justification" : "I confirm it is needed",
                  "</button></form>");
  return Layout(nullptr, "Blocked upload", body);
}

std::string OverrideEndPage(const std::string& title, const std::string& text) {
  return Layout(nullptr, title,
                absl::StrCat("<p id=\"outcome\">", Html(text), "</p>"));
}

}  // namespace leakhound
