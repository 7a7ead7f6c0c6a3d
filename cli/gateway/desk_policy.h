// DeskPolicyReader: `--policy desk` (docs/fleet.md): a PolicySource::Reader
// that reads the newest policy published to the fleet's desk (the incident
// store at `store`, `leakhound policy publish`), and keeps a copy of each
// one read in `cache` (owner-only), so that a gateway started while the
// desk is unreachable runs the policy it last had. The reader fails (and
// the running policy stays) when the desk cannot be read and the cache
// holds nothing newer than what runs.
//
// Thread-safety: the reader may be called from any thread, one call at a
// time.
#ifndef LEAKHOUND_CLI_GATEWAY_DESK_POLICY_H_
#define LEAKHOUND_CLI_GATEWAY_DESK_POLICY_H_

#include <string>

#include "cli/policy/policy_source.h"

namespace leakhound {

// The value of --policy (and Policy in c-icap's configuration) that
// selects the desk's policy.
inline constexpr char kDeskPolicy[] = "desk";

// Where the cached copy lives beside the index `index_dir`.
std::string DeskPolicyCachePath(const std::string& index_dir);

PolicySource::Reader DeskPolicyReader(std::string store, std::string cache);

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DESK_POLICY_H_
