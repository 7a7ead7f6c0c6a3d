// ExpandDirectoryGroups: a policy whose directory groups ([groups] NAME =
// { directory = "DN" }) are filled with their members' addresses, read
// from the directory (directory.h). The gateway calls it at start, when
// the policy changes and once the members are older than the directory's
// cache_seconds, on its reload thread: a message is never held up by the
// directory. A group that cannot be read keeps the addresses it had in
// `previous` (the same group, the same DN), or none: its exceptions then
// do not apply, which errs on the side of judging the mail.
//
// Thread-safety: a function of its arguments (the directory is read).
#ifndef LEAKHOUND_CLI_GATEWAY_DIRECTORY_GROUPS_H_
#define LEAKHOUND_CLI_GATEWAY_DIRECTORY_GROUPS_H_

#include <string>
#include <vector>

#include "cli/gateway/directory.h"
#include "cli/policy/policy.h"

namespace leakhound {

// `errors` gets one line per group that could not be read.
// REQUIRES: `previous` is null or a policy this function returned.
Policy ExpandDirectoryGroups(const Policy& policy, const Directory& directory,
                             const Policy* previous,
                             std::vector<std::string>* errors);

// The directory of `policy` with its bind password read from its file;
// an error when the file cannot be read.
absl::StatusOr<Directory> OpenDirectory(const DirectorySettings& settings);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DIRECTORY_GROUPS_H_
