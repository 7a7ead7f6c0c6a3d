// LintPolicy: what `leakhound policy check` finds in a policy that parsed:
// rules that can never match (mistakes: among them a table the index does
// not protect) and labels no protected document carries (warnings: a label
// may be added later). Each finding is
// "FILE:LINE: message" with the line of its rule.
//
// Thread-safety: a pure function.
#ifndef LEAKHOUND_CLI_POLICY_POLICY_LINT_H_
#define LEAKHOUND_CLI_POLICY_POLICY_LINT_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "cli/policy/policy.h"

namespace leakhound {

struct PolicyFinding {
  bool mistake = false;  // else a warning
  uint32_t line = 0;     // the rule's
  std::string message;   // "FILE:LINE: ..."
};

// What an index holds that rules name: every label of its documents and
// the names of its protected tables.
struct IndexNames {
  std::set<std::string> labels;
  std::set<std::string> tables;
};

// `index`: null when no index was given (labels and tables are not
// checked). A label no document has is a warning (one may be added
// later); a table the index does not protect is a mistake (its name is
// mistyped: the rule can never match), with the names it has.
std::vector<PolicyFinding> LintPolicy(const Policy& policy,
                                      const IndexNames* index);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_LINT_H_
