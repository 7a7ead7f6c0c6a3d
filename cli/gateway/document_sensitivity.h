// DocumentSensitivity: the sensitivity labels a protected document takes
// when it is added (docs/labels.md), and the same as the policy reads
// them of a matched document.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_GATEWAY_DOCUMENT_SENSITIVITY_H_
#define LEAKHOUND_CLI_GATEWAY_DOCUMENT_SENSITIVITY_H_

#include <optional>
#include <string>
#include <vector>

#include "cli/formats/extraction.h"
#include "cli/policy/policy_evaluator.h"
#include "index/records.h"

namespace leakhound {

// `given` (add --sensitivity: a label id or a name) when set, else the
// enabled labels of `extraction`'s parts, each once.
std::vector<LabelRecord> SensitivityOf(const Extraction& extraction,
                                       const std::optional<std::string>& given);

// `labels` as the policy's facts.
std::vector<LabelFact> SensitivityFacts(const std::vector<LabelRecord>& labels);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DOCUMENT_SENSITIVITY_H_
