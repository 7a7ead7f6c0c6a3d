// ScanOutput: how `leakhound scan` writes the result of one scanned file:
// a JSON Lines object (--json; the schema in docs/cli.md) or lines for a
// person (a verdict line, then per matched document its coverage and up to
// kShownPassages passages with line numbers).
//
// Thread-safety: pure functions of their arguments.
#ifndef LEAKHOUND_CLI_SCAN_OUTPUT_H_
#define LEAKHOUND_CLI_SCAN_OUTPUT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "engine/leak_scanner.h"

namespace leakhound {

struct FileOutcome {
  std::string path;
  absl::Status error;   // not ok: the file could not be scanned
  uint64_t bytes = 0;   // of the file as read
  std::string text;     // the extracted text (kept for human output only)
  ScanReport report;
  double elapsed_ms = 0;

  bool leak() const { return error.ok() && !report.matches.empty(); }
};

inline constexpr size_t kShownPassages = 3;

// One line of JSON, without the newline.
std::string FormatJson(const FileOutcome& outcome);

// Lines for a terminal or a log, each ending in a newline. `color`: ANSI
// colors for the verdict. REQUIRES: outcome.text holds the extracted text
// when outcome.leak().
std::string FormatHuman(const FileOutcome& outcome, bool color);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_SCAN_OUTPUT_H_
