// FileScan: one file read, extracted and scanned for protected passages,
// rows of protected tables and data identifiers (the work of `leakhound
// scan` and of `leakhound discover` per file), the facts the policy reads
// of it, and the incident that records it.
//
// Thread-safety: ScanOne uses only its arguments; one LeakScanner and one
// DataScanner::Session per thread (their own contracts). The rest are
// pure functions.
#ifndef LEAKHOUND_CLI_COMMANDS_FILE_SCAN_H_
#define LEAKHOUND_CLI_COMMANDS_FILE_SCAN_H_

#include <string>

#include "absl/status/statusor.h"
#include "cli/commands/input_files.h"
#include "cli/commands/scan_output.h"
#include "cli/gateway/message_verdict.h"
#include "cli/incidents/incident.h"
#include "cli/policy/verdict_facts.h"
#include "cli/records/data_scanner.h"
#include "engine/scan/leak_scanner.h"

namespace leakhound {

// What ScanOne reads of a file besides its text, from the one read
// extraction makes: nothing; its SHA-256 (FileOutcome::sha256, for an
// incident) and an e-mail's headers; or its fast hash
// (FileOutcome::digest, for discovery's catalogue) and the headers.
enum class FileRecord { kNone, kSha256, kFastHash };

// Reads, extracts and scans `file`. `candidates_of`: the index whose
// candidate ids to list (--candidates), or nullptr. `keep_text`: a part's
// text is kept when it matched (for output and snippets). A file that
// cannot be read or scanned has `error` set; one without readable text
// is listed as skipped when `unreadable` says so.
FileOutcome ScanOne(const InputFile& file, LeakScanner* scanner,
                    const DataScanner& data_scanner,
                    DataScanner::Session& data_session,
                    const ExtractionLimits& limits, bool keep_text,
                    const ProtectedIndex* candidates_of,
                    UnreadablePolicy unreadable, FileRecord record);

// What the policy reads of the scanned file `o`: its matched documents,
// rows and identifiers, its parts' labels, whether parts were unread or
// the file failed. Channel, sender and recipients are the caller's.
VerdictFacts OutcomeFacts(const ProtectedIndex& index, const FileOutcome& o);

// An error, a leak (a document or a row matched) or clean.
MessageVerdict::Kind OutcomeKind(const VerdictFacts& facts);

// The incident of leaking file `o` (source "scan", action "reported"),
// with its evidence: each passage, row and location with a snippet unless
// `snippets` is false. REQUIRES: the parts' texts were kept.
Incident ScanIncident(const FileOutcome& o, const ProtectedIndex& index,
                      const std::string& run_id, bool snippets);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_COMMANDS_FILE_SCAN_H_
