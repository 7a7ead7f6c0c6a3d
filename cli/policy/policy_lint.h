// LintPolicy: what `leakhound policy check` finds in a policy that parsed:
// rules that can never match (mistakes) and labels no protected document
// carries (warnings: a label may be added later). Each finding is
// "FILE:LINE: message" with the line of its rule.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_POLICY_POLICY_LINT_H_
#define LEAKHOUND_CLI_POLICY_POLICY_LINT_H_

#include <set>
#include <string>
#include <vector>

#include "cli/policy/policy.h"

namespace leakhound {

struct PolicyFinding {
  bool mistake = false;  // else a warning
  std::string message;   // "FILE:LINE: ..."
};

// `labels`: every label of the index's documents; null when no index was
// given (labels are not checked).
std::vector<PolicyFinding> LintPolicy(const Policy& policy,
                                      const std::set<std::string>* labels);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_LINT_H_
