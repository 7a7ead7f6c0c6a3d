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
#include "cli/gateway/printable.h"

namespace leakhound {

inline constexpr int kExitOk = 0;     // success; for scan: nothing leaked
inline constexpr int kExitLeak = 1;   // scan found a leak; verify a problem
inline constexpr int kExitError = 2;  // usage error or any input failed

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
