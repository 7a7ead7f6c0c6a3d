// JsonText: a JSON string literal for arbitrary bytes (and an array of them), and the time format,
// for the JSON Lines and listings the leakhound command writes. Ill-formed
// UTF-8 (e.g. a path with Latin-1 bytes) becomes U+FFFD
// (shingler/text_decoder.h's RepairUtf8): JSON text must be Unicode.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_COMMANDS_JSON_TEXT_H_
#define LEAKHOUND_CLI_COMMANDS_JSON_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace leakhound {

// Returns `text` quoted and escaped as a JSON string.
std::string JsonString(std::string_view text);

// A JSON array of `values`, each JsonString.
std::string JsonStrings(const std::vector<std::string>& values);

// A Unix time in milliseconds as ISO 8601 UTC to the second:
// "2026-11-28T01:15:38Z".
std::string IsoTime(int64_t unix_ms);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_JSON_TEXT_H_
