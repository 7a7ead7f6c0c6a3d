#include "cli/console/console_http.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace leakhound {

std::string CookieValue(const HttpRequest& req, const std::string& name) {
  const std::string header = req.Header("Cookie");
  for (absl::string_view part : absl::StrSplit(header, ';')) {
    part = absl::StripAsciiWhitespace(part);
    if (absl::ConsumePrefix(&part, name + "=")) return std::string(part);
  }
  return "";
}

// `text` for a log line: control characters and backslashes escaped
// (\n, \x1b), so that a user name cannot forge a line.
std::string LogField(std::string_view text) {
  return absl::CHexEscape(absl::string_view(text.data(), text.size()));
}

void SendHtml(HttpResponse& res, int status, const std::string& html) {
  res.status = status;
  res.SetContent(html, "text/html; charset=utf-8");
}

int HttpStatusOf(const absl::Status& s) {
  switch (s.code()) {
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kFailedPrecondition:
      return 409;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    default:
      return 500;
  }
}

}  // namespace leakhound
