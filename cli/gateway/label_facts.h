// LabelFacts: the sensitivity-label facts of a verdict (docs/labels.md)
// as an incident keeps them, so that `policy replay` reads what the
// gateway read: each part's labels and the documents it quotes as a fact
// "part NAME", and a matched document's own sensitivity among its
// labels. PERSISTED encoding (docs/storage_format.md): a part fact's
// labels are "label:ID<TAB>NAME", "quotes:DOCUMENT" and "labellable";
// a document's, "sensitivity:ID<TAB>NAME".
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_GATEWAY_LABEL_FACTS_H_
#define LEAKHOUND_CLI_GATEWAY_LABEL_FACTS_H_

#include <string>
#include <vector>

#include "cli/incidents/incident.h"
#include "cli/policy/policy_evaluator.h"

namespace leakhound {

// The incident fact of `part`.
IncidentDocument PartFactRecord(const PartFacts& part);

// The part facts of `fact`, when it is one (its document starts with
// kPartFactPrefix).
bool ReadPartFact(const IncidentDocument& fact, PartFacts* part);

// `document`'s labels with its sensitivity appended as the incident
// keeps them.
std::vector<std::string> LabelsWithSensitivity(const MatchedDocument& document);

// Moves the sensitivity entries of `document->labels` into its
// sensitivity.
void TakeSensitivity(MatchedDocument* document);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_LABEL_FACTS_H_
