// Address patterns and group files of a policy (docs/policy.md, "Groups"):
// the check of one user@domain or @domain pattern, and the members of a
// group kept in a file beside the policy.
//
// Thread-safety: pure functions, but ReadGroupFile, which reads a file.
#ifndef LEAKHOUND_CLI_POLICY_GROUP_FILE_H_
#define LEAKHOUND_CLI_POLICY_GROUP_FILE_H_

#include <optional>
#include <string>
#include <vector>

namespace leakhound {

// Why `pattern` (lower case) is no user@domain or @domain pattern, or
// nullopt; on success it is rewritten with its domain's ASCII form.
std::optional<std::string> AddressPatternError(std::string& pattern);

// The members of the group file `file` (`{ file = "legal.txt" }`): one
// address pattern per line, '#' comments; relative to the folder of the
// policy at `policy_path`; the file must be trusted (index/
// trusted_path.h). Why the file cannot be read goes to `error`; a line's
// mistake to `line_errors`, as "PATH:LINE: why".
std::vector<std::string> ReadGroupFile(const std::string& policy_path,
                                       const std::string& file,
                                       std::string* error,
                                       std::vector<std::string>* line_errors);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_GROUP_FILE_H_
