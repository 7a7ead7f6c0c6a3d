// JsonText: a JSON string literal for arbitrary bytes, for the JSON Lines
// the leakhound command writes. Ill-formed UTF-8 (e.g. a path with Latin-1
// bytes) becomes U+FFFD (shingler/text_decoder.h's RepairUtf8): JSON text
// must be Unicode.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_COMMANDS_JSON_TEXT_H_
#define LEAKHOUND_CLI_COMMANDS_JSON_TEXT_H_

#include <string>
#include <string_view>

namespace leakhound {

// Returns `text` quoted and escaped as a JSON string.
std::string JsonString(std::string_view text);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_JSON_TEXT_H_
