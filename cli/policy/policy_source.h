// PolicySource: the policy a daemon applies now, read from its file (or
// from the fleet's desk, through a Reader: docs/fleet.md) and re-read on
// reload (SIGHUP, --reload-seconds). A text that cannot be read or no
// longer parses keeps the previous policy in force: Reload returns its
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
#include <functional>
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

  // A policy's text and where it came from.
  struct Text {
    std::string name;     // Policy::path: the file, or "desk vN"
    std::string text;     // TOML
    int64_t version = 0;  // the desk's version; 0 for a file
  };
  using Reader = std::function<absl::StatusOr<Text>()>;
  // Reads the policy `reader` gives now, and again on each Reload.
  // `reader` is called from Open's and Reload's threads.
  static absl::StatusOr<std::unique_ptr<PolicySource>> OpenReader(
      Reader reader);

  std::shared_ptr<const Policy> Current() const ABSL_LOCKS_EXCLUDED(mu_);

  // Re-reads the file: true when its text changed and the new policy is
  // in force, false when it is unchanged (or there is no file). On an
  // error the previous policy stays in force and the failure is counted.
  absl::StatusOr<bool> Reload() ABSL_LOCKS_EXCLUDED(mu_);

  // Reloads that failed since Open.
  uint64_t failures() const { return failures_.load(); }
  const std::string& path() const { return path_; }
  // SHA-256 (hex) of the text in force ("" for the built-in policy), and
  // the desk's version it came from (0: a file or built in).
  std::string digest() const ABSL_LOCKS_EXCLUDED(mu_);
  int64_t version() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  PolicySource(std::string path, Reader reader,
               std::shared_ptr<const Policy> policy, Text text);

  const std::string path_;
  const Reader reader_;  // null: the built-in policy
  mutable absl::Mutex mu_;
  std::shared_ptr<const Policy> policy_ ABSL_GUARDED_BY(mu_);
  Text text_ ABSL_GUARDED_BY(mu_);  // as last applied
  std::atomic<uint64_t> failures_{0};
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_POLICY_POLICY_SOURCE_H_
