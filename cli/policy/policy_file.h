// ReadPolicyFile / ParsePolicy: a policy from its TOML file (docs/
// policy.md has the format). Every mistake is InvalidArgument with a
// message "FILE:LINE: ...": a syntax error, an unknown key, a value of the
// wrong type, an unknown severity, mode or action, a malformed address
// pattern, a group no one defined, a rule without a name. toml++ is called
// only in policy_file.cc.
//
// Thread-safety: pure functions.
#ifndef LEAKHOUND_CLI_POLICY_POLICY_FILE_H_
#define LEAKHOUND_CLI_POLICY_POLICY_FILE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/policy/policy.h"

namespace leakhound {

// Every mistake of `text` ("FILE:LINE: message", in file order), and the
// policy when there is none.
struct PolicyReport {
  std::optional<Policy> policy;
  std::vector<std::string> errors;  // "FILE:LINE: ...", in line order
  std::vector<uint32_t> error_lines;  // per error, the policy's line
  // With errors: what could be read, for the checks that go on past them
  // (`policy check` reports every mistake in one run).
  std::optional<Policy> parsed;
};
PolicyReport CheckPolicy(std::string_view text, const std::string& path);

// `text` as a policy; `path` names it in messages. The error is the
// first of CheckPolicy's.
absl::StatusOr<Policy> ParsePolicy(std::string_view text,
                                   const std::string& path);

// The text of the file at `path`; NotFound when it cannot be read.
absl::StatusOr<std::string> ReadPolicyText(const std::string& path);

// The file at `path` (ReadPolicyText, then ParsePolicy).
absl::StatusOr<Policy> ReadPolicyFile(const std::string& path);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_FILE_H_
