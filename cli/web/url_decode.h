// UrlDecode: application/x-www-form-urlencoded escapes undone, for form
// bodies and data: URIs.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_WEB_URL_DECODE_H_
#define LEAKHOUND_CLI_WEB_URL_DECODE_H_

#include <string>
#include <string_view>

namespace leakhound {

// `text` with its escapes undone ('+' is a space, %XX a byte; a malformed
// escape stays as written).
std::string UrlDecode(std::string_view text);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_WEB_URL_DECODE_H_
