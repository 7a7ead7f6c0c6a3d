// The one file that calls libsystemd.
#include "cli/gateway/service_notifier.h"

#include <systemd/sd-daemon.h>

namespace leakhound {

ServiceNotifier::ServiceNotifier()
    : last_ping_(std::chrono::steady_clock::now()) {
  uint64_t usec = 0;
  if (sd_watchdog_enabled(0, &usec) > 0) {
    interval_ = std::chrono::microseconds(usec);
  }
}

void ServiceNotifier::Ready(const std::string& status) {
  sd_notify(0, ("READY=1\nSTATUS=" + status).c_str());
}

void ServiceNotifier::Status(const std::string& status) {
  sd_notify(0, ("STATUS=" + status).c_str());
}

void ServiceNotifier::Stopping() { sd_notify(0, "STOPPING=1"); }

void ServiceNotifier::MaybePing() {
  if (!watchdog()) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ping_ >= interval_ / 2) {
    sd_notify(0, "WATCHDOG=1");
    last_ping_ = now;
  }
}

}  // namespace leakhound
