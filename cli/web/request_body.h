// RequestBody: an HTTP request's body read as a person sent it, for the
// web channel (docs/web-gateway.md). The content coding is undone
// (content_coding.h), then the body is read by its Content-Type:
//  - multipart/form-data: each file field is a member named
//    "FIELD/FILENAME", extracted like a mail attachment (formats, archives,
//    OCR, limits); text fields are the request's own text;
//  - application/x-www-form-urlencoded: the decoded values are its text;
//  - JSON (application/json, any +json type, or a body that parses as
//    JSON): its string and number values (json_strings.h); a body that does not
//    parse is read as plain text, so nothing is lost;
//  - anything else (a PUT upload, a text/plain post): the body as a file
//    named after the URL path's last segment, typed by its content.
// The request has one budget, as a mail has: its files share
// limits.max_seconds and limits.max_output_bytes (each gets what the ones
// before it left).
//
// Thread-safety: stateless; safe to call concurrently.
#ifndef LEAKHOUND_CLI_WEB_REQUEST_BODY_H_
#define LEAKHOUND_CLI_WEB_REQUEST_BODY_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cli/formats/extraction.h"

namespace leakhound {

struct HttpRequestBody {
  std::string content_type;      // the Content-Type header value
  std::string content_encoding;  // the Content-Encoding header value
  std::string url_path;          // the request URL's path, for a name
  std::string body;              // as sent (HTTP chunking removed)
};

// The request body's parts: the request's own text (part "", format
// "form", "json" or "text") and one part per file and member. Errors as
// ExtractBytes's (one line, naming the field), plus those of DecodeContent
// and ReadFormData; a file field of a type without text (an image without
// OCR) is listed in `skipped`, as an attachment would be.
absl::StatusOr<Extraction> ExtractRequestBody(HttpRequestBody request,
                                              const ExtractionLimits& limits);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_WEB_REQUEST_BODY_H_
