// MessageVerdict: what a channel's scan found in one message or upload:
// the documents, locations, records and identifiers it matched, where, and
// what it could not read; judged by the policy afterwards
// (message_verdict.h) and kept by the duplicate cache (duplicate_cache.h).
//
// Thread-safety: a plain value.
#ifndef LEAKHOUND_CLI_GATEWAY_VERDICT_H_
#define LEAKHOUND_CLI_GATEWAY_VERDICT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cli/incidents/incident.h"
#include "cli/policy/policy_evaluator.h"

namespace leakhound {

struct MessageVerdict {
  enum class Kind { kClean, kLeak, kError };
  Kind kind = Kind::kClean;
  std::vector<std::string> documents;  // matched protected document ids
  // What the policy reads of them (cli/policy): per document (and per
  // protected location, as "location PREFIX") its labels, its words
  // matched summed over the parts, and its largest share matched.
  std::vector<MatchedDocument> matched;
  // Per part with a sensitivity label, of a format that can carry one, or
  // quoting a protected document: its labels and the documents it quotes
  // (the label conditions, docs/labels.md).
  std::vector<PartFacts> part_facts;
  // What this message sent of each protected document (source token
  // ranges) and table (keyed rows), for the drip ledger (drip_ledger.h);
  // sender, time, channel and reference not yet filled.
  std::vector<DripSpan> spans;
  // The drip ledger's sums with this message (Gateway::Facts), kept with
  // its incident.
  std::vector<CumulativeFact> cumulative;
  std::vector<std::string> locations;  // protected location prefixes named
  // Rows of protected tables matched, per table, and distinct valid values
  // per data identifier (docs/records.md), summed over the parts.
  std::vector<std::pair<std::string, uint32_t>> records;
  std::vector<std::pair<std::string, uint32_t>> identifiers;
  std::vector<std::string> parts;      // where: "" (the body) or a part path
  // Parts without text leakhound could read (an image OCR found nothing
  // in, unknown binary data), each "name (class)": the milter's
  // --on-unreadable decides what a clean message with some does.
  std::vector<std::string> unread;
  // Whether one of them was left unread because a budget ran out (class
  // limit): the milter's --on-unread-limit.
  bool unread_limit = false;
  // For the incident desk (MessageScanner's `evidence`): per matched
  // passage its document and, with snippets, the outbound text around it;
  // at most kEvidencePerDocument passages per document and part
  // (incident_evidence.h).
  std::vector<IncidentMatch> evidence;
  std::string error;        // for kError: why
  bool duplicate = false;   // reused from the duplicate cache
  double milliseconds = 0;  // extraction and scan
};

const char* VerdictName(MessageVerdict::Kind kind);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_VERDICT_H_
