// Small pieces of the console's HTTP handling shared by its handlers:
// cookies, log fields, HTML responses and the HTTP status of a Status.
// Internal to leakhound_console.
//
// Thread-safety: pure functions (SendHtml writes the response it is given).
#ifndef LEAKHOUND_CLI_CONSOLE_CONSOLE_HTTP_H_
#define LEAKHOUND_CLI_CONSOLE_CONSOLE_HTTP_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "cli/console/http_server.h"

namespace leakhound {

// The value of cookie `name` in the request's Cookie header ("": none).
std::string CookieValue(const HttpRequest& req, const std::string& name);
// `text` for a log line: control characters and backslashes escaped
// (\n, \x1b), so that a user name cannot forge a line.
std::string LogField(std::string_view text);
void SendHtml(HttpResponse& res, int status, const std::string& html);
// 404 NotFound, 400 InvalidArgument, 409 FailedPrecondition, 503
// Unavailable, 403 PermissionDenied, else 500.
int HttpStatusOf(const absl::Status& s);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_CONSOLE_CONSOLE_HTTP_H_
