// ScanOutput: how `leakhound scan` writes the result of one scanned file:
// a JSON Lines object (--json; the schema in docs/cli.md) or lines for a
// person (a verdict line, then per matched document its coverage and up to
// kShownPassages passages with line numbers). A file is scanned part by
// part (cli/formats/extraction.h); a match names its part.
//
// Thread-safety: pure functions of their arguments.
#ifndef LEAKHOUND_CLI_COMMANDS_SCAN_OUTPUT_H_
#define LEAKHOUND_CLI_COMMANDS_SCAN_OUTPUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/formats/extraction.h"
#include "cli/formats/mime_extractor.h"
#include "cli/incidents/incident.h"
#include "cli/policy/policy_evaluator.h"
#include "cli/records/data_scanner.h"
#include "engine/scan/leak_scanner.h"

namespace leakhound {

struct PartOutcome {
  std::string name;  // "" for the file's own text, else its path inside
  std::string text;  // the extracted text (kept for human output only)
  ScanReport report;
  // Rows of protected tables and data identifiers found (docs/records.md),
  // in the part's layout text where it has one (ExtractedPart::
  // layout_text), else in its text.
  DataFindings data;
  // The layout text, kept with `text` when data's spans refer to it.
  std::string layout_text;
  // The candidates' external ids, in report.candidates order; filled only
  // for `scan --candidates`.
  std::vector<std::string> candidate_ids;
};

// With `scan --policy`: what the policy decided for the file
// (docs/policy.md). `severity` is "" and `rules` empty when no rule
// matched.
struct FilePolicyOutcome {
  std::string severity;
  std::string action;  // the enforcing rules' most restrictive, or "log"
  std::vector<IncidentRule> rules;
  std::string would_action;  // what monitor rules would do; "" when none
  std::vector<IncidentDocument> facts;  // what the rules read, for --record
};

struct FileOutcome {
  std::string path;
  absl::Status error;  // not ok: the file could not be scanned
  uint64_t bytes = 0;  // of the file as read
  std::string format;  // what the file was read as ("text", "docx", ...)
  std::vector<PartOutcome> parts;
  std::vector<SkippedPart> skipped;  // members without text to read
  double elapsed_ms = 0;
  std::optional<FilePolicyOutcome> policy;
  // Per part with a sensitivity label, that can carry one, or quoting a
  // protected document: what the label conditions read (docs/labels.md).
  std::vector<PartFacts> part_facts;
  // With --record --policy, for an e-mail that quotes a protected
  // document: its incident's reference, named before the policy judges
  // it (the drip ledger records what it sent under it), and when it was
  // sent (its Date, else now).
  std::string reference;
  int64_t sent_ms = 0;
  // With --record, from the one read extraction made: the file's SHA-256
  // (hex) and, for an e-mail, its own headers. For discovery, its fast
  // hash instead (cli/discover/content_hash.h).
  std::string sha256;
  std::string digest;
  std::optional<MailHeaders> mail;

  bool leak() const;
  // Sums over the parts.
  uint32_t words() const;
  size_t candidates() const;
  uint64_t false_candidates() const;
  uint64_t allowed_fingerprints() const;
  uint64_t boilerplate_shingles() const;
  // Rows of protected tables matched, summed over the parts.
  size_t records() const;
};

inline constexpr size_t kShownPassages = 3;

// One line of JSON, without the newline. With a policy outcome, also
// "severity", "action" and "rules".
// With `candidates`, also "candidate_ids": the external ids of every
// document the filter proposed, matched or dropped, per part in order.
std::string FormatJson(const FileOutcome& outcome, bool candidates = false);

// Lines for a terminal or a log, each ending in a newline. `color`: ANSI
// colors for the verdict. REQUIRES: each part's text is kept when it has
// matches.
std::string FormatHuman(const FileOutcome& outcome, bool color);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_SCAN_OUTPUT_H_
