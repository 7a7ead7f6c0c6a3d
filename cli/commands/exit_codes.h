// Exit codes of the leakhound command (a stable contract, docs/cli.md),
// modelled on grep and clamscan, and the one-line error report.
//
// Thread-safety: constants; ReportError may be called from any thread (its
// line is one fprintf, which POSIX stdio locks as a whole).
#ifndef LEAKHOUND_CLI_COMMANDS_EXIT_CODES_H_
#define LEAKHOUND_CLI_COMMANDS_EXIT_CODES_H_

#include <cstdio>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace leakhound {

inline constexpr int kExitOk = 0;     // success; for scan: nothing leaked
inline constexpr int kExitLeak = 1;   // scan found a leak; verify a problem
inline constexpr int kExitError = 2;  // usage error or any input failed

// `text` (a file name, a part name, a document id, a message naming one)
// for a terminal: its control characters as "\x1b", so that a name cannot
// forge a line ("clean x" after a newline) or send escape sequences.
inline std::string Printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t k = 0; k < text.size(); ++k) {
    const auto byte = static_cast<unsigned char>(text[k]);
    // The C1 controls (U+0080-U+009F, UTF-8 C2 80-C2 9F) too: some
    // terminals read U+009B as CSI.
    const bool c1 = byte == 0xc2 && k + 1 < text.size() &&
                    (static_cast<unsigned char>(text[k + 1]) & 0xe0) == 0x80;
    if (byte < 0x20 || byte == 0x7f || c1) {
      const auto shown = c1 ? static_cast<unsigned char>(text[++k]) : byte;
      out += c1 ? "\\u00" : "\\x";
      out += kHex[shown >> 4];
      out += kHex[shown & 0xf];
    } else {
      out += text[k];
    }
  }
  return out;
}

// Prints "leakhound COMMAND: [SUBJECT: ]MESSAGE" on standard error, one
// line (control characters escaped, Printable). Returns kExitError.
inline int ReportError(std::string_view command, const absl::Status& status,
                       std::string_view subject = {}) {
  std::string line = "leakhound " + std::string(command) + ": ";
  if (!subject.empty()) line += std::string(subject) + ": ";
  line += std::string(status.message());
  std::fprintf(stderr, "%s\n", Printable(line).c_str());
  return kExitError;
}

// A usage error: ReportError's line, then where the options are
// ("Try 'leakhound COMMAND --help'."), not the whole help text. Returns
// kExitError.
inline int UsageError(std::string_view command, const absl::Status& status) {
  ReportError(command, status);
  std::fprintf(stderr, "Try 'leakhound %s --help' for the options.\n",
               std::string(command).c_str());
  return kExitError;
}

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_EXIT_CODES_H_
