// Unreadable: why a part holds no text leakhound read, carried on an
// absl::Status as a payload, so that a container skips the part and a
// command lists it with its class.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_FORMATS_UNREADABLE_H_
#define LEAKHOUND_CLI_FORMATS_UNREADABLE_H_

#include <optional>
#include <string_view>

#include "absl/status/status.h"

namespace leakhound {

// Why a part holds no text leakhound read. The names (UnreadableName) are
// stable: they are values of `scan --json`'s skipped[].class and of the
// milter's log line.
enum class Unreadable {
  kNoText,       // "no-text": an image without OCR or with no recognisable
                 // text, audio, video, a font, an executable
  kUnsupported,  // "unsupported": data of a format leakhound does not read
  kEncrypted,    // "encrypted": a password-protected document or archive;
                 // an error (--on-error), never listed as merely skipped
  kLimit,        // "limit": a per-part budget ran out (OCR's time limit)
};

const char* UnreadableName(Unreadable kind);

// The error an extractor returns for input it cannot read for `kind`:
// Unimplemented (a part that is skipped, not fatal, inside a container)
// for kNoText, kUnsupported and kLimit; InvalidArgument (fatal, --on-error)
// for kEncrypted. The class travels as a payload of the status.
absl::Status UnreadableError(Unreadable kind, std::string_view message);

// The class of a status made by UnreadableError (possibly re-wrapped with a
// prefix that kept its payload), else nullopt.
std::optional<Unreadable> UnreadableOf(const absl::Status& status);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_FORMATS_UNREADABLE_H_
