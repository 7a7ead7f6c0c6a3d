// MessageScanner, which decides what the mail gateway makes of one message
// (its MessageVerdict, verdict.h): the message is extracted as e-mail
// (cli/formats: body, attachments, forwarded messages, each a part), each
// part scanned against the current index snapshot (index_holder.h), and
// the verdict remembered in the duplicate cache (duplicate_cache.h) so
// that the same text sent again within the window is not scanned again.
//
// Thread-safety: MessageScanner::Scan may run concurrently. LeakScanners
// (not thread-safe) are kept in a pool, one per scan in flight, so their
// number is bounded by the scans running at once (the server's
// --max-concurrent), not by the connections; one built on an index
// instance that has since been swapped out is rebuilt.
#ifndef LEAKHOUND_CLI_GATEWAY_MESSAGE_VERDICT_H_
#define LEAKHOUND_CLI_GATEWAY_MESSAGE_VERDICT_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cli/formats/extraction.h"
#include "cli/formats/text_extractor.h"
#include "cli/gateway/decision.h"
#include "cli/gateway/index_holder.h"
#include "cli/gateway/verdict.h"
#include "cli/incidents/incident.h"
#include "cli/policy/policy_evaluator.h"
#include "cli/records/data_scanner.h"
#include "engine/scan/leak_scanner.h"

namespace leakhound {

class DuplicateCache;
class IndexHolder;


// Adds what the policy reads of `report`'s matches (read in `index`) to
// `matched`: per document its labels, its words summed over the reports
// added and its largest share; a protected location as "location PREFIX".
void AddMatchedFindings(const ProtectedIndex& index, const ScanReport& report,
                        std::vector<MatchedDocument>* matched);

// Adds what the label conditions read of `part` scanned as `report` to
// `parts` (docs/labels.md): its enabled labels, whether it can carry one,
// the documents it quotes; nothing for a part with none of these.
void AddPartFacts(const ExtractedPart& part, const ScanReport& report,
                  std::vector<PartFacts>* parts);

// Adds what `report` and `data` sent of each protected document and table
// to `spans` (the drip ledger's, drip_ledger.h): one span per passage
// (its source token range), one per table row.
void AddDripSpans(const ScanReport& report, const DataFindings& data,
                  std::vector<DripSpan>* spans);

// The policy's decision as an incident records it: the highest severity
// ("" when no rule matched), every rule that matched, and what monitor
// rules would have done ("" when none matched); and the documents' facts.
struct DecisionRecord {
  std::string severity;
  std::vector<IncidentRule> rules;
  std::string would_action;
};
// `documents`: the facts the decision was made on (each rule's qualifying
// documents index them).
DecisionRecord RecordOf(const PolicyDecision& decision,
                        const std::vector<MatchedDocument>& documents);
// The facts an incident keeps of `facts` (incident.h, IncidentDocument):
// the documents, then the tables' rows and the identifiers' values.
std::vector<IncidentDocument> FactsRecord(const VerdictFacts& facts);

// Whether a judged verdict is recorded as an incident: not clean, with
// parts left unread, or matched by a rule (data identifiers alone make no
// leak of a document, but a rule on them decides the message).
bool Eventful(const MessageVerdict& v, const PolicyDecision& decision);

// The override a judged verdict offers (docs/overrides.md): the
// decision's override rule's, when `action` stops the message; valid for
// its hours (mail) or minutes (web, `channel` "web") from `now_ms`.
// Kind "" when none.
IncidentOverride OfferOf(const PolicyDecision& decision, Disposition action,
                         const std::string& channel, int64_t now_ms);

// The incident of a judged verdict, as every channel records it: the
// kind (leak, error, unread), `action` carried out, `reference`, the
// policy in force (may be null) and its decision (RecordOf), the facts,
// and the matches: the verdict's evidence (taken from `v`) or, without
// evidence, one per matched document. The channel fills in where it came
// from and the detail.
Incident JudgedIncident(std::string source, MessageVerdict& v,
                        Disposition action, std::string reference,
                        const Policy* policy, const PolicyDecision& decision);

// What a verdict keeps of a leak's passages.
enum class Evidence { kNone, kOffsets, kSnippets };

class MessageScanner {
 public:
  // `holder` and `cache` (may be null: no duplicate suppression) must
  // outlive the scanner.
  MessageScanner(IndexHolder* holder, DuplicateCache* cache,
                 const ScanOptions& options, const ExtractionLimits& limits,
                 Evidence evidence = Evidence::kNone);

  // Scans one RFC 5322 message (headers and body as received). Never
  // fails: a message that cannot be read is a kError verdict with the
  // reason, never clean.
  MessageVerdict Scan(std::string_view message) const;
  // As Scan, for a file of any kind (`name` for its extension; its
  // content decides the reader): `policy explain`, uploads.
  MessageVerdict ScanFile(std::string_view name, std::string bytes) const;
  // As Scan, for what `extract` reads (given the scanner's limits): a web
  // request's body (cli/web). `extract` runs on the calling thread.
  MessageVerdict ScanExtracted(
      const std::function<absl::StatusOr<Extraction>(const ExtractionLimits&)>&
          extract) const;
  // The data identifiers to count from now on (the policy's: gateway
  // calls it at start and on each policy reload). Before the first call:
  // BuiltInIdentifiers().
  void SetIdentifiers(std::vector<IdentifierSpec> identifiers)
      ABSL_LOCKS_EXCLUDED(pool_mu_);

 private:
  struct PooledScanner {
    uint64_t serial = 0;  // IndexHolder::Snapshot::serial it was built on
    std::unique_ptr<LeakScanner> scanner;
    // The records scanner of the same instance, for identifiers_version_
    // data_version, with its session.
    uint64_t data_version = 0;
    std::unique_ptr<DataScanner> data;
    std::unique_ptr<DataScanner::Session> data_session;
  };
  // `local` made ready for `snapshot`'s instance; an error if a scanner
  // cannot be built.
  absl::Status Prepare(const IndexHolder::Snapshot& snapshot,
                       PooledScanner& local) const
      ABSL_LOCKS_EXCLUDED(pool_mu_);

  // Scan without the timing, from the extraction.
  MessageVerdict Judge(absl::StatusOr<Extraction> extraction) const;
  // An idle scanner from the pool (an empty one when none is idle), and
  // back after reading `text_bytes`: the pool keeps at most 2 per core,
  // and a scanner that read more than kLargeMessageBytes gives up its
  // buffers.
  PooledScanner TakeScanner() const ABSL_LOCKS_EXCLUDED(pool_mu_);
  void GiveBack(PooledScanner scanner, size_t text_bytes) const
      ABSL_LOCKS_EXCLUDED(pool_mu_);
  static constexpr size_t kLargeMessageBytes = size_t{1} << 20;
  // Adds one part's matches, location findings and records to `v` (a
  // leak), with their evidence as evidence_ asks.
  void AddFindings(const ProtectedIndex& index, const ExtractedPart& part,
                   const ScanReport& report, const DataFindings& data,
                   MessageVerdict* v) const;

  IndexHolder* holder_;
  DuplicateCache* cache_;
  const ScanOptions options_;
  const ExtractionLimits limits_;
  const Evidence evidence_;
  mutable absl::Mutex pool_mu_;
  // Idle scanners.
  mutable std::vector<PooledScanner> pool_ ABSL_GUARDED_BY(pool_mu_);
  std::shared_ptr<const std::vector<IdentifierSpec>> identifiers_
      ABSL_GUARDED_BY(pool_mu_);
  uint64_t identifiers_version_ ABSL_GUARDED_BY(pool_mu_) = 1;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_MESSAGE_VERDICT_H_
