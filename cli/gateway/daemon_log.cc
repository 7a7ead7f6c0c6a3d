#include "cli/gateway/daemon_log.h"

#include <syslog.h>

#include <cstdio>
#include <utility>

#include "cli/gateway/printable.h"

namespace leakhound {

DaemonLog::DaemonLog(std::string name, bool use_syslog)
    : name_(std::move(name)), syslog_(use_syslog) {
  if (syslog_) ::openlog("leakhound", LOG_PID, LOG_MAIL);
}

DaemonLog::DaemonLog(std::string name,
                     std::function<void(const std::string&)> writer)
    : name_(std::move(name)), syslog_(false), writer_(std::move(writer)) {}

std::unique_ptr<DaemonLog> DaemonLog::WritingTo(
    std::string name, std::function<void(const std::string&)> writer) {
  return std::unique_ptr<DaemonLog>(
      new DaemonLog(std::move(name), std::move(writer)));
}

void DaemonLog::Write(const std::string& raw) const {
  // One line: a subject, a file name or a URL in it cannot forge one.
  const std::string line = Printable(raw);
  absl::MutexLock lock(&mu_);
  if (writer_) {
    writer_(name_ + ": " + line);
  } else if (syslog_) {
    ::syslog(LOG_INFO, "%s", line.c_str());
  } else {
    std::fprintf(stderr, "%s: %s\n", name_.c_str(), line.c_str());
  }
}

}  // namespace leakhound
