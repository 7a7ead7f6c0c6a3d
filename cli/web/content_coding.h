// ContentCoding: an HTTP body's Content-Encoding undone (RFC 9110 8.4), for
// the web channel: gzip (and x-gzip), deflate (a zlib stream, or the raw
// deflate some clients send), br, identity; several codings, listed in the
// order they were applied, are undone last first. The one place that calls
// zlib and brotli.
//
// Thread-safety: stateless; safe to call concurrently.
#ifndef LEAKHOUND_CLI_WEB_CONTENT_CODING_H_
#define LEAKHOUND_CLI_WEB_CONTENT_CODING_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace leakhound {

// The body `body`, sent with Content-Encoding `encoding` ("" for none),
// decoded. Errors: Unimplemented for a coding leakhound does not undo
// (compress, zstd, ...: the body is unread, not clean); InvalidArgument for
// a stream that is malformed or truncated; ResourceExhausted when the
// decoded body would pass `max_bytes` (a compression bomb).
absl::StatusOr<std::string> DecodeContent(std::string_view encoding,
                                          std::string body, size_t max_bytes);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_WEB_CONTENT_CODING_H_
