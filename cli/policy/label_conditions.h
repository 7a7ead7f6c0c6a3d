// LabelConditions: the sensitivity-label conditions of a rule
// (docs/labels.md) on a verdict's facts: `sensitivity`,
// `sensitivity_at_least`, `unlabelled_attachment` and `label_downgrade`,
// with labels named and ranked by the policy's [labels] table.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_POLICY_LABEL_CONDITIONS_H_
#define LEAKHOUND_CLI_POLICY_LABEL_CONDITIONS_H_

#include <optional>
#include <string>

#include "cli/policy/policy.h"
#include "cli/policy/verdict_facts.h"

namespace leakhound {

// The name rules use for `label`: the [labels] table's for its id, else
// the name the file gives it, else its id.
std::string LabelName(const LabelSettings& settings, const LabelFact& label);

// The rank of the label named `name` in [labels] order (0: the least
// sensitive), compared without case; nullopt when it is not listed.
std::optional<size_t> LabelRank(const LabelSettings& settings,
                                const std::string& name);

// Whether `c` has a label condition.
bool HasLabelConditions(const PolicyConditions& c);

// Whether the label conditions of `c` hold for `facts`; if not, and `why`
// is not null, the first that does not, as "CONDITION: why".
bool LabelsHold(const LabelSettings& settings, const PolicyConditions& c,
                const VerdictFacts& facts, std::string* why);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_LABEL_CONDITIONS_H_
