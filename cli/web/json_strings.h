// JsonStrings: the text a person wrote into a JSON request body, such as a
// chat assistant's {"messages":[{"role":"user","content":"..."}]}: every
// string and number value, in document order (a number as written, or in
// decimal). Object keys are field names, not text, and are
// left out; booleans and nulls too. Read with nlohmann-json's SAX parser
// (no document tree), its one caller.
//
// Thread-safety: stateless; safe to call concurrently.
#ifndef LEAKHOUND_CLI_WEB_JSON_STRINGS_H_
#define LEAKHOUND_CLI_WEB_JSON_STRINGS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace leakhound {

// Objects and arrays nested deeper than this are refused.
inline constexpr size_t kMaxJsonDepth = 256;

// The string and number values of the JSON document `json`, in document
// order (at most `max_bytes` of them, counting a newline each). Errors: InvalidArgument for text that is not one JSON document
// (the caller then reads the body as plain text: nothing is lost);
// ResourceExhausted for nesting past kMaxJsonDepth or text past
// `max_bytes`.
absl::StatusOr<std::vector<std::string>> JsonStrings(std::string_view json,
                                                     size_t max_bytes);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_WEB_JSON_STRINGS_H_
