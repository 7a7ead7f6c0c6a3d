// DaemonLog: where a long-running channel (the milter, the console) writes
// its log lines: syslog (mail facility, tagged "leakhound") or standard
// error, each line prefixed with the daemon's name ("leakhound milter: "),
// or a host's own log (the c-icap service writes to c-icap's).
//
// Thread-safety: Write may be called from any thread; lines never
// interleave.
#ifndef LEAKHOUND_CLI_GATEWAY_DAEMON_LOG_H_
#define LEAKHOUND_CLI_GATEWAY_DAEMON_LOG_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace leakhound {

class DaemonLog {
 public:
  // `name` is the daemon's, as in "leakhound milter"; with `use_syslog`
  // the lines go to syslog (openlog is called here), else to stderr.
  DaemonLog(std::string name, bool use_syslog);
  // A log whose lines go to `writer` (called under the log's lock),
  // prefixed with `name`. REQUIRES: `writer` is callable from any thread.
  static std::unique_ptr<DaemonLog> WritingTo(
      std::string name, std::function<void(const std::string&)> writer);
  DaemonLog(const DaemonLog&) = delete;
  DaemonLog& operator=(const DaemonLog&) = delete;

  void Write(const std::string& line) const ABSL_LOCKS_EXCLUDED(mu_);

  // Write as a function, for the parts that take one.
  // REQUIRES: the DaemonLog outlives every copy of the function.
  std::function<void(const std::string&)> Sink() const {
    return [this](const std::string& line) { Write(line); };
  }

 private:
  DaemonLog(std::string name, std::function<void(const std::string&)> writer);

  const std::string name_;
  const bool syslog_;
  const std::function<void(const std::string&)> writer_;  // may be empty
  mutable absl::Mutex mu_;  // serializes the writes to stderr
};

}  // namespace leakhound

#endif  // LEAKHOUND_CLI_GATEWAY_DAEMON_LOG_H_
