// PolicySource: the policy a daemon applies now, read from its file and
// re-read on reload (SIGHUP, --reload-seconds). A file that no longer
// parses keeps the previous policy in force: Reload returns its
// FILE:LINE error for the log and counts the failure. Without a file the
// built-in policy (the command-line flags' equivalent) stays.
//
// Thread-safety: Current, Reload and failures may be called from any
// thread; a Policy handed out by Current is immutable and stays valid
// while the caller holds it.
#ifndef LEAKHOUND_CLI_POLICY_POLICY_SOURCE_H_
#define LEAKHOUND_CLI_POLICY_POLICY_SOURCE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cli/policy/policy.h"

namespace leakhound {

class PolicySource {
 public:
  // Reads the policy at `path`; an empty path serves `builtin`. Errors:
  // those of ReadPolicyFile (FILE:LINE messages).
  static absl::StatusOr<std::unique_ptr<PolicySource>> Open(
      const std::string& path, Policy builtin);

  std::shared_ptr<const Policy> Current() const ABSL_LOCKS_EXCLUDED(mu_);

  // Re-reads the file: true when its text changed and the new policy is
  // in force, false when it is unchanged (or there is no file). On an
  // error the previous policy stays in force and the failure is counted.
  absl::StatusOr<bool> Reload() ABSL_LOCKS_EXCLUDED(mu_);

  // Reloads that failed since Open.
  uint64_t failures() const { return failures_.load(); }
  const std::string& path() const { return path_; }

 private:
  PolicySource(std::string path, std::shared_ptr<const Policy> policy,
               std::string text);

  const std::string path_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const Policy> policy_ ABSL_GUARDED_BY(mu_);
  std::string text_ ABSL_GUARDED_BY(mu_);  // the file as last applied
  std::atomic<uint64_t> failures_{0};
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_SOURCE_H_
