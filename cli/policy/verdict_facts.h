// VerdictFacts: what a policy's rules read of one verdict (what was
// caught, in which part, in which channel, from whom, to whom), as every
// channel and tool computes it (cli/gateway/decision.h) and incidents
// keep it for `policy replay`.
//
// Thread-safety: plain values.
#ifndef LEAKHOUND_CLI_POLICY_VERDICT_FACTS_H_
#define LEAKHOUND_CLI_POLICY_VERDICT_FACTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace leakhound {

// A sensitivity label as a file carries it (docs/labels.md): its id (a
// GUID, lower case) and the name the file gives it ("" when none; an
// admin's `add --sensitivity NAME` gives a name alone). The policy's
// [labels] names and ranks it (label_conditions.h).
struct LabelFact {
  std::string id;
  std::string name;
  bool operator==(const LabelFact&) const = default;
};

// One protected document a verdict matched.
struct MatchedDocument {
  std::string id;
  std::vector<std::string> labels;
  uint32_t words = 0;  // covered words of its largest passage group
  double share = 0;    // of the document's text, 0..1
  // Its own sensitivity label, read from the file at `add` or given.
  std::vector<LabelFact> sensitivity = {};
};

// One part of a message (its own text, an attachment, an upload) as the
// label conditions read it.
struct PartFacts {
  std::string name;                    // "" for the message's own part
  bool labellable = false;             // a format that can carry a label
  std::vector<LabelFact> labels;       // the enabled ones
  std::vector<std::string> documents;  // ids of protected documents quoted
  bool operator==(const PartFacts&) const = default;
};

// What one sender (or domain) has sent of one protected document (or one
// table, "table NAME") within `days`, this message included: distinct
// words (tokens of the document) and their share of it, or distinct rows;
// and the references of the earlier messages that added to it, oldest
// first.
struct CumulativeFact {
  std::string per;  // "sender" or "sender-domain"
  uint32_t days = 0;
  std::string target;
  uint32_t words = 0;
  double share = 0;
  uint32_t rows = 0;
  std::vector<std::string> earlier = {};
  bool operator==(const CumulativeFact&) const = default;
};

// What a rule can read of one verdict.
struct VerdictFacts {
  std::string channel;  // "mail", "scan", "web"
  // Lower case. Mail: the envelope sender ("" when none) and recipients;
  // web: the proxy's authenticated user and the destination host (a
  // recipient without '@' is a host, its own domain).
  std::string sender;
  std::vector<std::string> recipients;
  std::vector<MatchedDocument> documents;
  // The parts with a label, of a format that can carry one, or quoting a
  // protected document (docs/labels.md).
  std::vector<PartFacts> parts;
  // The cumulative sums of the sender's (or domain's) earlier messages
  // with this one (cumulative conditions; the drip ledger fills them).
  std::vector<CumulativeFact> cumulative;
  // Rows of protected tables matched, per table (docs/records.md).
  std::vector<std::pair<std::string, uint32_t>> records;
  // Distinct valid values per data identifier found.
  std::vector<std::pair<std::string, uint32_t>> identifiers;
  bool unread = false;
  bool unread_limit = false;  // some were left unread for lack of time
  bool error = false;
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_VERDICT_FACTS_H_
