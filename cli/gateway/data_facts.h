// DataFacts: what the records scanner (cli/records) found, as the policy
// reads it, and the identifiers a policy asks the scanner for: the
// built-in ones and the policy's [[identifier]] definitions
// (docs/records.md).
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_GATEWAY_DATA_FACTS_H_
#define LEAKHOUND_CLI_GATEWAY_DATA_FACTS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "cli/policy/policy.h"
#include "cli/policy/policy_evaluator.h"
#include "cli/records/data_identifiers.h"
#include "cli/records/data_scanner.h"

namespace leakhound {

// BuiltInIdentifiers() and those `policy` (may be null) defines.
// InvalidArgument "PATH:LINE: ..." for an unknown validator, a name
// defined twice or a built-in's name, or a rule's condition naming an
// identifier that is neither.
absl::StatusOr<std::vector<IdentifierSpec>> PolicyIdentifiers(
    const Policy* policy);

// Adds `found`'s rows per table and distinct identifiers to `facts`,
// summing with what is there (a message's parts).
void AddDataFacts(const DataFindings& found, VerdictFacts* facts);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DATA_FACTS_H_
